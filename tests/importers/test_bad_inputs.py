"""Every broken or hostile recording gives a RecordingError naming the file and the problem,
no other exception, and nothing is written anywhere (input folder, cwd, temp dir)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from rlauto_core.errors import RecordingError
from rlauto_core.importers import import_bytes, import_path
from tests.importers.corpus import CASES as BASE_CASES
from tests.importers.corpus import BadCase, write_case
from tests.importers.corpus_mcp import MCP_CASES

CASES = BASE_CASES + MCP_CASES


def snapshot(root: Path) -> list[tuple[str, int, int]]:
    return sorted(
        (str(p.relative_to(root)), p.stat().st_size if p.is_file() else -1, p.stat().st_mtime_ns)
        for p in root.rglob("*")
    )


@pytest.fixture
def sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An input folder, an empty cwd and an empty temp dir; all three are checked after the test."""
    (tmp_path / "in").mkdir()
    (tmp_path / "cwd").mkdir()
    (tmp_path / "tmp").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    yield tmp_path


def check_error(err: RecordingError, case: BadCase) -> None:
    assert case.file in err.file, f"error names {err.file!r}, expected {case.file!r}: {err}"
    problem = err.problem.lower()
    assert any(p.lower() in problem for p in case.phrases()), f"problem {err.problem!r} lacks {case.phrases()}"
    assert "\n" not in str(err), "an error message must fit on one line"
    assert len(str(err)) < 600, "an error message must stay short, whatever the input"


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


# the 100,000-line SDK log is built and read to its last line: about 5 s, the slow tier's
SLOW_CASES = {"sdk_100k_lines_bad_last_line"}


@pytest.mark.parametrize(
    "case", [pytest.param(c, marks=[pytest.mark.slow] if c.id in SLOW_CASES else []) for c in CASES], ids=lambda c: c.id
)
def test_import_path_refuses(case: BadCase, sealed: Path) -> None:
    path = write_case(case, sealed / "in")
    before = snapshot(sealed)
    with pytest.raises(RecordingError) as info:
        import_path(path, requested_mode=case.requested_mode, max_upload_mb=case.max_upload_mb)
    check_error(info.value, case)
    assert snapshot(sealed) == before


@pytest.mark.parametrize("case", [c for c in CASES if not c.heavy], ids=lambda c: c.id)
def test_import_bytes_refuses(case: BadCase, sealed: Path) -> None:
    data = case.build()
    before = snapshot(sealed)
    with pytest.raises(RecordingError) as info:
        import_bytes(data, case.name, requested_mode=case.requested_mode, max_upload_mb=case.max_upload_mb)
    check_error(info.value, case)
    assert snapshot(sealed) == before


def test_missing_path_is_a_recording_error(sealed: Path) -> None:
    missing = sealed / "in" / "nowhere.zip"
    with pytest.raises(RecordingError) as info:
        import_path(missing)
    assert "nowhere.zip" in info.value.file
    assert "cannot be read" in info.value.problem


def test_folder_path_is_a_recording_error(sealed: Path) -> None:
    with pytest.raises(RecordingError) as info:
        import_path(sealed / "in")
    assert info.value.file.endswith("in")
    assert "folder" in info.value.problem


def test_upload_limit_is_checked_before_reading(sealed: Path) -> None:
    """A sparse 200 MB file is refused from its size alone (reading it would cost 200 MB)."""
    path = sealed / "in" / "huge.zip"
    with path.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)
    before = snapshot(sealed)
    with pytest.raises(RecordingError) as info:
        import_path(path, max_upload_mb=100)
    assert info.value.file == "huge.zip"
    assert "MAX_UPLOAD_MB" in info.value.problem
    assert snapshot(sealed) == before
