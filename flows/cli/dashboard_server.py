"""What `rlauto dashboard` hands `streamlit run`: the review app (`dashboard_app.py`) as a Streamlit
`App`, whose page URLs are answered by `dashboards.page_shell.PageShell` (so a page opened or
reloaded at `/items` asks the server at its root, not at `/items/_stcore/...` first)."""

from __future__ import annotations

import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
if str(PROJECT) not in sys.path:  # uvicorn imports this file by its folder: make the project importable
    sys.path.insert(0, str(PROJECT))

import streamlit as st  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from streamlit import config  # noqa: E402

from dashboards.navigation import page_paths  # noqa: E402
from dashboards.page_shell import PageShell  # noqa: E402

REVIEW_APP = Path(__file__).resolve().parent / "dashboard_app.py"

app = st.App(
    REVIEW_APP,
    middleware=[
        Middleware(PageShell, page_paths=page_paths(), base_url_path=config.get_option("server.baseUrlPath") or "")
    ],
)
