"""Helpers for driving the dashboard with streamlit.testing.v1.AppTest."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from streamlit.testing.v1 import AppTest

from dashboards.launcher import Launcher
from dashboards.repository import Repository


def _dashboard_script(repository: "Repository", launcher: "Launcher | None") -> None:  # noqa: UP037 (the body runs alone)
    # AppTest runs this function's body as the page script, with the repository and launcher injected
    from dashboards.review import main

    main(repository, launcher)


def dashboard(repository: Repository, launcher: Launcher | None = None) -> AppTest:
    return AppTest.from_function(_dashboard_script, args=(repository, launcher), default_timeout=60)


def open_item_page(repository: Repository, job_id: str, item_id: str) -> AppTest:
    at = dashboard(repository)
    at.session_state["open_job"] = job_id
    at.session_state["open_item"] = item_id
    at.session_state["page"] = "Item"
    return at.run()


def walk(node: Any) -> Iterator[Any]:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from walk(child)


def rendered_bytes(at: AppTest) -> bytes:
    """Every rendered element's protobuf, concatenated: what the browser would receive."""
    return b"".join(
        node.proto.SerializeToString() for node in walk(at._tree) if getattr(node, "proto", None) is not None
    )


def texts(at: AppTest, kind: str) -> list[str]:
    return [str(element.value) for element in at.get(kind)]
