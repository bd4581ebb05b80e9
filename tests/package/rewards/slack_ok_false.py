"""Slack Web API (echo network.json, a bot's traffic through the Python SDK; slack.com: no database
diff). Class b of issue 28, a failure inside a 2xx, `{"ok": false}`: Slack answers HTTP 200 to a
refused call, with `{"ok": false, "error": "not_in_channel"}`. The recording sets the channel
topic, tries to post (refused: the bot is not a member), joins the channel and posts again.

Real shapes: `POST https://slack.com/api/<method>` with a JSON body and `Authorization: Bearer
xoxb-...`, channel ids `C0...`, message `ts` ids, `response_metadata`, the `x-slack-req-id`
header; `conversations.list` read with a GET.

Attempts: `good` (later: another message ts, request ids; joins before posting, no refusal),
`good_join_first` (joins before it sets the topic), `good_after_refusal` (refused first, as the
recording was, then joins and posts): full marks. `empty`: 0. `missing_write` (sets the topic, never posts): must fail.
`failed_write` sets the topic and posts without joining: the post is answered 200 `{"ok": false,
"error": "not_in_channel"}` and the agent stops, so the message was never posted and it must not
get full marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, task_doc, zip_files
from tests.package.rewards_kit import Truth, hexid

SITE = "https://slack.com"
API = f"{SITE}/api"
CHANNEL = "C07K2M4PLQ9"
TOPIC = "Freeze starts Thu 18:00 UTC"
TEXT = "Code freeze for 4.12 starts Thursday 18:00 UTC. Ping @dana for exceptions."
INSTRUCTION = f"Set the topic of #release-train to '{TOPIC}' and post '{TEXT}' there."
CHANNELS = {"C07K2M4PLQ9": "release-train", "C05B8N1XTRD": "release-train-archive", "C02A4F6GHJK": "general"}
BOT = "U07BT3K8ZQ1"


@dataclass
class Run:
    clock: Clock
    prefix: str
    token: str
    ts: float


def play(run: Run, script: list[str]) -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, f"{SITE}/api", prefix=run.prefix)
    truth = Truth()
    headers = {"authorization": f"Bearer {run.token}", "user-agent": "Python/3.12 slackclient/3.27.1"}
    member = False
    topic = "Release coordination"

    def call(
        method: str, body: dict[str, Any] | None, answer: dict[str, Any], *, verb: str = "POST", query: str = ""
    ) -> str:
        answer_headers = {"content-type": "application/json; charset=utf-8",
                          "x-slack-req-id": hexid(f"{run.token}/{len(log.requests)}", 32)}  # fmt: skip
        return log.call(verb, f"{API}/{method}{query}", status=200, headers=headers, body=body, response=answer,
                        response_headers=answer_headers)  # fmt: skip

    def channel() -> dict[str, Any]:
        return {"id": CHANNEL, "name": "release-train", "is_channel": True, "is_member": member,
                "topic": {"value": topic, "creator": "U02DANA1", "last_set": 1778000000}, "num_members": 41}  # fmt: skip

    for step in script:
        if step == "list":
            chans = [{"id": c, "name": n, "is_channel": True, "is_member": c != CHANNEL and n != "release-train-archive"}
                     for c, n in CHANNELS.items()]  # fmt: skip
            call("conversations.list", None, {"ok": True, "channels": chans, "response_metadata": {"next_cursor": ""}},
                 verb="GET", query="?types=public_channel&exclude_archived=true&limit=200")  # fmt: skip
        elif step == "topic":
            topic = TOPIC
            cid = call(
                "conversations.setTopic", {"channel": CHANNEL, "topic": TOPIC}, {"ok": True, "channel": channel()}
            )
            truth.add(cid, "set the channel topic")
        elif step == "join":
            member = True
            cid = call("conversations.join", {"channel": CHANNEL}, {"ok": True, "channel": channel()})
            truth.add(cid, "join the channel (needed to post)")
        else:  # post
            body = {"channel": CHANNEL, "text": TEXT, "unfurl_links": False}
            if not member:
                cid = call("chat.postMessage", body, {"ok": False, "error": "not_in_channel"})
                truth.add(cid, "post refused: ok false, not_in_channel", "failed")
                continue
            ts = f"{run.ts:.6f}"
            message = {
                "bot_id": "B07BT3K8ZQ0",
                "type": "message",
                "text": TEXT,
                "user": BOT,
                "ts": ts,
                "team": "T01ACME",
            }
            cid = call("chat.postMessage", body, {"ok": True, "channel": CHANNEL, "ts": ts, "message": message})
            truth.add(cid, "post the message")
    return log, truth


RECORDED = ["list", "topic", "post", "join", "post"]
SCRIPTS = {
    "good": ["list", "topic", "join", "post"],
    "good_join_first": ["list", "join", "topic", "post"],
    "good_after_refusal": RECORDED,
    "missing_write": ["list", "topic"],
    "failed_write": ["list", "topic", "post"],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(
        Run(clock(2026, 5, 13, 16, 20), "r", "xoxb-2210-7765-R3c0rdedB0tT0kenAAAA", 1778689251.412309), RECORDED
    )
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_release_train"), log, None))
    attempts = {}
    for kind, script in SCRIPTS.items():
        later = Run(clock(2026, 5, 26, 7, 58), "a", "xoxb-2210-7765-L4terB0tT0kenBBBBBB", 1779782313.903117)
        attempt_log, _ = play(later, script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 5, 26, 7, 58), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
