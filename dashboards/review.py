"""The review dashboard (Streamlit). `rlauto dashboard` serves it through `flows/cli/dashboard_app.py`,
which hands `main` its repository, settings and launchers; tests call `main` with their own.
`main` signs the person in, builds Streamlit's navigation over the pages of
`dashboards/navigation.py` and runs the page the URL names with what it was handed.

`streamlit run dashboards/review.py` serves it for reviewing only (nothing can be started): as the
Streamlit `App` at the bottom, with the page shell in front (`dashboards/page_shell.py`), so a page
opened or reloaded at its own URL (`/items`) asks the server at its root, as under `rlauto dashboard`."""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:
    # `streamlit run dashboards/review.py` from a checkout (the App's import, then each page run):
    # make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import streamlit as st
from pydantic import ValidationError
from streamlit.navigation.page import StreamlitPage

from dashboards import auth
from dashboards.agent_launcher import AgentLauncher, NoAgentLauncher
from dashboards.launcher import Launcher, NoLauncher
from dashboards.memory_launcher import MemoryLauncher, NoMemoryLauncher
from dashboards.navigation import DEFAULT, App, build_pages, serving
from dashboards.repository import Repository, cache_dir_from_environment
from rlauto_core.config import Settings
from rlauto_core.redact import Redactor

FAVICON = "🔎"


def _follow_link(pages: dict[str, StreamlitPage], landed: StreamlitPage) -> None:
    """`/?job=...&item=...` (links from the CLI or the Prefect UI) opens that item's page."""
    job, item = st.query_params.get("job"), st.query_params.get("item")
    if landed is pages[DEFAULT] and job and item:
        st.switch_page(pages["item"], query_params={"job": job, "item": item})


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
    # an emoji icon is drawn in the page itself; a page's material icon as favicon would be
    # fetched from a font CDN (a failed name lookup on a machine without internet)
    st.set_page_config(page_title="RL-Auto review", page_icon=FAVICON, layout="wide")
    if not auth.gate():
        return
    settings = settings or settings_or_error()
    redactor = Redactor()
    sections, pages = build_pages()
    landed = st.navigation(sections, position="sidebar", expanded=True)
    _follow_link(pages, landed)
    with st.sidebar:
        if st.button("Reload index", key="reload_index", icon=":material/refresh:"):
            repository.refresh()
        health = repository.health()
        st.caption(f"{health.files.get('items', 0)} item files · storage {redactor.markdown(repository.root_uri)}")
        if health.unreadable:
            st.warning(
                f"{len(health.unreadable)} index files could not be read: {redactor.markdown(', '.join(health.unreadable[:5]))}"
            )
    app = App(
        repository=repository,
        launcher=launcher or NoLauncher(),
        settings=settings,
        agent_launcher=agent_launcher or NoAgentLauncher(),
        memory=memory or NoMemoryLauncher(),
        redactor=redactor,
        pages=pages,
    )
    with serving(app):
        landed.run()


@st.cache_resource
def shared_repository(root_uri: str) -> Repository:
    # one repository (and one index snapshot) per process, shared by every browser session
    return Repository(root_uri, cache_dir=cache_dir_from_environment())


if __name__ == "__main__":
    main(shared_repository(settings_or_error().rlauto_storage_url))
elif __name__ == Path(__file__).stem:
    # `streamlit run` found this App (it reads the file for one) and serves it: this file is the
    # page script each browser session runs (as __main__, above), the shell answers page URLs
    from starlette.middleware import Middleware
    from streamlit import config

    from dashboards.navigation import page_paths
    from dashboards.page_shell import PageShell

    app = st.App(
        Path(__file__),
        middleware=[
            Middleware(PageShell, page_paths=page_paths(), base_url_path=config.get_option("server.baseUrlPath") or "")
        ],
    )
