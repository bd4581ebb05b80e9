"""Team chat over REST (Rocket.Chat-like, echo network.json): look up a room and a user, invite the
user, then send a message whose `_id` the client makes up; sidebar preferences saved on the way,
client events sent to a metrics host."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://chat.northwind.example"
API = f"{SITE}/api/v1"
TEXT = "Release 4.2 train leaves Thursday 14:00 UTC, please merge by Wednesday EOD."
INSTRUCTION = f"Invite priya.n to the release-train channel, then post there: '{TEXT}'"
ROOMS = {"release-train": "RmRel77", "release-train-archive": "RmArc31"}
USERS = {"priya.n": "UPr1ya9"}
ME = "UmeK4r1"


@dataclass
class Run:
    clock: Clock
    prefix: str
    message_ids: list[str]
    subscription_ids: list[str]
    epoch_ms: int


def play(run: Run, script: list[tuple[str, str, str]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/channel/release-train", prefix=run.prefix)
    headers = {"x-user-id": ME}
    log.call("GET", f"{API}/me", status=200, headers=headers, response={"_id": ME, "username": "kari.o"})
    log.call("GET", f"{SITE}/sounds/chime.mp3", status=200, resource_type="media", response_headers={})
    members: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    looked_up: set[str] = set()
    for verb, room, arg in script:
        if room not in looked_up:
            looked_up.add(room)
            log.call("GET", f"{API}/rooms.info?roomName={room}", status=200, headers=headers,
                     response={"room": {"_id": ROOMS[room], "name": room, "t": "c"}, "success": True})  # fmt: skip
        if verb == "invite":
            log.call("GET", f"{API}/users.info?username={arg}", status=200, headers=headers,
                     response={"user": {"_id": USERS[arg], "username": arg, "name": "Priya N."}, "success": True})  # fmt: skip
            log.call("POST", f"{API}/users.setPreferences", status=200, headers=headers,
                     body={"data": {"sidebarViewMode": "condensed", "sidebarShowUnread": True}},
                     response={"user": {"_id": ME, "settings": {"preferences": {"sidebarViewMode": "condensed"}}},
                               "success": True})  # fmt: skip
            log.call("POST", f"{API}/channels.invite", status=200, headers=headers,
                     body={"roomId": ROOMS[room], "userId": USERS[arg]},
                     response={"channel": {"_id": ROOMS[room], "name": room, "usernames": ["kari.o", arg]},
                               "success": True})  # fmt: skip
            members.append({"_id": run.subscription_ids.pop(0), "rid": ROOMS[room], "u_id": USERS[arg], "open": True})
        else:
            mid = run.message_ids.pop(0)
            run.epoch_ms += 61_000
            log.call("POST", f"{API}/chat.sendMessage", status=200, headers=headers,
                     body={"message": {"_id": mid, "rid": ROOMS[room], "msg": arg}},
                     response={"message": {"_id": mid, "rid": ROOMS[room], "msg": arg, "ts": {"$date": run.epoch_ms},
                                           "u": {"_id": ME, "username": "kari.o"}}, "success": True})  # fmt: skip
            log.call("POST", "https://ingest.chatops-metrics.com/api/v2/client-events", status=200,
                     body={"events": [{"type": "message_sent", "at": run.epoch_ms}]}, response={"accepted": 1})  # fmt: skip
            messages.append({"_id": mid, "rid": ROOMS[room], "msg": arg, "u_id": ME})
    log.call("GET", f"{API}/channels.history?roomId={ROOMS['release-train']}&count=20", status=200, headers=headers,
             response={"messages": list(reversed(messages)), "success": True})  # fmt: skip
    return log, diff(subscriptions={"inserted": members}, messages={"inserted": messages})


SCRIPT = [("invite", "release-train", "priya.n"), ("post", "release-train", TEXT)]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("post", "release-train", TEXT)],
    "wrong_entity": [("invite", "release-train-archive", "priya.n"), ("post", "release-train", TEXT)],
    "wrong_order": [("post", "release-train", TEXT), ("invite", "release-train", "priya.n")],
}


def recorded_run() -> Run:
    return Run(clock(2026, 5, 12, 10, 15), "r", ["q8Zk2XpN4tLm7RvWc"], ["sub_77a1"], 1778580900000)


def later_run() -> Run:
    return Run(clock(2026, 5, 19, 15, 2), "a", ["Hs3PdW9yTq1Kx6NbV"], ["sub_90c4"], 1779202920000)


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(recorded_run(), SCRIPT)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_chat_4_2"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        attempt_log, attempt_diff = play(later_run(), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(later_run().clock, SITE), None)
    )
    return recording, attempts
