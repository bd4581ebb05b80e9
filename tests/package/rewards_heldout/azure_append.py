"""Azure Blob Storage append blob under a lease (echo network.json: numeric ids, epoch-ms times,
header lists; the storage account is the store: no database diff). Class d of issue 28,
concurrency values under names no word list holds, in headers:
- the lease: `PUT ?comp=lease` with `x-ms-lease-action: acquire` answers `x-ms-lease-id` (a
  uuid, only in that header), and every later write sends it back in `x-ms-lease-id`;
- the append position: the container listing (XML) gives the blob's `Content-Length`, the append
  sends it back as `x-ms-blob-condition-appendpos` (with the listing's `Etag` in `If-Match`), and
  its answer gives the new offset and count (`x-ms-blob-append-offset`,
  `x-ms-blob-committed-block-count`) and a new ETag.
The metadata write carries its content in headers (`x-ms-meta-reviewedby`), as Azure's does.

Attempts: `good` (later: another lease id, the blob longer, other ETags, dates and request ids),
`good_412_retry` (its first append sends a stale position and is refused `412
AppendPositionConditionNotMet`; it lists again and appends): full marks. `empty`: 0.
`missing_write` (never sets the metadata), `wrong_entity` (appends to and stamps 2026-04.log):
must fail.
"""

from __future__ import annotations

from email.utils import format_datetime
from typing import Any

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_heldout.recorder import Recorder, at, echo_document
from tests.package.rewards_kit import Truth, hexid, uuid_from

ACCOUNT = "https://opslogs.blob.core.windows.net"
LINE = "2026-05-21T06:00:00Z deploy web-4.12.0 approved-by=ines\n"
INSTRUCTION = (
    f"In the audit container, append the line '{LINE.strip()}' to 2026-05.log and set the blob's metadata "
    "reviewedby=ops-bot, holding a lease on the blob while you change it."
)
XML_412 = ('\ufeff<?xml version="1.0" encoding="utf-8"?><Error><Code>AppendPositionConditionNotMet</Code><Message>The append '
           "position condition specified was not met.\nRequestId:{rid}\nTime:{time}</Message></Error>")  # fmt: skip


def play(seed: str, start: Any, steps: list[str], blob: str = "2026-05.log") -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    size = 18342 if seed == "rec" else 27105
    blocks = 211 if seed == "rec" else 318
    etag = f'"0x8DC{hexid(seed + "/etag/0", 11).upper()}"'
    lease = uuid_from(f"{seed}/lease")
    url = f"{ACCOUNT}/audit/{blob}"

    def headers(extra: dict[str, str]) -> dict[str, str]:
        return {"x-ms-version": "2023-11-03", "x-ms-date": format_datetime(rec.start, usegmt=True),
                "x-ms-client-request-id": uuid_from(f"{seed}/client/{len(rec.exchanges)}"),
                "Authorization": f"SharedKey opslogs:{hexid(seed + str(len(rec.exchanges)), 43)}=", **extra}  # fmt: skip

    def answer(extra: dict[str, str]) -> dict[str, str]:
        return {"Server": "Windows-Azure-Blob/1.0 Microsoft-HTTPAPI/2.0", "x-ms-request-id": uuid_from(f"{seed}/req/{len(rec.exchanges)}"),
                "x-ms-version": "2023-11-03", "Date": format_datetime(rec.start, usegmt=True), **extra}  # fmt: skip

    for step in steps:
        if step == "list":
            xml = ('\ufeff<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="https://opslogs.blob.core.windows.net/" '
                   f'ContainerName="audit"><Prefix>{blob[:7]}</Prefix><Blobs><Blob><Name>{blob}</Name><Properties>'
                   f"<Last-Modified>{format_datetime(rec.start, usegmt=True)}</Last-Modified><Etag>{etag.strip(chr(34))}</Etag>"
                   f"<Content-Length>{size}</Content-Length><Content-Type>text/plain</Content-Type><BlobType>AppendBlob</BlobType>"
                   "<LeaseStatus>unlocked</LeaseStatus><LeaseState>available</LeaseState></Properties></Blob></Blobs><NextMarker /></EnumerationResults>")  # fmt: skip
            rec.send("GET", f"{ACCOUNT}/audit?restype=container&comp=list&prefix={blob[:7]}", status=200, headers=headers({}), answer=xml,
                     answer_headers=answer({"Content-Type": "application/xml"}))  # fmt: skip
        elif step == "acquire":
            cid = rec.send("PUT", f"{url}?comp=lease", status=201, headers=headers({"x-ms-lease-action": "acquire", "x-ms-lease-duration": "60"}),
                           answer_headers=answer({"ETag": etag, "x-ms-lease-id": lease, "Content-Length": "0"}))  # fmt: skip
            truth.add(cid, "acquire the lease")
        elif step in ("append", "stale_append"):
            sent = size if step == "append" else size - 517
            sent_headers = headers({"x-ms-lease-id": lease, "x-ms-blob-condition-appendpos": str(sent), "If-Match": etag,
                                    "Content-Type": "text/plain; charset=utf-8", "Content-Length": str(len(LINE))})  # fmt: skip
            if step == "stale_append":
                stamp = rec.start.strftime("%Y-%m-%dT%H:%M:%S.0000000Z")
                rec.send("PUT", f"{url}?comp=appendblock", status=412, body=LINE, headers=sent_headers,
                         answer=XML_412.format(rid=uuid_from(seed + "/412"), time=stamp), answer_headers=answer({"Content-Type": "application/xml", "x-ms-error-code": "AppendPositionConditionNotMet"}))  # fmt: skip
                continue
            offset = size
            size += len(LINE)
            blocks += 1
            etag = f'"0x8DC{hexid(seed + "/etag/" + str(blocks), 11).upper()}"'
            cid = rec.send("PUT", f"{url}?comp=appendblock", status=201, body=LINE, headers=sent_headers,
                           answer_headers=answer({"ETag": etag, "x-ms-blob-append-offset": str(offset), "x-ms-blob-committed-block-count": str(blocks),
                                                  "x-ms-request-server-encrypted": "true", "Content-Length": "0"}))  # fmt: skip
            truth.add(cid, "append the line (x-ms-blob-condition-appendpos, x-ms-lease-id)")
        elif step == "metadata":
            etag = f'"0x8DC{hexid(seed + "/etag/meta", 11).upper()}"'
            cid = rec.send("PUT", f"{url}?comp=metadata", status=200,
                           headers=headers({"x-ms-lease-id": lease, "x-ms-meta-reviewedby": "ops-bot", "Content-Length": "0"}),
                           answer_headers=answer({"ETag": etag, "x-ms-request-server-encrypted": "true", "Content-Length": "0"}))  # fmt: skip
            truth.add(cid, "set the metadata reviewedby=ops-bot")
        else:  # release
            cid = rec.send("PUT", f"{url}?comp=lease", status=200, headers=headers({"x-ms-lease-action": "release", "x-ms-lease-id": lease}),
                           answer_headers=answer({"ETag": etag, "Content-Length": "0"}))  # fmt: skip
            truth.add(cid, "release the lease")
    return rec, truth


RECORDED = ["list", "acquire", "append", "metadata", "release"]
SCRIPTS = {
    "good": RECORDED,
    "good_412_retry": ["acquire", "stale_append", "list", "append", "metadata", "release"],
    "missing_write": ["list", "acquire", "append", "release"],
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files(
        {
            "task.json": task,
            "network.json": echo_document(rec, "https://portal.azure.com/#view/Microsoft_Azure_Storage"),
        }
    )


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 21, 6, 1), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, ACCOUNT, "rec_audit_append"), rec)
    attempts = {}
    for kind, steps in {**SCRIPTS, "wrong_entity": RECORDED}.items():
        attempt, _ = play(
            "later", at(2026, 5, 30, 6, 2), steps, "2026-04.log" if kind == "wrong_entity" else "2026-05.log"
        )
        attempts[kind] = _zip(task_doc("", ACCOUNT, f"attempt_{kind}"), attempt)
    attempts["empty"] = _zip(task_doc("", ACCOUNT, "attempt_empty"), Recorder(at(2026, 5, 30, 6, 2)))
    return recording, attempts, truth.document(INSTRUCTION)
