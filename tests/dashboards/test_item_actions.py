"""The Item page's run-again buttons hand the launcher one item: a retry only for a failed or
stopped item, a regenerate with the reviewer's comment; a refusal is a message."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from dashboards.repository import Repository
from rlauto_core.errors import RlautoError
from rlauto_core.store import add_review
from tests.dashboards.apptest_support import texts
from tests.fakes.launcher import FakeLauncher, Rerun

pytestmark = pytest.mark.usefixtures("loopback_address")


def _item_page(repository: "Repository", launcher: "FakeLauncher", job: str, item: str) -> None:  # noqa: UP037
    import streamlit as st

    from dashboards.views import detail

    st.query_params["job"], st.query_params["item"] = job, item  # as a row or a link opens it
    from rlauto_core.redact import Redactor

    detail.render(repository, Redactor(), launcher)


def _page(repository: Repository, launcher: FakeLauncher, job: str, item: str) -> AppTest:
    return AppTest.from_function(_item_page, args=(repository, launcher, job, item), default_timeout=60).run()


def test_a_failed_item_is_retried_alone(repository: Repository) -> None:
    launcher = FakeLauncher()
    at = _page(repository, launcher, "job-b", "it-noiter")
    assert not at.exception
    at.button(key="item_retry").click().run()
    assert launcher.reruns == [Rerun("job-b", "it-noiter", None)]
    assert launcher.launches == [], "not the whole batch"
    assert any("Retry started" in text and "it-noiter" in text for text in texts(at, "success"))


def test_a_passing_item_offers_no_retry(repository: Repository) -> None:
    at = _page(repository, FakeLauncher(), "job-a", "it-pass")
    assert not [b for b in at.button if b.key == "item_retry"]
    assert any("Retry is for failed or stopped items" in text for text in texts(at, "caption"))


def test_regenerate_sends_the_reviewers_comment(repository: Repository) -> None:
    add_review(repository.storage, "job-a", "it-zero", "needs-work", "ana", "name the channel by its id")
    repository.refresh()
    launcher = FakeLauncher()
    at = _page(repository, launcher, "job-a", "it-zero")
    assert at.text_area(key="item_regen_comment").value == "name the channel by its id"  # the newest review's
    at.text_area(key="item_regen_comment").input("name the channel by its id C123, not its title").run()
    at.button(key="item_regenerate").click().run()
    assert launcher.reruns == [Rerun("job-a", "it-zero", "name the channel by its id C123, not its title")]
    assert any("Regenerate started" in text and "it-fedcba9876543210" in text for text in texts(at, "success"))


def test_an_empty_comment_cannot_regenerate_and_a_refusal_is_a_message(repository: Repository) -> None:
    launcher = FakeLauncher(refuse=RlautoError("item it-noiter: its flow run 42 is not on this Prefect server"))
    at = _page(repository, launcher, "job-b", "it-noiter")
    assert at.button(key="item_regenerate").disabled
    at.button(key="item_retry").click().run()
    assert not at.exception
    assert any("did not start" in text and "not on this Prefect server" in text for text in texts(at, "error"))


def test_without_a_launcher_the_buttons_say_how_to_get_one(repository: Repository) -> None:
    from dashboards.launcher import NoLauncher

    at = AppTest.from_function(_item_page, args=(repository, NoLauncher(), "job-b", "it-noiter")).run()
    at.button(key="item_retry").click().run()
    assert any("rlauto dashboard" in text for text in texts(at, "error"))


def test_the_comment_field_follows_the_opened_item(repository: Repository) -> None:
    add_review(repository.storage, "job-a", "it-zero", "needs-work", "ana", "comment on it-zero")
    repository.refresh()
    at = _page(repository, FakeLauncher(), "job-a", "it-zero")
    assert at.text_area(key="item_regen_comment").value == "comment on it-zero"
    # a session that had it-zero open, with a comment typed, now opens another item
    other = AppTest.from_function(_item_page, args=(repository, FakeLauncher(), "job-b", "it-noiter"))
    other.session_state["item_regen_comment"] = "left over"
    other.session_state["item_actions_item"] = "job-a/it-zero"
    other.run()
    assert other.text_area(key="item_regen_comment").value == ""
