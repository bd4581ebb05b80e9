"""What an export is asked for, and what it did (the CLI prints it, the flow's artifact shows it,
the dataset card tells it)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DatasetFormat = Literal["parquet", "jsonl"]
DATASET_FORMATS: tuple[DatasetFormat, ...] = ("parquet", "jsonl")

# Skipped items, by reason: the card counts them and lists the first ones.
SkipReason = Literal[
    "no package",  # the item never reached a judged package (its input was refused, or it stopped)
    "package missing",  # the index names a package that is not in storage
    "package broken",  # not JSON, or not a task package
    "package too large",
    "package mismatch",  # the package says it came from other bytes than the item
    "unsafe ids",  # ids that cannot name a path under the storage root
    "values do not fit",  # a value outside the dataset's types (a number beyond int32...)
]

MAX_PACKAGE_BYTES = 64 * 1024 * 1024  # the same bound `rlauto validate` puts on a task.json


class ExportOptions(BaseModel):
    model_config = ConfigDict(frozen=True)

    format: DatasetFormat = "parquet"
    job_id: str | None = None
    only_accepted: bool = False
    min_score: int | None = Field(default=None, ge=0, le=12)
    # a batch ends at whichever comes first; it is one parquet row group
    batch_rows: int = Field(default=256, ge=1, le=100_000)
    batch_bytes: int = Field(default=32 * 1024 * 1024, ge=1)


class SkippedItem(BaseModel):
    job_id: str
    item_id: str
    source_name: str = ""
    reason: SkipReason
    detail: str = ""


def _now() -> datetime:
    return datetime.now(UTC)


class ExportSummary(BaseModel):
    storage_url: str  # redacted
    out: str
    options: ExportOptions
    data_file: str
    card_file: str
    rows: int = 0
    row_groups: int = 0
    items_in_index: int = 0
    jobs: list[str] = Field(default_factory=list)
    filtered: dict[str, int] = Field(default_factory=dict)  # left out by an option, by reason
    skipped: list[SkippedItem] = Field(default_factory=list)
    unreadable_index_files: list[str] = Field(default_factory=list)
    repaired_rows: int = 0  # rows whose text held lone surrogates, written as U+FFFD
    exported_at: datetime = Field(default_factory=_now)

    @property
    def skipped_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.skipped:
            counts[item.reason] = counts.get(item.reason, 0) + 1
        return dict(sorted(counts.items()))

    def line(self) -> str:
        """One line for a terminal or a log."""
        skipped = ", ".join(f"{n} {reason}" for reason, n in self.skipped_counts.items())
        filtered = sum(self.filtered.values())
        return (
            f"{self.rows} rows -> {self.data_file} (card: {self.card_file}); "
            f"{self.items_in_index} items in the index, {filtered} left out by the options, "
            f"{len(self.skipped)} skipped{f' ({skipped})' if skipped else ''}"
        )
