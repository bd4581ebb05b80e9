"""The app's pages for `st.navigation`: one small script per page in `dashboards/app_pages/`,
each reading what `main` was handed through `current()`.

Why file pages, not callables: a page file is something `AppTest.switch_page` can reach, so the
tests walk the same navigation a browser does. Why a context variable: the page script runs in the
same script-run thread right after `main` sets it, and each browser session has its own run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from dashboards.agent_launcher import AgentLauncher
from dashboards.launcher import Launcher
from dashboards.memory_launcher import MemoryLauncher
from dashboards.repository import Repository
from rlauto_core.config import Settings
from rlauto_core.redact import Redactor

PAGES_DIR = Path(__file__).resolve().parent / "app_pages"

# url path -> (file, title, icon); the sections are the sidebar's groups
SECTIONS: dict[str, list[tuple[str, str, str]]] = {
    "Review": [
        ("overview", "Overview", ":material/insights:"),
        ("items", "Items", ":material/table_rows:"),
        ("item", "Item", ":material/description:"),
    ],
    "Make packages": [
        ("upload", "Upload", ":material/upload:"),
        ("polish", "Polish", ":material/edit_note:"),
    ],
    "Phone agent": [
        ("agent", "Agent", ":material/smartphone:"),
        ("experience", "Experience", ":material/school:"),
        ("actions", "Actions", ":material/bolt:"),
        ("designer", "Designer", ":material/draw:"),
    ],
    "Evals": [
        ("evals", "Evals", ":material/leaderboard:"),
    ],
}
HIDDEN = {"item"}  # reached by selecting a row or by a link, never from the menu
DEFAULT = "overview"


def page_paths() -> list[str]:
    """The URL paths of the pages other than the default one (which is `/`)."""
    return [url_path for entries in SECTIONS.values() for url_path, _title, _icon in entries if url_path != DEFAULT]


def page_file(url_path: str) -> Path:
    """The script of a page (tests hand it to `AppTest.switch_page`)."""
    return PAGES_DIR / f"{url_path}.py"


@dataclass(frozen=True)
class App:
    """What `main` was handed, for the page scripts."""

    repository: Repository
    launcher: Launcher
    settings: Settings
    agent_launcher: AgentLauncher
    memory: MemoryLauncher
    redactor: Redactor
    pages: dict[str, StreamlitPage] = field(default_factory=dict)


_CURRENT: ContextVar[App] = ContextVar("rlauto_dashboard_app")


def current() -> App:
    return _CURRENT.get()


@contextmanager
def serving(app: App) -> Iterator[None]:
    token = _CURRENT.set(app)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def build_pages() -> tuple[dict[str, list[StreamlitPage]], dict[str, StreamlitPage]]:
    sections: dict[str, list[StreamlitPage]] = {}
    by_path: dict[str, StreamlitPage] = {}
    for section, entries in SECTIONS.items():
        for url_path, title, icon in entries:
            page = st.Page(
                page_file(url_path),
                title=title,
                icon=icon,
                url_path=url_path,
                default=url_path == DEFAULT,
                visibility="hidden" if url_path in HIDDEN else "visible",
            )
            sections.setdefault(section, []).append(page)
            by_path[url_path] = page
    return sections, by_path


def go(url_path: str, **query: str) -> None:
    """Switch to a page (ends this run); `query` becomes the new page's query parameters."""
    st.switch_page(current().pages[url_path], query_params=query or None)
