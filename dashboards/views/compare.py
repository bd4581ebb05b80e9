"""Two iterations' packages side by side: choose two, see each one's instruction, rubrics and
golden trajectory next to each other, and every value that differs (dashboards/package_diff.py);
the unified diff of the whole JSON stays one click away."""

from __future__ import annotations

import difflib
from typing import Any

import pandas as pd
import streamlit as st

from dashboards.models import StoredFileError
from dashboards.package_diff import changes
from dashboards.repository import Repository
from dashboards.views.common import pretty_json, show_text
from rlauto_core.redact import Redactor
from rlauto_core.store import IterationRow

MAX_DIFF_LINES = 4000
KINDS = ("added", "removed", "changed")


def render(repository: Repository, redactor: Redactor, iterations: list[IterationRow]) -> None:
    st.subheader("Compare two iterations' packages")
    numbers = [it.iteration for it in iterations]
    if len(numbers) < 2:
        st.caption("Only one iteration: nothing to compare." if numbers else "No iteration to compare.")
        return
    by_number = {it.iteration: it for it in iterations}
    cols = st.columns(2)
    left = cols[0].selectbox("From iteration", numbers, index=0, key="diff_from")
    right = cols[1].selectbox("To iteration", numbers, index=len(numbers) - 1, key="diff_to")
    packages: list[Any] = []
    for number in (left, right):
        path = by_number[number].package_path
        try:
            # redacted before anything is compared, so no difference can show a secret
            packages.append(redactor.value(repository.read_json(path)) if path else {})
        except StoredFileError as exc:
            st.warning(redactor.markdown(str(exc)))
            return
    for column, number, package in zip(cols, (left, right), packages, strict=True):
        with column.container(border=True):
            _side(by_number[number], package if isinstance(package, dict) else {}, redactor)
    _changes(packages[0], packages[1], left, right, redactor)
    with st.expander("Unified diff of the whole package JSON"):
        texts = [pretty_json(redactor, p) for p in packages]
        diff = list(
            difflib.unified_diff(
                texts[0].splitlines(), texts[1].splitlines(), f"iteration {left}", f"iteration {right}", lineterm=""
            )
        )
        if not diff:
            st.caption("The two packages are identical.")
        else:
            st.code("\n".join(diff[:MAX_DIFF_LINES]), language="diff")


def _side(iteration: IterationRow, package: dict[str, Any], redactor: Redactor) -> None:
    verdict = redactor.markdown(iteration.verdict or "-")
    st.markdown(
        f"**Iteration {iteration.iteration}** · {iteration.total if iteration.total is not None else '-'}/12 · {verdict}"
    )
    task = package.get("task") or {}
    st.caption("Instruction")
    show_text(redactor, task.get("instruction"))
    rubrics = [r for r in task.get("rubrics") or [] if isinstance(r, dict)]
    st.caption(f"Rubrics ({len(rubrics)})")
    st.dataframe(
        pd.DataFrame(
            [
                {"id": str(r.get("id", "")), "title": redactor.text(str(r.get("title", ""))),
                 "checker": str(r.get("checker_key", ""))}
                for r in rubrics
            ],
            columns=["id", "title", "checker"],
        ),
        hide_index=True,
        width="stretch",
    )  # fmt: skip
    steps = [s for s in package.get("golden_trajectory") or [] if isinstance(s, dict)]
    st.caption(f"Golden trajectory ({len(steps)} steps)")
    st.dataframe(
        pd.DataFrame(
            [{"step": s.get("step"), "call": str(s.get("call_id", "")), "name": redactor.text(str(s.get("name", "")))}
             for s in steps],
            columns=["step", "call", "name"],
        ),
        hide_index=True,
        width="stretch",
    )  # fmt: skip


def _changes(before: Any, after: Any, left: int, right: int, redactor: Redactor) -> None:
    found = changes(before, after)
    if not found:
        st.success("The two packages are identical.")
        return
    counts = {kind: sum(c.kind == kind for c in found) for kind in KINDS}
    st.markdown(
        f"**{len(found)} differences** from iteration {left} to {right}: "
        + ", ".join(f"{n} {kind}" for kind, n in counts.items())
    )
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "where": redactor.text(c.path),
                    "change": c.kind,
                    f"iteration {left}": redactor.text(c.before or ""),
                    f"iteration {right}": redactor.text(c.after or ""),
                }
                for c in found
            ]
        ),
        hide_index=True,
        width="stretch",
    )
