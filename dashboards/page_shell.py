"""The HTML shell of the app's page URLs (`/items`, `/item`, ...), told where the server is.

Streamlit's page loads its own server address from the page URL: opened at `/items`, it first
asks `/items/_stcore/health` and `/items/_stcore/host-config` (two 404s in the browser console
on every direct load or reload of a page; streamlit/streamlit#7074) before it tries `/`. This
ASGI middleware answers a page URL with Streamlit's own `index.html` plus one line that names the
server's root (`window.__streamlit.BACKEND_BASE_URL`, the setting Streamlit reads for a page
served elsewhere), so the first probe is the right one. Every other request passes through.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any

import streamlit

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

STREAMLIT_INDEX = Path(streamlit.__file__).resolve().parent / "static" / "index.html"


def shell_html(index_html: bytes, root_path: str) -> bytes:
    """`index_html` with the server's root (`root_path`, "/" or "/base/") set before Streamlit's
    own script runs."""
    setting = f"<script>window.__streamlit={{BACKEND_BASE_URL:window.location.origin+{json.dumps(root_path)}}}</script>"
    head = index_html.find(b"<head>")
    if head < 0:
        raise ValueError("Streamlit's index.html has no <head>: cannot name the server root")
    cut = head + len(b"<head>")
    return index_html[:cut] + setting.encode() + index_html[cut:]


class PageShell:
    """Serve the shell for GET/HEAD of `/<base>/<page>` (each of `page_paths`)."""

    def __init__(self, app: ASGIApp, page_paths: Iterable[str], base_url_path: str = "") -> None:
        self.app = app
        base = "/" + base_url_path.strip("/") if base_url_path.strip("/") else ""
        self.paths = {f"{base}/{page.strip('/')}" for page in page_paths if page.strip("/")}
        self.body = shell_html(STREAMLIT_INDEX.read_bytes(), f"{base}/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD") or scope.get("path") not in self.paths:
            await self.app(scope, receive, send)
            return
        headers = [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"content-length", str(len(self.body)).encode()),
            (b"cache-control", b"no-cache"),  # as Streamlit serves its index.html
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": self.body if scope["method"] == "GET" else b""})
