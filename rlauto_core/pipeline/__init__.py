"""The pipeline of one recording: the judge loop, the iteration memory, the outcome it returns
(declared in `rlauto_core.store.outcome`, named here too),
and the plan of a batch (its job id and items)."""

from rlauto_core.pipeline.loop import Finished, IterationSnapshot, OnIteration, analysis_for, run_item
from rlauto_core.pipeline.memory import IterationMemory, judge_feedback, read_memory
from rlauto_core.pipeline.plan import (
    BatchPlan,
    LaunchedRun,
    PlannedItem,
    plan_batch,
    plan_item,
    plan_staged,
    stage_plan,
)
from rlauto_core.pipeline.rerun import (
    ItemRerun,
    RerunError,
    last_memory_path,
    plan_regenerate,
    plan_retry,
    stored_outcome,
)
from rlauto_core.store.outcome import (
    ITEM_STATUSES,
    BatchOutcome,
    CheckFigures,
    ItemOutcome,
    ItemStatus,
    IterationResult,
    JobStatus,
)
from rlauto_core.store.rows import index_rows

__all__ = [
    "ITEM_STATUSES",
    "BatchOutcome",
    "BatchPlan",
    "CheckFigures",
    "Finished",
    "ItemOutcome",
    "ItemRerun",
    "ItemStatus",
    "IterationMemory",
    "IterationResult",
    "IterationSnapshot",
    "JobStatus",
    "LaunchedRun",
    "OnIteration",
    "PlannedItem",
    "RerunError",
    "analysis_for",
    "index_rows",
    "judge_feedback",
    "last_memory_path",
    "plan_batch",
    "plan_item",
    "plan_regenerate",
    "plan_retry",
    "plan_staged",
    "read_memory",
    "run_item",
    "stage_plan",
    "stored_outcome",
]
