"""What became of one recording: the one outcome model.

`item.json` holds it; the fields its index row carries as they are (`ItemFields`,
`IterationFields`) are declared here once, and the rows and their Arrow schema are derived from
them (`rlauto_core.store.rows`). The CLI, the SDK and the Prefect artifacts render it. Statuses
are the seed's item statuses. (It lives in `store`, below `pipeline`, so the one recorder of an
item's files can write it; `rlauto_core.pipeline` names it too.)
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal, get_args

import pyarrow as pa
from pydantic import BaseModel, Field

from rlauto_core.llm.types import UsageLedger
from rlauto_core.package.judgement import JudgeResult, Verdict
from rlauto_core.package.models import SelfCheck
from rlauto_core.rules.flags import Flag
from rlauto_core.store.columns import Arrow

ItemStatus = Literal["queued", "running", "judging", "completed", "failed", "stopped"]
ITEM_STATUSES: tuple[ItemStatus, ...] = get_args(ItemStatus)
JobStatus = Literal["running", "completed", "stopped"]
Small = Annotated[int, Arrow(pa.int16())]  # scores, totals and iteration numbers


def _now() -> datetime:
    return datetime.now(UTC)


class IterationFields(BaseModel):
    """What an iteration's index row carries as it is (rlauto_core.store.rows)."""

    iteration: Small
    total: Small = 0
    verdict: str = "NEEDS_REVISION"  # the index holds what any version wrote: read as text
    judge_source: str = "validator"
    rationale: str = ""
    tokens_prompt: int = 0
    tokens_completion: int = 0
    duration_ms: float = 0.0


class IterationResult(IterationFields):
    """One judged iteration: its six scores, its verdict, what it cost and where its files are."""

    verdict: Verdict = "NEEDS_REVISION"  # narrowed: what this version writes
    judge_source: Literal["validator", "model"] = "validator"
    scores: dict[str, int] = Field(default_factory=dict)  # judge dimension -> 0..2
    explanations: dict[str, str] = Field(default_factory=dict)
    passed: bool = False
    judge_skipped: str | None = None  # why the model judge did not run
    model_calls: int = 0
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


class ItemFields(BaseModel):
    """What an item's index row carries as it is (rlauto_core.store.rows)."""

    job_id: str
    item_id: str
    source_name: str
    source_sha256: str = ""
    options_hash: str = ""
    mode: str | None = None
    rule_profile: str = ""
    analyzer: str = "offline"  # "offline", or the analyzer model's name
    status: str = "queued"  # the index holds what any version wrote: read as text
    verdict: str | None = None
    total_score: Small | None = None
    best_iteration: Small | None = None
    instruction: str | None = None
    duration_ms: float = 0.0
    package_path: str | None = None  # the best task-package.json
    output_zip_path: str | None = None  # only when it passed
    error: str | None = None  # why the item failed or stopped
    flow_run_id: str | None = None
    started_at: datetime = Field(default_factory=_now)
    finished_at: datetime | None = None


class ItemOutcome(ItemFields):
    """One recording packaged with one set of options: identity, status, verdict, every iteration."""

    status: ItemStatus = "queued"  # narrowed: what this version writes
    verdict: Verdict | None = None
    source: str
    max_iterations: int = 1
    iterations: list[IterationResult] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    self_check: CheckFigures | None = None
    message: str = ""  # "passed at iteration 1/5, score 12/12" / "iterated 5/5, best 9"
    storage_url: str = ""
    export_dir: str = ""
    reused: bool = False  # read back from an earlier run of the same job, not run again

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
