"""The charts a reviewer reads at a glance (Altair, which Streamlit ships with), built from the
repository's typed rows: the score distribution per job, pass rate and tokens over time, and how
an item's judge loop converged (the six dimensions per iteration)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from dashboards.models import ActivityPoint, ScoreCount
from rlauto_core.package import Dimension
from rlauto_core.redact import Redactor
from rlauto_core.store import DIMENSION_COLUMNS, IterationRow

DIMENSIONS = [d.value for d in Dimension]  # the judge's order, top to bottom
LABELS = dict(zip(DIMENSION_COLUMNS, DIMENSIONS, strict=True))
SCORES = list(range(13))  # every total 0-12 gets a slot, so gaps in a distribution show
SCORE_COLOURS = alt.Scale(domain=[0, 1, 2], range=["#d94f4f", "#f2c14e", "#3a9e5f"])
TOKENS_TITLE = "Pass rate and tokens over time"
NO_MODEL_CALLS = "no model calls"


def score_distribution(counts: Sequence[ScoreCount], redactor: Redactor) -> alt.Chart:
    frame = pd.DataFrame(
        [{"job": redactor.text(c.job_id), "score": c.score, "items": c.items} for c in counts],
        columns=["job", "score", "items"],
    )
    chart: alt.Chart = (
        alt.Chart(frame, title="Best total score per item, by job")
        .mark_bar()
        .encode(
            x=alt.X(
                "score:O", scale=alt.Scale(domain=SCORES), title="total score (of 12)", axis=alt.Axis(labelAngle=0)
            ),
            xOffset="job:N",
            y=alt.Y("items:Q", title="items", axis=alt.Axis(tickMinStep=1)),
            color=alt.Color("job:N", legend=alt.Legend(orient="bottom")),
            tooltip=["job", "score", "items"],
        )
        .properties(height=280)
    )
    return chart


def activity(points: Sequence[ActivityPoint]) -> alt.LayerChart | alt.Chart:
    """Finished items' pass rate per period as a line over the tokens they spent as bars; with no
    tokens at all, the line alone and a subtitle saying so (an all-zero axis reads as a fault)."""
    frame = pd.DataFrame(
        [
            {"period": p.period, "items": p.items, "pass rate": round(p.pass_rate * 100, 1), "tokens": p.tokens_total}
            for p in points
        ],
        columns=["period", "items", "pass rate", "tokens"],
    )
    spent = bool((frame["tokens"] > 0).any())
    title = alt.TitleParams(TOKENS_TITLE) if spent else alt.TitleParams(TOKENS_TITLE, subtitle=NO_MODEL_CALLS)
    base = alt.Chart(frame, title=title).encode(x=alt.X("period:T", title="finished"))
    rate = base.mark_line(point=True, color="#3a9e5f", strokeWidth=3).encode(
        y=alt.Y("pass rate:Q", title="pass rate (%)", scale=alt.Scale(domain=[0, 100]),
                axis=alt.Axis(titleColor="#3a9e5f")),
        tooltip=["period:T", "items", "pass rate"],
    )  # fmt: skip
    if not spent:
        alone: alt.Chart = rate.properties(height=280)
        return alone
    tokens = base.mark_bar(opacity=0.35, color="#6b8fd6").encode(
        # whole tokens with thousands separators, never a tick between two integers
        y=alt.Y("tokens:Q", title="tokens", axis=alt.Axis(format=",d", tickMinStep=1, titleColor="#6b8fd6")),
        tooltip=["period:T", "items", alt.Tooltip("tokens:Q", format=",d")],
    )
    layered: alt.LayerChart = alt.layer(tokens, rate).resolve_scale(y="independent").properties(height=280)
    return layered


def convergence(iterations: Sequence[IterationRow]) -> alt.HConcatChart:
    """The six scores per iteration as a grid (red 0, yellow 1, green 2) beside the total's line."""
    cells = pd.DataFrame(
        [
            {"iteration": it.iteration, "dimension": LABELS[column], "score": it.scores().get(column)}
            for it in iterations
            for column in DIMENSION_COLUMNS
        ],
        columns=["iteration", "dimension", "score"],
    )
    grid = alt.Chart(cells, title="Judge dimensions per iteration").encode(
        x=alt.X("iteration:O", title="iteration", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("dimension:N", sort=DIMENSIONS, title=None, axis=alt.Axis(labelLimit=240)),
    )
    heat = grid.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color("score:Q", scale=SCORE_COLOURS, legend=None),  # each cell shows its number
        tooltip=["iteration", "dimension", "score"],
    )
    labels = grid.mark_text(fontSize=14, fontWeight="bold").encode(text="score:Q")
    totals = pd.DataFrame(
        [{"iteration": it.iteration, "total": it.total, "verdict": it.verdict or ""} for it in iterations],
        columns=["iteration", "total", "verdict"],
    )
    line = (
        alt.Chart(totals, title="Total per iteration")
        .mark_line(point=alt.OverlayMarkDef(size=80), strokeWidth=3)
        .encode(
            x=alt.X("iteration:O", title="iteration", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("total:Q", scale=alt.Scale(domain=[0, 12]), title="total (of 12)"),
            tooltip=["iteration", "total", "verdict"],
        )
    )
    return alt.hconcat((heat + labels).properties(height=220, width=320), line.properties(height=220, width=240))
