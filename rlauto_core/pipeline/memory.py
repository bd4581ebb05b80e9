"""Iteration memory: the judge's open problems, merged across iterations for the next prompt.

A problem the judge raises again (same dimension, similar wording) is merged and counted, not
repeated; a dimension that reaches 2/2 is dropped and remembered as fixed, so the model keeps
what works. The memory is persisted per iteration (`iteration-memory-iter-N.json`).
"""

from __future__ import annotations

from pydantic import BaseModel, Field, ValidationError
from rapidfuzz import fuzz

from rlauto_core.errors import RlautoError
from rlauto_core.package.judgement import JudgeResult
from rlauto_core.store.storage import Storage

SIMILAR = 80  # rapidfuzz token_set_ratio at or above which two explanations are one problem
MAX_PER_DIMENSION = 3


class MemoryItem(BaseModel):
    dimension: str
    problem: str
    score: int
    first_seen: int
    last_seen: int
    times: int = 1


class IterationMemory(BaseModel):
    items: list[MemoryItem] = Field(default_factory=list)
    fixed: list[str] = Field(default_factory=list)
    iterations: int = 0

    def updated(self, iteration: int, judge: JudgeResult) -> IterationMemory:
        """A new memory with this iteration's judge result folded in (the old one is untouched)."""
        scores = {s.dimension.value: s for s in judge.scores}
        items = [i.model_copy() for i in self.items if scores.get(i.dimension) is None or scores[i.dimension].score < 2]
        fixed = list(self.fixed)
        for item in self.items:
            score = scores.get(item.dimension)
            if score is not None and score.score == 2 and item.dimension not in fixed:
                fixed.append(item.dimension)
        for name, score in scores.items():
            if score.score == 2:
                continue
            if name in fixed:
                fixed.remove(name)  # it broke again: it is open, not fixed
            same = next(
                (
                    i
                    for i in items
                    if i.dimension == name and fuzz.token_set_ratio(i.problem, score.explanation) >= SIMILAR
                ),
                None,
            )
            if same is not None:
                same.times += 1
                same.last_seen = iteration
                same.score = score.score
                same.problem = score.explanation  # the latest wording is the most precise
            else:
                items.append(
                    MemoryItem(
                        dimension=name,
                        problem=score.explanation,
                        score=score.score,
                        first_seen=iteration,
                        last_seen=iteration,
                    )
                )
        kept: list[MemoryItem] = []
        for name in dict.fromkeys(i.dimension for i in items):
            mine = sorted((i for i in items if i.dimension == name), key=lambda i: i.last_seen)
            kept.extend(mine[-MAX_PER_DIMENSION:])
        return IterationMemory(items=kept, fixed=fixed, iterations=iteration)

    def render(self) -> str:
        if not self.items and not self.fixed:
            return ""
        lines = []
        for item in sorted(self.items, key=lambda i: (-i.times, i.dimension)):
            seen = f"seen {item.times}x, iterations {item.first_seen}-{item.last_seen}"
            lines.append(f"- [{item.dimension}] {item.score}/2 ({seen}): {item.problem}")
        if self.fixed:
            lines.append("Fixed already, keep as is: " + ", ".join(self.fixed))
        return "\n".join(lines)


def judge_feedback(judge: JudgeResult) -> str:
    """The previous judge's rationale and every dimension below 2/2, for the next prompt."""
    lines = [f"Total {judge.total}/12 ({judge.source}); verdict {judge.verdict}."]
    if judge.rationale:
        lines.append(f"Rationale: {judge.rationale}")
    for score in judge.scores:
        if score.score < 2:
            lines.append(f"- {score.dimension.value} {score.score}/2: {score.explanation}")
    return "\n".join(lines)


def read_memory(storage: Storage, path: str) -> IterationMemory:
    """A stored `iteration-memory-iter-N.json`; a missing or broken one is an error naming it."""
    try:
        return IterationMemory.model_validate_json(storage.read_bytes(path))
    except FileNotFoundError:
        raise RlautoError(f"{path}: the iteration memory to continue from is not in storage") from None
    except ValidationError as exc:
        raise RlautoError(f"{path}: not an iteration memory: {exc.errors()[0]['msg']}") from None
