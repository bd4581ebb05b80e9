"""The upload form offers what the CLI offers, and hands every choice to the launcher."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboards.apptest_support import texts
from tests.fakes.launcher import FakeLauncher

pytestmark = pytest.mark.usefixtures("loopback_address")


def _upload_page(launcher: "FakeLauncher") -> None:  # noqa: UP037 (the body runs alone)
    from dashboards.views import upload
    from rlauto_core.config import Settings
    from rlauto_core.redact import Redactor

    upload.render(launcher, Settings.model_construct(), Redactor())


def _page(launcher: FakeLauncher) -> AppTest:
    at = AppTest.from_function(_upload_page, args=(launcher,), default_timeout=60).run()
    at.file_uploader(key="upload_files").set_value([("a.zip", b"PK\x03\x04one", "application/zip")])
    return at


def test_every_option_reaches_the_launcher() -> None:
    launcher = FakeLauncher()
    at = _page(launcher)
    at.checkbox(key="upload_strict").check()
    at.checkbox(key="upload_ignore_complexity").check()
    at.checkbox(key="upload_optimize").check()
    at.checkbox(key="upload_offline").check()
    at.text_area(key="upload_feedback").input("  name the channel by its id  ")
    at.text_input(key="upload_model").input("deepseek-v4-pro")
    at.text_input(key="upload_base_url").input("http://127.0.0.1:9/v1")
    at.selectbox(key="upload_api_mode").set_value("responses")
    at.text_input(key="upload_api_key_secret").input("team-gateway-key")
    at.number_input(key="upload_temperature").set_value(0.3)
    at.number_input(key="upload_top_p").set_value(0.9)
    at.number_input(key="upload_max_tokens").set_value(4096)
    at.number_input(key="upload_max_iterations").set_value(2)
    at.selectbox(key="upload_thinking").set_value("off")
    at.selectbox(key="upload_clear_thinking").set_value("on")
    at.run()
    at.button(key="upload_start").click().run()
    assert not at.exception and not texts(at, "error")
    [launch] = launcher.launches
    o = launch.options
    assert (o.strict_full_marks, o.ignore_task_complexity_for_full_marks, o.optimize_task) == (True, True, True)
    assert o.feedback == "name the channel by its id" and o.offline
    assert (o.model, o.base_url, o.api_mode) == ("deepseek-v4-pro", "http://127.0.0.1:9/v1", "responses")
    assert (o.api_key_secret, o.api_key) == ("team-gateway-key", None)  # a name, never a key
    assert (o.temperature, o.top_p, o.max_tokens, o.max_iterations) == (0.3, 0.9, 4096, 2)
    assert (o.enable_thinking, o.clear_thinking) == (False, True)


def test_untouched_fields_keep_the_defaults() -> None:
    launcher = FakeLauncher()
    at = _page(launcher)
    at.run()
    at.button(key="upload_start").click().run()
    [launch] = launcher.launches
    o = launch.options
    assert not o.optimize_task and not o.strict_full_marks and o.feedback == ""
    assert (o.model, o.base_url, o.api_mode, o.temperature, o.top_p, o.max_tokens) == (None,) * 6
    assert o.api_key_secret is None
    assert (o.enable_thinking, o.clear_thinking, o.max_iterations) == (None, None, 5)


def test_a_secret_block_name_that_is_not_one_is_refused() -> None:
    launcher = FakeLauncher()
    at = _page(launcher)
    at.text_input(key="upload_api_key_secret").input("Team Key!").run()
    at.button(key="upload_start").click().run()
    assert launcher.launches == []
    assert any("api_key_secret" in text for text in texts(at, "error"))
