"""Wiki (echo network.json, Confluence-like): the ENG space's id is read once by its key, then a page
is created in it, filled (its `version.number` is the optimistic lock) and labelled. A returning
agent knows the space id and reads nothing; another looks the space up by id and reads the page
back before the update. The space read answers `key: ENG`: that is data, not a secret."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, iso, task_doc, zip_files

SITE = "https://acme.atlassian.example"
TITLE = "Runbook: rotate API keys"
STEPS = "Create the new key, deploy it, revoke the old key."
INSTRUCTION = (
    f"In the ENG space, create a page '{TITLE}', then update it with the steps '{STEPS}', then label it 'ops-runbook'."
)
SPACES = {"ENG": ("98304", "Engineering"), "OPS": ("98305", "Operations")}


@dataclass
class Run:
    clock: Clock
    prefix: str
    page: str
    label: str


def _space(key: str) -> dict[str, Any]:
    space_id, name = SPACES[key]
    return {"id": space_id, "key": key, "name": name, "type": "global"}


def play(run: Run, script: list[tuple[str, ...]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/wiki/spaces/ENG", prefix=run.prefix)
    pages: list[dict[str, Any]] = []
    updated: list[dict[str, Any]] = []
    labels: list[dict[str, Any]] = []
    version = 0
    for step in script:
        verb = step[0]
        if verb == "space_by_key":
            log.call("GET", f"{SITE}/wiki/api/v2/spaces?keys={step[1]}", status=200,
                     response={"results": [_space(step[1])], "_links": {"next": None}})  # fmt: skip
        elif verb == "space_by_id":
            log.call("GET", f"{SITE}/wiki/api/v2/spaces/{SPACES[step[1]][0]}", status=200, response=_space(step[1]))
        elif verb == "create":
            space_id = SPACES[step[1]][0]
            version = 1
            body = {"spaceId": space_id, "status": "current", "title": step[2],
                    "body": {"representation": "storage", "value": "<p>Draft</p>"}}  # fmt: skip
            log.call("POST", f"{SITE}/wiki/api/v2/pages", status=200, body=body,
                     response={"id": run.page, "title": step[2], "spaceId": space_id,
                               "version": {"number": 1, "createdAt": iso(run.clock.now)}})  # fmt: skip
            pages.append({"id": run.page, "space_id": space_id, "title": step[2], "body": "<p>Draft</p>"})
        elif verb == "read_page":
            log.call("GET", f"{SITE}/wiki/api/v2/pages/{run.page}?body-format=storage", status=200,
                     response={"id": run.page, "title": TITLE, "version": {"number": version}})  # fmt: skip
        elif verb == "fill":
            version += 1
            body = {"id": run.page, "status": "current", "title": TITLE,
                    "body": {"representation": "storage", "value": f"<p>{step[1]}</p>"},
                    "version": {"number": version, "message": "steps"}}  # fmt: skip
            log.call("PUT", f"{SITE}/wiki/api/v2/pages/{run.page}", status=200, body=body,
                     response={"id": run.page, "version": {"number": version, "createdAt": iso(run.clock.now)}})  # fmt: skip
            updated.append({"before": {"id": run.page, "body": "<p>Draft</p>"},
                            "after": {"id": run.page, "body": f"<p>{step[1]}</p>"}})  # fmt: skip
        else:
            log.call("POST", f"{SITE}/wiki/rest/api/content/{run.page}/label", status=200,
                     body=[{"prefix": "global", "name": step[1]}],
                     response={"results": [{"prefix": "global", "name": step[1], "id": run.label}], "size": 1})  # fmt: skip
            labels.append({"page_id": run.page, "name": step[1]})
    return log, diff(pages={"inserted": pages, "updated": updated}, labels={"inserted": labels})


RECORDED = [("space_by_key", "ENG"), ("create", "ENG", TITLE), ("fill", STEPS), ("label", "ops-runbook")]
SCRIPTS = {
    "good": RECORDED,
    "good_returning": [("create", "ENG", TITLE), ("fill", STEPS), ("label", "ops-runbook")],
    "good_reads_back": [
        ("space_by_id", "ENG"),
        ("create", "ENG", TITLE),
        ("read_page",),
        ("fill", STEPS),
        ("label", "ops-runbook"),
    ],
    "wrong_entity": [("space_by_key", "OPS"), ("create", "OPS", TITLE), ("fill", STEPS), ("label", "ops-runbook")],
    "missing_write": [("space_by_key", "ENG"), ("create", "ENG", TITLE), ("fill", STEPS)],
    "wrong_order": [("space_by_key", "ENG"), ("create", "ENG", TITLE), ("label", "ops-runbook"), ("fill", STEPS)],
    "wrong_content": [
        ("space_by_key", "ENG"),
        ("create", "ENG", "Runbook: rotate keys"),
        ("fill", STEPS),
        ("label", "ops-runbook"),
    ],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(Run(clock(2026, 6, 3, 11, 0), "r", "1900545", "7001"), RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_wiki_runbook"), log, dbdiff))
    attempts = {}
    for kind, script in SCRIPTS.items():
        attempt_log, attempt_diff = play(Run(clock(2026, 6, 10, 15, 20), "a", "1900811", "7044"), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 6, 10, 15, 20), SITE), None)
    )
    return recording, attempts
