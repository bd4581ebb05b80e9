"""Recording-level rules for both modes: state changes present, annotator ids found, failed
writes (and whether a retry succeeded), auth-only recordings, unanswered tool calls."""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict

from rlauto_core.evidence.models import CallEvidence, Evidence
from rlauto_core.evidence.sidecalls import SIDE_CATEGORIES
from rlauto_core.recording import Recording
from rlauto_core.rules.flags import Flag
from rlauto_core.rules.profiles import RuleProfile


def state_change_flags(evidence: Evidence, profile: RuleProfile) -> list[Flag]:
    writes = [c for c in evidence.significant if c.state_changing]
    succeeded = [c for c in writes if not c.failed]
    if not succeeded:
        side = [c for c in evidence.calls if c.noise_category in SIDE_CATEGORIES and c.state_changing]
        shown = f" ({len(side)} side call(s) left out: telemetry, recommendations, UI state)" if side else ""
        return [
            Flag(
                code="no_state_change",
                message=f"no successful state-changing call{shown}: only an answer the instruction asks for can be checked",
                call_ids=[c.id for c in writes + side],
                severity="error",
            )
        ]
    if len(succeeded) < profile.min_state_changes:
        return [
            Flag(
                code="too_few_state_changes",
                message=f"{len(succeeded)} successful state change(s); profile {profile.name} expects "
                f"at least {profile.min_state_changes}",
                call_ids=[c.id for c in succeeded],
                severity="warning",
            )
        ]
    return []


def annotator_flags(recording: Recording, evidence: Evidence) -> list[Flag]:
    known = {c.id for c in evidence.calls}
    missing = [i for i in recording.task.network_requests if i not in known]
    if not missing:
        return []
    return [
        Flag(
            code="annotator_requests_missing",
            message=f"task.json marks {len(missing)} call id(s) the recording does not hold: {', '.join(missing[:20])}",
            call_ids=missing,
            severity="warning",
        )
    ]


def failure_flags(evidence: Evidence, profile: RuleProfile) -> list[Flag]:
    flags: list[Flag] = []
    writes = [c for c in evidence.significant if c.state_changing]
    # successful writes by name, in order: finding "a later retry" is a bisect, not a scan
    succeeded: dict[str, list[CallEvidence]] = defaultdict(list)
    for call in writes:
        if not call.failed:
            succeeded[call.name].append(call)
    for failed in (c for c in writes if c.failed):
        later = succeeded.get(failed.name, [])
        position = bisect_right(later, failed.index, key=lambda c: c.index)
        retry = later[position] if position < len(later) else None
        what = f"status {failed.status}" if failed.status else "no response"
        if failed.kind == "mcp":
            what = "an error result" if failed.status is None else what
        if failed.failure:  # what the answer said, such as a form's errors
            what += f" ({failed.failure})"
        if retry is not None:
            message = f"{failed.name} ({failed.id}) failed with {what}; retried successfully as {retry.id}"
            ids = [failed.id, retry.id]
        else:
            message = f"{failed.name} ({failed.id}) failed with {what} and was not retried successfully"
            ids = [failed.id]
        flags.append(
            Flag(
                code="failed_state_change_retried" if retry else "failed_state_change",
                message=message,
                call_ids=ids,
                severity="info" if retry else profile.failure_severity,
            )
        )
    return flags


def auth_only_flags(evidence: Evidence) -> list[Flag]:
    if not evidence.calls or evidence.significant:
        return []
    auth = [c for c in evidence.calls if c.noise_category == "auth"]
    if not auth:
        return []
    return [
        Flag(
            code="auth_only",
            message=f"the recording holds only authentication and background calls ({len(evidence.calls)} in all)",
            call_ids=[c.id for c in auth],
            severity="error",
        )
    ]


def unanswered_flags(recording: Recording) -> list[Flag]:
    unanswered = [c.id for c in recording.tool_calls if not c.answered]
    if not unanswered:
        return []
    return [
        Flag(
            code="unanswered_calls",
            message=f"{len(unanswered)} tool call(s) have no response in the log: {', '.join(unanswered[:20])}",
            call_ids=unanswered,
            severity="warning",
        )
    ]
