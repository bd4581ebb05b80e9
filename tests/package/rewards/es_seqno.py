"""Elasticsearch optimistic concurrency (echo network.json, a support tool's traffic; the index is
the store: no separate database diff). Class d of issue 28, concurrency values under names no word
list holds, in query strings: every write sends `?if_seq_no=N&if_primary_term=T`, values an
earlier answer gave (the search with `seq_no_primary_term: true`, the `GET _doc`), and its answer
gives new ones (`_seq_no`). And class e: both writes act on one document by
`/orders/_update/{id}` and `/orders/_doc/{id}` (no collection word before the id; the id an
auto-generated 20-character one, `kQ3xZ4sBv8Nn2Lq1aH7p`, found by a search on the order number).

Attempts: `good` (later: other sequence numbers, primary term, versions and timings),
`good_conflict_retry` (its `PUT _doc` is first refused 409 `version_conflict_engine_exception`, a
stale `if_seq_no`; it reads the document again and saves): full marks, whatever numbers they send.
`empty`: 0. `missing_write` (never adds the note), `wrong_entity` (searches 100-4412 and updates
that order): must fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, task_doc, zip_files
from tests.package.rewards_kit import Truth

SITE = "https://support-search.internal.example:9243"
NOTE = "Refund issued via Adyen, ref RF-88120"
INSTRUCTION = (
    "In the orders index, set order 100-4421's status to 'refunded' with the refund reason "
    f"'damaged in transit', then append the note '{NOTE}' to its notes."
)
ORDERS = {"100-4421": "kQ3xZ4sBv8Nn2Lq1aH7p", "100-4412": "Vb2mT8sBq1Zc9Lx4Pk0e"}
SHARDS = {"total": 2, "successful": 2, "failed": 0}


@dataclass
class Run:
    clock: Clock
    prefix: str
    auth: str
    seq: int
    term: int
    version: int


def play(run: Run, script: list[str], number: str = "100-4421") -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, "https://support.internal.example/orders", prefix=run.prefix)
    truth = Truth()
    headers = {"authorization": f"Basic {run.auth}"}
    hdr = {"content-type": "application/json", "x-elastic-product": "Elasticsearch"}
    doc_id = ORDERS[number]
    source: dict[str, Any] = {"order_number": number, "customer_id": "cus_5512", "status": "paid", "refund_reason": None,
                              "total": {"amount": 129.0, "currency": "EUR"}, "notes": ["Left at front door"]}  # fmt: skip

    def written(result: str = "updated") -> dict[str, Any]:
        run.seq += 1
        run.version += 1
        return {"_index": "orders", "_id": doc_id, "_version": run.version, "result": result, "_shards": SHARDS,
                "_seq_no": run.seq, "_primary_term": run.term}  # fmt: skip

    for step in script:
        if step == "search":
            hit = {
                "_index": "orders",
                "_id": doc_id,
                "_score": 7.1,
                "_seq_no": run.seq,
                "_primary_term": run.term,
                "_source": dict(source),
            }
            log.call("POST", f"{SITE}/orders/_search", status=200, headers=headers, response_headers=hdr,
                     body={"query": {"term": {"order_number": number}}, "seq_no_primary_term": True},
                     response={"took": 2, "timed_out": False, "hits": {"total": {"value": 1, "relation": "eq"}, "hits": [hit]}})  # fmt: skip
        elif step == "get":
            log.call("GET", f"{SITE}/orders/_doc/{doc_id}", status=200, headers=headers, response_headers=hdr,
                     response={"_index": "orders", "_id": doc_id, "_version": run.version, "_seq_no": run.seq,
                               "_primary_term": run.term, "found": True, "_source": dict(source)})  # fmt: skip
        elif step == "refund":
            source.update(status="refunded", refund_reason="damaged in transit")
            cid = log.call("POST", f"{SITE}/orders/_update/{doc_id}?if_seq_no={run.seq}&if_primary_term={run.term}&refresh=wait_for",
                     status=200, headers=headers, response_headers=hdr,
                     body={"doc": {"status": "refunded", "refund_reason": "damaged in transit"}}, response=written())  # fmt: skip
            truth.add(cid, "refund the order (_update with if_seq_no and if_primary_term)")
        elif step == "stale_note":  # another process wrote the document since it was read
            stale = run.seq
            run.seq += 2
            run.version += 1
            reason = (f"[{doc_id}]: version conflict, required seqNo [{stale}], primary term [{run.term}]. current document "
                      f"has seqNo [{run.seq}] and primary term [{run.term}]")  # fmt: skip
            log.call("PUT", f"{SITE}/orders/_doc/{doc_id}?if_seq_no={stale}&if_primary_term={run.term}", status=409,
                     headers=headers, response_headers=hdr, body={**source, "notes": [*source["notes"], NOTE]},
                     response={"error": {"root_cause": [{"type": "version_conflict_engine_exception", "reason": reason}],
                                         "type": "version_conflict_engine_exception", "reason": reason,
                                         "index_uuid": "p0Lq8ZtXRm2vB6yK3dWn4A", "shard": "1", "index": "orders"}, "status": 409})  # fmt: skip
        else:  # note
            source["notes"] = [*source["notes"], NOTE]
            cid = log.call("PUT", f"{SITE}/orders/_doc/{doc_id}?if_seq_no={run.seq}&if_primary_term={run.term}", status=200,
                           headers=headers, response_headers=hdr, body=dict(source), response=written())  # fmt: skip
            truth.add(cid, "append the note (_doc with if_seq_no and if_primary_term)")
    return log, truth


RECORDED = ["search", "refund", "get", "note"]
SCRIPTS = {
    "good": RECORDED,
    "good_conflict_retry": ["search", "refund", "stale_note", "get", "note"],
    "missing_write": ["search", "refund"],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(Run(clock(2026, 5, 17, 11, 25), "r", "c3VwcG9ydC1ib3Q6UjNjMHJkM2Q=", 5532, 3, 11), RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_refund_4421"), log, None))
    attempts = {}
    for kind, script in {**SCRIPTS, "wrong_entity": RECORDED}.items():
        later = Run(clock(2026, 5, 29, 16, 50), "a", "c3VwcG9ydC1ib3Q6TDR0M3JQdw==", 6120, 4, 2)
        attempt_log, _ = play(later, script, "100-4412" if kind == "wrong_entity" else "100-4421")
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 5, 29, 16, 50), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
