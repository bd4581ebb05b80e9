"""Actions: the phone agent's named actions. Edit one's steps as JSON; every save goes through
the same check as distillation (`check_action`): a coordinate, a disallowed kind or a missing
parameter is refused with every problem named. Delete asks for a confirmation."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from dashboards.views.common import pretty_json
from rlauto_core.errors import RlautoError
from rlauto_core.memory import ACTION_KINDS, MAX_ACTION_STEPS, Action, ActionLibrary, ActionRefused
from rlauto_core.redact import Redactor
from rlauto_core.store import Storage

FLASH = "actions_flash"
ARMED = "actions_delete_armed"
FORMAT_HELP = (
    f'A JSON list of 1-{MAX_ACTION_STEPS} steps, each {{"kind": ..., parameters}}; kinds: {", ".join(ACTION_KINDS)}. '
    'A selector is {"text" | "resourceId" | "description": ...}. No coordinates.'
)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _form_data(name: str, aliases: str, steps_text: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        steps = json.loads(steps_text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        return None, f"steps: not JSON: {str(exc)[:200]}"
    names = [a.strip() for a in aliases.split(",") if a.strip()]
    return {"name": name, "aliases": names, "steps": steps}, None


def _save(library: ActionLibrary, redactor: Redactor, data: dict[str, Any], action_id: str | None) -> None:
    try:
        saved = library.edit(action_id, data) if action_id else library.save(data)
    except ActionRefused as exc:
        st.error("Not saved: " + redactor.markdown(f"{len(exc.problems)} problem(s)"))
        for problem in exc.problems:
            st.error(redactor.markdown(problem))
        return
    except RlautoError as exc:
        st.error(redactor.markdown(str(exc)))
        return
    st.session_state[FLASH] = f"Saved: {redactor.markdown(saved.name)} ({len(saved.steps)} steps)"
    st.rerun()


def _edit(library: ActionLibrary, action: Action, redactor: Redactor) -> None:
    with st.form(f"action_form_{action.id}"):
        name = st.text_input("Name", value=redactor.text(action.name), key=f"action_name_{action.id}")
        aliases = st.text_input(
            "Aliases (comma-separated)",
            value=redactor.text(", ".join(action.aliases)),
            key=f"action_aliases_{action.id}",
        )
        steps = st.text_area(
            "Steps (JSON)", value=pretty_json(redactor, action.steps), height=260, help=FORMAT_HELP,
            key=f"action_steps_{action.id}",
        )  # fmt: skip
        submitted = st.form_submit_button("Save")
    if submitted:
        data, problem = _form_data(name, aliases, steps)
        if problem or data is None:
            st.error(redactor.markdown(problem or "invalid"))
        else:
            _save(library, redactor, data, action.id)
    if st.button("Delete", key=f"action_delete_{action.id}"):
        st.session_state[ARMED] = action.id
    if st.session_state.get(ARMED) == action.id:
        st.warning(f"Delete the action “{redactor.markdown(action.name)}”? This cannot be undone.")
        if st.button("Confirm delete", key=f"action_confirm_delete_{action.id}", type="primary"):
            library.delete(action.id)
            st.session_state.pop(ARMED, None)
            st.session_state[FLASH] = f"Deleted: {redactor.markdown(action.name)}"
            st.rerun()


def _new(library: ActionLibrary, redactor: Redactor) -> None:
    with st.expander("New action"), st.form("action_new_form"):
        name = st.text_input("Name", key="action_new_name")
        aliases = st.text_input("Aliases (comma-separated)", key="action_new_aliases")
        steps = st.text_area("Steps (JSON)", value="[]", height=160, help=FORMAT_HELP, key="action_new_steps")
        submitted = st.form_submit_button("Create")
    if submitted:
        data, problem = _form_data(name, aliases, steps)
        if problem or data is None:
            st.error(redactor.markdown(problem or "invalid"))
        else:
            _save(library, redactor, data, None)


def render(storage: Storage, redactor: Redactor) -> None:
    st.header("Action library")
    st.caption("Named actions with their element locators; similar tasks get them as reusable actions.")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    library = ActionLibrary(storage)
    actions = library.all()
    for skipped in library.skipped[:5]:
        st.warning(f"Skipped, runs never get it: {redactor.markdown(skipped)}")
    _new(library, redactor)
    if not actions:
        st.info("No actions yet: a completed agent run teaches some, or create one above.")
        return
    rows = [
        {"name": redactor.text(a.name), "aliases": redactor.text(", ".join(a.aliases)), "steps": len(a.steps),
         "hits": a.hits, "updated": a.updated_at}
        for a in actions
    ]  # fmt: skip
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    by_id = {a.id: a for a in actions}
    chosen = st.selectbox(
        "Action", list(by_id), format_func=lambda aid: redactor.text(by_id[aid].name), key="actions_pick"
    )
    _edit(library, by_id[chosen], redactor)
