"""What the dashboard's repository returns: small typed rows, never data frames or raw dicts."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rlauto_core.errors import RlautoError
from rlauto_core.store.index_schema import REVIEW_DECISIONS

Decision = Literal["accept", "reject", "needs-work"]
assert set(REVIEW_DECISIONS) == {"accept", "reject", "needs-work"}  # keep the Literal in step

# What a reviewer-decision filter may ask for: a decision, or items nobody reviewed yet.
UNREVIEWED = "unreviewed"

SortKey = Literal[
    "finished_at", "total_score", "job_id", "item_id", "status", "verdict", "tokens_total", "iterations_used"
]


class JobSummary(BaseModel):
    """One job (a batch upload) as the overview shows it."""

    job_id: str
    items: int
    status_counts: dict[str, int]
    passed: int
    pass_rate: float  # passed / items
    mean_score: float | None
    tokens_total: int
    reviewed: int
    first_started_at: datetime | None
    last_finished_at: datetime | None


class ItemQuery(BaseModel):
    """Filters, sort and page of the items table; every field is optional."""

    model_config = ConfigDict(frozen=True)

    job_ids: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
    rule_profiles: tuple[str, ...] = ()
    flag_codes: tuple[str, ...] = ()  # items carrying any of these
    decisions: tuple[str, ...] = ()  # review decisions, or UNREVIEWED
    score_min: int | None = Field(default=None, ge=0, le=12)
    score_max: int | None = Field(default=None, ge=0, le=12)
    text: str = ""  # case-insensitive substring of the instruction
    sort: SortKey = "finished_at"
    descending: bool = True
    page: int = Field(default=1, ge=1)
    page_size: int = Field(default=25, ge=1, le=500)


class ItemRow(BaseModel):
    """One line of the items table (the latest row of an item, with its latest review)."""

    job_id: str
    item_id: str
    source_name: str | None
    status: str | None
    verdict: str | None
    total_score: int | None
    max_score: int | None
    mode: str | None
    rule_profile: str | None
    iterations_used: int | None
    flag_codes: list[str]
    instruction: str | None
    tokens_total: int | None
    finished_at: datetime | None
    decision: str | None
    reviewer: str | None


class ItemPage(BaseModel):
    rows: list[ItemRow]
    total: int
    page: int
    page_size: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))


class ItemRecord(ItemRow):
    """Everything the index knows about one item (the detail view's header)."""

    source_sha256: str | None
    options_hash: str | None
    analyzer: str | None
    best_iteration: int | None
    flags_json: str | None
    golden_full_marks: bool | None
    empty_attempt_score: float | None
    mutants_total: int | None
    mutants_caught: int | None
    tokens_prompt: int | None
    tokens_completion: int | None
    duration_ms: float | None
    package_path: str | None
    output_zip_path: str | None
    error: str | None
    flow_run_id: str | None
    started_at: datetime | None
    review_comment: str | None


class IterationScores(BaseModel):
    """One judge pass over one iteration's package: the six scores and where its files are."""

    iteration: int
    scores: dict[str, int | None]  # dimension column -> 0..2
    total: int | None
    verdict: str | None
    judge_source: str | None
    explanations: dict[str, str]
    rationale: str | None
    flag_codes: list[str]
    tokens_prompt: int | None
    tokens_completion: int | None
    package_path: str | None
    judge_path: str | None
    evidence_path: str | None
    memory_path: str | None
    created_at: datetime | None


class Review(BaseModel):
    job_id: str
    item_id: str
    decision: Decision
    comment: str = Field(default="", max_length=5000)
    reviewer: str = Field(min_length=1, max_length=120)
    created_at: datetime


class FilterChoices(BaseModel):
    """The values present in the index, to offer in the filter widgets."""

    job_ids: list[str]
    statuses: list[str]
    verdicts: list[str]
    modes: list[str]
    rule_profiles: list[str]
    flag_codes: list[str]


class IndexHealth(BaseModel):
    """Files the snapshot could not read (shown as a warning, never a crash)."""

    files: dict[str, int]  # table -> files read
    unreadable: list[str]


class StoredFileError(RlautoError):
    """A file the index points at is missing or unreadable: `file` names it, `problem` says why."""

    def __init__(self, file: str, problem: str) -> None:
        self.file = file
        self.problem = problem
        super().__init__(f"{file}: {problem}")


class JobBundle(BaseModel):
    """All passing packages of a job in one ZIP, and the passing items whose ZIP was missing."""

    data: bytes
    included: list[str]
    missing: list[str]
