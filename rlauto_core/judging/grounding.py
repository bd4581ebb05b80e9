"""Instruction grounding: each quoted string and named entity of the instruction tied to the rubric
that checks it.

An instruction that says "add the 'urgent' label and assign it to ENG-7" and a package that checks
only the label passes an attempt that never assigned anything. A clause is checked by a rubric
when its checker (or a checker it points at: the create's core, the `given`) compares a value that
is the clause, holds it (a date-time holding the stated day), or is the id of an entity the
recording's answers call by that name. The clauses no rubric checks are `ungrounded`; the
validator's RUBRIC COVERAGE and the model judge both see them.
"""

from __future__ import annotations

import re
from typing import Any

from rlauto_core.package.models import TaskPackage
from rlauto_core.package.reach import descriptions
from rlauto_core.recording import Recording

_QUOTED = re.compile(r"(?<!\w)'([^']{2,200})'(?!\w)|(?<!\w)\"([^\"]{2,200})\"(?!\w)|‘([^’]{2,200})’|“([^”]{2,200})”|「([^」]{2,200})」")  # fmt: skip
# a token with a digit (4455, ENG-42, v1.2, 2026-05-20), or an id shaped like `p_mug`, `col_todo`
_NAMED = re.compile(r"(?<![\w@#/-])(?:[A-Za-z0-9_.:-]*\d[A-Za-z0-9_.:-]*|[A-Za-z]+_[A-Za-z0-9_]+)(?![\w-])")
_MAX_REFS = 64


def clauses(instruction: str) -> list[str]:
    """The quoted strings and named entities of an instruction, in order, each once."""
    found: list[str] = []
    quoted_spans: list[tuple[int, int]] = []
    for match in _QUOTED.finditer(instruction or ""):
        found.append(next(g for g in match.groups() if g).strip())
        quoted_spans.append(match.span())
    for match in _NAMED.finditer(instruction or ""):
        token = match.group(0).strip(".:-")
        if len(token) >= 2 and not any(a <= match.start() < b for a, b in quoted_spans):
            found.append(token)
    return [c for c in dict.fromkeys(found) if c]


def _constants(node: Any, out: list[str], depth: int = 0) -> None:
    if depth > 16:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("kind", "description", "checker", "field", "before", "after", "given", "match", "created"):
                continue
            if key in ("request", "query", "arguments", "row") and isinstance(value, dict):
                out.extend(str(path).lower() for path in value)  # a field the task names (`checkout_v2: true`)
            _constants(value, out, depth + 1)
    elif isinstance(node, list):
        for item in node:
            _constants(item, out, depth + 1)
    elif node is not None and not isinstance(node, bool):
        out.append(str(node).lower())


def _references(node: Any, depth: int = 0) -> list[str]:
    if depth > 16:
        return []
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("before", "after", "given", "match", "created") and isinstance(value, str):
                found.append(value)
            elif key == "same_as" and isinstance(value, dict) and isinstance(value.get("checker"), str):
                found.append(value["checker"])
            else:
                found.extend(_references(value, depth + 1))
    elif isinstance(node, list):
        for item in node:
            found.extend(_references(item, depth + 1))
    return found


def _rubric_values(package: TaskPackage, key: str) -> list[str]:
    """Every value a rubric's checker compares, with the checkers it points at."""
    values: list[str] = []
    pending: list[str] = [key]
    seen: set[str] = set()
    while pending and len(seen) < _MAX_REFS:
        current = pending.pop()
        if current in seen or current not in package.rubric_checkers:
            continue
        seen.add(current)
        checker = package.rubric_checkers[current]
        _constants(
            {k: v for k, v in checker.items() if k != "path_template"} if isinstance(checker, dict) else checker, values
        )
        if isinstance(checker, dict) and isinstance(checker.get("path_template"), str):
            values.extend(s.lower() for s in checker["path_template"].split("/") if s and not s.startswith("{"))
        pending.extend(_references(checker))
    return values


def grounding(package: TaskPackage, recording: Recording | None) -> tuple[dict[str, list[str]], list[str]]:
    """(clause -> the rubrics that check it, the clauses no rubric checks)."""
    names = {k.lower(): {n.lower() for n in v} for k, v in (descriptions(recording) if recording else {}).items()}
    tied: dict[str, list[str]] = {}
    per_rubric: dict[str, list[str]] = {}
    for rubric in package.task.rubrics:
        values = _rubric_values(package, rubric.checker_key or "")
        # an id the rubric checks stands for what the answers call it ("Ethiopia Yirgacheffe 250 g")
        per_rubric[rubric.id] = values + [n for v in values for n in names.get(v, ())]
    for clause in clauses(package.task.instruction):
        wanted = clause.lower()
        within = re.compile(rf"(?<![^\W_]){re.escape(wanted)}(?![^\W_])")  # as a whole word: `q3` in "q3 goals"
        tied[clause] = [r for r, values in per_rubric.items() if any(wanted == v or within.search(v) for v in values)]
    return tied, [c for c, rubrics in tied.items() if not rubrics]
