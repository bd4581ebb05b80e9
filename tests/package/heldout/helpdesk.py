"""Help desk (echo network.json): a public reply then a "safe update" that sends the ticket's
`updated_at` back (optimistic concurrency), with article suggestions, product events and a chat
widget impression posted to three other hosts. Replying to a solved ticket reopens it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://support.quillhq.example"
REPLY = "We have reset your 2FA; please sign in again and tell us if the code still fails."
INSTRUCTION = f"Reply to ticket #8812 with '{REPLY}' and mark it solved."
SUBJECTS = {8812: "Cannot log in after phone change", 8813: "Invoice copy needed"}


@dataclass
class Run:
    clock: Clock
    prefix: str
    comment_ids: list[int]
    draft: str


def _stamp(run: Run) -> str:
    return run.clock.now.strftime("%Y-%m-%dT%H:%M:%SZ")


def play(run: Run, script: list[tuple[str, int, str]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/agent/tickets/8812", prefix=run.prefix)
    status = {t: "open" for t in SUBJECTS}
    stamps = {t: _stamp(run) for t in SUBJECTS}
    comments: list[dict[str, Any]] = []
    log.call("GET", f"{SITE}/api/v2/tickets/8812", status=200,
             response={"ticket": {"id": 8812, "subject": SUBJECTS[8812], "status": "open", "updated_at": stamps[8812]}})  # fmt: skip
    log.call("POST", "https://kb-recs.answerbot.example/v1/suggest", status=200,
             body={"ticket": "8812", "text": SUBJECTS[8812], "locale": "en"},
             response={"articles": [{"id": "kb_311", "title": "Resetting two-factor authentication"}]})  # fmt: skip
    log.call("POST", "https://api.deskpulse-insights.example/v1/events", status=200,
             body={"event": "ticket_viewed", "ticket": 8812, "agent": "ag_7"}, response={"ok": True})  # fmt: skip
    for verb, ticket, text in script:
        if verb == "reply":
            cid = run.comment_ids.pop(0)
            run.clock.tick(4000)
            log.call("POST", f"{SITE}/api/v2/tickets/{ticket}/comments", status=201,
                     body={"body": text, "public": True, "draft_id": run.draft},
                     response={"comment": {"id": cid, "ticket_id": ticket, "body": text, "public": True,
                                           "created_at": _stamp(run)}})  # fmt: skip
            comments.append({"id": cid, "ticket_id": ticket, "body": text, "public": True, "author_id": "ag_7"})
            if status[ticket] == "solved":
                status[ticket] = "open"  # a public reply reopens a solved ticket
            stamps[ticket] = _stamp(run)
        else:
            sent_stamp = stamps[ticket]
            run.clock.tick(2500)
            stamps[ticket] = _stamp(run)
            status[ticket] = "solved"
            log.call("PUT", f"{SITE}/api/v2/tickets/{ticket}", status=200,
                     body={"ticket": {"status": "solved", "safe_update": True, "updated_stamp": sent_stamp}},
                     response={"ticket": {"id": ticket, "status": "solved", "updated_at": stamps[ticket]}})  # fmt: skip
        log.call("POST", "https://widget.chatassist.example/api/impression", status=204, response_headers={},
                 body={"w": "helpbot", "p": f"/agent/tickets/{ticket}"})  # fmt: skip
    touched = sorted({t for _, t, _ in script})
    updated = [{"before": {"id": t, "status": "open"}, "after": {"id": t, "status": status[t]}}
               for t in touched if status[t] != "open"]  # fmt: skip
    return log, diff(ticket_comments={"inserted": comments}, tickets={"updated": updated})


SCRIPT = [("reply", 8812, REPLY), ("solve", 8812, "")]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("reply", 8812, REPLY)],
    "wrong_entity": [("reply", 8813, REPLY), ("solve", 8812, "")],
    "wrong_order": [("solve", 8812, ""), ("reply", 8812, REPLY)],
}


def recorded_run() -> Run:
    return Run(clock(2026, 5, 14, 11, 40), "r", [55120], "d-91k2m7x")


def later_run() -> Run:
    return Run(clock(2026, 5, 21, 16, 3), "a", [55917], "d-4hq8w2z")


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(recorded_run(), SCRIPT)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_desk_8812"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        attempt_log, attempt_diff = play(later_run(), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(later_run().clock, SITE), None)
    )
    return recording, attempts
