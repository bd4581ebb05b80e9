"""Headless Chromium for the dashboard's browser tests, watching what a person's console would
show: a test fails on a console error, an uncaught page error, an HTTP error answer, or any
request that leaves the machine (the dashboard must need nothing from outside it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
# a navigation cancels the requests of the page it leaves: not an error of the page
CANCELLED = "net::ERR_ABORTED"


@dataclass
class ConsoleWatch:
    """What went wrong in the page, as a person with the browser console open would see it."""

    problems: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("request", self._request)
        page.on("response", self._response)
        page.on("requestfailed", self._failed)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text} ({message.location.get('url', '')})")

    def _request(self, request: Any) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOCAL_HOSTS:
            self.problems.append(f"request outside the machine: {request.url}")

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def _failed(self, request: Any) -> None:
        failure = request.failure or ""
        if CANCELLED not in failure:
            self.problems.append(f"request failed ({failure}): {request.url}")


@contextmanager
def chromium_page(width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A page in headless Chromium; after the test's own checks passed, fails if the console
    showed any problem (`ConsoleWatch`)."""
    from playwright.sync_api import expect, sync_playwright

    watch = ConsoleWatch()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(60_000)
            expect.set_options(timeout=60_000)  # a loaded 2-core machine renders slowly
            watch.attach(page)
            yield page
        finally:
            browser.close()
    assert watch.problems == [], "the browser console showed problems:\n" + "\n".join(watch.problems)
