"""Real servers for the orchestration tests: moto's S3 server (behind an outage relay)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLlmServer
from tests.fakes.outage_relay import OutageRelay
from tests.servers import free_port, stop_process, wait_http

S3_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@dataclass
class S3Server:
    endpoint_url: str
    relay: OutageRelay

    def new_bucket(self) -> str:
        import boto3

        name = f"rlauto-{uuid.uuid4().hex[:10]}"
        client = boto3.client("s3", endpoint_url=self.endpoint_url)
        client.create_bucket(Bucket=name)  # no region: moto rejects a location constraint
        return name


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto's S3 server on loopback; clients reach it through a relay the tests can take down."""
    port = free_port()
    log_dir: Path = tmp_path_factory.mktemp("moto")
    log = (log_dir / "moto.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    relay: OutageRelay | None = None
    saved = {k: os.environ.get(k) for k in [*S3_ENV, "AWS_ENDPOINT_URL"]}
    try:
        wait_http(f"http://127.0.0.1:{port}/moto-api/", timeout=60, proc=proc)
        relay = OutageRelay(port)
        endpoint = f"http://127.0.0.1:{relay.port}"
        # botocore reads AWS_ENDPOINT_URL, so s3fs and subprocess workers all find the server
        os.environ.update({**S3_ENV, "AWS_ENDPOINT_URL": endpoint})
        yield S3Server(endpoint_url=endpoint, relay=relay)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if relay is not None:
            relay.down()
        stop_process(proc)
        log.close()


@pytest.fixture
def s3_url(s3_server: S3Server) -> str:
    """A fresh bucket for one test, as a storage URL with a prefix."""
    # s3fs caches filesystems by their arguments, not by the AWS_* environment: one made by an
    # earlier test (another S3 server) would be handed back and miss this server's buckets
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()
    return f"s3://{s3_server.new_bucket()}/rlauto"


@pytest.fixture(scope="session")
def _orchestration_llm() -> Iterator[FakeLlmServer]:
    with FakeLlmServer() as server:
        yield server


@pytest.fixture
def fake_model(_orchestration_llm: FakeLlmServer, monkeypatch: pytest.MonkeyPatch) -> FakeLlmServer:
    """The fake model server, reset, with the analyzer and judge pointed at it (model path on)."""
    _orchestration_llm.load_script({})
    _orchestration_llm.reset()
    for key, value in model_env(_orchestration_llm).items():
        monkeypatch.setenv(key, value)
    return _orchestration_llm


def model_env(server: FakeLlmServer) -> dict[str, str]:
    return {
        "DEFAULT_API_KEY": ANALYZER_KEY,
        "DEFAULT_BASE_URL": server.base_url(),
        "DEFAULT_MODEL": "analyzer",
        "JUDGE_API_KEY": JUDGE_KEY,
        "JUDGE_BASE_URL": server.base_url(),
        "JUDGE_MODEL": "judge",
        "ITEM_MAX_ATTEMPTS": "3",
    }


# canary keys: they must never show up in storage, artifacts or logs
ANALYZER_KEY = "sk-canary-analyzer-7f3e9c1d"
JUDGE_KEY = "sk-canary-judge-2b8a6e4f"


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model key anywhere: the offline analyzer and validator."""
    for key in ("DEFAULT_API_KEY", "JUDGE_API_KEY", "RUBRIC_GEN_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(Path(__file__).parent)  # no stray .env
