"""The review dashboard (Streamlit). `rlauto dashboard` serves it through `flows/cli/dashboard_app.py`,
which hands `main` its repository, settings and launcher; tests call `main` with their own."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__" and not __package__:
    # `streamlit run dashboards/review.py` from a checkout: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import streamlit as st
from pydantic import ValidationError

from dashboards import auth
from dashboards.agent_launcher import AgentLauncher, NoAgentLauncher
from dashboards.launcher import Launcher, NoLauncher
from dashboards.memory_launcher import MemoryLauncher, NoMemoryLauncher
from dashboards.repository import Repository, cache_dir_from_environment
from dashboards.views import actions, agent, designer, detail, experience, items, overview, polish, upload
from dashboards.views.common import OPEN_ITEM, OPEN_JOB, PAGE, PAGES
from rlauto_core.config import Settings
from rlauto_core.redact import Redactor


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


def settings_or_error() -> Settings:
    """The deployment settings; a broken value is shown (never a traceback) and the defaults apply."""
    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        st.error(f"configuration: {'.'.join(map(str, first['loc'])).upper()}: {first['msg']}; using the defaults")
        return Settings.model_construct()


def main(
    repository: Repository,
    launcher: Launcher | None = None,
    settings: Settings | None = None,
    agent_launcher: AgentLauncher | None = None,
    memory: MemoryLauncher | None = None,
) -> None:
    st.set_page_config(page_title="RL-Auto review", layout="wide")
    if not auth.gate():
        return
    settings = settings or settings_or_error()
    launcher = launcher or NoLauncher()
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
        detail.render(repository, redactor, launcher)
    elif page == "Upload":
        upload.render(launcher, settings, redactor)
    elif page == "Agent":
        agent.render(repository, agent_launcher or NoAgentLauncher(), redactor)
    elif page == "Experience":
        experience.render(repository.storage, redactor, memory or NoMemoryLauncher())
    elif page == "Actions":
        actions.render(repository.storage, redactor)
    elif page == "Designer":
        designer.render(repository.storage, redactor, memory or NoMemoryLauncher())
    else:
        polish.render(settings, redactor)


@st.cache_resource
def shared_repository(root_uri: str) -> Repository:
    # one repository (and one index snapshot) per process, shared by every browser session
    return Repository(root_uri, cache_dir=cache_dir_from_environment())


if __name__ == "__main__":
    main(shared_repository(settings_or_error().rlauto_storage_url))
