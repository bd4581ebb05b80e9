"""Calendar over MCP (echo mcp_calls.json): find the time, create an event with a client request id,
then add the agenda to that event's description, sending back its etag."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, ToolLog, clock, diff, mcp_files, task_doc, zip_files

SITE = "mcp://calendar"
TITLE = "Design review: billing v2"
AGENDA = "Walk through the invoice flow and the refund edge cases."
INSTRUCTION = (f"Book a 30-minute '{TITLE}' on 2026-05-20 at 15:00 UTC with ana@corp.example, then add the "
               f"agenda '{AGENDA}' to its description.")  # fmt: skip


@dataclass
class Run:
    clock: Clock
    prefix: str
    event: str
    etags: list[str]
    request_id: str


def play(run: Run, script: list[tuple[str, str]]) -> tuple[ToolLog, dict[str, Any]]:
    log = ToolLog(run.clock, "calendar", prefix=run.prefix)
    log.call("calendar_list_events", {"time_min": "2026-05-20T00:00:00Z", "time_max": "2026-05-21T00:00:00Z"},
             {"events": [{"id": "evt_standup_41", "summary": "Standup", "start": "2026-05-20T09:30:00Z"}]})  # fmt: skip
    events: list[dict[str, Any]] = []
    described: dict[str, str] = {}
    for verb, arg in script:
        if verb == "create":
            start = arg
            end = start.replace("15:00", "15:30").replace("16:00", "16:30")
            etag = run.etags.pop(0)
            log.call("calendar_create_event",
                     {"summary": TITLE, "start": start, "end": end, "attendees": ["ana@corp.example"],
                      "conference": {"create_request_id": run.request_id}},
                     {"id": run.event, "etag": etag, "html_link": f"https://cal.example/e/{run.event}"})  # fmt: skip
            events.append({"id": run.event, "summary": TITLE, "start": start, "end": end})
        else:
            target = arg
            etag = run.etags.pop(0) if target == run.event else '"1000000000000000"'
            log.call("calendar_patch_event", {"event_id": target, "description": AGENDA, "etag": etag},
                     {"id": target, "etag": run.etags[0] if run.etags else '"x"'})  # fmt: skip
            described[target] = AGENDA
    updated = [
        {"before": {"id": k, "description": None}, "after": {"id": k, "description": v}} for k, v in described.items()
    ]
    return log, diff(events={"inserted": events, "updated": updated}, attendees={"inserted": [
        {"event_id": e["id"], "email": "ana@corp.example"} for e in events]})  # fmt: skip


def scripts(event: str) -> dict[str, list[tuple[str, str]]]:
    good = [("create", "2026-05-20T15:00:00Z"), ("describe", event)]
    return {
        "good": good,
        "missing_write": [("create", "2026-05-20T15:00:00Z")],
        "wrong_entity": [("create", "2026-05-20T15:00:00Z"), ("describe", "evt_standup_41")],
        "wrong_content": [("create", "2026-05-20T16:00:00Z"), ("describe", event)],
    }


def build() -> tuple[bytes, dict[str, bytes]]:
    recorded = Run(clock(2026, 5, 16, 10, 0), "c", "evt_8812abc", ['"3374112201"', '"3374112202"', '"3374112203"'],
                   "9f1c2e4a-1b7d-4e0a-8c3f-2d5e6a7b8c9d")  # fmt: skip
    log, dbdiff = play(recorded, scripts("evt_8812abc")["good"])
    recording = zip_files(mcp_files(task_doc(INSTRUCTION, SITE, "rec_cal_review"), log, dbdiff))
    attempts = {}
    for kind, script in scripts("evt_9930xyz").items():
        later = Run(clock(2026, 5, 26, 14, 40), "a", "evt_9930xyz", ['"3391870001"', '"3391870002"', '"3391870003"'],
                    "0a2b4c6d-8e0f-4a1b-9c3d-5e7f9a1b3c5d")  # fmt: skip
        attempt_log, attempt_diff = play(later, script)
        attempts[kind] = zip_files(mcp_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        mcp_files(task_doc("", SITE, "attempt_empty"), ToolLog(clock(2026, 5, 26, 14, 40), "calendar"), None)
    )
    return recording, attempts
