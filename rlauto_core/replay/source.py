"""Where an environment comes from: a task package (its ZIP, which holds the recording byte for
byte, or a bare task.json, whose call objects and golden diff stand in for it). No model."""

from __future__ import annotations

from pathlib import Path

from rlauto_core.errors import PackageError, RlautoError
from rlauto_core.importers import import_path
from rlauto_core.package.calls import attempt_from_calls, call_from_api_call
from rlauto_core.package.io import load_package
from rlauto_core.package.models import TaskPackage
from rlauto_core.recording import DbDiff, Recording


def load_source(path: str | Path) -> tuple[TaskPackage, Recording]:
    """The package and the recording its environment answers from; PackageError naming the file."""
    path = Path(path)
    if not path.exists():
        raise PackageError(str(path), "no such file: name a task package ZIP or its task.json")
    package = load_package(path)
    if path.suffix.lower() == ".json":
        return package, _from_call_objects(package, path)
    try:
        recording = import_path(path)
    except RlautoError as exc:
        raise PackageError(path.name, f"its recording cannot be read: {exc}") from None
    recording.task = recording.task.model_copy(update={"instruction": package.task.instruction})
    if not recording.calls:
        raise PackageError(path.name, "its recording holds no calls: nothing to answer from")
    return package, recording


def _from_call_objects(package: TaskPackage, path: Path) -> Recording:
    objects = sorted(package.api_calls_by_id().values(), key=lambda c: int(c.metadata.get("index") or 0))
    if not objects:
        raise PackageError(path.name, "its subtasks hold no call objects (apiCalls): nothing to answer from")
    calls = [call_from_api_call(obj) for obj in objects]
    recording = attempt_from_calls(None, calls, path.name, package.network.mode)
    recording.task = recording.task.model_copy(update={"instruction": package.task.instruction})
    golden = package.dbdiff_criteria.golden_diff
    recording.dbdiff = DbDiff.model_validate(golden) if golden else None
    return recording
