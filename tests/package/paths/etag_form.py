"""Team settings form (echo network.json, url-encoded bodies): the form carries the settings' ETag in
a hidden `_etag` field and the `If-Match` header, and a `csrf_token`; the save answers with a new
ETag; then a test notification is sent. Good attempts send other ETags and tokens: a returning
agent that saves without reading the form first, and one whose first save is refused (412, a stale
ETag) and that reads the form again before it saves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://team.example.org"
FORM = {"content-type": "application/x-www-form-urlencoded"}
INSTRUCTION = (
    "For team t_12, switch the notification digest to weekly and mentions to direct only, "
    "then send a test notification by email."
)


@dataclass
class Run:
    clock: Clock
    prefix: str
    etags: list[str]
    csrf: str
    message: str


def _settings(team: str, digest: str, mentions: str, etag: str) -> dict[str, Any]:
    return {"team": team, "digest": digest, "mentions": mentions, "etag": etag}


def play(run: Run, script: list[tuple[str, ...]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/teams/t_12/settings", prefix=run.prefix)
    state = {"t_12": ("daily", "all"), "t_13": ("daily", "all")}
    updated: list[dict[str, Any]] = []
    sent: list[dict[str, Any]] = []
    for step in script:
        verb, team = step[0], step[1]
        url = f"{SITE}/api/teams/{team}/notification-settings"
        if verb == "read":
            etag = run.etags[0]
            log.call("GET", url, status=200, response=_settings(team, *state[team], etag),
                     response_headers={"content-type": "application/json", "etag": etag})  # fmt: skip
        elif verb in ("save", "stale_save"):
            _, _, digest, mentions = step
            etag = run.etags[0] if verb == "save" else 'W/"0000stale"'
            body = urlencode({"digest": digest, "mentions": mentions, "_etag": etag, "csrf_token": run.csrf})
            headers = {**FORM, "if-match": etag, "x-csrf-token": run.csrf}
            if verb == "stale_save":
                log.call("PUT", url, status=412, body=body, headers=headers,
                         response={"error": "precondition_failed", "currentEtag": run.etags[0]})  # fmt: skip
                continue
            run.etags.pop(0)
            before = state[team]
            state[team] = (digest, mentions)
            log.call("PUT", url, status=200, body=body, headers=headers,
                     response=_settings(team, digest, mentions, run.etags[0]),
                     response_headers={"content-type": "application/json", "etag": run.etags[0]})  # fmt: skip
            updated.append({"before": {"team_id": team, "digest": before[0], "mentions": before[1]},
                            "after": {"team_id": team, "digest": digest, "mentions": mentions}})  # fmt: skip
        else:
            body = urlencode({"channel": step[2], "csrf_token": run.csrf})
            log.call("POST", f"{SITE}/api/teams/{team}/notifications/test", status=202, body=body,
                     headers={**FORM, "x-csrf-token": run.csrf}, response={"queued": True, "messageId": run.message})  # fmt: skip
            sent.append({"team_id": team, "channel": step[2], "digest": state[team][0]})
    return log, diff(team_settings={"updated": updated}, test_notifications={"inserted": sent})


RECORDED = [("read", "t_12"), ("save", "t_12", "weekly", "direct"), ("test", "t_12", "email")]
SCRIPTS = {
    "good": RECORDED,
    "good_no_read": [("save", "t_12", "weekly", "direct"), ("test", "t_12", "email")],
    "good_after_412": [
        ("stale_save", "t_12", "weekly", "direct"),
        ("read", "t_12"),
        ("save", "t_12", "weekly", "direct"),
        ("test", "t_12", "email"),
    ],
    "wrong_entity": [("read", "t_13"), ("save", "t_13", "weekly", "direct"), ("test", "t_13", "email")],
    "missing_write": [("read", "t_12"), ("save", "t_12", "weekly", "direct")],
    "wrong_order": [("read", "t_12"), ("test", "t_12", "email"), ("save", "t_12", "weekly", "direct")],
    "wrong_content": [("read", "t_12"), ("save", "t_12", "monthly", "direct"), ("test", "t_12", "email")],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recorded = Run(clock(2026, 6, 4, 8, 15), "r", ['W/"a1b2c3"', 'W/"d4e5f6"'], "kq2Wm8Zt4LpC5Rf9", "msg_5501")
    log, dbdiff = play(recorded, RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_team_settings"), log, dbdiff))
    attempts = {}
    for kind, script in SCRIPTS.items():
        later = Run(
            clock(2026, 6, 11, 13, 5), "a", ['W/"77aa01"', 'W/"77aa02"', 'W/"77aa03"'], "Pp3Xq9Lm2Vb7Nc4D", "msg_5688"
        )
        attempt_log, attempt_diff = play(later, script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 6, 11, 13, 5), SITE), None)
    )
    return recording, attempts
