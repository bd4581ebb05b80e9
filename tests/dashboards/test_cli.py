"""`rlauto dashboard`: loopback by default, refuses to listen elsewhere without a password."""

from __future__ import annotations

import os
import subprocess
import sys

from flows.cli.dashboard_cmd import PROJECT, REVIEW_APP, dashboard_argv, dashboard_env

RLAUTO = [sys.executable, "-c", "from flows.cli import main; main()"]


def test_listening_beyond_loopback_without_a_password_is_refused() -> None:
    env = {k: v for k, v in os.environ.items() if k != "RLAUTO_DASHBOARD_PASSWORD"}
    done = subprocess.run(
        [*RLAUTO, "dashboard", "--host", "0.0.0.0"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: --host 0.0.0.0: listening beyond loopback needs a password; set RLAUTO_DASHBOARD_PASSWORD first"
    )
    assert "Traceback" not in done.stderr and "Dashboard:" not in done.stdout


def test_the_command_line_binds_the_given_host_and_upload_limit() -> None:
    argv = dashboard_argv("127.0.0.1", 8765, 42)
    assert argv[1:5] == ["-m", "streamlit", "run", str(REVIEW_APP)]
    flags = dict(zip(argv[5::2], argv[6::2], strict=True))
    assert flags == {
        "--server.address": "127.0.0.1",
        "--server.port": "8765",
        "--server.headless": "true",
        "--browser.gatherUsageStats": "false",
        "--server.maxUploadSize": "42",
        "--client.toolbarMode": "viewer",
    }
    env = dashboard_env("s3://bucket/prefix")
    assert env["RLAUTO_STORAGE_URL"] == "s3://bucket/prefix"
    assert str(PROJECT) in env["PYTHONPATH"].split(os.pathsep)
