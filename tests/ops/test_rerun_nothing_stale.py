"""A re-run of an item leaves nothing of the earlier run that could be read as its own: no old
`error.txt` beside a new `output.zip` (nor the reverse), no snapshots of iterations it did not
reach, no best copies when it has no best iteration. Through the real flows on the session's
Prefect server and the fake model server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from flows import package_batch, package_recording
from rlauto_core.config import RunOptions
from rlauto_core.store import layout, open_storage
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer
from tests.orchestration.recordings import write_variants

pytestmark = [pytest.mark.prefect, pytest.mark.slow]

LOW = judge_answer(INSTRUCTION_CLARITY=1, RUBRIC_COVERAGE=1, TASK_COMPLEXITY=1)  # 9/12: one more round


def names_in(storage_url: str, folder: str) -> set[str]:
    return {p.rsplit("/", 1)[-1] for p in open_storage(storage_url).list(folder)}


def iteration_files(iterations: range) -> set[str]:
    return {f"{s}-iter-{n}.json" for s in layout.SNAPSHOTS for n in iterations}


def test_a_batch_rerun_that_passes_sooner_drops_the_old_error_and_later_iterations(
    prefect_api_url: str, fake_model: FakeLlmServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Run 1 iterates 4/4 and fails (error.txt, snapshots 1..4). The operator switches the judge
    model and re-runs the job: it passes at iteration 2, so error.txt and the snapshots of
    iterations 3 and 4 are gone and output.zip is there."""
    files = write_variants(tmp_path / "in", 1, start=80)
    storage_url = (tmp_path / "store").as_uri()
    options = RunOptions(max_iterations=4)
    fake_model.script("analyzer", faithful_analyzer())
    fake_model.script("judge", LOW)
    first = asyncio.run(package_batch([str(p) for p in files], options, job_id="stale", storage_url=storage_url,
                                      return_state=True)).result(raise_on_failure=False)  # fmt: skip
    (item,) = first.items
    folder = layout.export_dir("stale", item.item_id)
    assert item.status == "failed" and item.iterations_used == 4
    assert {"error.txt", *iteration_files(range(1, 5))} <= names_in(storage_url, folder)

    monkeypatch.setenv("JUDGE_MODEL", "judge-b")  # asked afresh: another model's answers are not reused
    fake_model.script("judge-b", LOW, judge_answer())
    second = asyncio.run(package_batch([str(p) for p in files], options, job_id="stale", storage_url=storage_url))
    (again,) = second.items
    assert again.status == "completed" and again.iterations_used == 2 and not again.reused
    names = names_in(storage_url, folder)
    assert "output.zip" in names and "error.txt" not in names
    assert iteration_files(range(1, 3)) <= names
    assert not names & iteration_files(range(3, 5))


def test_a_rerun_that_fails_before_any_iteration_drops_the_old_package_and_snapshots(
    prefect_api_url: str, fake_model: FakeLlmServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Run 1 passes (output.zip, best copies, iteration 1). Run 2 of the same item fails in its
    first iteration (the judge answers 500): only error.txt and item.json are left."""
    (source,) = write_variants(tmp_path / "in", 1, start=81)
    storage_url = (tmp_path / "store").as_uri()
    fake_model.script("analyzer", faithful_analyzer())
    fake_model.script("judge", judge_answer())
    first = asyncio.run(package_recording(str(source), job_id="stale-2", storage_url=storage_url))
    folder = layout.export_dir("stale-2", first.item_id)
    assert first.status == "completed"
    assert {"output.zip", "task-package.json", *iteration_files(range(1, 2))} <= names_in(storage_url, folder)

    monkeypatch.setenv("JUDGE_MODEL", "judge-c")
    fake_model.script("judge-c", {"status": 500, "error": "down"})
    state = asyncio.run(package_recording(str(source), job_id="stale-2", storage_url=storage_url, return_state=True))
    assert state.is_failed()
    assert names_in(storage_url, folder) == {"error.txt", "item.json"}
