"""Bad input: storage that is missing or empty, unknown jobs, broken and missing packages, broken
index files, output folders holding other files, hostile values, planted secrets."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rlauto_core.dataset import DatasetError, open_source_storage
from rlauto_core.store import ITEMS_DIR, ITEMS_SCHEMA, layout, open_storage
from tests.dataset.conftest import MAIN, Store
from tests.dataset.helpers import by_name, everything, export, jsonl_rows, parquet_rows, stored_package
from tests.dataset.store_builder import CANARIES, CANARY_KEY


def test_a_missing_local_storage_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-store"
    with pytest.raises(DatasetError, match="no such folder"):
        open_source_storage(missing.as_uri())
    assert not missing.exists()
    with pytest.raises(DatasetError, match="not a storage URL"):
        open_source_storage("nosuch-proto://bucket/x")


def test_an_empty_storage_and_an_unknown_job_are_errors(store: Store, tmp_path: Path) -> None:
    empty = open_storage((tmp_path / "empty").as_uri())
    with pytest.raises(DatasetError, match="holds no item: nothing to export"):
        export(empty, tmp_path / "out")
    with pytest.raises(DatasetError, match=r"--job job-nope: no such job .*; jobs: job-main, job-other"):
        export(store.storage, tmp_path / "out", job_id="job-nope")
    with pytest.raises(DatasetError, match="not a job id"):
        export(store.storage, tmp_path / "out", job_id="../job-main")
    assert not (tmp_path / "out").exists()  # refused before the folder was made


def _write_index_row(store: Store, **values: object) -> None:
    row = {name: None for name in ITEMS_SCHEMA.names} | {"max_score": 12, "iterations_used": 1, **values}
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([row], schema=ITEMS_SCHEMA), sink)
    store.storage.write_bytes(f"{ITEMS_DIR}/job={MAIN}/hand-made-{uuid.uuid4().hex}.parquet", sink.getvalue())


def test_items_without_a_usable_package_are_skipped_with_reasons(store: Store, tmp_path: Path) -> None:
    storage = store.storage
    notes, shop = store.item("notes_jsonrpc.zip"), store.item("shop_checkout.zip")
    storage.delete(layout.best_path(MAIN, notes.item_id, "task-package"))
    storage.write_bytes(layout.best_path(MAIN, shop.item_id, "task-package"), b'{"task": {"rubrics": "not a list"')
    board = store.item("project_board_firefox.zip")
    other = stored_package(storage, MAIN, board.item_id)
    other["metadata"]["sourceSha256"] = "0" * 64
    storage.write_bytes(layout.best_path(MAIN, board.item_id, "task-package"), json.dumps(other).encode())
    _write_index_row(store, job_id=MAIN, item_id="it-x/../../../../etc", source_name="escape.zip", status="completed")
    storage.write_bytes(f"{ITEMS_DIR}/job={MAIN}/garbage.parquet", b"PAR1 this is not parquet")

    summary = export(storage, tmp_path / "ds")
    reasons = {(s.source_name, s.reason) for s in summary.skipped}
    assert reasons == {
        ("broken.zip", "no package"),
        ("notes_jsonrpc.zip", "package missing"),
        ("shop_checkout.zip", "package broken"),
        ("project_board_firefox.zip", "package mismatch"),
        ("escape.zip", "unsafe ids"),
    }
    assert summary.unreadable_index_files == [f"{ITEMS_DIR}/job={MAIN}/garbage.parquet"]
    names = set(by_name(parquet_rows(tmp_path / "ds")))
    assert not names & {"notes_jsonrpc.zip", "shop_checkout.zip", "project_board_firefox.zip", "escape.zip"}
    assert "discord_reply.zip" in names
    card = (tmp_path / "ds" / "README.md").read_text()
    for line in ("- package missing: 1", "- package broken: 1", "- no package: 1", "- unsafe ids: 1"):
        assert line in card
    assert "not a valid ZIP archive" in card  # the refused item's own reason
    assert "garbage.parquet" in card


def test_a_folder_with_other_files_is_refused_and_left_alone(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    (out / "README.md").write_text("# my project\n")
    with pytest.raises(
        DatasetError, match=r"holds files the export did not write \(README.md \(not an export's card\), notes.txt\)"
    ):
        export(store.storage, out)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "notes.txt"]
    assert (out / "README.md").read_text() == "# my project\n"
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(DatasetError, match="is a file, not a folder"):
        export(store.storage, afile)


def test_an_earlier_export_is_replaced_and_only_the_exports_files_are_there(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    export(store.storage, out)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "tasks.parquet"]
    export(store.storage, out, format="jsonl", job_id="job-other")
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "tasks.jsonl"]  # the parquet of before is gone
    assert [r["job_id"] for r in jsonl_rows(out)] == ["job-other"]
    assert "- job: job-other" in (out / "README.md").read_text()


def test_a_failed_export_leaves_the_earlier_one(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "ds"
    export(store.storage, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def fail(*_: object) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("rlauto_core.dataset.export.render_card", fail)
    with pytest.raises(DatasetError, match=r"No space left on device.*was left as it was"):
        export(store.storage, out, batch_rows=1)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # no temporary file left either


def _tamper(store: Store, name: str, change: dict[str, object]) -> dict[str, object]:
    item = store.item(name).item_id
    package = stored_package(store.storage, MAIN, item)
    for dotted, value in change.items():
        *path, last = dotted.split(".")
        target = package
        for part in path:
            target = target[int(part)] if isinstance(target, list) else target[part]  # type: ignore[assignment]
        target[last] = value
    store.storage.write_bytes(layout.best_path(MAIN, item, "task-package"), json.dumps(package).encode())
    return package


HOSTILE = "\u202eevil\u200b 🧨 \x00 | `x` <b>\n# h \u2028 end \ud800 tail"


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_hostile_values_round_trip_and_the_card_stays_inert(store: Store, tmp_path: Path, fmt: str) -> None:
    huge = "长" * 3_000_000  # 9 MB of UTF-8 in one string
    _tamper(store, "discord_reply.zip", {"task.instruction": HOSTILE, "task.subtasks.0.title": huge})
    _tamper(store, "issue_tracker.zip", {"task.rubrics.0.max_score": 10**12})  # no int32 holds it
    _write_index_row(store, job_id=MAIN, item_id=store.item("discord_reply.zip").item_id, source_name="x|y\n## z.zip",
                     status="completed", finished_at=pa.scalar(10**13, pa.timestamp("ms", tz="UTC")).as_py())  # fmt: skip
    summary = export(store.storage, tmp_path / "ds", format=fmt)
    rows = parquet_rows(tmp_path / "ds") if fmt == "parquet" else jsonl_rows(tmp_path / "ds")
    if fmt == "jsonl":
        assert len((tmp_path / "ds" / "tasks.jsonl").read_bytes().split(b"\n")) == len(rows) + 1  # one row, one line
    hostile = next(r for r in rows if r["source_name"] == "x|y\n## z.zip")  # the newest row of that item
    assert hostile["instruction"] == HOSTILE.replace("\ud800", "\ufffd")  # a lone surrogate cannot be UTF-8
    assert hostile["subtasks"][0]["title"] == huge
    assert summary.repaired_rows == 1
    assert [(s.source_name, s.reason) for s in summary.skipped if s.reason == "values do not fit"] == [
        ("issue_tracker.zip", "values do not fit")
    ]
    card = (tmp_path / "ds" / "README.md").read_text(encoding="utf-8")
    skipped_row = next(line for line in card.splitlines() if "issue_tracker.zip" in line)
    assert skipped_row.count("|") - skipped_row.count("\\|") == 6  # five cells: nothing broke the table
    assert "\x00" not in card and "\u202e" not in card


def test_no_secret_reaches_the_export(store: Store, tmp_path: Path) -> None:
    """The canary recording went through the real pipeline (its packages are redacted); a package
    planted in storage with secrets in it shows the export redacts on its own too."""
    auth, cookie, key = CANARIES
    planted = _tamper(
        store,
        "slack_incident_channel.zip",
        {
            "metadata.apiKey": key,
            "task.subtasks.0.apiCalls.0.input.headers": {"Authorization": f"Bearer {auth}", "Cookie": cookie},
            "task.subtasks.0.apiCalls.0.input.url": f"https://x.example/a?access_token={key}",
        },
    )
    assert auth in json.dumps(planted)  # the store really holds them
    _write_index_row(store, job_id=MAIN, item_id="it-refused", source_name="refused.zip", status="failed",
                     error=f"the analyzer refused key {CANARY_KEY}")  # fmt: skip
    stored = [p.read_bytes() for p in store.root.rglob("*") if p.is_file() and p.suffix != ".parquet"]
    assert any(auth.encode() in data for data in stored)
    for fmt in ("parquet", "jsonl"):
        summary = export(store.storage, tmp_path / fmt, format=fmt)
        assert ("refused.zip", "no package") in {(s.source_name, s.reason) for s in summary.skipped}
        text = everything(tmp_path / fmt) + summary.model_dump_json()  # the card, the rows, `--json`
        assert "tracker_canary.zip" in text and "Authorization" in text  # the rows are there, the values not
        for canary in CANARIES:
            assert canary not in text, (fmt, canary)
    row = by_name(parquet_rows(tmp_path / "parquet"))["notes_jsonrpc.zip"]
    assert row["review_comment"] == "token Bearer [REDACTED]"  # a review comment holding a bearer token
