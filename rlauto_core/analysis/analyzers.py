"""The analyzer interface and its two implementations: offline (rules) and the analyzer model.

The judge loop (rlauto_core.pipeline) asks an `Analyzer` for a draft once per iteration; the
offline analyzer answers the same draft every time and asks for one iteration only, so one loop
runs both paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from rlauto_core.analysis.instruction_polish import InstructionPolish, ModelPolisher, polish_offline
from rlauto_core.analysis.model import analyze_with_model, complete_rubrics, settle_incomplete
from rlauto_core.evidence.models import Evidence
from rlauto_core.llm.errors import PermanentModelError
from rlauto_core.llm.types import ModelClient, Role, UsageLedger
from rlauto_core.package.draft import PackageDraft
from rlauto_core.prompts.answers import AnalyzerResult
from rlauto_core.recording import Recording
from rlauto_core.rules.flags import Flag


@dataclass(frozen=True)
class AnalysisInput:
    """What every iteration analyzes: the recording, its evidence and flags, the slim view a
    model reads, and the offline draft (the starting point a model refines)."""

    recording: Recording
    evidence: Evidence
    flags: list[Flag]
    slim: dict[str, Any]
    offline: PackageDraft


@dataclass(frozen=True)
class Turn:
    """One iteration's questions: where the loop is and what the last judge said."""

    iteration: int
    max_iterations: int
    memory: str = ""
    judge_feedback: str = ""
    user_feedback: str = ""


@dataclass
class Draft:
    """An analyzer's answer for one iteration."""

    draft: PackageDraft
    usage: UsageLedger = field(default_factory=UsageLedger)
    result: AnalyzerResult | None = None  # the model's own answer, when a model wrote the draft
    prompt_chars: int = 0
    notes: list[str] = field(default_factory=list)


class Analyzer(Protocol):
    @property
    def name(self) -> str:
        """ "offline", or the analyzer model's name (the index's `analyzer` column)."""
        ...

    @property
    def iterations(self) -> int | None:
        """At most this many iterations, whatever the options say; None: as the options say."""
        ...

    def analyze(self, item: AnalysisInput, turn: Turn) -> Draft: ...

    def polish(self, instruction: str, recorded_task: dict[str, Any]) -> InstructionPolish:
        """`optimizeTask`: the instruction in Chinese and English (`instruction_polish`)."""
        ...


class OfflineAnalyzer:
    """The deterministic draft from the evidence: no model, so a second iteration would repeat it."""

    name = "offline"
    iterations = 1

    def analyze(self, item: AnalysisInput, turn: Turn) -> Draft:
        return Draft(draft=item.offline)

    def polish(self, instruction: str, recorded_task: dict[str, Any]) -> InstructionPolish:
        return polish_offline(instruction, recorded_task)


class ModelAnalyzer:
    """The analyzer model refines the offline draft; the rubric model (when configured) completes
    rubrics whose checker is missing or broken, and the offline checkers stand in when it fails."""

    iterations = None

    def __init__(self, analyzer: ModelClient, rubric: ModelClient | None = None, *, model: str) -> None:
        self._analyzer = analyzer
        self._rubric = rubric
        self.name = model
        self._polisher = ModelPolisher(analyzer, model)

    def polish(self, instruction: str, recorded_task: dict[str, Any]) -> InstructionPolish:
        return self._polisher.polish(instruction, recorded_task)

    def analyze(self, item: AnalysisInput, turn: Turn) -> Draft:
        step = analyze_with_model(
            self._analyzer,
            evidence=item.evidence,
            slim=item.slim,
            flags=item.flags,
            offline=item.offline,
            memory=turn.memory,
            judge_feedback=turn.judge_feedback,
            user_feedback=turn.user_feedback,
            iteration=turn.iteration,
            max_iterations=turn.max_iterations,
        )
        usage = UsageLedger()
        usage.add(Role.ANALYZER, step.usage)
        notes: list[str] = []
        draft = step.draft
        if step.incomplete and self._rubric is not None:
            try:
                draft, spent = complete_rubrics(self._rubric, draft, step.incomplete, item.slim)
                usage.add(Role.RUBRIC, spent)
            except PermanentModelError as exc:
                # rubric completion is a refinement: the offline checkers stand in when it fails
                if exc.usage is not None:
                    usage.add(Role.RUBRIC, exc.usage)
                notes.append(f"rubric completion failed: {exc}")
        return Draft(
            draft=settle_incomplete(draft, item.offline),
            usage=usage,
            result=step.result,
            prompt_chars=step.prompt_chars,
            notes=notes,
        )
