"""Consul KV over MCP (echo mcp_calls.json + dbdiff.json of the KV store): an MCP server wrapping
Consul's `/v1/kv` API, its results keeping the API's field names (`Key`, `Value`, `CreateIndex`,
`ModifyIndex`, `LockIndex`, `Flags`). Class d of issue 28, a concurrency value under a name no word
list holds, in tool arguments: each put sends `cas` = the `ModifyIndex` its read gave (Consul's
check-and-set); a put whose index is stale is answered `{"success": false}` with no error, as
Consul answers `false` with HTTP 200.

Attempts: `good` (later: other indexes, the store having moved on), `good_cas_retry` (its first
put sends a stale `cas`, gets `{"success": false}`, reads the key again and puts): full marks,
whatever indexes they send. `empty`: 0. `missing_write` (never sets timeout_ms), `wrong_entity`
(sets config/cart/max_retries, the sibling the listing shows): must fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, ToolLog, clock, diff, mcp_files, task_doc, zip_files
from tests.package.rewards_kit import Truth

SITE = "mcp://consul"
INSTRUCTION = "In Consul, set config/checkout/max_retries to 5 and config/checkout/timeout_ms to 2500."
VALUES = {"config/checkout/max_retries": "3", "config/checkout/timeout_ms": "4000", "config/cart/max_retries": "3",
          "config/checkout/currency": "EUR"}  # fmt: skip
SESSION = {
    "sessionId": "s_consul_2",
    "servers": [{"name": "consul", "version": "0.3.1", "tools": [
        {"name": "consul_kv_list", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {"name": "consul_kv_get", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {"name": "consul_kv_put", "inputSchema": {"type": "object", "properties": {
            "key": {"type": "string"}, "value": {"type": "string"}, "cas": {"type": "integer"}}}},
    ]}],
}  # fmt: skip


@dataclass
class Run:
    clock: Clock
    prefix: str
    index: int  # the cluster's raft index when the task starts


def play(run: Run, script: list[tuple[str, str, str]]) -> tuple[ToolLog, dict[str, Any], Truth]:
    log = ToolLog(run.clock, "consul", prefix=run.prefix)
    truth = Truth()
    store = {k: {"Key": k, "Value": v, "CreateIndex": 1200 + i, "ModifyIndex": run.index - 40 * (i + 1), "LockIndex": 0, "Flags": 0}
             for i, (k, v) in enumerate(VALUES.items())}  # fmt: skip
    updated: list[dict[str, Any]] = []
    for verb, key, value in script:
        if verb == "list":
            log.call(
                "consul_kv_list", {"prefix": key}, {"keys": [dict(e) for k, e in store.items() if k.startswith(key)]}
            )
        elif verb == "get":
            log.call("consul_kv_get", {"key": key}, dict(store[key]))
        elif verb == "stale_put":
            run.index += 7  # another writer moved the key on since it was read
            log.call(
                "consul_kv_put", {"key": key, "value": value, "cas": store[key]["ModifyIndex"]}, {"success": False}
            )
            store[key]["ModifyIndex"] = run.index
        else:  # put
            sent = store[key]["ModifyIndex"]
            run.index += 3
            before = store[key]["Value"]
            store[key].update(Value=value, ModifyIndex=run.index)
            cid = log.call("consul_kv_put", {"key": key, "value": value, "cas": sent}, {"success": True})
            truth.add(cid, f"set {key} to {value} (cas)")
            updated.append(
                {
                    "before": {"key": key, "value": before, "modify_index": sent},
                    "after": {"key": key, "value": value, "modify_index": run.index},
                }
            )
    return log, diff(kv={"updated": updated}), truth


MR, TO, CART = "config/checkout/max_retries", "config/checkout/timeout_ms", "config/cart/max_retries"
RECORDED = [("list", "config/", ""), ("get", MR, ""), ("put", MR, "5"), ("get", TO, ""), ("put", TO, "2500")]
SCRIPTS = {
    "good": RECORDED,
    "good_cas_retry": [
        ("list", "config/", ""),
        ("stale_put", MR, "5"),
        ("get", MR, ""),
        ("put", MR, "5"),
        ("get", TO, ""),
        ("put", TO, "2500"),
    ],
    "missing_write": RECORDED[:3],
    "wrong_entity": [
        ("list", "config/", ""),
        ("get", CART, ""),
        ("put", CART, "5"),
        ("get", TO, ""),
        ("put", TO, "2500"),
    ],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, dbdiff, truth = play(Run(clock(2026, 5, 21, 6, 30), "c", 918204), RECORDED)
    recording = zip_files(
        {**mcp_files(task_doc(INSTRUCTION, SITE, "rec_checkout_kv"), log, dbdiff), "session.json": SESSION}
    )
    attempts = {}
    for kind, script in SCRIPTS.items():
        attempt_log, attempt_diff, _ = play(Run(clock(2026, 6, 1, 22, 14), "a", 1044730), script)
        attempts[kind] = zip_files(mcp_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    empty = ToolLog(clock(2026, 6, 1, 22, 14), "consul", prefix="a")
    attempts["empty"] = zip_files(mcp_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
