"""API key rotation over MCP (echo mcp_calls.json + session.json + dbdiff.json): an MCP server
wrapping Unkey's key API (`keys.createKey`, `keys.updateKey`, `keys.deleteKey`, `apis.listKeys`;
results keep the API's field names: `keyId`, `key`, `start`, `ratelimit {type, limit, duration}`,
`createdAt` in ms). Class a of issue 28, sibling-entity writes: rotating a key creates the new
key, sets its rate limit (two writes on the new key, the main entity) and deletes the old key the
instruction names (`billing-webhook`), which the listing shows beside `billing-webhook-staging`
and `reporting-ro`. The create's result carries the new secret (`key`), as the real API's does.

Attempts: `good` (later: another new key id and secret, clocks), `good_revoke_first` (deletes the
old key before creating the new one), `good_verify` (lists the keys again at the end): full
marks. `empty`: 0. `missing_write` (never deletes the old key), `wrong_entity` (deletes
`billing-webhook-staging` instead) and `stray_write` (rotates and also deletes `reporting-ro`):
must fail. Their database diffs say what they did (the old key still live, another key deleted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, ToolLog, clock, diff, mcp_files, task_doc, zip_files
from tests.package.rewards_kit import Truth, hexid

SITE = "mcp://unkey"
API_ID = "api_3Xk9PqB7uLm2Rt"
INSTRUCTION = (
    "Rotate the 'billing-webhook' API key of the Payments API: create a new key named "
    "'billing-webhook-2026-05' with the prefix 'bwh' limited to 100 requests per second, "
    "then delete the old 'billing-webhook' key."
)
KEYS = {  # existing keys: id -> (name, start)
    "key_2mQx7VbN4kLp9sRt": ("billing-webhook", "bwh_4Fq"),
    "key_8HjW3cZy6TnE1uDa": ("billing-webhook-staging", "bwh_s9K"),
    "key_5PvR2gXm8QbL4wYc": ("reporting-ro", "rep_Zt2"),
}
OLD = "key_2mQx7VbN4kLp9sRt"
STAGING = "key_8HjW3cZy6TnE1uDa"
REPORTING = "key_5PvR2gXm8QbL4wYc"
SESSION = {
    "sessionId": "s_unkey_7",
    "servers": [{"name": "unkey", "version": "1.4.0", "tools": [
        {"name": "unkey_list_keys", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {"name": "unkey_create_key", "inputSchema": {"type": "object"}},
        {"name": "unkey_update_key", "inputSchema": {"type": "object"}},
        {"name": "unkey_delete_key", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}},
    ]}],
}  # fmt: skip


@dataclass
class Run:
    clock: Clock
    prefix: str
    new_key: str
    secret: str


def _listed(kid: str, name: str, start: str) -> dict[str, Any]:
    return {"id": kid, "start": start, "apiId": API_ID, "workspaceId": "ws_9Tq2Lk4Vx", "name": name,
            "createdAt": 1767312000000 + int(hexid(kid, 6), 16), "enabled": True,
            "ratelimit": {"type": "fast", "limit": 100, "duration": 1000}}  # fmt: skip


def play(run: Run, script: list[tuple[Any, ...]]) -> tuple[ToolLog, dict[str, Any], Truth]:
    log = ToolLog(run.clock, "unkey", prefix=run.prefix)
    truth = Truth()
    live = dict(KEYS)
    inserted: list[dict[str, Any]] = []
    deleted_rows: list[dict[str, Any]] = []
    for step in script:
        verb = step[0]
        if verb == "list":
            keys = [_listed(k, *v) for k, v in live.items()]
            log.call(
                "unkey_list_keys", {"apiId": API_ID, "limit": 100}, {"keys": keys, "total": len(keys), "cursor": None}
            )
        elif verb == "create":
            arguments = {"apiId": API_ID, "name": "billing-webhook-2026-05", "prefix": "bwh", "byteLength": 16,
                         "meta": {"team": "payments"}}  # fmt: skip
            cid = log.call("unkey_create_key", arguments, {"keyId": run.new_key, "key": run.secret})
            truth.add(cid, "create the new key")
            inserted.append({"id": run.new_key, "api_id": API_ID, "name": "billing-webhook-2026-05",
                             "start": run.secret[:7], "ratelimit_limit": 100, "ratelimit_duration": 1000,
                             "enabled": True, "created_at": int(run.clock.now.timestamp() * 1000)})  # fmt: skip
            live[run.new_key] = ("billing-webhook-2026-05", run.secret[:7])
        elif verb == "limit":
            arguments = {"keyId": run.new_key, "ratelimit": {"type": "fast", "limit": 100, "duration": 1000}}
            cid = log.call("unkey_update_key", arguments, {})
            truth.add(cid, "rate-limit the new key")
        else:  # delete
            kid = step[1]
            cid = log.call("unkey_delete_key", {"keyId": kid}, {})
            truth.add(cid, f"delete the key {KEYS[kid][0]}")
            stamp = int(run.clock.now.timestamp() * 1000)
            deleted_rows.append({"before": {"id": kid, "name": KEYS[kid][0], "deleted_at": None},
                                 "after": {"id": kid, "name": KEYS[kid][0], "deleted_at": stamp}})  # fmt: skip
            live.pop(kid)
    return log, diff(keys={"inserted": inserted, "updated": deleted_rows}), truth


RECORDED = [("list",), ("create",), ("limit",), ("delete", OLD)]
SCRIPTS = {
    "good": RECORDED,
    "good_revoke_first": [("list",), ("delete", OLD), ("create",), ("limit",)],
    "good_verify": [("list",), ("create",), ("limit",), ("delete", OLD), ("list",)],
    "missing_write": [("list",), ("create",), ("limit",)],
    "wrong_entity": [("list",), ("create",), ("limit",), ("delete", STAGING)],
    "stray_write": [("list",), ("create",), ("limit",), ("delete", OLD), ("delete", REPORTING)],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, dbdiff, truth = play(Run(clock(2026, 5, 13, 11, 20), "c", "key_9LzA4nQe7BcW2yXt",
                                  "bwh_3ZKbA7pN1q9XcVd4Lr8Tm2"), RECORDED)  # fmt: skip
    files = mcp_files(task_doc(INSTRUCTION, SITE, "rec_key_rotation"), log, dbdiff)
    recording = zip_files({**files, "session.json": SESSION})
    attempts = {}
    for kind, script in SCRIPTS.items():
        later = Run(clock(2026, 5, 20, 8, 5), "a", "key_4RwT8mYc1VnK6pHs", "bwh_7QeLx2Vb9NcR4tWz1Ka5Pd")
        attempt_log, attempt_diff, _ = play(later, script)
        attempts[kind] = zip_files(mcp_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    empty = ToolLog(clock(2026, 5, 20, 8, 5), "unkey", prefix="a")
    attempts["empty"] = zip_files(mcp_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
