"""The pipeline of one recording: the judge loop and the iteration memory it carries."""

from rlauto_core.pipeline.loop import IterationOutcome, IterationRecord, run_iterations
from rlauto_core.pipeline.memory import IterationMemory, judge_feedback

__all__ = ["IterationMemory", "IterationOutcome", "IterationRecord", "judge_feedback", "run_iterations"]
