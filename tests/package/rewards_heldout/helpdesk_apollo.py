"""A help desk's GraphQL API on Apollo Server (mitmproxy HAR in a ZIP; no database diff). Classes b
and c of issue 28: one endpoint for everything; the ticket read is an automatic persisted query
(GET with `extensions={"persistedQuery":...}` and `variables`, no query text); the view's
preferences are saved by a mutation (UI state); one mutation document has two root fields
(`updateTicket` and `addReply`), and Apollo answers a failure of one of them with partial data:
`{"data": {"updateTicket": {...}, "addReply": null}, "errors": [{"path": ["addReply"],
"extensions": {"code": "FORBIDDEN"}}]}`, HTTP 200. Ids are Relay global ids (`VGlja2V0OjU1MTI=`,
"Ticket:5512") beside the ticket number the instruction names.

Attempts: `good` (later: other reply id, timestamps, trace ids), `good_no_ui_state` (never saves the
view preferences): full marks. `empty`: 0. `missing_write` (never tags the ticket),
`failed_write` (the reply half of `ResolveWithReply` refused inside the 200, as partial data; the
ticket resolved with no reply), `other_operation` (`RemoveTags` with the same variables instead of
`AddTags`), `wrong_entity` (resolves, replies to and tags ticket #5521): must fail.
"""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote

from tests.package.corpus_kit import jdump, task_doc, zip_files
from tests.package.rewards_heldout.recorder import Recorder, at, mitmproxy_har
from tests.package.rewards_kit import Truth, hexid, sha256_hex

SITE = "https://desk.fjordline.example"
GRAPHQL = f"{SITE}/graphql"
REPLY = "The export limit was raised to 50k rows; please retry."
INSTRUCTION = f"In the help desk, resolve ticket #5512 with the public reply '{REPLY}' and tag it 'billing'."
TICKET_QUERY = (
    "query TicketByNumber($number: Int!) { ticketByNumber(number: $number) { id number subject status tags } }"
)
DOCS = {
    "UpdateViewerPreferences": "mutation UpdateViewerPreferences($input: ViewerPreferencesInput!) { updateViewerPreferences(input: $input) { preferences { ticketPane density } } }",
    "ResolveWithReply": ("mutation ResolveWithReply($id: ID!, $body: String!) { updateTicket(id: $id, input: {status: RESOLVED}) "
                         "{ ticket { id status updatedAt } } addReply(ticketId: $id, body: $body, public: true) { reply { id createdAt } } }"),
    "AddTags": "mutation AddTags($ticketId: ID!, $tags: [String!]!) { addTags(ticketId: $ticketId, tags: $tags) { ticket { id tags } } }",
    "RemoveTags": "mutation RemoveTags($ticketId: ID!, $tags: [String!]!) { removeTags(ticketId: $ticketId, tags: $tags) { ticket { id tags } } }",
}  # fmt: skip
SUBJECTS = {5512: "CSV export stops at 10k rows", 5521: "Invoice PDF shows wrong VAT number"}


def gid(kind: str, number: int) -> str:
    return base64.b64encode(f"{kind}:{number}".encode()).decode()


def play(
    seed: str, start: Any, steps: list[str], number: int = 5512, refuse_reply: bool = False
) -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    ticket = gid("Ticket", number)
    tags = ["export"]
    headers = {"Authorization": f"Bearer {hexid(seed + '/jwt', 40)}", "apollographql-client-name": "desk-web",
               "apollographql-client-version": "5.18.2", "Accept": "application/graphql-response+json, application/json"}  # fmt: skip

    def answer_headers() -> dict[str, str]:
        return {
            "Content-Type": "application/json; charset=utf-8",
            "X-Trace-Id": hexid(f"{seed}/trace/{len(rec.exchanges)}", 32),
        }

    def post(op: str, variables: dict[str, Any], answer: dict[str, Any]) -> str:
        body = {"operationName": op, "query": DOCS[op], "variables": variables}
        return rec.send("POST", GRAPHQL, status=200, body=json.dumps(body), headers={**headers, "Content-Type": "application/json"},
                        answer=answer, answer_headers=answer_headers())  # fmt: skip

    stamp = start.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    for step in steps:
        if step == "ticket":
            extensions = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(TICKET_QUERY)}}
            url = f"{GRAPHQL}?operationName=TicketByNumber&variables={quote(jdump({'number': number}))}&extensions={quote(jdump(extensions))}"
            node = {"id": ticket, "number": number, "subject": SUBJECTS[number], "status": "OPEN", "tags": list(tags)}
            rec.send(
                "GET",
                url,
                status=200,
                headers=headers,
                answer={"data": {"ticketByNumber": node}},
                answer_headers=answer_headers(),
            )
        elif step == "prefs":
            cid = post("UpdateViewerPreferences", {"input": {"ticketPane": "wide", "density": "compact"}},
                       {"data": {"updateViewerPreferences": {"preferences": {"ticketPane": "wide", "density": "compact"}}}})  # fmt: skip
            truth.add(Recorder.har_id(cid), "save the viewer's preferences", "ui_state")
        elif step == "resolve":
            updated = {"ticket": {"id": ticket, "status": "RESOLVED", "updatedAt": stamp}}
            if refuse_reply:
                post("ResolveWithReply", {"id": ticket, "body": REPLY},
                     {"data": {"updateTicket": updated, "addReply": None},
                      "errors": [{"message": "You do not have permission to reply publicly on this ticket.", "locations": [{"line": 1, "column": 150}],
                                  "path": ["addReply"], "extensions": {"code": "FORBIDDEN"}}]})  # fmt: skip
                continue
            reply = gid("Reply", int(hexid(seed + "/reply", 5), 16))
            cid = post("ResolveWithReply", {"id": ticket, "body": REPLY},
                       {"data": {"updateTicket": updated, "addReply": {"reply": {"id": reply, "createdAt": stamp}}}})  # fmt: skip
            truth.add(Recorder.har_id(cid), "resolve the ticket and reply publicly")
        elif step in ("tag", "untag"):
            op = "AddTags" if step == "tag" else "RemoveTags"
            if step == "tag":
                tags.append("billing")
            cid = post(
                op,
                {"ticketId": ticket, "tags": ["billing"]},
                {"data": {op[0].lower() + op[1:]: {"ticket": {"id": ticket, "tags": list(tags)}}}},
            )
            truth.add(Recorder.har_id(cid), "tag the ticket billing")
    return rec, truth


RECORDED = ["ticket", "prefs", "resolve", "tag"]
SCRIPTS: dict[str, tuple[list[str], int, bool]] = {
    "good": (RECORDED, 5512, False),
    "good_no_ui_state": (["ticket", "resolve", "tag"], 5512, False),
    "missing_write": (["ticket", "prefs", "resolve"], 5512, False),
    "failed_write": (RECORDED, 5512, True),
    "other_operation": (["ticket", "prefs", "resolve", "untag"], 5512, False),
    "wrong_entity": (RECORDED, 5521, False),
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files({"task.json": task, "desk.har": mitmproxy_har(rec)})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 12, 8, 5), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, SITE, "rec_ticket_5512"), rec)
    attempts = {kind: _zip(task_doc("", SITE, f"attempt_{kind}"), play("later", at(2026, 5, 20, 21, 33), steps, number, refuse)[0])
                for kind, (steps, number, refuse) in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(task_doc("", SITE, "attempt_empty"), Recorder(at(2026, 5, 20, 21, 33)))
    return recording, attempts, truth.document(INSTRUCTION)
