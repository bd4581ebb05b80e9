"""What the dashboard's repository returns besides the core's index rows (`IndexedItem`,
`IterationRow`, `Review`): job summaries, queries and pages, never data frames or raw dicts."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rlauto_core.errors import RlautoError
from rlauto_core.store import IndexedItem

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


# How finely the overview's "over time" chart groups finished items (DuckDB `date_trunc` parts).
Bucket = Literal["hour", "day", "week"]


class ScoreCount(BaseModel):
    """How many of a job's items ended with this best total score (the score distribution)."""

    job_id: str
    score: int
    items: int


class ActivityPoint(BaseModel):
    """Items finished in one period: how many passed and what they spent."""

    period: datetime
    items: int
    passed: int
    pass_rate: float  # passed / items of the period
    tokens_total: int


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


class ItemPage(BaseModel):
    rows: list[IndexedItem]
    total: int
    page: int
    page_size: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))


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
