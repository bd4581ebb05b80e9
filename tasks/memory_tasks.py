"""The thin task of the `audit-experience` flow: the core audit, nothing more."""

from __future__ import annotations

from prefect import task
from pydantic import ValidationError

from rlauto_core.agent.run import AgentSettings, ModelChoice
from rlauto_core.errors import ConfigError
from rlauto_core.memory import AuditSummary, ExperienceLibrary, audit_experiences, memory_client
from rlauto_core.store import open_storage
from tasks.retry import STORAGE_WRITE


@task(name="audit-experience", **STORAGE_WRITE)
def audit_experience_task(storage_url: str, model: ModelChoice | None = None) -> AuditSummary:
    """Rate every recipe not kept by a person; marks only. An empty library needs no model (so
    the daily run of a house without agent runs completes quietly); else a `ConfigError` without one."""
    storage = open_storage(storage_url)
    if not ExperienceLibrary(storage).all():
        return AuditSummary()
    try:
        settings = AgentSettings()
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(
            f"configuration: AGENT_{'.'.join(str(p) for p in first['loc']).upper()}: {first['msg']}"
        ) from None
    if settings.api_key is None:
        raise ConfigError("no model for the audit: set AGENT_API_KEY in the worker's environment")
    with memory_client(settings, model) as client:
        return audit_experiences(storage, client)
