"""The page shell: a page URL is answered with Streamlit's own index.html naming the server's
root before Streamlit's script runs; every other request passes through untouched."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

import pytest

from dashboards.navigation import page_paths
from dashboards.page_shell import STREAMLIT_INDEX, PageShell, shell_html


async def _inner(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"streamlit"})


def _ask(shell: PageShell, path: str, method: str = "GET") -> tuple[int, bytes]:
    sent: list[MutableMapping[str, Any]] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "http.request", "body": b""}

    asyncio.run(shell({"type": "http", "method": method, "path": path}, receive, send))
    return int(sent[0]["status"]), b"".join(m.get("body", b"") for m in sent[1:])


def test_page_urls_get_the_shell_and_everything_else_passes_through() -> None:
    shell = PageShell(_inner, page_paths())
    status, body = _ask(shell, "/items")
    assert status == 200
    assert body.index(b'window.__streamlit={BACKEND_BASE_URL:window.location.origin+"/"}') < body.index(
        b'<script type="module"'
    )
    assert body.replace(shell_html(b"<head>", "/")[len(b"<head>") :], b"") == STREAMLIT_INDEX.read_bytes()
    assert _ask(shell, "/items", "HEAD") == (200, b"")
    for path in ("/", "/_stcore/health", "/items/_stcore/health", "/static/js/x.js", "/nope"):
        assert _ask(shell, path) == (299, b"streamlit")
    assert _ask(shell, "/items", "POST") == (299, b"streamlit")


def test_a_base_url_path_is_part_of_the_page_urls_and_the_root() -> None:
    shell = PageShell(_inner, ["items"], base_url_path="/review/")
    status, body = _ask(shell, "/review/items")
    assert status == 200 and b'window.location.origin+"/review/"' in body
    assert _ask(shell, "/items") == (299, b"streamlit")


def test_an_index_without_head_is_refused() -> None:
    with pytest.raises(ValueError, match="no <head>"):
        shell_html(b"<html></html>", "/")
