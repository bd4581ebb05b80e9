"""Elasticsearch `_bulk` (echo network.json, a script's traffic to an Elastic Cloud deployment; the
index is the store: no separate database diff). Class b of issue 28, a failure inside a 2xx, a
bulk answer: `POST /_bulk` takes NDJSON (`{"update": {"_index", "_id"}}` then `{"doc": ...}`) and
answers HTTP 200 with `"errors": true` when any item failed, each item with its own `status` and
`error` (`{"type": "version_conflict_engine_exception", "reason": "[SKU-1003]: version conflict,
required seqNo [...]..."}`). The recording searches the three products, sends one bulk of three
updates (the third refused: an ingest job touched it), then sends the third again alone.

Real shapes: `Content-Type: application/x-ndjson`, `Authorization: ApiKey ...`, answers with
`took`, `_version`, `_seq_no`, `_primary_term`, `_shards`, `result: updated|noop`; a `_search` sent
as a POST (a read) with `seq_no_primary_term: true`.

Attempts: `good` (later: other versions, sequence numbers and timings, no refused item),
`good_no_search` (no search first): full marks. `empty`: 0. `missing_write` (a bulk of SKU-1001 and
SKU-1002 only): must fail. `failed_write` sends the same bulk of three as the recording, SKU-1003
is refused inside the 200 (`errors: true`) and never sent again: it must not get full marks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, jdump, task_doc, zip_files
from tests.package.rewards_kit import Truth, hexid

SITE = "https://catalog-prod.es.eu-west-1.aws.found.io"
INSTRUCTION = "In the products index, mark SKU-1001, SKU-1002 and SKU-1003 as discontinued."
SKUS = ("SKU-1001", "SKU-1002", "SKU-1003")
NAMES = {"SKU-1001": "Trail runner 2, black", "SKU-1002": "Trail runner 2, navy", "SKU-1003": "Trail runner 2, sand"}


@dataclass
class Run:
    clock: Clock
    prefix: str
    api_key: str
    seq: int  # the shard's sequence number when the task starts
    term: int
    versions: dict[str, int] = field(default_factory=dict)
    conflict_on: str | None = None


def _item(run: Run, sku: str) -> dict[str, Any]:
    run.seq += 1
    run.versions[sku] += 1
    return {"update": {"_index": "products", "_id": sku, "_version": run.versions[sku], "result": "updated",
                       "_shards": {"total": 2, "successful": 2, "failed": 0}, "_seq_no": run.seq,
                       "_primary_term": run.term, "status": 200}}  # fmt: skip


def _conflict(run: Run, sku: str) -> dict[str, Any]:
    reason = (f"[{sku}]: version conflict, required seqNo [{run.seq - 3}], primary term [{run.term}]. current document "
              f"has seqNo [{run.seq + 2}] and primary term [{run.term}]")  # fmt: skip
    return {"update": {"_index": "products", "_id": sku, "status": 409,
                       "error": {"type": "version_conflict_engine_exception", "reason": reason,
                                 "index_uuid": "Xq2v9LkRT3y8m1hQzA0b7w", "shard": "0", "index": "products"}}}  # fmt: skip


def play(run: Run, script: list[tuple[Any, ...]]) -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, "https://catalog-prod.kb.eu-west-1.aws.found.io/app/dev_tools", prefix=run.prefix)
    truth = Truth()
    headers = {
        "authorization": f"ApiKey {run.api_key}",
        "x-elastic-client-meta": "es=8.13.0,py=3.12.2,t=8.13.0,ur=2.2.1",
    }
    answer_headers = {
        "content-type": "application/vnd.elasticsearch+json;compatible-with=8",
        "x-elastic-product": "Elasticsearch",
    }
    for step in script:
        if step[0] == "search":
            hits = [{"_index": "products", "_id": s, "_score": 1.0, "_seq_no": run.seq - 20 + i, "_primary_term": run.term,
                     "_source": {"sku": s, "name": NAMES[s], "status": "active"}} for i, s in enumerate(SKUS)]  # fmt: skip
            log.call("POST", f"{SITE}/products/_search", status=200, headers=headers,
                     body={"query": {"ids": {"values": list(SKUS)}}, "seq_no_primary_term": True, "_source": ["sku", "name", "status"]},
                     response={"took": 3, "timed_out": False, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
                               "hits": {"total": {"value": 3, "relation": "eq"}, "max_score": 1.0, "hits": hits}},
                     response_headers=answer_headers)  # fmt: skip
        else:  # a bulk of updates
            skus, refused = step[1], step[2] if len(step) > 2 else None
            lines = []
            for sku in skus:
                lines.append(jdump({"update": {"_index": "products", "_id": sku}}))
                lines.append(jdump({"doc": {"status": "discontinued"}}))
            items = [_conflict(run, s) if s == refused else _item(run, s) for s in skus]
            errors = refused is not None
            cid = log.call("POST", f"{SITE}/_bulk", status=200, headers={**headers, "content-type": "application/x-ndjson"},
                           body="\n".join(lines) + "\n", response={"took": 17 + len(skus), "errors": errors, "items": items},
                           response_headers=answer_headers)  # fmt: skip
            done = [s for s in skus if s != refused]
            if errors:
                truth.add(cid, f"bulk: {', '.join(done)} updated, {refused} refused inside the 200 (errors: true)")
            else:
                truth.add(cid, f"bulk: {', '.join(done)} discontinued")
    return log, truth


RECORDED: list[tuple[Any, ...]] = [("search",), ("bulk", SKUS, "SKU-1003"), ("bulk", ("SKU-1003",))]
SCRIPTS: dict[str, list[tuple[Any, ...]]] = {
    "good": [("search",), ("bulk", SKUS)],
    "good_no_search": [("bulk", SKUS)],
    "missing_write": [("search",), ("bulk", SKUS[:2])],
    "failed_write": [("search",), ("bulk", SKUS, "SKU-1003")],
}


def _versions(base: int) -> dict[str, int]:
    return {s: base + i for i, s in enumerate(SKUS)}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(Run(clock(2026, 5, 16, 8, 40), "r", hexid("es-rec", 40), 88213, 4, _versions(6)), RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_discontinue_skus"), log, None))
    attempts = {}
    for kind, script in SCRIPTS.items():
        later = Run(clock(2026, 5, 28, 13, 12), "a", hexid("es-later", 40), 90457, 5, _versions(9))
        attempt_log, _ = play(later, script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 5, 28, 13, 12), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
