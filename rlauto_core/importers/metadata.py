"""`task.json`, `session.json` and `dbdiff.json`: small documents validated into models."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rlauto_core.errors import RecordingError
from rlauto_core.importers.jsonload import check_shape, expect_dict, type_name
from rlauto_core.importers.timestamps import epoch_to_iso
from rlauto_core.recording import AnnotatorTask, DbDiff, RecordingMetadata, Session

M = TypeVar("M", bound=BaseModel)

MAX_INSTRUCTION_CHARS = 20_000


def validate_model(model: type[M], value: Any, file: str, where: str) -> M:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        location = ".".join(str(part) for part in first["loc"])
        place = f"{where}.{location}" if location else where
        raise RecordingError(file, f"{place}: {first['msg']}") from None


def import_task(document: Any, file: str = "task.json") -> tuple[RecordingMetadata, AnnotatorTask, dict[str, Any]]:
    document = expect_dict(document, file, "the document")
    check_shape(document, file, "the document")
    raw_metadata = document.get("metadata")
    raw_metadata = {} if raw_metadata is None else expect_dict(raw_metadata, file, "metadata")
    if "recordedAt" in raw_metadata:
        # the document stays as recorded (task_json); the model reads epoch s/ms as ISO 8601
        recorded_at = epoch_to_iso(raw_metadata["recordedAt"], file, "metadata.recordedAt")
        raw_metadata = {**raw_metadata, "recordedAt": recorded_at}
    metadata = validate_model(RecordingMetadata, raw_metadata, file, "metadata")
    if "task" not in document:
        raise RecordingError(file, 'has no "task" object')
    task_value = expect_dict(document["task"], file, "task")
    instruction = task_value.get("instruction", "")
    if instruction is not None and not isinstance(instruction, str):
        raise RecordingError(file, f"task.instruction must be a string, got {type_name(instruction)}")
    if isinstance(instruction, str) and len(instruction) > MAX_INSTRUCTION_CHARS:
        raise RecordingError(
            file, f"task.instruction has {len(instruction)} characters, over the limit of {MAX_INSTRUCTION_CHARS}"
        )
    requests = task_value.get("networkRequests", [])
    if requests is not None and (
        not isinstance(requests, list)
        or not all(isinstance(r, (str, int)) and not isinstance(r, bool) for r in requests)
    ):
        raise RecordingError(file, "task.networkRequests must be a list of call ids")
    cleaned = {**task_value, "instruction": instruction or "", "networkRequests": [str(r) for r in requests or []]}
    for key in ("subtasks", "rubrics"):
        if cleaned.get(key) is None:
            cleaned[key] = []
        elif not isinstance(cleaned[key], list):
            raise RecordingError(file, f"task.{key} must be an array, got {type_name(cleaned[key])}")
    task = validate_model(AnnotatorTask, cleaned, file, "task")
    return metadata, task, document


def import_session(document: Any, file: str = "session.json") -> Session:
    document = expect_dict(document, file, "the document")
    check_shape(document, file, "the document")
    stamps = {key: epoch_to_iso(document[key], file, key) for key in ("startedAt", "endedAt") if key in document}
    return validate_model(Session, {**document, **stamps}, file, "session")


def import_dbdiff(document: Any, file: str = "dbdiff.json") -> DbDiff:
    document = expect_dict(document, file, "the document")
    check_shape(document, file, "the document")
    if "tables" not in document:
        raise RecordingError(file, 'has no "tables" object')
    return validate_model(DbDiff, document, file, "dbdiff")
