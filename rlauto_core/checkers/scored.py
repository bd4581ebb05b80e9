"""What the scoring runtime reads of a package, as shapes: the checkers sit below `package`, so
they name no package model (`TaskPackage` fits these structurally)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class ScoredRubric(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def max_score(self) -> int: ...
    @property
    def checker_key(self) -> str | None: ...


class ScoredTask(Protocol):
    @property
    def rubrics(self) -> Sequence[ScoredRubric]: ...


class AttemptRule(Protocol):
    @property
    def required_rubrics(self) -> Sequence[str]: ...
    @property
    def min_fraction(self) -> float: ...
    @property
    def rule(self) -> str: ...


class ScoredPassPolicy(Protocol):
    @property
    def attempt(self) -> AttemptRule: ...


class ScoredPackage(Protocol):
    """A task package as far as scoring goes: its rubrics, their checkers, the attempt policy."""

    @property
    def task(self) -> ScoredTask: ...
    @property
    def rubric_checkers(self) -> Mapping[str, Any]: ...
    @property
    def pass_policy(self) -> ScoredPassPolicy: ...
