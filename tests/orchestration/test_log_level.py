"""LOG_LEVEL is applied: at `debug` the CLI process prints our DEBUG lines and Prefect's (its
level is handed on through PREFECT_LOGGING_LEVEL to what the process starts); at `info`
neither appears."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

DEBUG_LINE = re.compile(r"\|\s*DEBUG\s*\|\s*(\S+)")


def _debug_loggers(level: str, tmp_path: Path, api_url: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_LOGGING_LEVEL", "LOG_LEVEL")}
    env.update({"LOG_LEVEL": level, "PREFECT_API_URL": api_url, "PYTHONPATH": str(REPO_ROOT),
                "RLAUTO_STORAGE_URL": (tmp_path / "storage").as_uri(), "RLAUTO_DATA_DIR": str(tmp_path / "data")})  # fmt: skip
    # print PREFECT_LOGGING_LEVEL as the child would inherit it, after the CLI's own run
    script = (
        "import os, sys\n"
        "from flows.cli.app import app\n"
        "try:\n    app(['status', 'job-none'])\n"
        "except SystemExit:\n    pass\n"
        "print('PREFECT_LOGGING_LEVEL=' + os.environ.get('PREFECT_LOGGING_LEVEL', ''), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=180)  # fmt: skip
    assert f"PREFECT_LOGGING_LEVEL={level.upper()}" in done.stderr, done.stderr
    return {m.group(1) for m in DEBUG_LINE.finditer(done.stderr)}


@pytest.mark.slow
def test_debug_lines_appear_at_debug_and_not_at_info(prefect_api_url: str, tmp_path: Path) -> None:
    at_debug = _debug_loggers("debug", tmp_path, prefect_api_url)
    assert "rlauto.cli" in at_debug, at_debug
    assert any(name.startswith("prefect") for name in at_debug), at_debug
    assert _debug_loggers("info", tmp_path, prefect_api_url) == set()
