"""The repository over a real parquet index and real stored files in a temp dir."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from pydantic import ValidationError

from dashboards.models import ItemQuery, StoredFileError
from dashboards.repository import Repository
from rlauto_core.store import ReviewError, UploadError, add_review, store_uploads, upload_file_name
from rlauto_core.store.index import ReviewRow, append_review
from rlauto_core.store.index_schema import REVIEWS_DIR
from rlauto_core.store.storage import FsspecStorage
from tests.conftest import DATA
from tests.dashboards.conftest import UNICODE_INSTRUCTION
from tests.dashboards.index_builder import BASE_TIME, ItemSpec, write_item, write_review


def ids(repository: Repository, **filters: object) -> list[str]:
    page = repository.find_items(ItemQuery(sort="item_id", descending=False, **filters))  # type: ignore[arg-type]
    return [row.item_id for row in page.rows]


def test_an_empty_index_answers_every_query_with_nothing(storage: FsspecStorage) -> None:
    repository = Repository(storage.url, refresh_seconds=0)
    assert repository.list_jobs() == []
    assert repository.find_items(ItemQuery()).total == 0
    assert repository.filter_choices().job_ids == []
    assert repository.get_item("job", "item") is None
    assert repository.get_iterations("job", "item") == []
    assert repository.get_reviews("job", "item") == []
    assert repository.job_bundle("job").included == []


def test_a_storage_url_that_does_not_exist_yet_is_an_empty_index(tmp_path: object) -> None:
    repository = Repository(f"{tmp_path}/never-written", refresh_seconds=0)
    assert repository.count_items() == 0


def test_overview_counts_statuses_pass_rate_mean_score_and_tokens(repository: Repository) -> None:
    jobs = {job.job_id: job for job in repository.list_jobs()}
    assert set(jobs) == {"job-a", "job-b"}
    a = jobs["job-a"]
    assert a.items == 3 and a.status_counts == {"completed": 3}
    assert a.passed == 2 and a.pass_rate == pytest.approx(2 / 3)
    assert a.mean_score == pytest.approx((11 + 12 + 0) / 3)
    assert a.tokens_total == 3 * 1500
    b = jobs["job-b"]
    assert b.status_counts == {"completed": 2, "failed": 1}
    assert b.mean_score == pytest.approx((11 + 12) / 2)  # the item with no iteration has no score


def test_scores_of_zero_and_twelve_are_kept_and_filterable(repository: Repository) -> None:
    assert repository.get_item("job-a", "it-zero").total_score == 0  # type: ignore[union-attr]
    assert repository.get_item("job-a", "it-full").total_score == 12  # type: ignore[union-attr]
    assert ids(repository, score_min=0, score_max=0) == ["it-zero"]
    assert ids(repository, score_min=12, score_max=12) == ["it-canary", "it-full"]
    assert ids(repository, score_min=11) == ["it-canary", "it-full", "it-pass", "it-unicode"]
    zero = repository.get_iterations("job-a", "it-zero")
    assert [it.total for it in zero] == [0] and set(zero[0].scores().values()) == {0}


def test_an_item_with_no_iterations_has_a_row_but_no_scores(repository: Repository) -> None:
    item = repository.get_item("job-b", "it-noiter")
    assert item is not None
    assert item.status == "failed" and item.verdict == "ERROR" and item.total_score is None
    assert item.package_path is None and item.error == "analyzer timed out after 3 attempts"
    assert repository.get_iterations("job-b", "it-noiter") == []
    # a score filter leaves it out, the untouched range keeps it
    assert "it-noiter" not in ids(repository, score_min=0)
    assert "it-noiter" in ids(repository)


def test_unicode_instructions_round_trip_and_are_searchable(repository: Repository) -> None:
    assert repository.get_item("job-b", "it-unicode").instruction == UNICODE_INSTRUCTION  # type: ignore[union-attr]
    assert ids(repository, text="张伟") == ["it-unicode"]
    assert ids(repository, text="GOT IT") == ["it-pass"]  # case-insensitive
    assert ids(repository, text="100%") == []  # LIKE wildcards in the search are literal


def test_each_filter_narrows_the_table(repository: Repository) -> None:
    choices = repository.filter_choices()
    assert choices.job_ids == ["job-a", "job-b"] and choices.statuses == ["completed", "failed"]
    assert choices.verdicts == ["ERROR", "NEEDS_REVISION", "PASS"] and choices.modes == ["api", "mcp"]
    assert choices.flag_codes == ["CROSS_ENTITY_IDS", "NOISE_TOOL", "UNREAD_CHECK_MISSING"]
    assert ids(repository, job_ids=("job-a",)) == ["it-full", "it-pass", "it-zero"]
    assert ids(repository, statuses=("failed",)) == ["it-noiter"]
    assert ids(repository, verdicts=("NEEDS_REVISION",)) == ["it-zero"]
    assert ids(repository, modes=("mcp",)) == ["it-full"]
    assert ids(repository, rule_profiles=("rl-env-4.30",)) == ["it-full"]
    assert ids(repository, flag_codes=("UNREAD_CHECK_MISSING", "NOISE_TOOL")) == ["it-pass", "it-zero"]
    assert ids(repository, job_ids=("job-a",), verdicts=("PASS",), modes=("api",)) == ["it-pass"]


def test_sorting_and_pagination(repository: Repository) -> None:
    first = repository.find_items(ItemQuery(sort="total_score", descending=True, page_size=2))
    assert first.total == 6 and first.pages == 3
    assert [r.total_score for r in first.rows] == [12, 12]
    last = repository.find_items(ItemQuery(sort="total_score", descending=True, page_size=2, page=3))
    assert [r.item_id for r in last.rows] == ["it-zero", "it-noiter"]  # nulls last
    beyond = repository.find_items(ItemQuery(page=9))
    assert beyond.rows == [] and beyond.total == 6
    with pytest.raises(ValidationError):
        ItemQuery(sort="total_score; DROP TABLE items")  # type: ignore[arg-type]


def test_hostile_filter_values_are_bound_not_executed(repository: Repository) -> None:
    hostile = "x'); DROP TABLE items; --"
    assert ids(repository, job_ids=(hostile,), text=hostile) == []
    assert repository.count_items() == 6


def test_reviews_append_and_the_latest_decision_wins(repository: Repository, filled_storage: FsspecStorage) -> None:
    review(repository, "job-a", "it-pass", "reject", "ana", "the rubric misses the read receipt")
    review(repository, "job-a", "it-pass", "accept", "bob", "fixed in iteration 2")
    item = repository.get_item("job-a", "it-pass")
    assert item is not None and item.decision == "accept" and item.reviewer == "bob"
    assert [r.decision for r in repository.get_reviews("job-a", "it-pass")] == ["accept", "reject"]
    assert len(filled_storage.list(REVIEWS_DIR)) == 2  # one new file per review, none rewritten
    assert ids(repository, decisions=("accept",)) == ["it-pass"]
    assert "it-pass" not in ids(repository, decisions=("unreviewed",))
    assert len(ids(repository, decisions=("unreviewed",))) == 5


def test_an_older_review_written_later_does_not_win(repository: Repository, filled_storage: FsspecStorage) -> None:
    write_review(filled_storage, "job-a", "it-full", "accept", created_at=BASE_TIME + timedelta(days=2))
    write_review(filled_storage, "job-a", "it-full", "reject", created_at=BASE_TIME + timedelta(days=1))
    assert repository.get_item("job-a", "it-full").decision == "accept"  # type: ignore[union-attr]


def test_two_reviews_of_the_same_millisecond_keep_the_order_they_were_written_in(
    repository: Repository, filled_storage: FsspecStorage
) -> None:
    for decision in ("reject", "accept", "reject", "accept"):  # created_at is kept to the millisecond
        append_review(filled_storage, ReviewRow(job_id="job-a", item_id="it-full", decision=decision, reviewer="ana",
                                                created_at=BASE_TIME + timedelta(days=3)))  # fmt: skip
    assert [r.decision for r in repository.get_reviews("job-a", "it-full")] == ["accept", "reject"] * 2
    assert repository.get_item("job-a", "it-full").decision == "accept"  # type: ignore[union-attr]


def test_a_review_needs_a_reviewer_and_a_known_decision(repository: Repository) -> None:
    with pytest.raises(ReviewError, match="reviewer"):
        review(repository, "job-a", "it-pass", "accept", "   ")
    with pytest.raises(ReviewError, match="decision"):
        review(repository, "job-a", "it-pass", "maybe", "ana")  # type: ignore[arg-type]


def test_a_rerun_of_an_item_replaces_its_row_and_hides_stale_iterations(
    repository: Repository, filled_storage: FsspecStorage
) -> None:
    assert len(repository.get_iterations("job-a", "it-pass")) == 2
    rerun = ItemSpec(
        "job-a",
        "it-pass",
        "reply 'got it' (re-run)",
        scores=[[2, 2, 2, 2, 2, 2]],
        finished_at=BASE_TIME + timedelta(days=3),
    )
    write_item(filled_storage, rerun)
    item = repository.get_item("job-a", "it-pass")
    assert item is not None and item.instruction == "reply 'got it' (re-run)" and item.total_score == 12
    iterations = repository.get_iterations("job-a", "it-pass")
    assert [it.iteration for it in iterations] == [1] and iterations[0].total == 12
    assert repository.count_items() == 6


def test_the_snapshot_reads_only_new_files_within_its_refresh_interval(filled_storage: FsspecStorage) -> None:
    repository = Repository(filled_storage.url, refresh_seconds=3600)
    assert repository.count_items() == 6
    write_item(filled_storage, ItemSpec("job-c", "it-new", "new", finished_at=BASE_TIME))
    assert repository.count_items() == 6  # not looked yet
    repository.refresh()
    assert repository.count_items() == 7


def test_an_unreadable_index_file_is_reported_and_the_rest_still_served(
    repository: Repository, filled_storage: FsspecStorage
) -> None:
    filled_storage.write_bytes("index/items/job=job-a/broken.parquet", b"PAR1 not really parquet")
    assert repository.count_items() == 6
    assert repository.health().unreadable == ["index/items/job=job-a/broken.parquet"]


def test_iterations_carry_the_six_scores_and_the_judges_explanations(repository: Repository) -> None:
    first, second = repository.get_iterations("job-a", "it-pass")
    assert first.scores()["instruction_clarity"] == 1 and second.total == 11
    assert second.explanations()["evidence_grounding"] == "iter 2: evidence grounding scored 1"
    assert repository.read_judge_result(second.judge_path or "").total == 11


def test_stored_json_files_are_read_and_missing_ones_named(repository: Repository) -> None:
    item = repository.get_item("job-b", "it-unicode")
    assert item is not None
    package = repository.read_json(item.package_path or "")
    assert package["task"]["instruction"] == UNICODE_INSTRUCTION
    with pytest.raises(StoredFileError, match=re.escape("exports/job-b/nope.json: not found")):
        repository.read_json("exports/job-b/nope.json")


def test_the_job_bundle_holds_every_passing_package_zip(repository: Repository) -> None:
    bundle = repository.job_bundle("job-a")
    assert bundle.included == ["it-full", "it-pass"] and bundle.missing == []
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        assert sorted(archive.namelist()) == ["it-full.task-package.zip", "it-pass.task-package.zip"]
        inner = zipfile.ZipFile(io.BytesIO(archive.read("it-pass.task-package.zip")))
        assert json.loads(inner.read("task.json"))["task"]["instruction"].startswith("reply 'got it'")


def test_a_passing_item_whose_zip_vanished_is_listed_as_missing(
    repository: Repository, filled_storage: FsspecStorage
) -> None:
    filled_storage.delete("exports/job-a/it-full/output.zip")
    bundle = repository.job_bundle("job-a")
    assert bundle.included == ["it-pass"] and bundle.missing == ["it-full"]
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        assert archive.read("MISSING.txt") == b"it-full\n"


def test_uploads_are_stored_under_uploads(filled_storage: FsspecStorage) -> None:
    stored = store_uploads(
        filled_storage,
        [("a.zip", b"PK\x03\x04one"), ("../../etc/a.zip", b"PK\x03\x04two"), ("录音.har", b"{}")],
        max_files=5,
        max_upload_mb=1,
    )
    names = [path.rsplit("/", 1)[1] for path in stored.paths]
    assert names == ["a.zip", "a-2.zip", "录音.har"]
    assert all(path.startswith(f"uploads/{stored.upload_id}/") for path in stored.paths)
    assert filled_storage.read_bytes(stored.paths[1]) == b"PK\x03\x04two"
    assert stored.uris[0] == f"{filled_storage.url}/{stored.paths[0]}"


def test_uploads_take_bare_mcp_captures_as_real_tools_wrote_them(filled_storage: FsspecStorage) -> None:
    """A cassette (mcp-recorder's .json, agent-vcr's .vcr) is uploaded as it is; what it holds is
    the importer's to judge when the batch runs, as for the CLI."""
    captures = sorted((DATA / "mcp" / "cassette").iterdir())
    stored = store_uploads(filled_storage, [(p.name, p.read_bytes()) for p in captures], max_files=5, max_upload_mb=1)
    assert [path.rsplit("/", 1)[1] for path in stored.paths] == [p.name for p in captures]
    assert {p.suffix for p in captures} == {".json", ".vcr"}
    assert [filled_storage.read_bytes(path) for path in stored.paths] == [p.read_bytes() for p in captures]


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ([], "no recording"),
        ([("a.zip", b"PK")] * 3, "3 files, at most 2"),
        ([("big.zip", b"PK" + b"0" * (1024 * 1024))], "more than 1 MB"),
        ([("fake.zip", b"not a zip")], "fake.zip: is not a ZIP archive"),
        (
            [("notes.txt", b"hello")],
            r"notes.txt: is not a recording: accepted are .zip, .har, or an MCP capture \(.json, ",
        ),
        ([("empty.zip", b"")], "is empty"),
    ],
)
def test_refused_uploads_name_the_file_and_store_nothing(
    filled_storage: FsspecStorage, files: list[tuple[str, bytes]], problem: str
) -> None:
    with pytest.raises(UploadError, match=problem):
        store_uploads(filled_storage, files, max_files=2, max_upload_mb=1)
    assert filled_storage.list("uploads") == []


def test_upload_names_cannot_escape_their_folder() -> None:
    assert upload_file_name("../../x.zip") == "x.zip"
    assert upload_file_name("C:\\Users\\me\\rec 1.zip") == "rec_1.zip"
    assert upload_file_name("..") == "recording"


def review(repository: Repository, job_id: str, item_id: str, decision: str, reviewer: str, comment: str = "") -> None:
    """What the review form does: the core appends the review, the repository reads it afresh."""
    add_review(repository.storage, job_id, item_id, decision, reviewer, comment)
    repository.refresh()


def test_a_long_upload_name_keeps_its_extension_and_fits_a_path() -> None:
    name = upload_file_name("r" * 400 + ".zip")
    assert name.endswith(".zip") and len(name.encode()) <= 150


def test_the_score_distribution_counts_each_jobs_best_totals(repository: Repository) -> None:
    counts = [(c.job_id, c.score, c.items) for c in repository.score_distribution()]
    assert counts == [("job-a", 0, 1), ("job-a", 11, 1), ("job-a", 12, 1), ("job-b", 11, 1), ("job-b", 12, 1)]


def test_activity_groups_finished_items_by_period(storage: FsspecStorage) -> None:
    for n, (days, scores) in enumerate([(0, [[2] * 6]), (0, [[0] * 6]), (1, [[2] * 6]), (9, [[1] * 6])]):
        write_item(
            storage, ItemSpec("job", f"it-{n}", "x", scores=scores, finished_at=BASE_TIME + timedelta(days=days))
        )
    repository = Repository(storage.url, refresh_seconds=0)
    daily = repository.activity("day")
    assert [(p.period.day, p.items, p.passed, p.pass_rate, p.tokens_total) for p in daily] == [
        (1, 2, 1, 0.5, 3000), (2, 1, 1, 1.0, 1500), (10, 1, 0, 0.0, 1500)
    ]  # fmt: skip
    assert [p.items for p in repository.activity("week")] == [2, 1, 1]  # 2026-11-01 is a Sunday
    assert sum(p.items for p in repository.activity("hour")) == 4
    with pytest.raises(ValueError, match="unknown bucket"):
        repository.activity("minute")  # type: ignore[arg-type]


def test_the_charts_queries_keep_to_the_chosen_jobs(repository: Repository) -> None:
    assert {c.job_id for c in repository.score_distribution(("job-b",))} == {"job-b"}
    assert [p.items for p in repository.activity("day", ("job-b",))] == [3]
    assert repository.score_distribution(("nope",)) == [] and repository.activity("day", ("nope",)) == []
