"""What became of one recording: the one outcome model.

`item.json` holds it, the index rows are derived from it (`rlauto_core.store.index.index_rows`),
and the CLI, the SDK and the Prefect artifacts render it. Statuses are the seed's item statuses.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field

from rlauto_core.llm.types import UsageLedger
from rlauto_core.package.judgement import JudgeResult, Verdict
from rlauto_core.package.models import SelfCheck
from rlauto_core.rules.flags import Flag

ItemStatus = Literal["queued", "running", "judging", "completed", "failed", "stopped"]
ITEM_STATUSES: tuple[ItemStatus, ...] = get_args(ItemStatus)
JobStatus = Literal["running", "completed", "stopped"]


def _now() -> datetime:
    return datetime.now(UTC)


class IterationResult(BaseModel):
    """One judged iteration: its six scores, its verdict, what it cost and where its files are."""

    iteration: int
    scores: dict[str, int] = Field(default_factory=dict)  # judge dimension -> 0..2
    explanations: dict[str, str] = Field(default_factory=dict)
    total: int = 0
    verdict: Verdict = "NEEDS_REVISION"
    passed: bool = False
    judge_source: Literal["validator", "model"] = "validator"
    judge_skipped: str | None = None  # why the model judge did not run
    rationale: str = ""
    tokens_prompt: int = 0
    tokens_completion: int = 0
    model_calls: int = 0
    duration_ms: float = 0.0
    paths: dict[str, str] = Field(default_factory=dict)  # snapshot -> storage path
    notes: list[str] = Field(default_factory=list)

    @classmethod
    def of(
        cls, iteration: int, judge: JudgeResult, passed: bool, usage: UsageLedger, **rest: object
    ) -> IterationResult:
        total = usage.total
        return cls.model_validate(
            {
                "iteration": iteration,
                "scores": {s.dimension.value: s.score for s in judge.scores},
                "explanations": {s.dimension.value: s.explanation for s in judge.scores},
                "total": judge.total,
                "verdict": judge.verdict,
                "passed": passed,
                "judge_source": judge.source,
                "rationale": judge.rationale,
                "tokens_prompt": total.prompt_tokens,
                "tokens_completion": total.completion_tokens,
                "model_calls": total.calls,
                **rest,
            }
        )


class CheckFigures(BaseModel):
    """The best package's self-check in four figures (the full check is in the package)."""

    golden_full_marks: bool
    empty_attempt_score: float
    mutants_total: int
    mutants_caught: int
    problems: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, check: SelfCheck) -> CheckFigures:
        return cls(
            golden_full_marks=check.golden_full_marks,
            empty_attempt_score=check.empty_attempt_score,
            mutants_total=check.mutants_total,
            mutants_caught=check.mutants_caught,
            problems=check.problems,
        )


class ItemOutcome(BaseModel):
    """One recording packaged with one set of options: identity, status, verdict, every iteration."""

    job_id: str
    item_id: str
    source: str
    source_name: str
    source_sha256: str = ""
    options_hash: str = ""
    status: ItemStatus = "queued"
    mode: str | None = None
    rule_profile: str = ""
    analyzer: str = "offline"  # "offline", or the analyzer model's name
    verdict: Verdict | None = None
    total_score: int | None = None
    best_iteration: int | None = None
    max_iterations: int = 1
    iterations: list[IterationResult] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    instruction: str | None = None
    self_check: CheckFigures | None = None
    message: str = ""  # "passed at iteration 1/5, score 12/12" / "iterated 5/5, best 9"
    error: str | None = None  # why the item failed or stopped
    storage_url: str = ""
    export_dir: str = ""
    package_path: str | None = None  # the best task-package.json
    output_zip_path: str | None = None  # only when it passed
    flow_run_id: str | None = None
    reused: bool = False  # read back from an earlier run of the same job, not run again
    started_at: datetime = Field(default_factory=_now)
    finished_at: datetime | None = None
    duration_ms: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "completed"

    @property
    def refused(self) -> bool:
        """Failed before any package was judged: the input itself was refused."""
        return self.status == "failed" and not self.iterations

    @property
    def iterations_used(self) -> int:
        return len(self.iterations)

    @property
    def flag_codes(self) -> list[str]:
        return sorted({f.code for f in self.flags})

    @property
    def tokens_prompt(self) -> int:
        return sum(i.tokens_prompt for i in self.iterations)

    @property
    def tokens_completion(self) -> int:
        return sum(i.tokens_completion for i in self.iterations)

    def best(self) -> IterationResult | None:
        return next((i for i in self.iterations if i.iteration == self.best_iteration), None)

    def uri(self, path: str | None) -> str | None:
        return None if path is None else f"{self.storage_url.rstrip('/')}/{path}"


class BatchOutcome(BaseModel):
    """A batch: one `ItemOutcome` per recording, plus where the bundle of passing packages is."""

    job_id: str
    status: JobStatus
    storage_url: str
    items: list[ItemOutcome] = Field(default_factory=list)
    all_results_path: str | None = None
    flow_run_id: str | None = None

    @property
    def completed(self) -> list[ItemOutcome]:
        return [i for i in self.items if i.status == "completed"]

    @property
    def failed(self) -> list[ItemOutcome]:
        return [i for i in self.items if i.status == "failed"]
