"""The `audit-experience` flow: the daily review of the experience library (03:47 UTC by the
schedule in prefect.yaml), also run by hand from the Prefect UI, the dashboard's Experience page
or `rlauto experience audit`.

It lives in `flows/`, not `device_flows/`: it needs the model and the storage, never a phone,
so it runs on pool `rlauto` (only device flows may land on pool `phones`). It only marks
recipes; deleting one is a person's click in the dashboard.
"""

# no `from __future__ import annotations`: a worker validates the parameters against them

from prefect import flow
from prefect.artifacts import create_markdown_artifact

from rlauto_core.agent.run import ModelChoice
from rlauto_core.config import Settings
from rlauto_core.memory import AuditSummary
from rlauto_core.redact import redact_text
from tasks.memory_tasks import audit_experience_task


def summary_markdown(summary: AuditSummary) -> str:
    lines = [
        f"# Experience audit: {summary.rated} of {summary.recipes} recipes rated",
        "",
        f"- suggested for deletion (a person confirms on the dashboard's Experience page): {len(summary.suggested_delete)}",
        *(f"  - `{rid}`" for rid in summary.suggested_delete),
        f"- kept by a person, not rated again: {summary.kept_by_person}",
        f"- unrated: {len(summary.unrated)}",
        *(f"- problem: {redact_text(p)[:300]}" for p in summary.problems),
        f"- memory files skipped (runs never get them): {len(summary.skipped)}",
        *(f"  - `{redact_text(path)[:300]}`" for path in summary.skipped),
    ]
    return "\n".join(lines)


@flow(name="audit-experience", persist_result=False, log_prints=False)
def audit_experience(storage_url: str | None = None, model: ModelChoice | None = None) -> AuditSummary:
    """Rate each recipe of the experience library keep / suggest delete, with a score and a
    reason. It only marks; a person confirms any deletion in the dashboard."""
    url = storage_url or Settings().rlauto_storage_url
    summary = audit_experience_task(url, model)
    create_markdown_artifact(summary_markdown(summary), key="experience-audit", description=summary.line()[:500])
    return summary
