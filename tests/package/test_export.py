"""The output ZIP: same entries byte for byte (same CRC) except task.json; safe names; atomic; no secrets."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from rlauto_core.config.options import RunOptions
from rlauto_core.errors import PackageError
from rlauto_core.importers import import_path
from rlauto_core.package.export import export_package, package_file_name, sanitize_entry_name
from rlauto_core.package.io import load_package
from rlauto_core.package.models import TaskPackage
from tests.conftest import EXAMPLES
from tests.package.conftest import Packaged, example_files, package_offline


def entries(path: Path) -> dict[str, zipfile.ZipInfo]:
    with zipfile.ZipFile(path) as archive:
        return {i.filename: i for i in archive.infolist()}


def test_every_other_entry_is_byte_identical(exported: dict[str, Path]) -> None:
    for name, output in exported.items():
        source = next(p for p in example_files() if p.name == name)
        assert output.name == package_file_name(name) == name.rsplit(".", 1)[0] + ".task-package.zip"
        recording = import_path(source)
        task_entry = recording.root_prefix + "task.json"
        if zipfile.is_zipfile(source):
            before, after = entries(source), entries(output)
            assert set(before) | {task_entry} == set(after), name
            with zipfile.ZipFile(source) as a, zipfile.ZipFile(output) as b:
                for entry, info in before.items():
                    if entry == task_entry or info.is_dir():
                        continue
                    assert a.read(entry) == b.read(entry), (name, entry)
                    assert info.CRC == after[entry].CRC, (name, entry)
        else:  # a bare HAR becomes a ZIP holding the HAR as it was, plus task.json
            with zipfile.ZipFile(output) as b:
                assert b.read(name) == source.read_bytes()
                assert set(b.namelist()) == {name, "task.json"}
        with zipfile.ZipFile(output) as b:
            task = json.loads(b.read(task_entry))
        assert task["task"]["instruction"] and task["golden_trajectory"] and task["rubric_checkers"]
        assert not list(output.parent.glob(".export-*")), "a temporary file was left behind"


def test_no_planted_secret_reaches_any_task_json(exported: dict[str, Path]) -> None:
    for name, path in exported.items():
        with zipfile.ZipFile(path) as archive:
            for entry in archive.namelist():
                if entry.endswith("task.json"):
                    assert b"CANARY" not in archive.read(entry), (name, entry)


def test_redact_secrets_cleans_the_other_files_too(tmp_path: Path) -> None:
    source = EXAMPLES / "issue_tracker.zip"
    with zipfile.ZipFile(source) as archive:
        assert b"CANARY" in archive.read("network.json")
    outcome = package_offline(source, RunOptions(redact_secrets=True), tmp_path)
    with zipfile.ZipFile(str(outcome.package_path)) as archive:
        network = archive.read("network.json")
        assert b"CANARY" not in network and b"[REDACTED]" in network
        # files that are not traffic stay untouched
        with zipfile.ZipFile(source) as original:
            png = [n for n in original.namelist() if n.endswith(".png")]
            assert png and all(archive.read(n) == original.read(n) for n in png)


def test_entry_names_are_sanitized(tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.zip"
    with zipfile.ZipFile(hostile, "w") as archive:
        for name in (
            "../../etc/evil.txt",
            "/abs/root.txt",
            "dir\\win.txt",
            "ctl\x01name.txt",
            "C:/drive.txt",
            "ok.txt",
        ):
            archive.writestr(name, name.encode("utf-8", "surrogateescape"))
    out = export_package(hostile, TaskPackage(), tmp_path / "out")
    names = set(entries(out))
    assert names == {
        "etc/evil.txt",
        "abs/root.txt",
        "dir/win.txt",
        "ctlname.txt",
        "C_/drive.txt",
        "ok.txt",
        "task.json",
    }
    assert all(not n.startswith("/") and ".." not in n.split("/") for n in names)
    assert sanitize_entry_name("a/./b/../c/") == "a/b/c/"


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    out = tmp_path / "out"
    blocker = out / "issue_tracker.task-package.zip"
    blocker.mkdir(parents=True)  # the rename onto it must fail
    (blocker / "keep").write_text("x")
    with pytest.raises(PackageError, match=r"issue_tracker\.zip: cannot write the package ZIP"):
        export_package(EXAMPLES / "issue_tracker.zip", TaskPackage(), out)
    assert sorted(p.name for p in out.iterdir()) == ["issue_tracker.task-package.zip"]
    assert (blocker / "keep").read_text() == "x"


def test_a_package_round_trips_through_its_task_json(packaged: dict[str, Packaged], exported: dict[str, Path]) -> None:
    for name, outcome in packaged.items():
        loaded = load_package(exported[name])
        assert isinstance(loaded, TaskPackage) and outcome.package is not None
        assert loaded.golden_trajectory == outcome.package.golden_trajectory
        assert loaded.rubric_checkers == outcome.package.rubric_checkers
        assert loaded.task.instruction_source == outcome.package.task.instruction_source is not None


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "invalid JSON at line 1"),
        (b"[1, 2]", "must hold a JSON object, got list"),
        (b'{"task": {"rubrics": [{"id": "r1"}]}}', "task.rubrics.0.title: Field required"),
        (b"", "file is empty"),
    ],
)
def test_broken_task_json_is_a_clear_package_error(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "task.json"
    path.write_bytes(content)
    with pytest.raises(PackageError) as caught:
        load_package(path)
    assert str(path) in str(caught.value) and problem in str(caught.value)
