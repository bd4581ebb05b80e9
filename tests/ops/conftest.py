"""The operations tests use the orchestration area's real servers (moto behind relays, the fake
model server, the session's Prefect server), and one counting, fault-injecting relay."""

from collections.abc import Iterator

import pytest

from tasks.storage_io import get_storage
from tests.fakes.outage_relay import FaultRelay
from tests.orchestration.conftest import S3Server, _orchestration_llm, fake_model, offline, s3_server, s3_url

__all__ = ["_orchestration_llm", "fake_model", "offline", "relay", "s3_server", "s3_url"]


@pytest.fixture
def relay(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultRelay]:
    """A counting, fault-injecting relay in front of the session's moto server; this process's
    S3 clients (and the tasks' cached storages) go through it."""
    import s3fs

    faults = FaultRelay(s3_server.relay.target_port)
    monkeypatch.setenv("AWS_ENDPOINT_URL", faults.endpoint_url)
    s3fs.S3FileSystem.clear_instance_cache()
    get_storage.cache_clear()
    yield faults
    faults.close()
    s3fs.S3FileSystem.clear_instance_cache()
    get_storage.cache_clear()
