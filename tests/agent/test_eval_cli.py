"""`rlauto agent eval` through the `eval-agent-suite` deployment served by a real Prefect runner
(as a worker on pool `phones` runs it) on the demo phone: a busy phone refused with exit 2 and
the reason; a suite file of three tasks run twice with the scripted model, as JSON."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from rlauto_core.agent.suite import AGENT_EVALS_DIR, EvalStore, load_suite
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.prefect_support import in_thread, wait_for
from tests.agent.scripts import call, turn
from tests.agent.served import served_eval_suite
from tests.agent.test_flow_control import RELEASE, hold_phone
from tests.fakes.llm_server import FakeLlmServer
from tests.in_process_cli import invoke

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
PICKED = ("wifi-on", "delete-note", "note-already-there")


@pytest.fixture
def served(prefect_api_url: str, demo_adb: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("AGENT_API_KEY", raising=False)
    monkeypatch.setenv("AGENT_BASE_URL", "http://127.0.0.1:9/v1")  # the scripted model calls nothing
    with served_eval_suite(tmp_path / "runner.log"):
        yield


def _suite_file(tmp_path: Path) -> Path:
    shipped = load_suite()
    mine = shipped.model_copy(update={"name": "three", "tasks": [shipped.task(t) for t in PICKED]})
    path = tmp_path / "three.yaml"
    path.write_text(yaml.safe_dump(mine.model_dump(mode="json", by_alias=True, exclude_defaults=True)))
    return path


def test_a_busy_phone_is_refused_with_exit_2_then_a_suite_run_twice_prints_its_success_rate_as_json(
    served: None, storage: FsspecStorage, tmp_path: Path
) -> None:
    # one served deployment for both: a runner process costs seconds of CPU
    RELEASE.clear()
    holder, held = in_thread(hold_phone)
    try:
        wait_for(lambda: _phone_held(), out=held)
        refused = invoke("agent", "eval", "--device", SERIAL, "--model", "scripted", "--storage", storage.url)
    finally:
        RELEASE.set()
        holder.join(60)
    assert refused.returncode == 2, refused.stdout
    assert refused.stderr.startswith(f"error: device {SERIAL} is busy with run ") and "Traceback" not in refused.stderr
    assert refused.stdout.startswith("eval ") and "PASS" not in refused.stdout and "FAIL" not in refused.stdout

    done = invoke("agent", "eval", str(_suite_file(tmp_path)), "--device", SERIAL, "--model", "scripted",
                  "--runs", "2", "--json", "--storage", storage.url)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["suite"], out["model"], out["memory"], out["state"]) == ("three", "scripted", False, "Completed")
    assert (out["tasks"], out["runs"], out["passed"]) == (3, 6, 4) and out["success_rate"] == pytest.approx(4 / 6)
    assert out["per_tag"]["impossible"] == 0 and out["per_tag"]["already-done"] == 1
    results = {t["task_id"]: t for t in out["results"]}
    assert [results[t]["passed"] for t in PICKED] == [2, 0, 2]
    assert [r["run"] for r in results["delete-note"]["results"]] == [1, 2]
    assert "the run ended blocked (found completed)" in results["delete-note"]["results"][0]["reason"]
    records = EvalStore(storage).records(out["eval_id"])
    assert len(records) == 6 and len({r.agent_run_id for r in records}) == 6


def _phone_held() -> bool:
    from flows.agent_launch import PrefectAgentLauncher

    phones = {d.serial: d for d in PrefectAgentLauncher("file:///unused").devices()}
    return SERIAL in phones and phones[SERIAL].busy is not None


def test_an_eval_on_another_endpoint_with_the_experience_library_on_says_so_everywhere(
    served: None, fake_llm: FakeLlmServer, storage: FsspecStorage, tmp_path: Path
) -> None:
    """`--base-url` and `--key-secret` name the model's endpoint and key for the served flow (whose
    own environment points nowhere and holds no key), and `--memory` turns recall and distillation
    on: a model that claims success at once passes only the task already done, its key went only
    in the Authorization header, and the summary and the index rows say memory on."""
    from prefect.blocks.system import Secret

    key = "sk-eval-cli-canary-7e21"
    secret = f"agent-eval-{uuid.uuid4().hex[:8]}"
    Secret(value=key).save(secret)
    claims = call("report_task", kind="completion", summary="Done.", checked=["the task"], evidence=["it is done"])
    fake_llm.script("claimer", turn(claims))  # every answer, the distiller's ask too: completion at once
    done = invoke("agent", "eval", str(_suite_file(tmp_path)), "--device", SERIAL, "--model", "claimer",
                  "--base-url", fake_llm.base_url(), "--key-secret", secret, "--memory", "--json",
                  "--storage", storage.url)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["model"], out["memory"], out["state"]) == ("claimer", True, "Completed")
    assert {t["task_id"] for t in out["results"] if t["passed"]} == {"note-already-there"}
    asked = fake_llm.requests("claimer")
    assert len(asked) >= len(PICKED) and {r.headers.get("authorization") for r in asked} == {f"Bearer {key}"}
    rows = [
        row
        for path in storage.list(f"{AGENT_EVALS_DIR}/eval={out['eval_id']}")
        if path.endswith(".parquet")
        for row in pq.read_table(io.BytesIO(storage.read_bytes(path))).to_pylist()
    ]
    assert len(rows) == len(PICKED) and all(r["memory"] is True and r["model"] == "claimer" for r in rows)
    stored = json.dumps([rows, out], default=str)
    assert key not in stored and fake_llm.base_url() in stored
