"""Helpers for driving the dashboard with streamlit.testing.v1.AppTest."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
from streamlit import dataframe_util
from streamlit.testing.v1 import AppTest

from dashboards.launcher import Launcher
from dashboards.navigation import DEFAULT, page_file
from dashboards.repository import Repository


def _dashboard_script(repository: "Repository", launcher: "Launcher | None") -> None:  # noqa: UP037 (the body runs alone)
    # AppTest runs this function's body as the page script, with the repository and launcher injected
    from dashboards.review import main

    main(repository, launcher)


def dashboard(repository: Repository, launcher: Launcher | None = None) -> AppTest:
    return AppTest.from_function(_dashboard_script, args=(repository, launcher), default_timeout=60)


def open_item_page(repository: Repository, job_id: str, item_id: str) -> AppTest:
    """The item's page as a shared link opens it: `?job=...&item=...`."""
    at = dashboard(repository)
    at.query_params["job"] = job_id
    at.query_params["item"] = item_id
    return at.run()


def go(at: AppTest, url_path: str) -> AppTest:
    """Open a page through the app's own navigation (as its sidebar link does), after a first run."""
    if not at._tree.children:  # switch_page resolves against the pages a run registered
        at.run()
    return at.switch_page(str(page_file(url_path))).run()


def current_page(at: AppTest) -> str:
    """The url path of the page the last run ended on."""
    info = at._registered_pages.get(at._finished_page_script_hash, {})
    return str(info.get("url_pathname") or DEFAULT)


def _titles(spec: Any) -> Iterator[str]:
    if isinstance(spec, dict):
        title = spec.get("title")
        if isinstance(title, dict):  # a title with a subtitle
            title = title.get("text")
        if isinstance(title, str):
            yield title
        for key in ("layer", "hconcat", "vconcat"):
            for part in spec.get(key) or []:
                yield from _titles(part)


def chart(at: AppTest, title: str) -> tuple[dict[str, Any], list[pd.DataFrame]]:
    """The Vega-Lite spec holding a chart titled `title`, and the data frames it plots (its
    named datasets, as the browser receives them)."""
    found = [c for c in at.get("vega_lite_chart") if title in _titles(json.loads(c.proto.spec))]
    assert len(found) == 1, f"{len(found)} charts titled {title!r}"
    proto = found[0].proto
    return json.loads(proto.spec), [
        dataframe_util.convert_arrow_bytes_to_pandas_df(d.data.data) for d in proto.datasets
    ]


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


@contextmanager
def served_dashboard(storage_url: str, log_path: Path, env: Mapping[str, str]) -> Iterator[str]:
    """`rlauto dashboard` on a free loopback port over `storage_url`, in its own process (what a
    browser test opens); yields its base URL and stops it after."""
    from tests.servers import free_port, stop_process, wait_http

    port = free_port()
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from flows.cli import main; main()", "dashboard",
         "--port", str(port), "--storage", storage_url],
        env=dict(env), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        wait_http(f"http://127.0.0.1:{port}/_stcore/health", timeout=90, proc=proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(proc)
        log.close()
