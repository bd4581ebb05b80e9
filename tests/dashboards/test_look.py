"""What a reviewer looks at rather than reads, through AppTest over a real index: the overview's
score distribution per job and pass rate and tokens over time, an item's judge loop per
dimension and iteration, its rubrics beside the golden trajectory, and two iterations side by
side. The charts are checked on the data they plot (the Vega-Lite datasets the browser gets)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from dashboards.package_diff import changes
from dashboards.repository import Repository
from rlauto_core.store.storage import FsspecStorage, open_storage
from tests.dashboards.apptest_support import chart, dashboard, open_item_page, texts
from tests.dashboards.index_builder import BASE_TIME, ItemSpec, item_dir, write_item

pytestmark = pytest.mark.usefixtures("loopback_address")


def test_the_overview_plots_each_jobs_score_distribution(repository: Repository) -> None:
    at = dashboard(repository).run()
    assert not at.exception
    spec, [data] = chart(at, "Best total score per item, by job")
    plotted = sorted(zip(data["job"], data["score"], data["items"], strict=True))
    # job-a: 11, 12, 0; job-b: 11, 12 (it-canary's best) and the failed item with no score left out
    assert plotted == [("job-a", 0, 1), ("job-a", 11, 1), ("job-a", 12, 1), ("job-b", 11, 1), ("job-b", 12, 1)]
    assert spec["encoding"]["x"]["scale"]["domain"] == list(range(13))  # every score has its slot


def test_the_overview_plots_pass_rate_and_tokens_over_time(filled_storage: FsspecStorage) -> None:
    later = BASE_TIME + timedelta(hours=5)
    write_item(filled_storage, ItemSpec("job-c", "it-late", "a later failure", scores=[[0, 1, 0, 1, 0, 1]],
                                        tokens_prompt=4000, tokens_completion=1000, finished_at=later))  # fmt: skip
    at = dashboard(Repository(filled_storage.url, refresh_seconds=0)).run()
    assert at.get("button_group")[0].value == "hour"  # a few hours of work: hourly points
    _, [data] = chart(at, "Pass rate and tokens over time")
    assert list(data["items"]) == [6, 1]
    assert list(data["pass rate"]) == [66.7, 0.0]
    assert list(data["tokens"]) == [9000, 5000]
    assert list(data["period"].dt.hour) == [9, 14]


def test_the_item_page_plots_the_six_dimensions_per_iteration(repository: Repository) -> None:
    at = open_item_page(repository, "job-a", "it-pass")
    assert not at.exception
    _, [cells, totals] = chart(at, "Judge dimensions per iteration")
    scores = {(int(r.iteration), r.dimension): int(r.score) for r in cells.itertuples()}
    assert len(scores) == 12
    assert [scores[(1, d)] for d in ("INSTRUCTION CLARITY", "TASK COMPLEXITY", "TRAJECTORY-TASK ALIGNMENT")] == [
        1,
        2,
        1,
    ]
    assert [scores[(2, d)] for d in ("RUBRIC COVERAGE", "CHECKER VERIFIABILITY", "EVIDENCE GROUNDING")] == [2, 2, 1]
    assert list(totals["total"]) == [8, 11] and list(totals["verdict"]) == ["NEEDS_REVISION", "PASS"]


def test_rubrics_stand_beside_the_golden_steps_their_checkers_match(repository: Repository) -> None:
    at = open_item_page(repository, "job-a", "it-pass")
    captions = texts(at, "caption")
    assert "the golden trajectory scores 2/2 on these checkers" in captions
    assert "max score 1 · matches golden step 2 (r15)" in captions
    assert "max score 1 · matches golden step 3 (r19)" in captions
    assert [e.icon for e in at.expander if e.label.startswith("rb")] == [":material/check_circle:"] * 2
    golden = next(d.value for d in at.dataframe if "rubrics" in d.value.columns)
    assert list(golden["call"]) == ["r12", "r15", "r19"]
    assert list(golden["rubrics"]) == ["", "rb1", "rb2"]  # the read checks nothing; each write its rubric


def test_a_rubric_whose_checker_matches_no_golden_step_stands_out(
    repository: Repository, filled_storage: FsspecStorage
) -> None:
    path = f"{item_dir('job-a', 'it-full')}/task-package.json"
    package = json.loads(filled_storage.read_bytes(path))
    package["rubric_checkers"]["message_posted"]["path"] = "/api/v1/channels/C99/messages"
    filled_storage.write_bytes(path, json.dumps(package).encode())
    at = open_item_page(repository, "job-a", "it-full")
    assert not at.exception
    assert [e.icon for e in at.expander if e.label.startswith("rb1")] == [":material/warning:"]
    assert "max score 1 · matches no golden step" in texts(at, "caption")
    assert "the golden trajectory scores 0/1 on these checkers" in texts(at, "caption")


def test_two_iterations_side_by_side_show_what_changed(repository: Repository) -> None:
    at = open_item_page(repository, "job-a", "it-pass")
    assert (at.selectbox(key="diff_from").value, at.selectbox(key="diff_to").value) == (1, 2)
    captions = texts(at, "caption")
    assert captions.index("Rubrics (1)") < captions.index("Rubrics (2)")  # iteration 1 left, 2 right
    assert "Golden trajectory (2 steps)" in captions and "Golden trajectory (3 steps)" in captions
    table = next(d.value for d in at.dataframe if "where" in d.value.columns)
    rows = {r["where"]: r for r in table.to_dict("records")}
    added = rows["task.rubrics[id=rb2]"]
    assert added["change"] == "added" and added["iteration 1"] == "" and "Channel marked read" in added["iteration 2"]
    assert rows["validation.verdict"]["iteration 1"] == '"NEEDS_REVISION"'
    assert rows["validation.verdict"]["iteration 2"] == '"PASS"'
    assert rows["validation.self_check.problems[0]"]["change"] == "removed"
    assert any(t.startswith("**") and "differences** from iteration 1 to 2" in t for t in texts(at, "markdown"))
    # the same iteration on both sides: nothing differs
    at.selectbox(key="diff_from").set_value(2).run()
    assert "The two packages are identical." in texts(at, "success")
    assert not any("where" in d.value.columns for d in at.dataframe)


def test_package_changes_name_members_by_their_id_and_keep_added_subtrees_whole() -> None:
    before = {"task": {"rubrics": [{"id": "rb1", "title": "A"}, {"id": "rb3", "title": "C"}]}, "n": 1, "x": 1}
    after = {"task": {"rubrics": [{"id": "rb0", "title": "Z"}, {"id": "rb1", "title": "A"},
                                  {"id": "rb3", "title": "C2"}]}, "n": 1, "x": True}  # fmt: skip
    found = [(c.path, c.kind, c.before, c.after) for c in changes(before, after)]
    assert found == [
        ("task.rubrics[id=rb3].title", "changed", '"C"', '"C2"'),
        ("task.rubrics[id=rb0]", "added", None, '{"id": "rb0", "title": "Z"}'),
        ("x", "changed", "1", "true"),  # 1 and True are equal in Python, not in a package
    ]
    assert [(c.path, c.kind) for c in changes({"a": [1, 2]}, {"a": [1]})] == [("a[1]", "removed")]
    assert changes(before, before) == []


def test_a_package_that_cannot_be_scored_says_so_and_the_page_still_shows(
    repository: Repository, filled_storage: FsspecStorage
) -> None:
    path = f"{item_dir('job-a', 'it-full')}/task-package.json"
    package = json.loads(filled_storage.read_bytes(path))
    package["rubric_checkers"]["message_posted"]["kind"] = "telepathy"
    filled_storage.write_bytes(path, json.dumps(package).encode())
    at = open_item_page(repository, "job-a", "it-full")
    assert not at.exception
    assert any("could not be scored" in w and "telepathy" in w for w in texts(at, "warning"))
    assert [e.icon for e in at.expander if e.label.startswith("rb1")] == [":material/warning:"]
    assert "Golden trajectory" in texts(at, "subheader")


def test_the_overview_charts_follow_the_chosen_jobs(repository: Repository) -> None:
    at = dashboard(repository).run()
    assert at.multiselect(key="chart_jobs").value == ["job-b", "job-a"]  # newest first, both by default
    at.multiselect(key="chart_jobs").set_value(["job-a"]).run()
    _, [data] = chart(at, "Best total score per item, by job")
    assert set(data["job"]) == {"job-a"} and sorted(data["score"]) == [0, 11, 12]
    _, [activity] = chart(at, "Pass rate and tokens over time")
    assert list(activity["items"]) == [3] and list(activity["tokens"]) == [4500]
    at.multiselect(key="chart_jobs").set_value([]).run()  # none chosen: every job
    _, [data] = chart(at, "Best total score per item, by job")
    assert set(data["job"]) == {"job-a", "job-b"}


def _layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [part for part in spec.get("layer", [spec])]


def test_the_token_axis_counts_whole_tokens_with_thousands_separators(repository: Repository) -> None:
    at = dashboard(repository).run()
    spec, _ = chart(at, "Pass rate and tokens over time")
    [bars] = [layer for layer in _layers(spec) if layer["encoding"]["y"]["field"] == "tokens"]
    axis = bars["encoding"]["y"]["axis"]
    assert (axis["format"], axis["tickMinStep"]) == (",d", 1)  # 12,000, not 12000.000000 or 0.5
    assert "subtitle" not in spec["layer"][0]["title"]


def test_a_chart_of_jobs_without_model_calls_says_so_instead_of_a_zero_axis(tmp_path: Path) -> None:
    storage = open_storage((tmp_path / "offline").as_uri())
    for n in range(2):  # packaged offline: no token spent
        write_item(storage, ItemSpec("job-offline", f"it-{n}", "an offline draft", tokens_prompt=0,
                                     tokens_completion=0, finished_at=BASE_TIME + timedelta(minutes=n)))  # fmt: skip
    at = dashboard(Repository(storage.url, refresh_seconds=0)).run()
    spec, [data] = chart(at, "Pass rate and tokens over time")
    assert list(data["tokens"]) == [0]
    [line] = _layers(spec)
    assert line["title"]["subtitle"] == "no model calls"
    assert line["encoding"]["y"]["field"] == "pass rate"  # the pass rate alone, no token axis
    assert "tokens" not in json.dumps([layer["encoding"]["y"] for layer in _layers(spec)])
