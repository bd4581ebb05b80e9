"""Deleting a job: the core removes its uploads, exports and index rows (and nothing of another
job), refuses ids that would reach outside; the Overview asks for the typed id first, stops the
job's runs through the launcher before anything goes, and keeps the job when they do not stop."""

from __future__ import annotations

from typing import Any

import pytest

from dashboards.repository import Repository
from rlauto_core.store import JobDeletionError, add_review, delete_job
from rlauto_core.store.storage import FsspecStorage
from tests.dashboards.apptest_support import dashboard, texts
from tests.fakes.launcher import FakeLauncher

pytestmark = pytest.mark.usefixtures("loopback_address")


def _stored(storage: FsspecStorage, job: str) -> list[str]:
    return [p for p in storage.list("") if f"/{job}/" in f"/{p}" or f"job={job}/" in p]


def test_delete_job_removes_its_uploads_exports_and_index_rows_only(filled_storage: FsspecStorage) -> None:
    storage = filled_storage
    storage.write_bytes("uploads/job-a/it-pass.zip", b"PK recording")
    storage.write_bytes("uploads/job-b/it-unicode.zip", b"PK other")
    add_review(storage, "job-a", "it-pass", "accept", "ana", "fine")
    add_review(storage, "job-b", "it-unicode", "reject", "ana", "no")
    before_b = _stored(storage, "job-b")
    assert _stored(storage, "job-a") and before_b

    deleted = delete_job(storage, "job-a")

    assert _stored(storage, "job-a") == []
    assert _stored(storage, "job-b") == before_b, "another job's files are untouched"
    assert deleted.upload_files == 1 and deleted.export_files > 0
    assert deleted.index_files == 3 + 3 + 1  # item rows, iteration rows, one review
    repository = Repository(storage.url, refresh_seconds=0)
    assert [j.job_id for j in repository.list_jobs()] == ["job-b"]
    assert [r.decision for r in repository.get_reviews("job-b", "it-unicode")] == ["reject"]
    with pytest.raises(JobDeletionError, match="nothing is stored"):
        delete_job(storage, "job-a")


@pytest.mark.parametrize("job", ["..", "../job-b", "job-a/../job-b", "job-b/", "", ".hidden", "job=b", "a" * 81])
def test_delete_job_refuses_ids_that_are_not_job_ids(filled_storage: FsspecStorage, job: str) -> None:
    everything = filled_storage.list("")
    with pytest.raises(JobDeletionError, match="not a job id"):
        delete_job(filled_storage, job)
    assert filled_storage.list("") == everything


def test_the_overview_deletes_a_job_only_after_the_typed_confirmation(repository: Repository) -> None:
    at = dashboard(repository).run()
    at.selectbox(key="job_delete_pick").set_value("job-a").run()
    at.button(key="job_delete").click().run()
    assert any("cannot be undone" in text for text in texts(at, "warning"))
    assert at.button(key="job_delete_confirm").disabled
    at.text_input(key="job_delete_typed").input("job-b").run()  # the wrong id keeps it locked
    assert at.button(key="job_delete_confirm").disabled
    at.text_input(key="job_delete_typed").input("job-a").run()
    at.button(key="job_delete_confirm").click().run()
    assert not at.exception
    assert any("Deleted job job-a" in text and "1 uploads" not in text for text in texts(at, "success"))
    assert list(at.dataframe[0].value["job"]) == ["job-b"]
    assert repository.get_item("job-a", "it-pass") is None
    assert not repository.storage.list("exports/job-a")


def test_cancel_keeps_the_job(repository: Repository) -> None:
    at = dashboard(repository).run()
    at.selectbox(key="job_delete_pick").set_value("job-b").run()
    at.button(key="job_delete").click().run()
    at.button(key="job_delete_cancel").click().run()
    assert not any("cannot be undone" in text for text in texts(at, "warning"))
    assert sorted(at.dataframe[0].value["job"]) == ["job-a", "job-b"]


def _confirm_delete(at: Any, job: str) -> None:
    at.selectbox(key="job_delete_pick").set_value(job).run()
    at.button(key="job_delete").click().run()
    at.text_input(key="job_delete_typed").input(job).run()
    at.button(key="job_delete_confirm").click().run()


def test_the_jobs_runs_are_stopped_before_it_is_deleted_and_the_message_names_them(repository: Repository) -> None:
    launcher = FakeLauncher(running={"job-a": ["job-a (batch)", "rec.zip (item)"]})
    at = dashboard(repository, launcher).run()
    _confirm_delete(at, "job-a")
    assert not at.exception
    assert launcher.stopped == ["job-a"]
    [message] = texts(at, "success")
    assert message.startswith("Stopped 2 runs (job-a (batch), rec.zip (item)), then deleted job job-a:")
    assert repository.get_item("job-a", "it-pass") is None


def test_runs_that_do_not_stop_keep_the_job(repository: Repository) -> None:
    launcher = FakeLauncher(refuse=JobDeletionError("job job-a: 1 runs still stopping after 120 s (job-a (batch))"))
    at = dashboard(repository, launcher).run()
    _confirm_delete(at, "job-a")
    assert not at.exception
    assert any("still stopping" in text for text in texts(at, "error"))
    assert repository.get_item("job-a", "it-pass") is not None
    assert repository.storage.list("exports/job-a")
