"""Evals of agents in package environments (`rlauto eval run`, the `eval-agent` flow): the success
rate per model, each package's figures in one eval, and one attempt's calls beside its rubrics.
Read from the index's own table (`index/env_evals/`) and each attempt's `episode.json`."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from dashboards.navigation import App
from rlauto_core.store import EnvEvalRow, eval_summary, read_env_evals

MAX_EPISODE_BYTES = 16 * 1024 * 1024


def _per_model(rows: list[EnvEvalRow]) -> pd.DataFrame:
    models: dict[str, list[EnvEvalRow]] = {}
    for row in rows:
        models.setdefault(row.model, []).append(row)
    return pd.DataFrame(
        [{"model": model, "attempts": len(group), "success rate": eval_summary(group)["success_rate"],
          "mean score": eval_summary(group)["mean_score"], "evals": len({r.eval_id for r in group})}
         for model, group in sorted(models.items())]
    )  # fmt: skip


def _episode(app: App, path: str) -> dict[str, Any] | None:
    try:
        data = app.repository.storage.read_bytes(path)
    except Exception:  # gone or unreachable: the page says so instead of failing
        return None
    if len(data) > MAX_EPISODE_BYTES:
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _attempt(app: App, row: EnvEvalRow) -> None:
    episode = _episode(app, row.episode_path)
    if episode is None:
        st.warning(f"{row.episode_path} cannot be read")
        return
    calls, rubrics = st.columns(2)
    with calls:
        st.markdown(f"**Calls** ({row.turns} turns, {row.stopped})")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "call": c.get("name"),
                        "outcome": c.get("outcome"),
                        "status": c.get("status"),
                        "arguments": app.redactor.text(json.dumps(c.get("arguments"), ensure_ascii=False)[:300]),
                    }
                    for c in episode.get("calls", [])
                ]
            ),
            hide_index=True,
            use_container_width=True,
        )
    with rubrics:
        reward = episode.get("reward", {})
        st.markdown(f"**Rubrics** {reward.get('score')}/{reward.get('max_score')}")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "rubric": f"{r.get('id')} {r.get('title', '')}",
                        "passed": "✅" if r.get("passed") else "❌",
                        "points": f"{r.get('points')}/{r.get('max_score')}",
                        "reason": app.redactor.text(str(r.get("reason", ""))),
                    }
                    for r in reward.get("rubrics", [])
                ]
            ),
            hide_index=True,
            use_container_width=True,
        )


def render_package_evals(app: App) -> None:
    st.subheader("Agents in package environments")
    rows = read_env_evals(app.repository.storage)
    if not rows:
        st.info("No package evals yet: `rlauto eval run PACKAGES... --model scripted` runs one.")
        return
    st.markdown("**Success rate per model**")
    st.dataframe(
        _per_model(rows), hide_index=True, use_container_width=True,
        column_config={"success rate": st.column_config.ProgressColumn(format="percent", min_value=0, max_value=1),
                       "mean score": st.column_config.ProgressColumn(format="percent", min_value=0, max_value=1)},
    )  # fmt: skip
    evals = sorted({r.eval_id for r in rows}, key=lambda e: max(r.finished_at for r in rows if r.eval_id == e),
                   reverse=True)  # fmt: skip
    chosen = st.selectbox("Eval", evals, key="package_eval")
    picked = [r for r in rows if r.eval_id == chosen]
    figures = eval_summary(picked)
    st.markdown(f"**{picked[0].model}**: success rate {figures['success_rate']:.0%}, "
                f"mean score {figures['mean_score']:.0%} over {len(picked)} attempt(s)")  # fmt: skip
    st.dataframe(
        pd.DataFrame([{"package": name, **f} for name, f in figures["packages"].items()]),
        hide_index=True, use_container_width=True,
        column_config={"success_rate": st.column_config.ProgressColumn("success rate", format="percent", min_value=0, max_value=1),
                       "mean_score": st.column_config.ProgressColumn("mean score", format="percent", min_value=0, max_value=1)},
    )  # fmt: skip
    labels = {
        f"{r.package} #{r.attempt}: {r.score}/{r.max_score}": r
        for r in sorted(picked, key=lambda r: (r.package, r.attempt))
    }
    label = st.selectbox("Attempt", list(labels), key="package_eval_attempt")
    if label is not None:
        _attempt(app, labels[label])
