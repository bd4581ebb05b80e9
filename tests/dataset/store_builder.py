"""A store filled as the pipeline fills it: each recording run through the real core loop offline
(`run_item`, the offline analyzer and the validator), its snapshots, best copies, output.zip or
error.txt, index rows (`index_rows` + `append_item`) and item.json written where
`flows/item.py` and `tasks/recording_tasks.py` write them. No Prefect: the dataset tests need
the files, not the orchestration (the deployment test runs that separately)."""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from rlauto_core.config import RunOptions
from rlauto_core.errors import RlautoError
from rlauto_core.importers import import_bytes
from rlauto_core.package import export_package
from rlauto_core.pipeline import ItemOutcome, IterationSnapshot, analysis_for, index_rows, plan_item, run_item
from rlauto_core.store import Storage, append_item, layout
from tests.conftest import CAPTURES, EXAMPLES

CANARY_AUTH = "Bearer CANARY-DATASET-AUTH-4d1c8e7b2a"
CANARY_COOKIE = "sid=CANARY-DATASET-COOKIE-93be01"
CANARY_KEY = "sk-CANARY-DATASET-KEY-5f0a9d3c71"
CANARIES = ("CANARY-DATASET-AUTH-4d1c8e7b2a", "CANARY-DATASET-COOKIE-93be01", "CANARY-DATASET-KEY-5f0a9d3c71")

ZH = "在 #incident-2291 频道发布事故摘要"
EN = "Post the incident summary in #incident-2291"


def _json_bytes(model: BaseModel | dict[str, object]) -> bytes:
    if isinstance(model, BaseModel):
        return model.model_dump_json(indent=2, by_alias=True).encode()
    return json.dumps(model, indent=2, ensure_ascii=False).encode()


def package_into(
    storage: Storage, name: str, data: bytes, job_id: str, options: RunOptions | None = None
) -> ItemOutcome:
    """One recording through the core loop, its files in `storage` as the item flow writes them."""
    options = options or RunOptions()
    item = plan_item(name, data, options.options_hash(), job_id, name)
    storage.write_bytes(item.upload_path, data)
    outcome = ItemOutcome(
        job_id=item.job_id, item_id=item.item_id, source=name, source_name=name, source_sha256=item.source_sha256,
        options_hash=options.options_hash(), status="running", rule_profile=options.rule_profile,
        storage_url=storage.url, export_dir=layout.export_dir(item.job_id, item.item_id),
    )  # fmt: skip

    def snapshot(shot: IterationSnapshot) -> dict[str, str]:
        paths = {s: layout.iteration_path(item.job_id, item.item_id, s, shot.iteration) for s in layout.SNAPSHOTS}
        for s, model in shot.files().items():
            storage.write_bytes(paths[s], _json_bytes(model))  # type: ignore[index]
        return {str(s): p for s, p in paths.items()}

    package, root_prefix = None, ""
    try:
        recording = import_bytes(data, name, None, 100)
        root_prefix = recording.root_prefix
        done = run_item(recording, options, *analysis_for(None, options), outcome=outcome, on_iteration=snapshot)
        outcome, package = done.outcome, done.package
    except RlautoError as exc:
        outcome = outcome.model_copy(update={"status": "failed", "error": str(exc)})
    best = outcome.best()
    for s, source in (best.paths if best else {}).items():
        storage.write_bytes(layout.best_path(item.job_id, item.item_id, s), storage.read_bytes(source))  # type: ignore[arg-type]
    update: dict[str, object] = {"finished_at": datetime.now(UTC)}
    if best:
        update["package_path"] = layout.best_path(item.job_id, item.item_id, "task-package")
    if package is not None and outcome.passed:
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / ("recording.har" if name.endswith(".har") else "recording.zip")
            copy.write_bytes(data)
            written = export_package(copy, package, Path(tmp) / "out", root_prefix=root_prefix, source_name=name)
            path = layout.output_zip_path(item.job_id, item.item_id)
            storage.write_bytes(path, written.read_bytes())
            update["output_zip_path"] = path
    else:
        storage.write_bytes(
            layout.error_path(item.job_id, item.item_id), f"{outcome.error or outcome.message}\n".encode()
        )
    outcome = outcome.model_copy(update=update)
    append_item(storage, *index_rows(outcome))
    storage.write_bytes(layout.item_outcome_path(item.job_id, item.item_id), _json_bytes(outcome))
    return outcome


def with_task(example: str, change: dict[str, object], headers: dict[str, str] | None = None) -> bytes:
    """An example recording with keys of its task.json's `task` changed and, for HTTP
    recordings, headers added to every request."""
    source = zipfile.ZipFile(EXAMPLES / example)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            raw = source.read(info)
            if info.filename.endswith("task.json"):
                doc = json.loads(raw)
                doc["task"].update(change)
                doc["metadata"]["apiKey"] = CANARY_KEY
                raw = json.dumps(doc, ensure_ascii=False).encode()
            elif info.filename.endswith("network.json") and headers:
                doc = json.loads(raw)
                for request in doc["requests"]:
                    request.setdefault("requestHeaders", {}).update(headers)
                    request["url"] = (
                        request["url"] + ("&" if "?" in request["url"] else "?") + f"access_token={CANARIES[2]}"
                    )
                raw = json.dumps(doc).encode()
            target.writestr(info.filename, raw)
    return out.getvalue()


def example_recordings() -> list[tuple[str, bytes]]:
    """The six example recordings and the bare HAR (no instruction: NEEDS_REVISION offline)."""
    files = sorted(EXAMPLES.glob("*.zip")) + sorted(CAPTURES.glob("*.har"))
    return [(p.name, p.read_bytes()) for p in files]
