"""task.json in and out: the package as the plugin reads it, and loading one back (ZIP or JSON)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import ValidationError

from rlauto_core.errors import PackageError, RecordingError
from rlauto_core.importers.jsonload import load_json
from rlauto_core.package.models import TaskPackage
from rlauto_core.redact import redact_json, redact_text, redact_url

MAX_TASK_JSON_BYTES = 64 * 1024 * 1024


def _scrub(value: Any) -> Any:
    """Token-looking text removed from every string, keys untouched (a flag's `code` is no secret)."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, str):
        return redact_url(value) if value.startswith(("http://", "https://")) else redact_text(value)
    return value


def package_to_json(package: TaskPackage) -> dict[str, Any]:
    """The task.json object: echo fields camelCase, RL fields snake_case, no secrets."""
    data = package.model_dump(mode="json", by_alias=True)
    for key in ("metadata", "task"):
        data[key] = redact_json(data[key])
    data["dbdiff_criteria"]["golden_diff"] = redact_json(data["dbdiff_criteria"].get("golden_diff"))
    return _scrub(data)  # type: ignore[no-any-return]


def package_bytes(package: TaskPackage) -> bytes:
    return json.dumps(package_to_json(package), ensure_ascii=False, indent=2).encode("utf-8")


def package_from_json(data: Any, file: str = "task.json") -> TaskPackage:
    if not isinstance(data, dict):
        raise PackageError(file, f"must hold a JSON object, got {type(data).__name__}")
    try:
        return TaskPackage.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        raise PackageError(file, f"{where}: {first['msg']}{more}") from None


def _task_json_entry(names: list[str]) -> str | None:
    if "task.json" in names:
        return "task.json"
    nested = [n for n in names if PurePosixPath(n).name == "task.json" and len(PurePosixPath(n).parts) == 2]
    return nested[0] if len(nested) == 1 else None


def load_package(path: str | Path) -> TaskPackage:
    """A package from a package ZIP (its task.json, at the root or under one folder) or a task.json."""
    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise PackageError(name, "no such file")
    if zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as archive:
                entry = _task_json_entry(archive.namelist())
                if entry is None:
                    raise PackageError(name, "the ZIP holds no task.json")
                info = archive.getinfo(entry)
                if info.file_size > MAX_TASK_JSON_BYTES:
                    raise PackageError(name, f"{entry} is larger than {MAX_TASK_JSON_BYTES} bytes")
                raw = archive.read(entry)
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as exc:
            raise PackageError(name, f"unreadable ZIP ({exc})") from None
        file = f"{name}:{entry}"
    else:
        if path.stat().st_size > MAX_TASK_JSON_BYTES:
            raise PackageError(name, f"larger than {MAX_TASK_JSON_BYTES} bytes")
        raw, file = path.read_bytes(), name
    try:
        data = load_json(raw, file)
    except RecordingError as exc:
        raise PackageError(exc.file, exc.problem) from None
    return package_from_json(data, file)
