"""The fake model server runs as its own process for orchestration tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from rlauto_core.llm import Message, Role
from tests.llm.conftest import MakeClient
from tests.servers import stop_process


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
