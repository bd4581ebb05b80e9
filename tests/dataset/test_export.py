"""The export on a store the real core loop filled: which rows, what they hold, typed columns,
and the readers a trainer uses (pyarrow, DuckDB, `datasets`)."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import datasets  # a dev extra (pyproject.toml)
import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rlauto_core.dataset import DATASET_SCHEMA
from rlauto_core.store import layout
from tests.conftest import EXAMPLES
from tests.dataset.conftest import MAIN, OTHER, Store
from tests.dataset.helpers import by_name, export, jsonl_rows, parquet_rows, stored_package
from tests.dataset.store_builder import EN, ZH

PACKAGED = {
    "discord_reply.zip", "issue_tracker.zip", "notes_jsonrpc.zip", "project_board_firefox.zip",
    "shop_checkout.zip", "slack_incident_channel.zip", "project_board.har", "slack_bilingual.zip",
    "discord_zh.zip", "tracker_canary.zip",
}  # fmt: skip


def test_one_row_per_packaged_item_with_what_its_package_holds(store: Store, tmp_path: Path) -> None:
    summary = export(store.storage, tmp_path / "ds")
    rows = parquet_rows(tmp_path / "ds")
    main = by_name(rows)
    assert set(main) == PACKAGED  # broken.zip has no package; every other item one row
    assert [r["source_name"] for r in rows if r["job_id"] == OTHER] == ["discord_reply.zip"]
    assert summary.rows == len(rows) == len(PACKAGED) + 1
    assert summary.items_in_index == len(PACKAGED) + 2
    for name, row in main.items():
        outcome = store.item(name)
        package = stored_package(store.storage, MAIN, outcome.item_id)
        assert row["item_id"] == outcome.item_id
        assert row["source_sha256"] == outcome.source_sha256
        assert row["instruction"] == package["task"]["instruction"]
        assert row["instruction_source"] == package["task"]["instructionSource"]
        assert [r["id"] for r in row["rubrics"]] == [r["id"] for r in package["task"]["rubrics"]]
        assert row["rubric_max_score"] == sum(r["max_score"] for r in package["task"]["rubrics"])
        assert {c["key"]: json.loads(c["checker_json"]) for c in row["checkers"]} == package["rubric_checkers"]
        assert all(c["kind"] == json.loads(c["checker_json"])["kind"] for c in row["checkers"])
        assert [s["call_id"] for s in row["golden_trajectory"]] == [s["call_id"] for s in package["golden_trajectory"]]
        assert [(c["table"], c["op"]) for c in row["dbdiff_criteria"]] == [
            (c["table"], c["op"]) for c in package["dbdiff_criteria"]["criteria"]
        ]
        calls = [c["id"] for s in row["subtasks"] for c in s["api_calls"]]
        assert calls == [c["id"] for s in package["task"]["subtasks"] for c in s["apiCalls"]]
        assert row["pass_policy"]["judge"]["rule"] == package["pass_policy"]["judge"]["rule"]
        assert row["verdict"] == outcome.verdict and row["total_score"] == outcome.total_score
        assert sum(row["scores"].values()) == outcome.total_score  # the best iteration's six scores
        assert row["self_check"]["mutants_total"] == outcome.self_check.mutants_total  # type: ignore[union-attr]
        assert row["mode"] == outcome.mode
    shop = (EXAMPLES / "shop_checkout.zip").read_bytes()
    assert main["shop_checkout.zip"]["source_sha256"] == hashlib.sha256(shop).hexdigest()
    assert main["project_board.har"]["verdict"] == "NEEDS_REVISION"  # kept: the trainer filters on verdict
    assert main["issue_tracker.zip"]["output_zip_path"] == layout.output_zip_path(
        MAIN, store.item("issue_tracker.zip").item_id
    )


def test_nested_columns_are_typed_not_strings(store: Store, tmp_path: Path) -> None:
    export(store.storage, tmp_path / "ds")
    schema = pq.read_schema(tmp_path / "ds" / "tasks.parquet")
    assert schema.equals(DATASET_SCHEMA, check_metadata=False)
    for name in ("subtasks", "rubrics", "checkers", "dbdiff_criteria", "golden_trajectory", "flags"):
        assert pa.types.is_list(schema.field(name).type) and pa.types.is_struct(schema.field(name).type.value_type)
    for name in ("pass_policy", "scores", "self_check"):
        assert pa.types.is_struct(schema.field(name).type)
    # the only strings holding JSON are the `_json` ones (free-form by nature, docs/dataset.md)
    json_columns = {f.name for f in schema if f.name.endswith("_json")}
    assert json_columns == {"answer_json", "golden_diff_json", "metadata_json"}
    assert schema.field("finished_at").type == pa.timestamp("ms", tz="UTC")


def test_duckdb_queries_the_nested_columns(store: Store, tmp_path: Path) -> None:
    export(store.storage, tmp_path / "ds")
    path = str(tmp_path / "ds" / "tasks.parquet")
    con = duckdb.connect()
    rows = con.execute(
        "SELECT source_name, r.checker_key, c.kind FROM read_parquet(?) t, unnest(t.rubrics) AS u(r) "
        "JOIN (SELECT job_id, item_id, unnest(checkers) AS c FROM read_parquet(?)) k "
        "ON k.job_id = t.job_id AND k.item_id = t.item_id AND k.c.key = r.checker_key "
        "WHERE t.job_id = 'job-main' ORDER BY 1, 2",
        [path, path],
    ).fetchall()
    rubric_total = con.execute(
        "SELECT sum(len(rubrics)) FROM read_parquet(?) WHERE job_id = 'job-main'", [path]
    ).fetchone()
    assert rubric_total is not None and len(rows) == rubric_total[0] > 0  # every rubric finds its checker
    assert {kind for _, _, kind in rows} >= {"http_call", "mcp_call", "dbdiff"}
    policy = con.execute(
        "SELECT DISTINCT pass_policy.judge.rule, pass_policy.attempt.min_fraction FROM read_parquet(?)", [path]
    ).fetchall()
    assert policy == [("total >= 10 and no zero", 1.0)]
    writes = con.execute(
        "SELECT count(*) FROM read_parquet(?), unnest(golden_trajectory) AS g(s) WHERE s.state_changing", [path]
    ).fetchone()
    assert writes is not None and writes[0] > 0


def test_latest_row_wins_and_the_newest_review_counts(store: Store, tmp_path: Path) -> None:
    export(store.storage, tmp_path / "ds")
    main = by_name(parquet_rows(tmp_path / "ds"))
    assert main["issue_tracker.zip"]["total_score"] == 12  # not the older row's 3
    assert main["shop_checkout.zip"]["review_decision"] == "reject"  # accepted first, rejected later
    assert main["shop_checkout.zip"]["reviewer"] == "bo"
    assert main["discord_reply.zip"]["review_decision"] == "accept"
    assert main["discord_reply.zip"]["review_comment"] == "clean"
    assert main["issue_tracker.zip"]["review_decision"] is None


def test_only_accepted_job_and_min_score_filter(store: Store, tmp_path: Path) -> None:
    summary = export(store.storage, tmp_path / "a", only_accepted=True)
    rows = parquet_rows(tmp_path / "a")
    assert sorted((r["job_id"], r["source_name"]) for r in rows) == [
        (MAIN, "discord_reply.zip"),
        (OTHER, "discord_reply.zip"),
    ]
    assert summary.filtered == {"--only-accepted: newest review is not accept": summary.items_in_index - 2}
    export(store.storage, tmp_path / "j", job_id=OTHER)
    assert [r["job_id"] for r in parquet_rows(tmp_path / "j")] == [OTHER]
    export(store.storage, tmp_path / "m", min_score=11, job_id=MAIN)
    kept = by_name(parquet_rows(tmp_path / "m"))
    assert kept and all(r["total_score"] >= 11 for r in kept.values())
    assert "project_board.har" not in kept  # 10/12
    assert set(kept) == {n for n in PACKAGED if (store.item(n).total_score or 0) >= 11}


def test_instruction_in_both_languages_where_present(store: Store, tmp_path: Path) -> None:
    export(store.storage, tmp_path / "ds")
    main = by_name(parquet_rows(tmp_path / "ds"))
    both = main["slack_bilingual.zip"]
    assert (both["instruction_zh"], both["instruction_en"]) == (ZH, EN)
    chinese = main["discord_zh.zip"]
    assert chinese["instruction_zh"] == "在 #release 频道回复：今天发布登录修复" and chinese["instruction_en"] is None
    english = main["issue_tracker.zip"]
    assert english["instruction_en"] == english["instruction"] and english["instruction_zh"] is None


def test_batches_are_row_groups(store: Store, tmp_path: Path) -> None:
    summary = export(store.storage, tmp_path / "ds", batch_rows=3)
    meta = pq.ParquetFile(tmp_path / "ds" / "tasks.parquet").metadata
    assert meta.num_row_groups == summary.row_groups == math.ceil(summary.rows / 3)
    assert all(meta.row_group(i).num_rows <= 3 for i in range(meta.num_row_groups))
    # a byte bound ends a batch too: each package file is larger than one byte
    tiny = export(store.storage, tmp_path / "bytes", batch_bytes=1)
    assert pq.ParquetFile(tmp_path / "bytes" / "tasks.parquet").metadata.num_row_groups == tiny.rows


def test_jsonl_holds_the_same_rows(store: Store, tmp_path: Path) -> None:
    export(store.storage, tmp_path / "p")
    export(store.storage, tmp_path / "j", format="jsonl")
    as_parquet = json.loads(json.dumps(parquet_rows(tmp_path / "p"), default=lambda v: v.isoformat()))
    lines = jsonl_rows(tmp_path / "j")
    assert lines == as_parquet
    con = duckdb.connect()
    count = con.execute(
        "SELECT count(*), sum(len(rubrics)) FROM read_json_auto(?)", [str(tmp_path / "j" / "tasks.jsonl")]
    ).fetchone()
    assert count == (len(lines), sum(len(r["rubrics"]) for r in lines))


@pytest.fixture
def hf_offline(tmp_path: Path) -> Path:
    """A cache of the test's own; the hub is off (tests/dataset/conftest.py sets it before import)."""
    assert datasets.config.HF_DATASETS_OFFLINE
    return tmp_path / "hf-cache"


def test_datasets_loads_parquet_jsonl_and_the_folder(store: Store, tmp_path: Path, hf_offline: Path) -> None:
    export(store.storage, tmp_path / "p")
    export(store.storage, tmp_path / "j", format="jsonl")
    expected = parquet_rows(tmp_path / "p")
    parquet = datasets.load_dataset(
        "parquet", data_files=str(tmp_path / "p" / "tasks.parquet"), split="train", cache_dir=str(hf_offline)
    )
    assert parquet.num_rows == len(expected)
    assert parquet[0]["rubrics"][0]["max_score"] == expected[0]["rubrics"][0]["max_score"]
    assert parquet.features["scores"]["rubric_coverage"].dtype == "int8"
    assert parquet.features["pass_policy"]["judge"]["strict_full_marks"].dtype == "bool"
    folder = datasets.load_dataset(str(tmp_path / "p"), split="train", cache_dir=str(hf_offline))  # the card's YAML
    assert folder["item_id"] == [r["item_id"] for r in expected]
    lines = datasets.load_dataset(
        "json", data_files=str(tmp_path / "j" / "tasks.jsonl"), split="train", cache_dir=str(hf_offline)
    )
    assert lines["instruction"] == [r["instruction"] for r in expected]
    assert lines[0]["golden_trajectory"][0]["call_id"] == expected[0]["golden_trajectory"][0]["call_id"]
