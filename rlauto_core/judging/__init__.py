"""Judging: the self-check with mutants, the deterministic validator and the model judge.

Both judges are `Judge`s: the judge loop (rlauto_core.pipeline) asks one for each package's verdict.
"""

from rlauto_core.judging.judges import Judge, Judgement, ModelJudge, ValidatorJudge
from rlauto_core.judging.model import judge_with_model, package_view
from rlauto_core.judging.selfcheck import cli_dict, golden_attempt, self_check
from rlauto_core.judging.validator import validate

__all__ = [
    "Judge",
    "Judgement",
    "ModelJudge",
    "ValidatorJudge",
    "cli_dict",
    "golden_attempt",
    "judge_with_model",
    "package_view",
    "self_check",
    "validate",
]
