"""What the orchestration passes between tasks and returns to callers: pydantic models only.

They cross task boundaries as JSON (the tasks use Prefect's JSON serializer), so a result read
back from storage by another worker is the same typed model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

ItemStatus = Literal["queued", "running", "judging", "completed", "failed", "stopped"]
JobStatus = Literal["pending", "running", "completed", "cancelled"]


class UploadRef(BaseModel):
    """A recording copied into storage under `uploads/{job}/{item}.zip`."""

    job_id: str
    item_id: str
    source: str
    source_name: str
    source_sha256: str
    options_hash: str
    size: int
    upload_path: str


class IterationSummary(BaseModel):
    """One iteration as the orchestration reports it (scores, verdict, where its files are)."""

    iteration: int
    scores: dict[str, int] = Field(default_factory=dict)
    total: int = 0
    verdict: str = "NEEDS_REVISION"
    passed: bool = False
    judge_source: str = "validator"
    rationale: str = ""
    explanations: dict[str, str] = Field(default_factory=dict)
    tokens_prompt: int = 0
    tokens_completion: int = 0
    duration_ms: float = 0.0
    paths: dict[str, str] = Field(default_factory=dict)


class ItemResult(BaseModel):
    """The outcome of one recording: what `package_recording` returns and `item.json` holds."""

    job_id: str
    item_id: str
    source: str
    source_name: str
    source_sha256: str = ""
    options_hash: str = ""
    status: ItemStatus
    verdict: str | None = None
    total_score: int | None = None
    best_iteration: int | None = None
    iterations_used: int = 0
    iterations: list[IterationSummary] = Field(default_factory=list)
    flag_codes: list[str] = Field(default_factory=list)
    storage_url: str = ""
    export_dir: str = ""
    package_path: str | None = None
    output_zip_path: str | None = None
    error: str | None = None
    flow_run_id: str | None = None
    reused: bool = False
    duration_ms: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "completed"

    def uri(self, path: str | None) -> str | None:
        return None if path is None else f"{self.storage_url.rstrip('/')}/{path}"


class BatchResult(BaseModel):
    """The outcome of a batch: one `ItemResult` per recording, plus where the bundle is."""

    job_id: str
    status: JobStatus
    storage_url: str
    items: list[ItemResult] = Field(default_factory=list)
    all_results_path: str | None = None
    flow_run_id: str | None = None
    skipped: list[str] = Field(default_factory=list)

    @property
    def completed(self) -> list[ItemResult]:
        return [i for i in self.items if i.status == "completed"]

    @property
    def failed(self) -> list[ItemResult]:
        return [i for i in self.items if i.status == "failed"]


class PolishResult(BaseModel):
    zh: str
    en: str
    notes: str = ""
