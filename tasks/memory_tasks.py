"""The thin task of the `audit-experience` flow: the core audit, nothing more."""

from __future__ import annotations

from prefect import task

from rlauto_core.agent.run import AgentSettings, ModelChoice
from rlauto_core.memory import AuditSummary, audit_client, audit_library
from rlauto_core.store import open_storage
from tasks.retry import STORAGE_WRITE


@task(name="audit-experience", **STORAGE_WRITE)
def audit_experience_task(storage_url: str, model: ModelChoice | None = None) -> AuditSummary:
    """Rate every recipe not kept by a person; marks only. An empty library needs no model; else a
    `ConfigError` without one."""
    return audit_library(open_storage(storage_url), lambda: audit_client(AgentSettings.from_environment(), model))
