"""Secret redaction, the one set of rules: Authorization, Cookie and API-key headers, token-like
query parameters and keys, bearer tokens, JWTs and key formats in text, and the values of
secret-looking environment variables.

Redaction goes by what a value is, so it never changes the data a package is graded on: a field
whose name says credential (`password`, `api_key`, `access_token`, `csrf*`...) is redacted
whatever it holds (`is_secret_field`); a bare `key` or `code` (a Jira project key `ENG`, a space
key, a country code) only when its value has a credential's shape (a JWT, a known key prefix, a
long random string: `looks_like_credential`).

Used for everything a model sees, every `task.json` we write, model error messages, and
everything the dashboard shows (`Redactor`).
"""

from __future__ import annotations

import functools
import html
import itertools
import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit, urlunsplit

REDACTED = "[REDACTED]"

SECRET_HEADERS = frozenset(
    {
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "apikey",
        "x-auth-token", "x-access-token", "x-csrf-token", "x-xsrf-token", "x-amz-security-token",
        "x-goog-api-key", "openai-api-key", "x-session-token", "x-refresh-token",
    }
)  # fmt: skip
# Parameter and JSON key names whose values are credentials (matched on lowercase, `-`/`_` removed).
# `sig` alone or as an ending (`sig_v4`, `urlSig`), never as a prefix: `signup`, `signal`,
# `significant` are data.
# `pwd` alone or as an ending (`userpwd`); a session's key or id by its usual names (`session_key`,
# `sessionid`, PHP's `PHPSESSID`), Magento's `form_key` (`xsrf` is a CSRF name: `_CSRF_NAME`).
_SECRET_KEY_RE = re.compile(
    r"(token|secret|password|passwd|pwd$|apikey|accesskey|privatekey|authorization|cookie|sessionid|sessid|"
    r"sessionkey|formkey|signature|sig$|^sigv?\d+$|credential|^auth$|clientsecret|otp$)"
)
# Names that hold credentials and ordinary data alike: the value's shape decides.
_AMBIGUOUS_KEYS = frozenset({"key", "code"})
# `sid`: a session id (`sid=k3Jd9Qm2LxP0vRt7`), or a station, site or step id (`sid=KSFO`, `sid=4`)
_SESSION_ID_KEYS = frozenset({"sid"})
BEARER_RE = re.compile(r"(?i)\b(bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{8,})")
_JWT_RE = re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}")
# a token-like parameter inside free text (a URL quoted in a message)
QUERY_SECRET_RE = re.compile(
    r"(?i)([?&](?:access_token|refresh_token|id_token|token|api_key|apikey|sig|signature|"
    r"password|secret|client_secret|auth|session|sessionid|x-amz-signature|x-amz-credential|"
    r"x-amz-security-token)=)([^&#\s\"']*)"
)
# any other parameter inside free text: its name (and, for `key`, `code`, `sid`, its value) decides
QUERY_PARAM_RE = re.compile(r"([?&;])([\w.%\[\]-]{1,100})=([^&#\s\"']*)")
_KEYLIKE_RE = re.compile(
    r"\b(sk|pk|rk|xox[abprs]|ghp|gho|ghu|ghs|ghr|github_pat|glpat|AKIA|whsec|shpat|npm)[-_][A-Za-z0-9_-]{12,}"
    r"|\bAIza[0-9A-Za-z_-]{30,}"
)
_TOKEN_CHARS = re.compile(r"^[A-Za-z0-9_\-+/=.~]+$")
MIN_TOKEN_LENGTH = 20


def is_secret_header(name: str) -> bool:
    return name.lower() in SECRET_HEADERS


def is_secret_key(name: str) -> bool:
    normalized = name.lower().replace("-", "").replace("_", "")
    return bool(_SECRET_KEY_RE.search(normalized))


def is_secret_name(name: str) -> bool:
    """A header or field name whose value is a credential, whatever it holds (a bare `key` or `code`
    is not one: its value decides, `is_secret_field`)."""
    return is_secret_header(name.strip()) or is_secret_key(name)


def looks_like_session_id(value: str) -> bool:
    """A session id's shape: a credential's, or 12+ characters with no space mixing letters and
    digits (`k3Jd9Qm2LxP0`), not a short human value (`KSFO`, `S-4`, `ENG-42`)."""
    text = value.strip()
    if looks_like_credential(text):
        return True
    if len(text) < 12 or not _TOKEN_CHARS.match(text.replace("%", "").replace(":", "")):
        return False
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def looks_like_credential(value: str) -> bool:
    """A credential's shape: a JWT, a known key prefix, a bearer token, or a long random string
    (letters and digits interleaved, no spaces: `Yk3Jd9Qm2LxP0vRt7sWc4hNa`, not `release-2026-notes`)."""
    text = value.strip()
    if _JWT_RE.search(text) or _KEYLIKE_RE.search(text) or BEARER_RE.search(text):
        return True
    if len(text) < MIN_TOKEN_LENGTH or not _TOKEN_CHARS.match(text):
        return False
    switches = sum(1 for a, b in itertools.pairwise(text) if a.isalnum() and b.isalnum() and a.isdigit() != b.isdigit())
    return switches >= 4


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """Scrub known secret values, bearer tokens, JWTs, key formats, token-like query
    parameters and form secrets (redact_form_secrets) from free text."""
    text = redact_form_secrets(text)
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = BEARER_RE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _JWT_RE.sub(REDACTED, text)
    text = _KEYLIKE_RE.sub(REDACTED, text)
    text = QUERY_SECRET_RE.sub(lambda m: m.group(1) + REDACTED, text)
    text = _JSON_PAIR.sub(_json_pair, text) if ":" in text else text  # JSON too broken or deep to parse
    return QUERY_PARAM_RE.sub(_query_param, text)


_JSON_PAIR = re.compile(r'"([A-Za-z0-9_.\-\[\]]{1,64})"\s*:\s*"((?:[^"\\]|\\.){0,4000})"')


def _json_pair(match: re.Match[str]) -> str:
    name, value = match.group(1), match.group(2)
    return match.group(0) if not is_secret_field(name, value) else f'"{name}":"{REDACTED}"'


def _query_param(match: re.Match[str]) -> str:
    name, value = match.group(2), match.group(3)
    if value in ("", REDACTED) or not is_secret_field(unquote_plus(name), unquote_plus(value)):
        return match.group(0)
    return f"{match.group(1)}{name}={REDACTED}"


def redact_strings(value: Any, secrets: Iterable[str] = ()) -> Any:
    """`redact_text` on every string inside JSON-like `value` (lists, dicts), keys kept: for what
    a model wrote (a draft, a recipe), where no key name says which value is secret."""
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, list):
        return [redact_strings(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: redact_strings(v, secrets) for k, v in value.items()}
    return value


def redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    netloc = parts.netloc
    if "@" in netloc:  # credentials in the authority
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_field(k, v) for k, v in pairs):
            query = urlencode([(k, REDACTED if is_secret_field(k, v) else v) for k, v in pairs], safe="[]")
    return redact_text(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


def redact_json(value: Any, _depth: int = 0) -> Any:
    """A copy of a JSON value with secret keys, header pairs, URLs and tokens redacted."""
    if _depth > 64:
        return value
    if isinstance(value, dict):
        name = value.get("name")
        if "value" in value and isinstance(name, str) and is_secret_field(name, value["value"]):
            return {**value, "value": REDACTED}
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(key, str) and is_secret_field(key, item) and _is_scalar(item):
                out[key] = REDACTED if item not in (None, "") else item
            elif isinstance(key, str) and is_secret_key(key) and isinstance(item, list):
                # a HAR's `cookies: [{"name": "bsess", "value": ...}]`: the pair's name is the
                # cookie's own, so the key above the list says the values are credentials
                out[key] = [_pair_value_redacted(redact_json(entry, _depth + 1)) for entry in item]
            else:
                out[key] = redact_json(item, _depth + 1)
        return out
    if isinstance(value, list):
        return [redact_json(item, _depth + 1) for item in value]
    if isinstance(value, str):
        if value.startswith(("http://", "https://", "ws://", "wss://")):
            return redact_url(value)
        return redact_text(value)
    return value


def _pair_value_redacted(entry: Any) -> Any:
    if isinstance(entry, dict) and _is_scalar(entry.get("value")) and entry.get("value") not in (None, ""):
        return {**entry, "value": REDACTED}
    return entry


def _is_scalar(value: Any) -> bool:
    # numbers are never credentials ("max_tokens": 100 stays); strings are
    return value is None or isinstance(value, str)


def redact_body(body: str | None) -> str | None:
    """Redact a request/response body: JSON and form bodies by key, anything else as text."""
    if not body:
        return body
    stripped = body.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            return json.dumps(redact_json(json.loads(body)), ensure_ascii=False, separators=(",", ":"))
        except (ValueError, RecursionError):  # broken, or nested past what a parser follows
            return redact_text(body)
    if "=" in body and " " not in body.strip() and "\n" not in body:
        pairs = parse_qsl(body, keep_blank_values=True)
        if pairs and any(is_secret_field(k, v) for k, v in pairs):
            return urlencode([(k, REDACTED if is_secret_field(k, v) else v) for k, v in pairs], safe="[]")
    return redact_text(body)


def redact_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(name, REDACTED if is_secret_header(name) else redact_text(value)) for name, value in headers]


# Form traffic carries the session's secrets where no header or JSON key names them: a urlencoded
# body (`authenticity_token=...`, `user[password]=...`), a hidden input or a `csrf-token` meta
# of an HTML page, a multipart part. Each is named by its field, so it is redacted by that name.
_FORM_NAME_PARTS = re.compile(r"[\[\].]+")
_CSRF_NAME = re.compile(r"(?i)(csrf|xsrf)(?!.?param)")
TAG_WITH_VALUE = re.compile(r"<(?:input|meta)\b[^<>]{0,4000}>", re.IGNORECASE)
NAME_ATTR = re.compile(r"""\bname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
VALUE_ATTR = re.compile(r"""(\b(?:value|content)\s*=\s*)(?:"[^"]*"|'[^']*'|[^\s"'>]+)""", re.IGNORECASE)
FORM_DATA = re.compile(r"form-data", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s")
# words of secret keys and CSRF names, lowercase: the fields worth a close look (a superset)
_SECRET_WORD = re.compile(
    r"tok|secret|pass|pwd|key|priv|auth|cookie|sess|sid|sig|cred|code|otp|csrf|xsrf|viewstate|eventval"
)
# ASP.NET WebForms' page state: opaque blobs that can carry what the page showed, and are signed
# with the server's key (a replayable `__VIEWSTATE` is an attack surface): kept out like a token
_PAGE_STATE = re.compile(r"^__(viewstate(?!generator)\w*|eventvalidation)$", re.IGNORECASE)
# a multipart part's head: its Content-Disposition with the field's name (group), then the rest of
# that line, up to 20 more header lines and the blank line; the value follows (package.redo too)
PART_NAME = r'Content-Disposition:[ \t]*form-data;[ \t]*name="([^"\r\n]{1,300})"'
PART_HEAD_END = r"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n){0,20}\r?\n"
FORM_PART = re.compile(rf"({PART_NAME}{PART_HEAD_END})(.*?)(?=\r?\n--)", re.IGNORECASE | re.DOTALL)


def is_secret_field(name: str, value: Any = None) -> bool:
    """A named value holding a credential: by its whole name or its last part (`user[password]`,
    `auth.password`), a CSRF token by any spelling (`_csrf`, `csrfmiddlewaretoken`, `xsrf`; not the
    `csrf-param` meta), a bare `key` or `code` whose value has a credential's shape, or a `sid`
    whose value has a session id's."""
    rule = _name_rule(name)
    if rule is None or rule == "secret":
        return rule == "secret"
    if not isinstance(value, str):
        return False
    return looks_like_session_id(value) if rule == "session_id" else looks_like_credential(value)


def may_name_a_secret(name: str) -> bool:
    """Is `name` one whose value is a secret, whatever it holds or depending on its shape?"""
    return _name_rule(name) is not None


def _name_rule(name: str) -> str | None:
    # every key of every body is asked about, and names repeat: short ones are remembered
    return _remembered_rule(name) if len(name) <= 200 else _rule_of(name)


def _rule_of(name: str) -> str | None:
    """What a field's name says: "secret", "credential_shape" or "session_id" (its value decides), or None."""
    parts = [p for p in _FORM_NAME_PARTS.split(name) if p]
    last = parts[-1] if parts else name
    if is_secret_header(name) or is_secret_key(name) or is_secret_key(last) or _CSRF_NAME.search(name):
        return "secret"
    if _PAGE_STATE.match(last):
        return "secret"  # the blobs, not `__VIEWSTATEGENERATOR`'s 8 hex digits of the page's name
    folded = last.lower().replace("-", "").replace("_", "")
    if folded in _SESSION_ID_KEYS:
        return "session_id"
    return "credential_shape" if folded in _AMBIGUOUS_KEYS else None


_remembered_rule = functools.lru_cache(maxsize=16384)(_rule_of)


def redact_form_secrets(text: str) -> str:
    """`text` with the values of secret form fields redacted, wherever form traffic puts them."""
    if "=" not in text:
        return text
    if _WHITESPACE.search(text) is None:  # a form body; prose has spaces
        text = _redact_urlencoded(text)
    if "<" in text:
        text = TAG_WITH_VALUE.sub(_redact_tag, text)
    if FORM_DATA.search(text):
        text = FORM_PART.sub(
            lambda m: m.group(1) + REDACTED if is_secret_field(m.group(2), m.group(3)) else m.group(0), text
        )
    return text


def _redact_urlencoded(text: str) -> str:
    """Only the fields whose names hold a secret word are looked at closely: a 200,000-field body
    with none costs one pass in C, and every character is looked at a bounded number of times."""
    low = text.lower()
    pieces: list[str] = []
    done = end = 0
    for hit in _SECRET_WORD.finditer(low):
        if hit.start() < end:
            continue  # in the field already looked at
        start = low.rfind("&", end, hit.start()) + 1 or end
        found = text.find("&", hit.start())
        end = len(text) if found < 0 else found
        name, sep, value = text[start:end].partition("=")
        if sep and value and is_secret_field(unquote_plus(name), unquote_plus(value)):
            pieces.append(text[done:start] + f"{name}={REDACTED}")
            done = end
    return "".join(pieces) + text[done:] if pieces else text


def _redact_tag(match: re.Match[str]) -> str:
    tag = match.group(0)
    named = NAME_ATTR.search(tag)
    name = next((g for g in named.groups() if g is not None), "") if named else ""
    if not name:
        return tag
    shown = VALUE_ATTR.search(tag)
    value = shown.group(0)[len(shown.group(1)) :].strip("\"'") if shown else None
    if not is_secret_field(html.unescape(name), html.unescape(value) if value is not None else None):
        return tag
    return VALUE_ATTR.sub(lambda m: f'{m.group(1)}"{REDACTED}"', tag)


# Environment variables whose names look like credentials; identifiers beside them are not
# secrets (AWS_ACCESS_KEY_ID=rlauto would otherwise blank every "rlauto").
_SECRET_ENV_NAME = re.compile(r"(?i)(key|token|secret|password|passwd|credential|cookie)")
_PUBLIC_ENV_NAME = re.compile(r"(?i)(_ID|_USER|_USERNAME|_NAME|_FILE|_PATH|_URL|_MODE)$")
MIN_SECRET_LENGTH = 8  # shorter values would blank ordinary words


def secret_environment_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names look like credentials, longest first."""
    env = os.environ if environ is None else environ
    values = {
        v
        for k, v in env.items()
        if _SECRET_ENV_NAME.search(k) and not _PUBLIC_ENV_NAME.search(k) and len(v.strip()) >= MIN_SECRET_LENGTH
    }
    return sorted(values, key=len, reverse=True)


_MARKDOWN_ACTIVE = re.compile(r"([\\`\[\]<>!])")


class Redactor:
    """Every rule above plus the secret values of the environment (and `extra_secrets`); make
    one per page or report so that newly set variables are seen. A JSON value it shows is
    redacted by value too (`knowing`)."""

    def __init__(self, extra_secrets: Iterable[str] = ()) -> None:
        extra = [s for s in extra_secrets if len(s) >= MIN_SECRET_LENGTH]
        self._secrets = sorted({*secret_environment_values(), *extra}, key=len, reverse=True)

    def knowing(self, document: Any) -> Redactor:
        """This redactor, also removing every secret `document` carries (found by name or shape)
        wherever it recurs: an item's page knows what its package's recorded calls named."""
        from rlauto_core.secret_values import secrets_in_json  # it builds on this module's rules

        found = secrets_in_json(document).values
        return Redactor([*self._secrets, *found]) if found else self

    def text(self, value: str) -> str:
        return redact_text(value, self._secrets)

    def value(self, value: Any) -> Any:
        """A deep copy of a JSON value with secret fields and strings redacted, and every secret
        it carries removed wherever else it appears in it."""
        return self.knowing(value)._scrubbed(value)

    def _scrubbed(self, value: Any) -> Any:
        return _with_secrets(redact_json(value), self._secrets)

    def markdown(self, value: str) -> str:
        """Redacted text safe inside markdown (the dashboard's messages, headers, labels): no
        link, image, HTML or code span can be formed from recorded or model-written text."""
        return _MARKDOWN_ACTIVE.sub(r"\\\1", self.text(value))


def _with_secrets(value: Any, secrets: list[str]) -> Any:
    if not secrets:
        return value
    if isinstance(value, dict):
        return {k: _with_secrets(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_secrets(v, secrets) for v in value]
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
    return value
