"""Trello web client (HAR in a ZIP, Chrome; trello.com: no database diff). Class a of issue 28,
sibling-entity writes: "create the Sprint 43 board with three lists and close Sprint 42" creates a
board, three lists on it (`POST /1/lists` with `idBoard`), and closes another board of the same
workspace (`PUT /1/boards/{old}` with `closed: true`). The new board is the main entity; the old
one is a sibling the instruction names and the workspace's board listing shows, beside
"Sprint 42 retro" and "Mobile roadmap".

Real shapes: 24-hex object ids, `shortLink`/`url`, the web client's `dsc` field (the value of the
`dsc` cookie, sent in every write's body: a session token under a name no word list holds), the
client marking the board it opened as viewed (`POST /1/boards/{id}/markAsViewed`: a "seen" marker,
UI state) and Atlassian's analytics beacon on another host (telemetry).

Attempts: `good` (later: other board and list ids, short links, `dsc`), `good_close_first` (closes
Sprint 42 before creating Sprint 43): full marks. `empty`: 0. `missing_write` (Sprint 42 left
open), `wrong_entity` (closes "Sprint 42 retro" instead), `stray_write` (also closes "Mobile
roadmap"): must fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, clock, har_document, task_doc, zip_files
from tests.package.rewards_kit import Truth, hexid

SITE = "https://trello.com"
ORG = "64b1f0c2a9d3e85b17c4f210"
INSTRUCTION = (
    "In the Acme Mobile workspace, create a board 'Sprint 43' with the lists 'To do', 'Doing' and "
    "'Done', then close the 'Sprint 42' board."
)
BOARDS = {  # open boards of the workspace: id -> (name, shortLink)
    "65f2a1d4c3b0e9871a2b3c4d": ("Sprint 42", "Qx7LmN2a"),
    "65f2a1d4c3b0e9871a2b3c99": ("Sprint 42 retro", "Tz4PkR8c"),
    "6401ce77b2a9f0d3e4c5b6a7": ("Mobile roadmap", "Hw2VbY6d"),
}
SPRINT_42, RETRO, ROADMAP = list(BOARDS)
LISTS = ("To do", "Doing", "Done")


@dataclass
class Run:
    clock: Clock
    prefix: str
    seed: str  # makes ids, short links and the dsc token differ per run


def _board(bid: str, name: str, short: str, *, closed: bool = False) -> dict[str, Any]:
    slug = name.lower().replace(" ", "-")
    return {"id": bid, "name": name, "desc": "", "closed": closed, "idOrganization": ORG, "pinned": False,
            "url": f"{SITE}/b/{short}/{slug}", "shortUrl": f"{SITE}/b/{short}", "shortLink": short,
            "prefs": {"permissionLevel": "org", "background": "blue", "cardAging": "regular"}}  # fmt: skip


def play(run: Run, script: list[tuple[Any, ...]]) -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, f"{SITE}/w/acmemobile", prefix="")
    truth = Truth()
    dsc = hexid(f"{run.seed}/dsc", 64)
    web = {"x-requested-with": "XMLHttpRequest", "x-trello-client-version": "build-228104",
           "cookie": f"dsc={dsc}; token=rmp_{hexid(run.seed + '/token', 40)}"}  # fmt: skip
    board_id = "66" + hexid(f"{run.seed}/board", 22)
    short = hexid(f"{run.seed}/short", 8).replace("0", "Q")

    def har_id(cid: str) -> str:  # the importer numbers HAR entries from 0
        return str(int(cid) - 1)

    def beacon(action: str) -> None:
        log.call("POST", "https://api-gateway.trello.com/gateway/api/gasv3/api/v1/t", status=200,
                 body={"eventType": "track", "action": action, "source": "boardScreen",
                       "anonymousId": hexid(run.seed + "/anon", 32)}, response={"success": True}, resource_type="xhr")  # fmt: skip

    for step in script:
        verb = step[0]
        if verb == "boards":
            listing = [_board(b, n, s) for b, (n, s) in BOARDS.items()]
            log.call("GET", f"{SITE}/1/organizations/{ORG}/boards?fields=name,closed,shortLink,url&filter=open",
                     status=200, headers=web, response=listing, resource_type="xhr")  # fmt: skip
        elif verb == "create":
            body = {"name": "Sprint 43", "idOrganization": ORG, "prefs_permissionLevel": "org", "defaultLists": False,
                    "dsc": dsc}  # fmt: skip
            cid = log.call("POST", f"{SITE}/1/boards", status=200, headers=web, body=body,
                           response=_board(board_id, "Sprint 43", short), resource_type="xhr")  # fmt: skip
            truth.add(har_id(cid), "create the board Sprint 43")
            cid = log.call("POST", f"{SITE}/1/boards/{board_id}/markAsViewed", status=200, headers=web,
                           body={"dsc": dsc}, response={"id": board_id, "dateLastView": run.clock.now.isoformat()[:23] + "Z"},
                           resource_type="xhr")  # fmt: skip
            truth.add(har_id(cid), "mark the new board viewed", "ui_state")
            beacon("created")
            for pos, name in enumerate(LISTS, start=1):
                list_id = "66" + hexid(f"{run.seed}/list/{name}", 22)
                cid = log.call("POST", f"{SITE}/1/lists", status=200, headers=web,
                               body={"name": name, "idBoard": board_id, "pos": "bottom", "dsc": dsc},
                               response={"id": list_id, "name": name, "closed": False, "idBoard": board_id,
                                         "pos": 16384 * pos, "subscribed": False, "softLimit": None},
                               resource_type="xhr")  # fmt: skip
                truth.add(har_id(cid), f"create the list {name}")
        else:  # close a board
            bid = step[1]
            name, short_old = BOARDS[bid]
            cid = log.call("PUT", f"{SITE}/1/boards/{bid}", status=200, headers=web, body={"closed": True, "dsc": dsc},
                           response=_board(bid, name, short_old, closed=True), resource_type="xhr")  # fmt: skip
            truth.add(har_id(cid), f"close the board {name}")
            beacon("closed")
    for entry in log.requests:
        if "api-gateway" in entry["url"]:
            truth.add(har_id(entry["id"]), "analytics beacon", "side_call")
    truth.writes.sort(key=lambda w: int(w["call"]))
    return log, truth


RECORDED = [("boards",), ("create",), ("close", SPRINT_42)]
SCRIPTS = {
    "good": RECORDED,
    "good_close_first": [("boards",), ("close", SPRINT_42), ("create",)],
    "missing_write": [("boards",), ("create",)],
    "wrong_entity": [("boards",), ("create",), ("close", RETRO)],
    "stray_write": [("boards",), ("create",), ("close", SPRINT_42), ("close", ROADMAP)],
}


def _zip(task: dict[str, Any], log: HttpLog) -> bytes:
    return zip_files({"task.json": task, "trello.com.har": har_document(log.requests)})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(Run(clock(2026, 5, 14, 13, 2), "r", "recorded-7"), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, SITE, "rec_sprint_boards"), log)
    attempts = {}
    for kind, script in SCRIPTS.items():
        attempt_log, _ = play(Run(clock(2026, 5, 27, 9, 31), "a", "later-3"), script)
        attempts[kind] = _zip(task_doc("", SITE, f"attempt_{kind}"), attempt_log)
    attempts["empty"] = _zip(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 5, 27, 9, 31), SITE, prefix=""))
    return recording, attempts, truth.document(INSTRUCTION)
