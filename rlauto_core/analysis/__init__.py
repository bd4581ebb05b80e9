"""Analysis: a recording's evidence -> a draft package, offline (rules) or by the analyzer model.

Both are `Analyzer`s: the judge loop (rlauto_core.pipeline) asks one for a draft per iteration.
"""

from rlauto_core.analysis.analyzers import AnalysisInput, Analyzer, Draft, ModelAnalyzer, OfflineAnalyzer, Turn
from rlauto_core.analysis.instruction_polish import (
    InstructionPolish,
    ModelPolisher,
    polish_offline,
    tidy_instruction,
    with_polish,
)
from rlauto_core.analysis.model import AnalyzerStep, analyze_with_model, complete_rubrics, settle_incomplete
from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.analysis.polish import PolishOutcome, polish_task

__all__ = [
    "AnalysisInput",
    "Analyzer",
    "AnalyzerStep",
    "Draft",
    "InstructionPolish",
    "ModelAnalyzer",
    "ModelPolisher",
    "OfflineAnalyzer",
    "PolishOutcome",
    "Turn",
    "analyze_offline",
    "analyze_with_model",
    "complete_rubrics",
    "polish_offline",
    "polish_task",
    "settle_incomplete",
    "tidy_instruction",
    "with_polish",
]
