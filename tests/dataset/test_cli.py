"""`rlauto dataset export`: exit 0 with one summary line when written, exit 2 with one `error:`
line on bad input; the real console script once, the rest through Typer's runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from tests.conftest import REPO_ROOT
from tests.dataset.conftest import MAIN, Store
from tests.dataset.helpers import jsonl_rows, parquet_rows

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["dataset", "export", *args])
    return result.exit_code, result.stdout, result.stderr


def test_export_writes_and_prints_one_line(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    code, stdout, _ = _run(store.storage.url, "--out", str(out), "--job", MAIN, "--min-score", "12")
    assert code == 0
    assert stdout.count("\n") == 1 and stdout.startswith(f"{len(parquet_rows(out))} rows -> {out}/tasks.parquet")
    assert {r["total_score"] for r in parquet_rows(out)} == {12}
    code, stdout, _ = _run(
        store.storage.url, "--out", str(tmp_path / "j"), "--format", "jsonl", "--only-accepted", "--json"
    )
    assert code == 0
    summary = json.loads(stdout)
    assert summary["rows"] == len(jsonl_rows(tmp_path / "j")) == 2
    assert summary["options"]["only_accepted"] is True


def test_default_storage_is_the_configured_one(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RLAUTO_STORAGE_URL", store.storage.url)
    code, _, _ = _run("--out", str(tmp_path / "ds"))
    assert code == 0 and parquet_rows(tmp_path / "ds")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "csv"], "error: --format 'csv': choose parquet or jsonl"),
        (["--min-score", "13"], "error: --min-score: Input should be less than or equal to 12"),
        (["--job", "job-nope"], "error: --job job-nope: no such job in the index at"),
        (["--job", "a/../b"], "error: --job 'a/../b': not a job id"),
        ([], "error: --out: give the folder to write the dataset to"),
    ],
)
def test_bad_options_exit_2_with_one_line(store: Store, tmp_path: Path, args: list[str], message: str) -> None:
    out = [] if not args else ["--out", str(tmp_path / "ds")]
    code, stdout, stderr = _run(store.storage.url, *out, *args)
    assert code == 2 and stdout == ""
    assert stderr.startswith(message) and stderr.count("\n") == 1, stderr


def test_bad_storage_and_folders_exit_2(store: Store, tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "data.csv").write_text("a,b\n")
    cases = [
        ((tmp_path / "missing").as_uri(), tmp_path / "o1", "no such folder"),
        (str(tmp_path / "busy"), tmp_path / "o2", "the index holds no item"),
        (store.storage.url, tmp_path / "busy", "holds files the export did not write (data.csv)"),
    ]
    for url, out, message in cases:
        code, _, stderr = _run(url, "--out", str(out))
        assert code == 2 and message in stderr and stderr.count("\n") == 1, stderr
    assert not (tmp_path / "missing").exists()


@pytest.mark.slow
def test_the_console_script(store: Store, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    rlauto = [sys.executable, "-m", "flows.cli"]
    done = subprocess.run(
        [*rlauto, "dataset", "export", store.storage.url, "--out", str(tmp_path / "ds")],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "rows ->" in done.stdout and (tmp_path / "ds" / "README.md").is_file()
    bad = subprocess.run(
        [*rlauto, "dataset", "export", store.storage.url, "--out", str(tmp_path / "x"), "--job", "nope"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (
        bad.returncode == 2
        and bad.stderr.startswith("error: --job nope: no such job")
        and "Traceback" not in bad.stderr
    )
