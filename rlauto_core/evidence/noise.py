"""The significant-call filter: background calls the model should never see, by category.

MCP names follow the seed's blacklist and are matched with server prefixes stripped
(`discord_start_typing` is `start_typing`). HTTP noise is static assets, images, fonts,
analytics beacons, preflights, 304s, websocket upgrades, page documents (also Turbo Drive and
htmx-boosted visits), prefetches and partial-page polling; a form posted as a page navigation is
no page load but a write.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from rlauto_core.evidence.classify import name_tokens
from rlauto_core.forms import WRITE_METHODS, effective_method, field_names, page_load, read_fields
from rlauto_core.recording import HttpCall, ToolCall

_MCP_EXACT: dict[str, str] = {
    "login": "auth", "logout": "auth", "refresh_token": "auth", "get_session": "session", "whoami": "auth",
    "get_current_user": "auth", "get_self": "auth", "get_me": "auth", "me": "auth", "auth_test": "auth",
    "default_config": "config", "get_config": "config", "start_typing": "typing", "stop_typing": "typing",
    "set_typing": "typing", "presence": "presence", "heartbeat": "heartbeat", "ping": "heartbeat",
    "page_load": "telemetry", "page_view": "telemetry",
}  # fmt: skip
_MCP_PREFIXES: tuple[tuple[str, str], ...] = (
    ("get_pending_", "pending"), ("list_pending_", "pending"), ("telemetry_", "telemetry"),
    ("init_", "bootstrap"), ("bootstrap_", "bootstrap"), ("auth_", "auth"), ("session_", "session"),
)  # fmt: skip
_MCP_TOKENS: dict[str, str] = {
    "typing": "typing", "presence": "presence", "heartbeat": "heartbeat", "ping": "heartbeat",
    "telemetry": "telemetry", "keepalive": "heartbeat",
}  # fmt: skip


def mcp_noise_category(call: ToolCall) -> str | None:
    name = call.tool.lower()
    tokens = [t for t in re.split(r"[^a-z0-9]+", name) if t]
    # the raw name and the name with one or two prefix tokens (server names) removed
    candidates = ["_".join(tokens[k:]) for k in range(min(3, len(tokens)))]
    for candidate in candidates:
        if candidate in _MCP_EXACT:
            return _MCP_EXACT[candidate]
        for prefix, category in _MCP_PREFIXES:
            if candidate.startswith(prefix):
                return category
    for token in name_tokens(call.tool):
        if token in _MCP_TOKENS:
            return _MCP_TOKENS[token]
    return None


_STATIC_EXT = {"js", "mjs", "css", "map", "html", "htm"}
_IMAGE_EXT = {"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "avif", "bmp", "tif", "tiff"}
_FONT_EXT = {"woff", "woff2", "ttf", "otf", "eot"}
_MEDIA_EXT = {"mp4", "webm", "mp3", "ogg", "wav", "m3u8", "ts", "m4s"}
_RESOURCE_TYPES = {
    "script": "static", "stylesheet": "static", "document": "document", "image": "image", "img": "image",
    "font": "font", "media": "media", "ping": "analytics", "beacon": "analytics", "websocket": "websocket",
    "manifest": "static", "texttrack": "media", "csp_violation_report": "analytics", "favicon": "image",
}  # fmt: skip
_ANALYTICS_HOSTS = (
    "google-analytics.com", "googletagmanager.com", "analytics.google.com", "doubleclick.net", "segment.io",
    "segment.com", "mixpanel.com", "amplitude.com", "sentry.io", "datadoghq.com", "browser-intake",
    "hotjar.com", "hotjar.io", "newrelic.com", "nr-data.net", "fullstory.com", "heapanalytics.com",
    "posthog.com", "clarity.ms", "intercom.io", "facebook.com/tr", "bat.bing.com", "stats.g.doubleclick",
    "rum.", "telemetry.", "analytics.", "metrics.", "events.launchdarkly",
)  # fmt: skip
_ANALYTICS_HOST_RE = re.compile("|".join(re.escape(marker) for marker in _ANALYTICS_HOSTS))
_ANALYTICS_PATH = re.compile(
    r"/(collect|beacon|track|tracking|telemetry|analytics|metrics|rum|pixel|log_event|logevent|"
    r"event_batch|events/batch|v1/(t|p|i|batch)|g/collect|j/collect|sentry|envelope|cdn-cgi/rum|_vercel/insights)(/|$|\?)",
    re.IGNORECASE,
)
# singular `event`/`insights` endpoints answered 202/204 are fire-and-forget beacons
_BEACON_PATH = re.compile(r"/(event|insights/\w+|_vercel/insights/\w+|vitals|ingest)$", re.IGNORECASE)
_SESSION_PATH = re.compile(r"/sessions?/?$", re.IGNORECASE)
_AUTH_PATH = re.compile(
    r"/(login|logout|signin|signout|sign[-_]in|sign[-_]out|log[-_]in|log[-_]out|oauth2?/token|token/refresh|"
    r"refresh[-_]?token|auth/refresh|"
    r"session/refresh|csrf|csrf-token|whoami|me)/?$",
    re.IGNORECASE,
)


_KEEPALIVE_ACTIONS = frozenset(["heartbeat", "ping", "keepalive", "keep_alive", "keep-alive"])


def _dispatched_keepalive(call: HttpCall) -> bool:
    """A dispatcher endpoint asked to keep the session alive by its `action` field (WordPress's
    `admin-ajax.php` with `action=heartbeat` every minute): the route is in the body, as GraphQL's is."""
    body = call.request_body
    if not body or "action" not in body or len(body) > 4096 or call.request_body_encoding != "text":
        return False
    fields = read_fields(body, "text", call.header("content-type"))
    if fields is None and body.lstrip()[:1] == "{":
        try:
            fields = json.loads(body)
        except ValueError:
            return False
    action = fields.get("action") if isinstance(fields, dict) else None
    return isinstance(action, str) and action.lower() in _KEEPALIVE_ACTIONS


def http_noise_category(call: HttpCall) -> str | None:
    method = call.method.upper()
    if method == "OPTIONS":
        return "preflight"
    status = call.status
    if status == 304:
        return "not_modified"
    url = call.url[:24].lower()  # the scheme is all the checks below need
    if status == 101 or url.startswith(("ws://", "wss://")) or (call.header("upgrade") or "").lower() == "websocket":
        return "websocket"
    if url.startswith(("data:", "blob:", "chrome-extension:", "moz-extension:", "about:")):
        return "browser_internal"
    if call.resource_type:
        by_type = _RESOURCE_TYPES.get(call.resource_type.lower())
        # a form posted as a page navigation is a write like any other (not a page load)
        if by_type and not (by_type == "document" and effective_method(call) in WRITE_METHODS):
            return by_type
    loaded = page_load(call) if method == "GET" else None
    if loaded is not None:
        return loaded  # a prefetch, or a Turbo Drive visit / htmx-boosted link: a page load made with fetch
    by_extension, static, analytics, beacon, auth = _by_location(call.host, call.path)
    if by_extension:
        return by_extension
    if static and method == "GET":
        return "static"
    if analytics:
        return "analytics"
    if beacon and method == "POST" and status in (202, 204):
        return "analytics"
    if auth or (method == "POST" and _signs_in(call)):
        return "auth"
    if method == "POST" and _dispatched_keepalive(call):
        return "heartbeat"
    if method == "GET":
        content_type = (call.header("content-type", response=True) or "").lower()
        if content_type.startswith("image/"):
            return "image"
        if content_type.startswith(("video/", "audio/")):
            return "media"
        if content_type.startswith(("font/", "text/css")):
            return "static"
    return None


def _signs_in(call: HttpCall) -> bool:
    """A form sending a password to `/session(s)` (Rails 8's sign-in route) signs in."""
    if _SESSION_PATH.search(call.path) is None:
        return False
    return any("password" in name.lower() for name in field_names(call) or [])


@lru_cache(maxsize=16384)  # recordings repeat the same endpoints; the regexes were the filter's cost
def _by_location(host: str, path: str) -> tuple[str | None, bool, bool, bool, bool]:
    """What the host and path alone say: (category by file extension, a static-file extension,
    analytics, a beacon path, an auth path)."""
    path = path.lower()
    last = path.rsplit("/", 1)[-1]
    extension = last.rsplit(".", 1)[-1] if "." in last else ""
    by_extension = (
        "image" if extension in _IMAGE_EXT
        else "font" if extension in _FONT_EXT
        else "media" if extension in _MEDIA_EXT
        else None
    )  # fmt: skip
    analytics = bool(_ANALYTICS_HOST_RE.search(host.lower() + path) or _ANALYTICS_PATH.search(path))
    return (
        by_extension,
        extension in _STATIC_EXT,
        analytics,
        _BEACON_PATH.search(path) is not None,
        _AUTH_PATH.search(path) is not None,
    )
