"""One item result, one recorder, one plan read once, one module of job ids, one run context:
the pieces of the house, each on its own (the flows tests run them together)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Annotated, Literal

import pyarrow as pa
import pytest
from pydantic import BaseModel

from rlauto_core.config import RunContext, RunOptions, Settings
from rlauto_core.errors import RecordingError
from rlauto_core.pipeline import BatchOutcome, ItemOutcome, IterationResult, plan_batch, stage_plan
from rlauto_core.rules import Flag
from rlauto_core.store import (
    ITEMS_DIR,
    ITEMS_SCHEMA,
    ITERATIONS_DIR,
    ITERATIONS_SCHEMA,
    CheckFigures,
    JobIdError,
    Recorder,
    checked_job_id,
    index_rows,
    layout,
    open_staged,
    open_storage,
    read_table,
    safe_job_id,
)
from rlauto_core.store.columns import Arrow, arrow_schema
from rlauto_core.store.outcome import ItemFields
from tests.orchestration.recordings import write_variants

# the stored index format (formats of index/items and index/iterations): derived now, never retyped
ITEM_COLUMNS = {
    "job_id": "string", "item_id": "string", "source_name": "string", "source_sha256": "string",
    "options_hash": "string", "mode": "string", "rule_profile": "string", "analyzer": "string", "status": "string",
    "verdict": "string", "total_score": "int16", "max_score": "int16", "iterations_used": "int16",
    "best_iteration": "int16", "instruction": "string", "flag_codes": "list<item: string>", "flags_json": "string",
    "golden_full_marks": "bool", "empty_attempt_score": "double", "mutants_total": "int32",
    "mutants_caught": "int32", "tokens_prompt": "int64", "tokens_completion": "int64", "tokens_total": "int64",
    "duration_ms": "double", "package_path": "string", "output_zip_path": "string", "error": "string",
    "flow_run_id": "string", "started_at": "timestamp[ms, tz=UTC]", "finished_at": "timestamp[ms, tz=UTC]",
}  # fmt: skip
ITERATION_COLUMNS = {
    "job_id": "string", "item_id": "string", "iteration": "int16", "instruction_clarity": "int8",
    "task_complexity": "int8", "trajectory_task_alignment": "int8", "rubric_coverage": "int8",
    "checker_verifiability": "int8", "evidence_grounding": "int8", "total": "int16", "verdict": "string",
    "judge_source": "string", "explanations_json": "string", "rationale": "string",
    "flag_codes": "list<item: string>", "tokens_prompt": "int64", "tokens_completion": "int64",
    "duration_ms": "double", "package_path": "string", "judge_path": "string", "evidence_path": "string",
    "memory_path": "string", "created_at": "timestamp[ms, tz=UTC]",
}  # fmt: skip


def outcome(storage_url: str) -> ItemOutcome:
    iteration = IterationResult(
        iteration=1, scores={"INSTRUCTION CLARITY": 2, "TASK COMPLEXITY": 1}, explanations={"TASK COMPLEXITY": "thin"},
        total=11, verdict="PASS", passed=True, tokens_prompt=30, tokens_completion=7,
        paths={"task-package": "exports/job-a/it-1/task-package-iter-1.json"},
    )  # fmt: skip
    return ItemOutcome(
        job_id="job-a", item_id="it-1", source="a.zip", source_name="a.zip", status="completed", verdict="PASS",
        total_score=11, best_iteration=1, iterations=[iteration], storage_url=storage_url,
        flags=[Flag(code="NOISE", message="noise", severity="warning")],
        self_check=CheckFigures(golden_full_marks=True, empty_attempt_score=0.0, mutants_total=4, mutants_caught=3),
    )  # fmt: skip


def test_the_index_schemas_are_derived_and_keep_the_stored_format() -> None:
    assert {f.name: str(f.type) for f in ITEMS_SCHEMA} == ITEM_COLUMNS
    assert {f.name: str(f.type) for f in ITERATIONS_SCHEMA} == ITERATION_COLUMNS


def test_a_field_of_the_outcome_reaches_its_row_without_being_typed_again() -> None:
    done = outcome("file:///nowhere")
    item, [first] = index_rows(done)
    assert {name: getattr(item, name) for name in ItemFields.model_fields if name != "finished_at"} == {
        name: getattr(done, name) for name in ItemFields.model_fields if name != "finished_at"
    }
    assert (item.tokens_total, item.iterations_used, item.flag_codes, item.mutants_caught) == (37, 1, ["NOISE"], 3)
    assert (first.instruction_clarity, first.task_complexity, first.total) == (2, 1, 11)
    assert first.explanations() == {"task_complexity": "thin"}


def test_the_schema_follows_the_model_and_names_a_column_it_cannot_type() -> None:
    class Row(BaseModel):
        name: str
        score: Annotated[int, Arrow(pa.int8())] | None = None
        kind: Literal["a", "b"] = "a"
        tags: list[str] = []

    assert [(f.name, str(f.type)) for f in arrow_schema(Row)] == [
        ("name", "string"), ("score", "int8"), ("kind", "string"), ("tags", "list<item: string>")
    ]  # fmt: skip

    class Odd(BaseModel):
        blob: dict[str, int]

    with pytest.raises(TypeError, match="column blob"):
        arrow_schema(Odd)


def test_the_recorder_writes_an_item_rows_then_item_json_and_reads_it_back(tmp_path: Path) -> None:
    storage = open_storage((tmp_path / "store").as_uri())
    recorder = Recorder(storage)
    paths = recorder.log_iteration("job-a", "it-1", 1, {"evidence": {"slim": []}, "judge-result": {"total": 11}})
    assert paths == {"evidence": layout.iteration_path("job-a", "it-1", "evidence", 1),
                     "judge-result": layout.iteration_path("job-a", "it-1", "judge-result", 1)}  # fmt: skip
    assert recorder.read_item("job-a", "it-1") is None  # not finished: no item.json
    done = outcome(storage.url)
    written = recorder.log_item(done)
    assert written[-1] == layout.item_outcome_path("job-a", "it-1")  # item.json last: the item is complete
    assert recorder.read_item("job-a", "it-1") == done
    assert read_table(storage, ITEMS_DIR, ITEMS_SCHEMA).column("status").to_pylist() == ["completed"]
    assert read_table(storage, ITERATIONS_DIR, ITERATIONS_SCHEMA).column("total").to_pylist() == [11]
    batch = BatchOutcome(job_id="job-a", status="completed", storage_url=storage.url, items=[done])
    assert BatchOutcome.model_validate_json(storage.read_bytes(recorder.log_job(batch))) == batch


def test_a_plan_is_staged_once_and_read_from_where_it_was_staged(tmp_path: Path) -> None:
    files = write_variants(tmp_path / "in", 2)
    storage = open_storage((tmp_path / "store").as_uri())
    plan = plan_batch([str(f) for f in files], RunOptions(), max_files=5, max_upload_mb=10)
    staged = stage_plan(storage, plan, 10)
    assert staged.staged and not plan.staged
    for item, source in zip(staged.items, files, strict=True):
        assert storage.read_bytes(item.upload_path) == source.read_bytes()
        with open_staged(storage, item.upload_path) as local:
            assert local == Path(storage.full_path(item.upload_path))  # a local store: the file itself, no copy
    memory = open_storage("memory://rlauto-staging-test")
    stage_plan(memory, plan, 10)
    with open_staged(memory, plan.items[0].upload_path) as local:
        assert local.read_bytes() == files[0].read_bytes() and zipfile.is_zipfile(local)


def test_a_recording_changed_after_planning_is_refused_and_nothing_is_staged(tmp_path: Path) -> None:
    [source] = write_variants(tmp_path / "in", 1)
    storage = open_storage((tmp_path / "store").as_uri())
    plan = plan_batch([str(source)], RunOptions(), max_files=5, max_upload_mb=10)
    with zipfile.ZipFile(source, "a") as archive:
        archive.writestr("extra.txt", "changed after the plan")
    with pytest.raises(RecordingError, match=f"{source.name}.*changed after the batch was planned"):
        stage_plan(storage, plan, 10)
    assert not storage.exists(plan.items[0].upload_path) and storage.list("uploads") == []


@pytest.mark.parametrize("hostile", ["../etc", "a/b", "", ".", "..", "x" * 81, "job\x00id", "ok\n"])
def test_a_hostile_job_id_is_refused_before_any_path_is_made(hostile: str) -> None:
    with pytest.raises(JobIdError, match="not a job id"):
        checked_job_id(hostile)


@pytest.mark.parametrize("given", ["my batch/2026 ../x", "../../etc/passwd", "a..b", "x" * 500, "nightly run #3"])
def test_a_callers_job_id_is_made_into_one_the_check_accepts(given: str) -> None:
    made = safe_job_id(given)
    assert checked_job_id(made) == made and len(made) <= 80 and ".." not in made


def test_a_callers_job_id_with_nothing_usable_is_refused() -> None:
    assert safe_job_id("nightly run #3") == "nightly-run-3"
    with pytest.raises(JobIdError, match="no usable character"):
        safe_job_id("///")


def test_the_run_context_decides_the_storage_url_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RLAUTO_STORAGE_URL", (tmp_path / "from-env").as_uri())
    assert RunContext.resolve().storage_url == (tmp_path / "from-env").as_uri()
    given = RunContext.resolve(Settings(), (tmp_path / "given").as_uri())
    assert given.storage_url == (tmp_path / "given").as_uri()
    assert given.batch_deployment == "package-batch/package-batch"


def test_the_prefect_form_and_the_cli_say_which_limit_is_which() -> None:
    from typer.testing import CliRunner

    from flows.cli import app
    from flows.pipeline import package_batch

    form = package_batch.parameters.model_dump()["properties"]
    assert form["concurrency"]["description"].startswith("Model calls in flight")
    assert form["concurrency"]["maximum"] == 8
    assert form["items_in_flight"]["description"].startswith("Recordings worked on at once")
    shown = CliRunner().invoke(app, ["package", "--help"], env={"COLUMNS": "200"}).output
    assert "Model calls in flight" in shown and "Recordings worked on at once" in shown


def test_the_sdk_imports_no_prefect_before_it_configures_it() -> None:
    """Prefect reads its settings once, when imported: the SDK must set the embedded default's
    sizing (start-up timeout, SQLite wait, client retries) first, so importing it imports no Prefect."""
    import subprocess
    import sys

    code = "import sys, flows.sdk; print('prefect' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert done.stdout.strip() == "False"
