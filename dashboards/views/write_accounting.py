"""The item page's evidence the checker generator did not write: every recorded write covered by
a rubric or excluded by a named rule, the mutants drawn from the recording's own writes, the
behaviour variant, and the instruction's clauses no rubric checks."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from rlauto_core.redact import Redactor


def _count(items: Any, passed: str) -> tuple[int, int]:
    rows = [i for i in items or [] if isinstance(i, dict)]
    return sum(1 for i in rows if i.get(passed)), len(rows)


def render(check: dict[str, Any], redactor: Redactor) -> None:
    covered = [w for w in check.get("writes_covered") or [] if isinstance(w, dict)]
    excluded = [w for w in check.get("writes_excluded") or [] if isinstance(w, dict)]
    caught, mutants = _count(check.get("recording_mutants"), "caught")
    passed, behaviours = _count(check.get("behaviour_variants"), "full_marks")
    unruled = [w for w in excluded if not w.get("rule")]
    cols = st.columns(4)
    cols[0].metric("Recorded writes covered", f"{len(covered)}/{len(covered) + len(excluded)}")
    cols[1].metric("Excluded with no rule", str(len(unruled)))
    cols[2].metric("Recording mutants caught", "-" if not mutants else f"{caught}/{mutants}")
    cols[3].metric("Behaviour variants at full marks", "-" if not behaviours else f"{passed}/{behaviours}")
    rows = [
        {"call": str(w.get("call_id")), "name": redactor.text(str(w.get("name", ""))), "status": "covered",
         "why": "by " + ", ".join(map(str, w.get("rubrics") or []))}
        for w in covered
    ] + [
        {"call": str(w.get("call_id")), "name": redactor.text(str(w.get("name", ""))),
         "status": f"excluded ({w.get('rule')})" if w.get("rule") else "excluded, NO RULE",
         "why": redactor.text(str(w.get("reason", "")))}
        for w in excluded
    ]  # fmt: skip
    if rows:
        st.caption("Recorded writes")
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    for mutant in check.get("recording_mutants") or []:
        if isinstance(mutant, dict) and not mutant.get("caught", True):
            st.error(
                redactor.markdown(f"Recording mutant {mutant.get('id')} keeps its points: {mutant.get('description')}")
            )
    ungrounded = [str(c) for c in check.get("ungrounded") or []]
    if ungrounded:
        shown = ", ".join(f"'{c}'" for c in ungrounded)
        st.warning(redactor.markdown(f"No rubric checks what the instruction says: {shown}"))
