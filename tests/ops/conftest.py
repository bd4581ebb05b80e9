"""The operations tests use the orchestration area's real servers (moto behind relays, the fake
model server, the session's Prefect server)."""

from tests.orchestration.conftest import _orchestration_llm, fake_model, offline, s3_server, s3_url

__all__ = ["_orchestration_llm", "fake_model", "offline", "s3_server", "s3_url"]
