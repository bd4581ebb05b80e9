"""How the judge loop converged: the six judge scores per iteration (a chart), the totals and
verdicts, and the judge's reasons per iteration."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards.repository import Repository
from dashboards.views import charts
from dashboards.views.common import show_text
from rlauto_core.redact import Redactor
from rlauto_core.store import DIMENSION_COLUMNS, IterationRow

LABELS = charts.LABELS


def render(repository: Repository, redactor: Redactor, iterations: list[IterationRow]) -> None:
    st.subheader("Judge scores over iterations")
    if not iterations:
        st.info("No iteration was judged for this item.")
        return
    st.altair_chart(charts.convergence(iterations), key="chart_convergence")
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
