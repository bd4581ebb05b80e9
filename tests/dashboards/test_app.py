"""The dashboard driven through streamlit.testing.v1.AppTest over a real index in a temp dir."""

from __future__ import annotations

import io
import json
import time
import zipfile

import pytest
from streamlit.testing.v1 import AppTest

from dashboards.models import ItemQuery
from dashboards.repository import Repository
from rlauto_core.store.storage import FsspecStorage
from tests.conftest import EXAMPLES
from tests.dashboards.apptest_support import current_page, dashboard, go, open_item_page, rendered_bytes, texts
from tests.fakes.launcher import FakeLauncher
from tests.fakes.llm_server import FakeLlmServer

pytestmark = pytest.mark.usefixtures("loopback_address")


def recording_zip(instruction: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("task.json", json.dumps({"task": {"instruction": instruction}}))
        archive.writestr("network.json", '{"version": 1, "requests": []}')
    return buffer.getvalue()


def test_the_overview_lists_jobs_with_their_figures(repository: Repository) -> None:
    at = dashboard(repository).run()
    assert not at.exception
    assert texts(at, "metric")[:4] == ["2", "6", "67%", "9,000"]
    jobs = at.dataframe[0].value
    assert list(jobs["job"]) == ["job-b", "job-a"]
    row = jobs[jobs["job"] == "job-b"].iloc[0]
    assert (row["items"], row["completed"], row["failed"], row["passed"]) == (3, 2, 1, 2)


def test_an_empty_index_says_so(storage: FsspecStorage) -> None:
    at = dashboard(Repository(storage.url, refresh_seconds=0)).run()
    assert not at.exception
    assert any("index is empty" in text for text in texts(at, "info"))


def test_filters_narrow_the_items_table(repository: Repository) -> None:
    at = dashboard(repository).run()
    go(at, "items")
    assert "6 items match" in at.caption[0].value
    at.multiselect(key="f_job").set_value(["job-a"]).run()
    assert "3 items match" in at.caption[0].value
    at.multiselect(key="f_verdict").set_value(["PASS"]).run()
    assert sorted(at.dataframe[0].value["item"]) == ["it-full", "it-pass"]
    at.multiselect(key="f_verdict").set_value([]).run()
    at.slider(key="f_score").set_value((0, 0)).run()
    assert list(at.dataframe[0].value["item"]) == ["it-zero"]
    at.slider(key="f_score").set_value((0, 12))
    at.multiselect(key="f_job").set_value([]).run()
    at.text_input(key="f_text").input("张伟").run()
    assert list(at.dataframe[0].value["item"]) == ["it-unicode"]
    at.text_input(key="f_text").input("")
    at.multiselect(key="f_flags").set_value(["NOISE_TOOL"]).run()
    assert list(at.dataframe[0].value["item"]) == ["it-pass"]
    at.multiselect(key="f_flags").set_value([])
    at.multiselect(key="f_decision").set_value(["accept"]).run()
    assert any("No item matches" in text for text in texts(at, "info"))
    assert not at.exception


def test_sorting_and_paging_the_items_table(repository: Repository) -> None:
    at = dashboard(repository).run()
    go(at, "items")
    at.selectbox(key="f_sort").set_value("total_score").run()
    assert list(at.dataframe[0].value["score"])[:2] == [12, 12]
    at.checkbox(key="f_desc").uncheck().run()
    assert at.dataframe[0].value["item"].iloc[0] == "it-zero"
    at.number_input(key="f_page").set_value(2).run()
    assert any("No item matches" in text for text in texts(at, "info"))


def select_row(at: AppTest, item_id: str) -> AppTest:
    """Select the table row of `item_id`, as a click on its row does (AppTest sets the selection state)."""
    [table] = [d for d in at.dataframe if d.key and d.key.startswith("items_table")]
    row = list(table.value["item"]).index(item_id)
    at.session_state[table.key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


def test_selecting_a_row_opens_that_item(repository: Repository) -> None:
    at = go(dashboard(repository), "items")
    assert not at.main.button and "open_choice" not in [s.key for s in at.selectbox]  # no picker, no Open button
    select_row(at, "it-zero")
    assert not at.exception
    assert current_page(at) == "item"
    assert [h.value for h in at.header] == ["Item it-zero"]
    assert at.query_params == {"job": "job-a", "item": "it-zero"}  # the URL names it: a link to share
    # back on the Items page the table is unselected, so it does not jump to the item again
    at.button(key="back_to_items").click().run()
    assert current_page(at) == "items" and [h.value for h in at.header] == ["Items"]
    select_row(at, "it-unicode")
    assert [h.value for h in at.header] == ["Item it-unicode"]


def test_the_item_page_without_an_item_goes_to_the_items(repository: Repository) -> None:
    at = go(dashboard(repository), "item")
    assert not at.exception
    assert current_page(at) == "items"
    assert not any("open an item" in text.lower() for text in texts(at, "info"))


def test_opening_an_item_shows_what_a_reviewer_needs(repository: Repository) -> None:
    at = go(dashboard(repository), "items")
    at.multiselect(key="f_job").set_value(["job-a"]).run()
    select_row(at, "it-pass")
    assert not at.exception
    assert [h.value for h in at.header] == ["Item it-pass"]
    assert "reply 'got it' to Alice, then mark #general read" in texts(at, "text")
    metrics = dict(zip([m.label for m in at.metric], texts(at, "metric"), strict=True))
    assert metrics["Score"] == "11/12" and metrics["Verdict"] == "PASS" and metrics["Decision"] == "none"
    assert metrics["Mutants caught"] == "4/4" and metrics["Golden at full marks"] == "yes"
    assert metrics["Valid variants at full marks"] == "3/3" and not texts(at, "error")
    # evidence the checker generator did not write: every recorded write accounted for
    assert metrics["Recorded writes covered"] == "1/2" and metrics["Excluded with no rule"] == "0"
    assert metrics["Recording mutants caught"] == "2/2" and metrics["Behaviour variants at full marks"] == "1/1"
    subheaders = texts(at, "subheader")
    for wanted in (
        "Flags",
        "Self-check",
        "Subtasks and their calls",
        "Rubrics and their checkers",
        "Golden trajectory",
        "Judge scores over iterations",
        "Compare two iterations' packages",
        "Download",
        "Review",
    ):
        assert wanted in subheaders
    assert len(at.get("vega_lite_chart")) == 1  # the six scores per iteration, beside the total
    labels = [e.label for e in at.expander]
    assert any(label.startswith("Iteration 2: 11/12") for label in labels)
    assert any("rb2" in label and "channel_read" in label for label in labels)
    explanations = [df for df in (d.value for d in at.dataframe) if "explanation" in df.columns]
    assert "iter 2: evidence grounding scored 1" in list(explanations[1]["explanation"])
    diff = at.code[0].value  # the unified diff, under the side-by-side comparison
    assert "+" in diff and "channel_read" in diff and "iteration 1" in diff
    assert [b.label for b in at.get("download_button")] == ["Task package (JSON)", "Package ZIP"]


def test_a_failed_item_without_iterations_still_opens(repository: Repository) -> None:
    at = open_item_page(repository, "job-b", "it-noiter")
    assert not at.exception
    assert "analyzer timed out after 3 attempts" in texts(at, "error")
    assert any("No iteration was judged" in text for text in texts(at, "info"))


def test_submitting_a_review_persists_it_and_shows_it(repository: Repository, filled_storage: FsspecStorage) -> None:
    at = open_item_page(repository, "job-a", "it-full")
    at.radio(key="review_decision").set_value("needs-work")
    at.text_input(key="reviewer_name").input("李雷")
    at.text_area(key="review_comment").input("rubric 2 grades an unrequested outcome")
    next(b for b in at.button if b.label == "Submit review").click().run()
    assert not at.exception
    assert "Recorded: needs-work by 李雷" in texts(at, "success")
    metrics = dict(zip([m.label for m in at.metric], texts(at, "metric"), strict=True))
    assert metrics["Decision"] == "needs-work"
    # persisted: a fresh repository on the same storage sees it
    fresh = Repository(filled_storage.url, refresh_seconds=0)
    item = fresh.get_item("job-a", "it-full")
    assert item is not None and item.decision == "needs-work" and item.reviewer == "李雷"
    assert fresh.find_items(ItemQuery(decisions=("needs-work",))).total == 1
    # and shown in the items table
    go(at, "items")
    table = at.dataframe[0].value
    assert table[table["item"] == "it-full"].iloc[0]["decision"] == "needs-work"


def test_a_review_without_a_reviewer_is_refused(repository: Repository, filled_storage: FsspecStorage) -> None:
    at = open_item_page(repository, "job-a", "it-full")
    next(b for b in at.button if b.label == "Submit review").click().run()
    assert any("reviewer" in text for text in texts(at, "error"))
    assert filled_storage.list("index/reviews") == []


def test_the_job_bundle_is_built_on_request(repository: Repository) -> None:
    at = dashboard(repository).run()
    at.selectbox(key="bundle_job").set_value("job-a").run()
    at.button(key="bundle_build").click().run()
    assert "2 passing packages" in at.caption[-1].value or any("2 passing packages" in c for c in texts(at, "caption"))
    assert [b.label for b in at.get("download_button")] == ["Download all-results ZIP"]


@pytest.mark.prefect
@pytest.mark.slow
def test_uploading_two_recordings_stores_them_and_they_appear_as_a_job(
    repository: Repository, filled_storage: FsspecStorage, prefect_api_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows.launch import PrefectLauncher
    from rlauto_core.config import Settings

    monkeypatch.setenv("DEFAULT_API_KEY", "")  # the offline analyzer: no model is called
    first, second = (EXAMPLES / "discord_reply.zip").read_bytes(), (EXAMPLES / "issue_tracker.zip").read_bytes()
    at = dashboard(repository, PrefectLauncher(Settings(), repository.root_uri)).run()
    go(at, "upload")
    at.file_uploader(key="upload_files").set_value(
        [("discord_reply.zip", first, "application/zip"), ("issue_tracker.zip", second, "application/zip")]
    )
    at.run()
    at.button(key="upload_start").click().run(timeout=300)  # Prefect import + run creation, loaded CI
    assert not at.exception
    assert not texts(at, "error")
    stored = [p for p in filled_storage.list("uploads") if p.endswith(("discord_reply.zip", "issue_tracker.zip"))]
    assert len(stored) == 2
    job_id = stored[0].split("/")[1]
    assert filled_storage.read_bytes(f"uploads/{job_id}/issue_tracker.zip") == second
    assert f"job {job_id}" in texts(at, "success")[0]
    link = at.get("link_button")[0]
    assert link.proto.url.startswith(prefect_api_url.removesuffix("/api") + "/runs/flow-run/")
    # the batch runs in this process against the session's Prefect server; its job shows up
    deadline = time.monotonic() + 480
    job = None
    while time.monotonic() < deadline:
        repository.refresh()
        job = next((j for j in repository.list_jobs() if j.job_id == job_id), None)
        if job is not None and job.items == 2:
            break
        time.sleep(1)
    assert job is not None and job.items == 2, f"job {job_id} did not finish its two items"
    flow_run_id = at.session_state["last_launched_run"]["flow_run_id"]
    assert _wait_final(flow_run_id) == "COMPLETED"
    go(at, "overview")
    assert job_id in list(at.dataframe[0].value["job"])


def _wait_final(flow_run_id: str, timeout: float = 300) -> str:
    """The batch's flow run state once final (it runs on a thread of this process)."""
    from prefect.client.orchestration import get_client

    deadline = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            state = client.read_flow_run(flow_run_id).state
            if state is not None and (state.is_final() or time.monotonic() > deadline):
                return str(state.type.value)
            time.sleep(0.5)


def test_too_many_recordings_are_refused(
    repository: Repository, filled_storage: FsspecStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAX_BATCH_FILES", "2")
    at = dashboard(repository).run()
    go(at, "upload")
    assert "1 to 2 recordings" in at.caption[0].value
    at.file_uploader(key="upload_files").set_value(
        [(f"r{i}.zip", recording_zip(str(i)), "application/zip") for i in range(3)]
    ).run()
    at.button(key="upload_start").click().run()
    assert any("3 files, at most 2 per batch" in text for text in texts(at, "error"))
    assert filled_storage.list("uploads") == []


def test_polish_without_a_model_says_how_to_configure_one(
    repository: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEFAULT_API_KEY", "")
    at = dashboard(repository).run()
    go(at, "polish")
    at.text_area(key="polish_raw").input("回复张伟 收到")
    next(b for b in at.button if b.label == "Polish").click().run()
    assert not at.exception
    assert any("No model is configured" in text and "DEFAULT_API_KEY" in text for text in texts(at, "warning"))


def test_polish_through_the_configured_model(repository: Repository, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLlmServer() as fake:
        fake.script(
            "polish", {"json": {"zh": "回复张伟：收到", "en": "Reply 'got it' to Zhang Wei", "notes": "one step"}}
        )
        monkeypatch.setenv("DEFAULT_API_KEY", "sk-test-polish-key-123")
        monkeypatch.setenv("DEFAULT_BASE_URL", fake.base_url())
        monkeypatch.setenv("DEFAULT_MODEL", "polish")
        at = dashboard(repository).run()
        go(at, "polish")
        at.text_area(key="polish_raw").input("回复张伟 收到")
        next(b for b in at.button if b.label == "Polish").click().run(timeout=60)
        assert not at.exception
        assert fake.calls("polish") == 1
        assert "回复张伟 收到" in fake.requests("polish")[0].prompt_text()
    assert texts(at, "text") == ["回复张伟：收到", "Reply 'got it' to Zhang Wei", "one step"]
    assert b"sk-test-polish-key-123" not in rendered_bytes(at)


def test_a_link_with_job_and_item_opens_that_item(repository: Repository) -> None:
    at = dashboard(repository)
    at.query_params["job"] = "job-b"
    at.query_params["item"] = "it-unicode"
    at.run()
    assert not at.exception
    assert [h.value for h in at.header] == ["Item it-unicode"]
    assert current_page(at) == "item"
    assert at.query_params == {"job": "job-b", "item": "it-unicode"}


def test_a_link_to_the_item_page_opens_that_item(repository: Repository) -> None:
    at = dashboard(repository).run()
    at.query_params.update({"job": "job-a", "item": "it-full"})
    go(at, "item")
    assert not at.exception
    assert [h.value for h in at.header] == ["Item it-full"]


def test_the_upload_form_hands_the_launcher_the_recordings_and_options(repository: Repository) -> None:
    """The app never imports the pipeline: it hands what the reviewer chose to its launcher."""
    launcher = FakeLauncher()
    at = dashboard(repository, launcher).run()
    go(at, "upload")
    at.file_uploader(key="upload_files").set_value(
        [("a.zip", b"PK\x03\x04one", "application/zip"), ("b.har", b"{}", "application/json")]
    )
    at.selectbox(key="upload_profile").set_value("rl-env-4.30")
    at.checkbox(key="upload_strict").check()
    at.run()
    at.button(key="upload_start").click().run()
    assert not at.exception and not texts(at, "error")
    [launch] = launcher.launches
    assert launch.names == ["a.zip", "b.har"]
    assert launch.options.rule_profile == "rl-env-4.30" and launch.options.strict_full_marks
    assert "job job-fake-1" in texts(at, "success")[0]


def test_a_refused_upload_never_reaches_the_launcher(repository: Repository) -> None:
    launcher = FakeLauncher()
    at = dashboard(repository, launcher).run()
    go(at, "upload")
    at.file_uploader(key="upload_files").set_value([("fake.zip", b"not a zip", "application/zip")])
    at.run()
    at.button(key="upload_start").click().run()
    assert launcher.launches == []
    assert any("fake.zip: is not a ZIP archive" in e for e in texts(at, "error"))


def test_a_launcher_failure_is_a_message_not_a_traceback(repository: Repository) -> None:
    at = dashboard(repository, FakeLauncher(refuse=RuntimeError("server down"))).run()
    go(at, "upload")
    at.file_uploader(key="upload_files").set_value([("a.zip", b"PK\x03\x04one", "application/zip")])
    at.run()
    at.button(key="upload_start").click().run()
    assert not at.exception
    assert any("did not start: server down" in e for e in texts(at, "error"))


def test_a_link_to_an_unknown_item_says_so(repository: Repository) -> None:
    at = open_item_page(repository, "job-a", "it-<gone>")
    assert not at.exception
    assert current_page(at) == "item"
    assert any("No item job-a / it-\\<gone\\> in the index." in w for w in texts(at, "warning"))
    at.button(key="back_to_items").click().run()
    assert current_page(at) == "items"


def test_the_item_page_says_which_valid_variant_fails_and_what_it_breaks(repository: Repository) -> None:
    """A package whose checkers fail a good attempt by another path: the reviewer sees which path, which rubric."""
    at = dashboard(repository)
    at.query_params.update({"job": "job-a", "item": "it-zero"})
    at.run()
    assert not at.exception and [h.value for h in at.header] == ["Item it-zero"]
    metrics = dict(zip([m.label for m in at.metric], texts(at, "metric"), strict=True))
    assert metrics["Valid variants at full marks"] == "2/3"
    shown, mutant = texts(at, "error")
    assert "v3 fails" in shown and "tokens, clocks" in shown and "rb2" in shown and "request.version" in shown
    assert not [w for w in texts(at, "warning") if "valid variant" in w]  # said once, as the error
    # a write left out with no rule, a mutant of the recording that keeps its points, an unchecked clause
    assert metrics["Recorded writes covered"] == "1/3" and metrics["Excluded with no rule"] == "1"
    assert metrics["Recording mutants caught"] == "1/2" and "rm2 keeps its points: r19 aimed at channelId C02" in mutant
    table = next(d.value for d in at.dataframe if "status" in d.value.columns and "why" in d.value.columns)
    assert list(table["status"]) == ["covered", "excluded (noise)", "excluded, NO RULE"]
    assert any("No rubric checks what the instruction says: 'got it'" in w for w in texts(at, "warning"))
