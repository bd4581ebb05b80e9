"""Clean exits: a process that ran a batch and exits after its Prefect server stopped prints no
"--- Error logging to API ---" (the run logs it still held are shipped when the batch returns,
while the server runs), and the CLI's own exit ships them too, quietly when the server is gone.
The log shipper's timer is set to a minute, so only shipping on purpose sends anything before exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import EXAMPLES, REPO_ROOT
from tests.fakes.outage_relay import FaultRelay
from tests.servers import stop_process

ERROR_LINE = "Error logging to API"
# a user's level (the tests' servers log at WARNING), and the shipper's timer set to a minute
QUIET_TIMER = {"PREFECT_LOGGING_LEVEL": "INFO", "PREFECT_LOGGING_TO_API_BATCH_INTERVAL": "60"}

# a script using the SDK: the batch, a line, then it waits until the test has taken the server away
SCRIPT = """
import sys
from flows.sdk import run_batch
from rlauto_core.config import RunOptions
batch = run_batch([sys.argv[1]], RunOptions(offline=True), storage_url=sys.argv[2])
print("ran", batch.items[0].status, batch.flow_run_id, flush=True)
sys.stdin.readline()
"""


@pytest.mark.slow
@pytest.mark.prefect
def test_a_process_that_exits_after_its_server_stopped_prints_no_logging_error(
    prefect_api_url: str, tmp_path: Path
) -> None:
    """The script reaches the session's server through a relay the test closes: from then on the
    server is gone for it, as when it stops (connections refused)."""
    relay = FaultRelay(int(urlsplit(prefect_api_url).port or 0))
    env = {**os.environ, "PREFECT_API_URL": f"{relay.endpoint_url}/api", "PYTHONPATH": str(REPO_ROOT), **QUIET_TIMER}
    child = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(EXAMPLES / "discord_reply.zip"), (tmp_path / "storage").as_uri()],
        env=env, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        ran = child.stdout.readline().split()
        assert ran[:2] == ["ran", "completed"], (ran, child.communicate(timeout=60))
        flow_run_id = ran[2]
    except BaseException:
        stop_process(child)  # type: ignore[arg-type]
        raise
    finally:
        relay.close()  # the server is gone for the script
    out, err = child.communicate("go\n", timeout=120)  # now it exits
    assert child.returncode == 0, err[-2000:]
    assert ERROR_LINE not in out + err, err[-2000:]
    # the batch's run logs reached the server before it went away, its last line included
    shipped = httpx.post(f"{prefect_api_url}/logs/filter", json={"logs": {"flow_run_id": {"any_": [flow_run_id]}}},
                         timeout=30).json()  # fmt: skip
    assert any("Finished in state" in log["message"] for log in shipped), [log["message"] for log in shipped]


@pytest.mark.slow
def test_shipping_logs_with_no_server_is_quiet_and_leaves_nothing_to_send(tmp_path: Path) -> None:
    """The CLI's exit ships what is left: with nothing reachable it drops it without a word."""
    script = (
        "from flows import runtime\n"
        "runtime.configure()\n"
        "from prefect.logging.handlers import APILogWorker\n"
        "APILogWorker.instance().send({'name': 'x', 'level': 20, 'message': 'held', 'timestamp': '2026-01-01T00:00:00Z',"
        " 'flow_run_id': None, 'task_run_id': None})\n"
        "runtime.ship_logs()\n"
        "print('shipped', flush=True)\n"
    )
    env = {**os.environ, "PREFECT_API_URL": "http://127.0.0.1:9/api", "PYTHONPATH": str(REPO_ROOT), **QUIET_TIMER}
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0 and done.stdout == "shipped\n", done.stderr[-2000:]
    assert ERROR_LINE not in done.stderr, done.stderr[-2000:]
