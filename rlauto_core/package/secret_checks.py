"""No checker compares a secret.

The package is redacted before its checks run (a password, a token, wherever it recurs): a
checker that compared a recorded secret then holds "[REDACTED]", which no attempt sends, the
golden included (an Odoo `execute_kw` sends its password among its positional arguments, so
the create's `params.args` listed it). Such a comparison says nothing about the task, so it goes:
a field whose predicate names the mark, an operator whose argument holds it, and, in a
`contains` list, the needles that hold it (the others still say what the call must send).
"""

from __future__ import annotations

from typing import Any

from rlauto_core.checkers.dsl import KIND_KEYS
from rlauto_core.package.models import TaskPackage
from rlauto_core.redact import REDACTED


def _holds_mark(value: Any) -> bool:
    if isinstance(value, str):
        return REDACTED in value
    if isinstance(value, dict):
        return any(_holds_mark(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_mark(v) for v in value)
    return False


def _predicate(value: Any) -> Any | None:
    """The predicate without what compares a secret; None when nothing is left."""
    if not _holds_mark(value):
        return value
    if not isinstance(value, dict):
        return None
    kept: dict[str, Any] = {}
    for op, arg in value.items():
        if op == "contains" and isinstance(arg, list):
            needles = [a for a in arg if not _holds_mark(a)]
            if needles:
                kept[op] = needles
        elif not _holds_mark(arg):
            kept[op] = arg
    return kept if set(kept) - {"ci"} else None


def _checker(checker: dict[str, Any]) -> dict[str, Any]:
    kinds = KIND_KEYS.get(str(checker.get("kind")), {})
    out: dict[str, Any] = {}
    for key, value in checker.items():
        if kinds.get(key) == "map" and isinstance(value, dict):
            fields = {f: p for f, pr in value.items() if (p := _predicate(pr)) is not None}
            if fields:
                out[key] = fields
        elif kinds.get(key) == "pred" and _holds_mark(value):
            continue
        else:
            out[key] = value
    return out


def without_secret_comparisons(package: TaskPackage) -> TaskPackage:
    """The package with no checker comparing a redacted value (the same package when none does)."""
    checkers = {k: _checker(c) if isinstance(c, dict) else c for k, c in package.rubric_checkers.items()}
    return package if checkers == package.rubric_checkers else package.model_copy(update={"rubric_checkers": checkers})
