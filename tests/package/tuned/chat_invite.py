"""Chat over MCP (echo mcp_calls.json): find an existing channel, invite a member, then post;
no data dependency between the two writes, so only the instruction's "then" orders them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, ToolLog, clock, diff, mcp_files, task_doc, zip_files

SITE = "mcp://chat"
TEXT = "Welcome Sam! Standup is at 09:30 in this channel."
INSTRUCTION = f"Add sam.k to the #platform-standup channel, then post '{TEXT}' there."
CHANNELS = {"platform-standup": "CH_4410", "platform-random": "CH_4411"}
USERS = {"sam.k": "U_8812"}


@dataclass
class Run:
    clock: Clock
    prefix: str
    message_ids: list[str]
    client_ids: list[str]


def play(run: Run, script: list[tuple[str, str, str]]) -> tuple[ToolLog, dict[str, Any]]:
    log = ToolLog(run.clock, "chat", prefix=run.prefix)
    log.call("chat_get_current_user", {}, {"id": "U_0001", "name": "kim"})
    log.call("chat_list_channels", {"query": "platform"},
             {"channels": [{"id": v, "name": k} for k, v in CHANNELS.items()]})  # fmt: skip
    members: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    for verb, channel, arg in script:
        if verb == "invite":
            log.call("chat_find_user", {"handle": arg}, {"id": USERS[arg], "handle": arg})
            log.call("chat_invite_members", {"channel_id": CHANNELS[channel], "user_ids": [USERS[arg]]},
                     {"ok": True, "channel": {"id": CHANNELS[channel], "member_count": 12}})  # fmt: skip
            members.append({"channel_id": CHANNELS[channel], "user_id": USERS[arg]})
        else:
            log.call("chat_start_typing", {"channel_id": CHANNELS[channel]}, {})
            mid = run.message_ids.pop(0)
            log.call("chat_post_message",
                     {"channel_id": CHANNELS[channel], "text": arg, "client_msg_id": run.client_ids.pop(0)},
                     {"id": mid, "channel_id": CHANNELS[channel], "text": arg})  # fmt: skip
            messages.append({"id": mid, "channel_id": CHANNELS[channel], "text": arg, "user_id": "U_0001"})
    return log, diff(channel_members={"inserted": members}, messages={"inserted": messages})


SCRIPT = [("invite", "platform-standup", "sam.k"), ("post", "platform-standup", TEXT)]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("post", "platform-standup", TEXT)],
    "wrong_entity": [("invite", "platform-random", "sam.k"), ("post", "platform-standup", TEXT)],
    "wrong_order": [("post", "platform-standup", TEXT), ("invite", "platform-standup", "sam.k")],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(Run(clock(2026, 5, 9, 9, 0), "c", ["M_70001"], ["b3a1c9e2-77f0-4c1e-9d2a-5e8f01a2b3c4"]), SCRIPT)
    recording = zip_files(mcp_files(task_doc(INSTRUCTION, SITE, "rec_chat_standup"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        run = Run(clock(2026, 5, 13, 15, 45), "a", ["M_70950"], ["0c9d8e7f-1a2b-4c3d-8e9f-a0b1c2d3e4f5"])
        attempt_log, attempt_diff = play(run, script)
        attempts[kind] = zip_files(mcp_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        mcp_files(task_doc("", SITE, "attempt_empty"), ToolLog(clock(2026, 5, 13, 15, 45), "chat"), None)
    )
    return recording, attempts
