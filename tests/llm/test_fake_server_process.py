"""The fake model server runs as its own process for orchestration tests."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from rlauto_core.llm import Message, Role
from tests.llm.conftest import MakeClient
from tests.servers import stop_process


@contextmanager
def standalone_fake(script: dict[str, object], tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.llm_server", "--port", "0", "--script", str(path)],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode().strip()
        assert line.startswith("READY http://127.0.0.1:")
        yield line.split()[1]
    finally:
        stop_process(proc)


def test_a_whole_model_run_against_the_standalone_fake(tmp_path: Path) -> None:
    """What orchestration tests do: the fake in its own process, a data-only script, real settings."""
    from pydantic import SecretStr

    from rlauto_core.config import RunOptions, Settings
    from rlauto_core.importers import import_path
    from rlauto_core.llm import open_clients
    from rlauto_core.pipeline import analysis_for, run_item
    from tests.conftest import EXAMPLES
    from tests.fakes.llm_scripts import judge_scores

    script = {"models": {"m-analyzer": "analyzer", "m-judge": "judge"},
              "roles": {"analyzer": [{"echo_draft": True}], "judge": [{"json": judge_scores()}]}}  # fmt: skip
    with standalone_fake(script, tmp_path) as url:
        settings = Settings(
            default_base_url=url, default_model="m-analyzer", default_api_key=SecretStr("sk-a"),
            judge_base_url=url + "/v1/chat/completions", judge_model="m-judge", judge_api_key=SecretStr("sk-j"),
            _env_file=None,  # type: ignore[call-arg]
        )  # fmt: skip
        with open_clients(settings, RunOptions()) as clients:
            outcome = run_item(
                import_path(EXAMPLES / "shop_checkout.zip"), RunOptions(), *analysis_for(clients, RunOptions())
            ).outcome
        assert outcome.passed and outcome.message == "passed at iteration 1/5, score 12/12"
        assert httpx.get(url + "/_fake/counts").json() == {"analyzer": 1, "judge": 1}


def test_standalone_fake_serves_a_script_file_and_reports_counts(tmp_path: Path, make_client: MakeClient) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps({"models": {"gpt-judge": "judge"}, "roles": {"judge": [{"status": 500}, {"json": {"ok": True}}]}})
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.llm_server", "--port", "0", "--script", str(script)],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode().strip()
        assert line.startswith("READY http://127.0.0.1:")
        url = line.split()[1]
        client = make_client(Role.JUDGE, model="gpt-judge", base_url=url + "/v1/chat/completions")
        reply = client.complete([Message(role="user", content="score it")], json_output=True)
        assert json.loads(reply.text) == {"ok": True} and reply.attempts == 2
        assert httpx.get(url + "/_fake/counts").json() == {"judge": 2}
        logged = httpx.get(url + "/_fake/requests").json()
        assert logged[0]["headers"]["authorization"].startswith("Bearer ")
        httpx.put(url + "/_fake/script", json={"roles": {"judge": [{"status": 401}]}})
        httpx.post(url + "/_fake/reset")
        assert httpx.get(url + "/_fake/counts").json() == {}
    finally:
        stop_process(proc)
