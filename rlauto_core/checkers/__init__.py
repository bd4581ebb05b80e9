"""Declarative checkers: the DSL (docs/checkers.md), its validation, and the scoring runtime."""

from rlauto_core.checkers.dsl import check_catalog, check_checker
from rlauto_core.checkers.runtime import CheckerEngine, RubricResult, ScoreReport, ensure_valid, score

__all__ = [
    "CheckerEngine",
    "RubricResult",
    "ScoreReport",
    "check_catalog",
    "check_checker",
    "ensure_valid",
    "score",
]
