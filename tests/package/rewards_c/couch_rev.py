"""CouchDB 3 document API from a field-service dispatcher's script (mitmproxy HAR in a ZIP; the
database is the store: no separate diff). Class d of issue 28, a concurrency value under a name no
word list holds, in the body: a document update is a `PUT` of the whole document carrying the
`_rev` its read gave (`"3-9f1c..."`: the revision count and an MD5), answered `201 {"ok": true,
"id", "rev": "4-..."}` with the new rev also in the `ETag` header; a stale `_rev` is refused `409
{"error": "conflict", "reason": "Document update conflict."}`. A fresh session finds the document
at another revision, so a good attempt sends other revs. And class e: the work order's id is
`wo:2026:20931` (colons, URL-encoded in the path as `wo%3A2026%3A20931`), found by a Mango query
that is a POST (`_find`, a read) on its number WO-20931.

The task closes the work order (status, resolution, closing time) and logs the technician's
hours as a new document (`POST /workorders`, the server's uuid in `id` and `Location`).

Attempts: `good` (later: the order edited meanwhile, so other revs; other uuids and request
ids), `good_conflict_retry` (its `PUT` sends a stale `_rev`, is refused 409, reads the document
again and saves): full marks. `empty`: 0. `missing_write` (no time log), `wrong_entity` (closes
and logs hours on WO-20913, found by the same query on that number), `wrong_content` (sets the
status `cancelled` instead of `completed`): must fail.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_c.recorder import har_id
from tests.package.rewards_heldout.recorder import Recorder, at, mitmproxy_har
from tests.package.rewards_kit import Truth, hexid

COUCH = "https://couch.kaltewerk-service.de"
DB = f"{COUCH}/workorders"
NOTE = "Replaced the condenser fan motor; cold room back at 4 °C."
INSTRUCTION = (
    f"In the service database, close work order WO-20931: set its status to completed with the resolution '{NOTE}', "
    "and log 2.5 hours of work on it for technician t.berger dated 2026-05-16."
)
ORDERS = {"WO-20931": ("wo:2026:20931", "Metzgerei Ahrens, Kühlraum 2", "cold room not holding temperature"),
          "WO-20913": ("wo:2026:20913", "Bäckerei Lindqvist, Froster", "freezer door seal torn")}  # fmt: skip


def rev(n: int, seed: str) -> str:
    return f"{n}-{hexid(seed, 32)}"


def play(seed: str, start: Any, steps: list[str], number: str = "WO-20931", base: int = 3) -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    doc_id, site, fault = ORDERS[number]
    current = [base]  # the stored document's revision count; `seen` is what the client last read
    seen = [base]
    auth = {"Authorization": "Basic ZGlzcGF0Y2g6" + hexid(seed + "/pw", 16), "User-Agent": "dispatch-tools/0.9 (node-fetch/3.3.2)",
            "Accept": "application/json"}  # fmt: skip

    def couch_headers(etag: str | None = None) -> dict[str, str]:
        out = {"Content-Type": "application/json", "Server": "CouchDB/3.3.3 (Erlang OTP/25)", "Cache-Control": "must-revalidate",
               "X-Couch-Request-ID": hexid(f"{seed}/rq/{len(rec.exchanges)}", 10), "X-CouchDB-Body-Time": "0"}  # fmt: skip
        if etag:
            out["ETag"] = f'"{etag}"'
        return out

    def document(status: str, revision: str) -> dict[str, Any]:
        return {"_id": doc_id, "_rev": revision, "type": "workorder", "number": number, "site": site, "fault": fault,
                "status": status, "assigned_to": "t.berger", "opened_at": "2026-05-12T06:40:11Z", "priority": "high"}  # fmt: skip

    def read() -> None:
        seen[0] = current[0]
        revision = rev(current[0], f"{seed}/{doc_id}/{current[0]}")
        rec.send("POST", f"{DB}/_find", status=200, headers={**auth, "Content-Type": "application/json"},
                 body={"selector": {"type": "workorder", "number": number}, "limit": 1, "execution_stats": False},
                 answer={"docs": [document("in_progress", revision)], "bookmark": "g1AAAABweJzLYWBgYMpgSmHgKy5JLCrJTq2MT8lPzkzJBYqrlBgYGBkYmAJhFqgU",
                         "warning": "No matching index found, create an index to optimize query time."},
                 answer_headers=couch_headers())  # fmt: skip

    for step in steps:
        if step == "find":
            read()
        elif step == "get":
            seen[0] = current[0]
            revision = rev(current[0], f"{seed}/{doc_id}/{current[0]}")
            rec.send("GET", f"{DB}/{quote(doc_id, safe='')}", status=200, headers=auth, answer=document("in_progress", revision),
                     answer_headers=couch_headers(revision))  # fmt: skip
        elif step == "bump":  # the dispatcher's app touches the order between the read and the save
            current[0] += 1
        elif step in ("close", "cancel"):
            status = "completed" if step == "close" else "cancelled"
            sent = rev(seen[0], f"{seed}/{doc_id}/{seen[0]}")
            body = {
                **document(status, sent),
                "resolution": NOTE,
                "closed_at": rec.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "closed_by": "dispatch",
            }
            url = f"{DB}/{quote(doc_id, safe='')}"
            if seen[0] != current[0]:
                cid = rec.send("PUT", url, status=409, body=body, headers={**auth, "Content-Type": "application/json"},
                               answer={"error": "conflict", "reason": "Document update conflict."}, answer_headers=couch_headers())  # fmt: skip
                truth.add(har_id(cid), "close refused: 409 conflict, stale _rev", "failed")
                continue
            current[0] += 1
            new = rev(current[0], f"{seed}/{doc_id}/{current[0]}")
            cid = rec.send("PUT", url, status=201, body=body, headers={**auth, "Content-Type": "application/json"},
                           answer={"ok": True, "id": doc_id, "rev": new}, answer_headers={**couch_headers(new), "Location": url})  # fmt: skip
            truth.add(har_id(cid), f"close work order {number} ({status})")
        else:  # timelog
            uuid = hexid(f"{seed}/timelog", 32)
            first = rev(1, f"{seed}/timelog/1")
            body = {"type": "timelog", "workorder": doc_id, "technician": "t.berger", "hours": 2.5, "date": "2026-05-16",
                    "logged_by": "dispatch"}  # fmt: skip
            cid = rec.send("POST", DB, status=201, body=body, headers={**auth, "Content-Type": "application/json"},
                           answer={"ok": True, "id": uuid, "rev": first}, answer_headers={**couch_headers(first), "Location": f"{DB}/{uuid}"})  # fmt: skip
            truth.add(har_id(cid), f"log 2.5 hours for t.berger on {number}")
    return rec, truth


RECORDED = ["find", "close", "timelog"]
SCRIPTS: dict[str, tuple[list[str], str, int]] = {
    "good": (RECORDED, "WO-20931", 5),
    "good_conflict_retry": (["find", "bump", "close", "get", "close", "timelog"], "WO-20931", 5),
    "missing_write": (["find", "close"], "WO-20931", 5),
    "wrong_entity": (RECORDED, "WO-20913", 2),
    "wrong_content": (["find", "cancel", "timelog"], "WO-20931", 5),
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files({"task.json": task, "dispatch.har": mitmproxy_har(rec)})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 16, 15, 44), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, COUCH, "rec_close_wo_20931"), rec)
    attempts = {kind: _zip(task_doc("", COUCH, f"attempt_{kind}"), play(f"later/{kind}", at(2026, 5, 23, 10, 5), steps, number, base)[0])
                for kind, (steps, number, base) in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(task_doc("", COUCH, "attempt_empty"), Recorder(at(2026, 5, 23, 10, 5)))
    return recording, attempts, truth.document(INSTRUCTION)
