"""The judge interface and its two implementations: the deterministic validator and the model judge.

The loop runs the validator on every package first (it is cheap and grounded in the recording);
a `Judge` then gives the verdict that counts. The validator judge returns the validator's own
result; the model judge asks the judge model, unless the validator already found a zero (a model
call saved: the package cannot pass anyway).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from rlauto_core.judging.model import judge_with_model
from rlauto_core.llm.types import ModelClient, Role, UsageLedger
from rlauto_core.package.judgement import JudgeResult, PassPolicy
from rlauto_core.package.models import TaskPackage


@dataclass
class Judgement:
    result: JudgeResult
    skipped: str | None = None  # why no model judged this package
    usage: UsageLedger = field(default_factory=UsageLedger)


class Judge(Protocol):
    def judge(
        self, package: TaskPackage, validator_result: JudgeResult, *, slim: dict[str, Any], policy: PassPolicy
    ) -> Judgement: ...


class ValidatorJudge:
    """The validator's verdict stands; `reason` says why no model judged (None offline)."""

    def __init__(self, reason: str | None = None) -> None:
        self._reason = reason

    def judge(
        self, package: TaskPackage, validator_result: JudgeResult, *, slim: dict[str, Any], policy: PassPolicy
    ) -> Judgement:
        return Judgement(result=validator_result, skipped=self._reason)


class ModelJudge:
    def __init__(self, client: ModelClient, *, prompt_template: str | None = None) -> None:
        self._client = client
        self._prompt_template = prompt_template

    def judge(
        self, package: TaskPackage, validator_result: JudgeResult, *, slim: dict[str, Any], policy: PassPolicy
    ) -> Judgement:
        if validator_result.has_zeros:
            zeros = ", ".join(s.dimension.value for s in validator_result.scores if s.score == 0)
            return Judgement(result=validator_result, skipped=f"validator scored 0 on {zeros}")
        result, spent = judge_with_model(
            self._client,
            package,
            slim=slim,
            policy=policy,
            validator_result=validator_result,
            prompt_template=self._prompt_template,
        )
        usage = UsageLedger()
        usage.add(Role.JUDGE, spent)
        return Judgement(result=result, usage=usage)
