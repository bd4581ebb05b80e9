"""The six judge scores over the iterations, the judge's reasons, and a diff of two iterations."""

from __future__ import annotations

import difflib

import pandas as pd
import streamlit as st

from dashboards.models import StoredFileError
from dashboards.repository import Repository
from dashboards.views.common import pretty_json, show_text
from rlauto_core.package import Dimension
from rlauto_core.redact import Redactor
from rlauto_core.store import DIMENSION_COLUMNS, IterationRow

LABELS = dict(zip(DIMENSION_COLUMNS, (d.value for d in Dimension), strict=True))
MAX_DIFF_LINES = 4000


def render(repository: Repository, redactor: Redactor, iterations: list[IterationRow]) -> None:
    st.subheader("Judge scores over iterations")
    if not iterations:
        st.info("No iteration was judged for this item.")
        return
    chart = pd.DataFrame(
        [{LABELS[c]: it.scores().get(c) for c in DIMENSION_COLUMNS} for it in iterations],
        index=pd.Index([it.iteration for it in iterations], name="iteration"),
    )
    st.line_chart(chart, y_label="score (0-2)", x_label="iteration")
    st.dataframe(
        pd.DataFrame(
            [
                {"iteration": it.iteration, "total": it.total, "verdict": it.verdict, "judge": it.judge_source}
                for it in iterations
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    for it in iterations:
        verdict = redactor.markdown(it.verdict or "")
        with st.expander(f"Iteration {it.iteration}: {it.total}/12 {verdict} — the judge's reasons"):
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            "dimension": LABELS[c],
                            "score": it.scores().get(c),
                            "explanation": redactor.text(it.explanations().get(c, "")),
                        }
                        for c in DIMENSION_COLUMNS
                    ]
                ),
                hide_index=True,
                width="stretch",
            )
            show_text(redactor, it.rationale, empty="(no rationale)")
    _diff(repository, redactor, iterations)


def _diff(repository: Repository, redactor: Redactor, iterations: list[IterationRow]) -> None:
    st.subheader("Compare two iterations' packages")
    numbers = [it.iteration for it in iterations]
    if len(numbers) < 2:
        st.caption("Only one iteration: nothing to compare.")
        return
    by_number = {it.iteration: it for it in iterations}
    cols = st.columns(2)
    left = cols[0].selectbox("From iteration", numbers, index=0, key="diff_from")
    right = cols[1].selectbox("To iteration", numbers, index=len(numbers) - 1, key="diff_to")
    texts = []
    for number in (left, right):
        path = by_number[number].package_path
        try:
            texts.append(pretty_json(redactor, repository.read_json(path)) if path else "")
        except StoredFileError as exc:
            st.warning(redactor.markdown(str(exc)))
            return
    diff = list(
        difflib.unified_diff(
            texts[0].splitlines(), texts[1].splitlines(), f"iteration {left}", f"iteration {right}", lineterm=""
        )
    )
    if not diff:
        st.caption("The two packages are identical.")
    else:
        st.code("\n".join(diff[:MAX_DIFF_LINES]), language="diff")
