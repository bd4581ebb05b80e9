"""Issue tracker (Jira-like REST, echo network.json): read the issue and its transitions, move it to
Done, then comment; cache-busting query clocks, analytics published to the same host, the
user's navigation preferences saved."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://acme.tracker-cloud.example"
API = f"{SITE}/rest/api/3"
COMMENT = "Fixed in build 2026.5.14-3; verified on staging."
INSTRUCTION = f"Move OPS-771 to Done, then comment '{COMMENT}'"
ISSUES = {"OPS-771": "10771", "OPS-772": "10772"}
TRANSITIONS = [{"id": "21", "name": "In Review"}, {"id": "31", "name": "Done"}, {"id": "41", "name": "Won't do"}]


@dataclass
class Run:
    clock: Clock
    prefix: str
    comment_ids: list[str]


def _doc(text: str) -> dict[str, Any]:
    return {
        "type": "doc",
        "version": 1,
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": text}]}],
    }


def play(run: Run, script: list[tuple[str, str, str]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/browse/OPS-771", prefix=run.prefix)
    status = {k: "In Progress" for k in ISSUES}
    updated: list[dict[str, Any]] = []
    comments: list[dict[str, Any]] = []
    log.call("PUT", f"{API}/mypreferences?key=jira.user.navigation.sidebar", status=204, response_headers={},
             body={"value": "collapsed"})  # fmt: skip
    opened: set[str] = set()
    for verb, issue, arg in script:
        if issue not in opened:
            opened.add(issue)
            stamp = int(run.clock.now.timestamp() * 1000)
            log.call("GET", f"{API}/issue/{issue}?fields=status,summary&_r={stamp}", status=200,
                     response={"id": ISSUES[issue], "key": issue, "fields": {"status": {"name": status[issue]}}})  # fmt: skip
            log.call("GET", f"{API}/issue/{issue}/transitions", status=200, response={"transitions": TRANSITIONS})
            log.call("POST", f"{SITE}/rest/analytics/1.0/publish/bulk", status=200,
                     body=[{"name": "issue.viewed", "properties": {"issueId": ISSUES[issue]}, "timeDelta": -120}],
                     response={})  # fmt: skip
        if verb == "done":
            log.call("POST", f"{API}/issue/{issue}/transitions", status=204, response_headers={},
                     body={"transition": {"id": "31"}})  # fmt: skip
            updated.append(
                {
                    "before": {"id": ISSUES[issue], "status": status[issue]},
                    "after": {"id": ISSUES[issue], "status": "Done"},
                }
            )
            status[issue] = "Done"
        else:
            cid = run.comment_ids.pop(0)
            created = run.clock.now.strftime("%Y-%m-%dT%H:%M:%S.000+0000")
            log.call("POST", f"{API}/issue/{issue}/comment", status=201, body={"body": _doc(arg)},
                     response={"id": cid, "created": created, "body": _doc(arg)})  # fmt: skip
            comments.append({"id": cid, "issue_id": ISSUES[issue], "body": arg, "issue_status": status[issue]})
    return log, diff(issues={"updated": updated}, comments={"inserted": comments})


SCRIPT = [("done", "OPS-771", ""), ("comment", "OPS-771", COMMENT)]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("done", "OPS-771", "")],
    "wrong_entity": [("done", "OPS-772", ""), ("comment", "OPS-771", COMMENT)],
    "wrong_order": [("comment", "OPS-771", COMMENT), ("done", "OPS-771", "")],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(Run(clock(2026, 5, 14, 16, 5), "r", ["40112"]), SCRIPT)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_ops_771"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        attempt_log, attempt_diff = play(Run(clock(2026, 5, 24, 9, 48), "a", ["40377"]), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 5, 24, 9, 48), SITE), None)
    )
    return recording, attempts
