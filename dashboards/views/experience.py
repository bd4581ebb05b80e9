"""Experience: the phone agent's recipes, their hits and the audit's suggestions. The audit only
marks; a recipe is deleted only when a person clicks Delete and then Confirm delete; Keep is
remembered and the audit never suggests that recipe again."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards.memory_launcher import MemoryLauncher
from dashboards.views.common import short
from rlauto_core.errors import RlautoError
from rlauto_core.memory import ExperienceLibrary, ExperienceView
from rlauto_core.redact import Redactor
from rlauto_core.store import Storage

FLASH = "experience_flash"
ARMED = "experience_delete_armed"
PERSON = "memory_person"


def _suggestion(view: ExperienceView) -> str:
    mark = view.mark
    if mark is None:
        return ""
    if mark.decision == "kept":
        return f"kept by {mark.decided_by}"
    if mark.suggestion == "delete":
        return "⚠ suggest delete"
    return mark.suggestion or ""


def _table(views: list[ExperienceView], redactor: Redactor) -> None:
    rows = [
        {
            "title": redactor.text(v.experience.title),
            "task": redactor.text(short(v.experience.instruction, 80)),
            "recipe": redactor.text(short(v.experience.recipe, 100)),
            "hits": v.experience.hits,
            "last hit": v.experience.last_hit_at,
            "audit": _suggestion(v),
            "score": v.mark.score if v.mark else None,
            "reason": redactor.text(v.mark.reason) if v.mark else "",
        }
        for v in views
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def _audit_button(memory: MemoryLauncher, redactor: Redactor) -> None:
    if st.button("Run the audit now", key="experience_audit_now"):
        try:
            run_id = memory.start_audit()
        except RlautoError as exc:
            st.error(redactor.markdown(str(exc)))
        else:
            st.success(f"The audit started (flow run {redactor.markdown(run_id)}); its marks appear here when it ends.")


def _decide(library: ExperienceLibrary, view: ExperienceView, redactor: Redactor) -> None:
    recipe = view.experience
    person = st.text_input("Your name (recorded with a keep or a delete)", key=PERSON)
    keep_col, delete_col = st.columns(2)
    if keep_col.button(
        "Keep", key=f"keep_{recipe.id}", disabled=view.mark is not None and view.mark.decision == "kept"
    ):
        try:
            library.keep(recipe.id, person or "dashboard")
        except RlautoError as exc:
            st.error(redactor.markdown(str(exc)))
        else:
            st.session_state[FLASH] = f"Kept: {redactor.markdown(recipe.title)} (the audit will not suggest it again)"
            st.rerun()
    if delete_col.button("Delete", key=f"delete_{recipe.id}"):
        st.session_state[ARMED] = recipe.id
    if st.session_state.get(ARMED) != recipe.id:
        return
    st.warning(f"Delete the recipe “{redactor.markdown(recipe.title)}”? This cannot be undone.")
    confirm_col, cancel_col = st.columns(2)
    if confirm_col.button("Confirm delete", key=f"confirm_delete_{recipe.id}", type="primary"):
        try:
            library.delete(recipe.id, confirmed_by=person)
        except RlautoError as exc:
            st.error(redactor.markdown(str(exc)))
            return
        st.session_state.pop(ARMED, None)
        st.session_state[FLASH] = f"Deleted: {redactor.markdown(recipe.title)}"
        st.rerun()
    if cancel_col.button("Cancel", key=f"cancel_delete_{recipe.id}"):
        st.session_state.pop(ARMED, None)
        st.rerun()


def _deletions(library: ExperienceLibrary, redactor: Redactor) -> None:
    deleted = library.deletions()
    if not deleted:
        return
    with st.expander(f"Deleted recipes ({len(deleted)})"):
        for gone in deleted[:50]:
            audit = (
                f"; the audit said {gone.audit_suggestion} ({gone.audit_score}/10): {gone.audit_reason}"
                if gone.audit_suggestion
                else ""
            )
            st.markdown(redactor.markdown(f"{gone.experience.title}: deleted by {gone.deleted_by} at "
                                          f"{gone.deleted_at:%Y-%m-%d %H:%M} UTC{audit}"))  # fmt: skip


def render(storage: Storage, redactor: Redactor, memory: MemoryLauncher) -> None:
    st.header("Experience library")
    st.caption("Recipes the phone agent learned from runs that completed; similar tasks get the best two.")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    library = ExperienceLibrary(storage)
    views = library.views()
    for path in library.unreadable[:5]:
        st.warning(f"Not a readable record, skipped: {redactor.markdown(path)}")
    _audit_button(memory, redactor)
    _deletions(library, redactor)
    if not views:
        st.info("No recipes yet: a completed agent run teaches one.")
        return
    pending = sum(1 for v in views if v.mark is not None and v.mark.pending_delete)
    st.caption(f"{len(views)} recipes · {pending} suggested for deletion by the audit")
    _table(views, redactor)
    by_id = {v.experience.id: v for v in views}

    def label(record_id: str) -> str:
        view = by_id[record_id]
        flag = "⚠ " if view.mark is not None and view.mark.pending_delete else ""
        return f"{flag}{redactor.text(view.experience.title)} ({record_id})"

    chosen = st.selectbox("Recipe", list(by_id), format_func=label, key="experience_pick")
    view = by_id[str(chosen)]
    st.subheader(redactor.markdown(view.experience.title))
    st.caption(f"from run {redactor.markdown(view.experience.run_id or '-')} · {view.experience.hits} hits")
    st.text(redactor.text(view.experience.instruction))
    st.text(redactor.text(view.experience.recipe))
    mark = view.mark
    if mark is not None and mark.pending_delete:
        st.warning(f"The audit suggests deleting it (score {mark.score}/10): {redactor.markdown(mark.reason)}")
    elif mark is not None and mark.suggestion == "keep":
        st.caption(f"The audit rated it keep (score {mark.score}/10): {redactor.markdown(mark.reason)}")
    _decide(library, view, redactor)
