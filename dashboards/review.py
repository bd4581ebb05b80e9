"""The review dashboard (Streamlit). `rlauto dashboard` runs this file; tests call `main(repository)`."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__" and not __package__:
    # `streamlit run dashboards/review.py` from a checkout: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import streamlit as st

from dashboards import auth
from dashboards.redaction import Redactor
from dashboards.repository import Repository, cache_dir_from_environment, storage_url_from_environment
from dashboards.views import detail, items, overview, polish, upload
from dashboards.views.common import OPEN_ITEM, OPEN_JOB, PAGE, PAGES


def _follow_link() -> None:
    """`?job=...&item=...` opens that item once per session (links from the CLI or the Prefect UI)."""
    if st.session_state.get("_link_followed"):
        return
    st.session_state["_link_followed"] = True
    job, item = st.query_params.get("job"), st.query_params.get("item")
    if job and item:
        st.session_state[OPEN_JOB] = job
        st.session_state[OPEN_ITEM] = item
        st.session_state[PAGE] = "Item"


def main(repository: Repository) -> None:
    st.set_page_config(page_title="RL-Auto review", layout="wide")
    if not auth.gate():
        return
    _follow_link()
    redactor = Redactor()
    with st.sidebar:
        st.title("RL-Auto review")
        page = st.radio("Page", PAGES, key=PAGE)
        if st.button("Reload index", key="reload_index"):
            repository.refresh()
        health = repository.health()
        st.caption(f"{health.files.get('items', 0)} item files · storage {redactor.markdown(repository.root_uri)}")
        if health.unreadable:
            st.warning(
                f"{len(health.unreadable)} index files could not be read: {redactor.markdown(', '.join(health.unreadable[:5]))}"
            )
    if page == "Overview":
        overview.render(repository, redactor)
    elif page == "Items":
        items.render(repository, redactor)
    elif page == "Item":
        detail.render(repository, redactor)
    elif page == "Upload":
        upload.render(repository, redactor)
    else:
        polish.render(redactor)


@st.cache_resource
def _shared_repository(root_uri: str) -> Repository:
    # one repository (and one index snapshot) per process, shared by every browser session
    return Repository(root_uri, cache_dir=cache_dir_from_environment())


if __name__ == "__main__":
    main(_shared_repository(storage_url_from_environment()))
