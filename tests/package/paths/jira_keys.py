"""Issue tracker (echo network.json, Jira-like) whose answers hold `key` fields of both kinds: the
project key `ENG` and the new issue's key `ENG-42` are data the instruction and the checkers use,
the CI integration's `key` is an API key that must never reach a package. The bug is filed, then
commented on and assigned (by the key its create answered). Good attempts: a returning agent that
looks up neither the project nor the user, and one that assigns before it comments (the
instruction orders neither). The wrong entity comments on and assigns an older issue it found."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://acme.tracker.example"
CI_KEY = "Yk3Jd9Qm2LxP0vRt7sWc4hNa8eUf1ZoB"  # the canary: an API key in an answer's `key` field
DANA = "5b10ac8d82e05b22cc7d4ef5"
SUMMARY = "Checkout button unresponsive on Safari"
COMMENT = "Repro: Safari 17, click Pay."
INSTRUCTION = (
    f"In project ENG, file a High priority Bug '{SUMMARY}', comment '{COMMENT}' on it and assign it to Dana Reyes."
)
AUTH = {"authorization": "Basic ZGFuYUBhY21lLmV4YW1wbGU6YXBpLXRva2VuLTk5"}


@dataclass
class Run:
    clock: Clock
    prefix: str
    issue: tuple[str, str]  # (id, key) the create answers
    comment: str


def play(run: Run, script: list[tuple[str, ...]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/jira/software/projects/ENG/boards/3", prefix=run.prefix)
    log.call("GET", f"{SITE}/rest/api/3/integrations/ci", status=200, headers=AUTH,
             response={"name": "CI bot", "key": CI_KEY, "enabled": True})  # fmt: skip
    issues: list[dict[str, Any]] = []
    comments: list[dict[str, Any]] = []
    assigned: list[dict[str, Any]] = []
    target = run.issue[1]
    for step in script:
        verb = step[0]
        if verb == "project":
            log.call("GET", f"{SITE}/rest/api/3/project/search?query=ENG", status=200, headers=AUTH,
                     response={"values": [{"id": "10001", "key": "ENG", "name": "Engineering"}], "total": 1})  # fmt: skip
        elif verb == "user":
            log.call("GET", f"{SITE}/rest/api/3/user/search?query=dana", status=200, headers=AUTH,
                     response=[{"accountId": DANA, "displayName": "Dana Reyes", "active": True}])  # fmt: skip
        elif verb == "find_old":
            target = "ENG-41"
            log.call("GET", f"{SITE}/rest/api/3/search?jql=project%3DENG%20AND%20text~Safari", status=200, headers=AUTH,
                     response={"issues": [{"id": "10041", "key": "ENG-41", "fields": {"summary": "Safari layout"}}]})  # fmt: skip
        elif verb == "create":
            fields = {"project": {"key": "ENG"}, "summary": SUMMARY, "issuetype": {"name": "Bug"},
                      "priority": {"name": step[1]}}  # fmt: skip
            log.call("POST", f"{SITE}/rest/api/3/issue", status=201, body={"fields": fields}, headers=AUTH,
                     response={"id": run.issue[0], "key": run.issue[1], "self": f"{SITE}/rest/api/3/issue/{run.issue[0]}"})  # fmt: skip
            issues.append({"id": run.issue[0], "key": run.issue[1], "project_key": "ENG", "summary": SUMMARY,
                           "type": "Bug", "priority": step[1]})  # fmt: skip
        elif verb == "comment":
            body = {"body": {"type": "doc", "version": 1,
                             "content": [{"type": "paragraph", "content": [{"type": "text", "text": step[1]}]}]}}  # fmt: skip
            log.call("POST", f"{SITE}/rest/api/3/issue/{target}/comment", status=201, body=body, headers=AUTH,
                     response={"id": run.comment, "created": "2026-06-05T10:00:00.000+0000"})  # fmt: skip
            comments.append({"id": run.comment, "issue_key": target, "text": step[1]})
        else:
            log.call("PUT", f"{SITE}/rest/api/3/issue/{target}/assignee", status=204, body={"accountId": DANA},
                     headers=AUTH, response_headers={})  # fmt: skip
            assigned.append({"before": {"key": target, "assignee": None}, "after": {"key": target, "assignee": DANA}})
    return log, diff(issues={"inserted": issues, "updated": assigned}, comments={"inserted": comments})


RECORDED = [("project",), ("user",), ("create", "High"), ("comment", COMMENT), ("assign",)]
SCRIPTS = {
    "good": RECORDED,
    "good_returning": [("create", "High"), ("comment", COMMENT), ("assign",)],
    "good_assign_first": [("project",), ("create", "High"), ("user",), ("assign",), ("comment", COMMENT)],
    "wrong_entity": [("project",), ("user",), ("create", "High"), ("find_old",), ("comment", COMMENT), ("assign",)],
    "missing_write": [("project",), ("user",), ("create", "High"), ("comment", COMMENT)],
    "wrong_content": [("project",), ("user",), ("create", "Low"), ("comment", COMMENT), ("assign",)],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(Run(clock(2026, 6, 5, 9, 40), "r", ("10042", "ENG-42"), "20001"), RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_jira_bug"), log, dbdiff))
    attempts = {}
    for kind, script in SCRIPTS.items():
        attempt_log, attempt_diff = play(Run(clock(2026, 6, 12, 16, 0), "a", ("10057", "ENG-57"), "20093"), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 6, 12, 16, 0), SITE), None)
    )
    return recording, attempts
