"""A Linear-like issue tracker's web client over GraphQL (echo network.json; a SaaS: no database
diff). Class c of issue 28, GraphQL as a protocol (and class e: the answer carries the issue's
uuid beside its key `ENG-214`, and every write hits the uuid). Apollo Client with batching and
automatic persisted queries, all on one endpoint:
- queries sent as POSTs (`Viewer`, `UserSearch`): reads;
- a persisted-query GET: `?operationName=IssueDetails&variables={"id":"ENG-214"}&extensions=
  {"persistedQuery":{"version":1,"sha256Hash":...}}` (no query text): a read;
- a UI-state mutation, `viewPreferencesUpdate` (the issue view's layout and sub-issue toggle),
  which no task asks for: a good attempt may skip it;
- a batched array body: `[IssueAddLabel, IssueUpdate]` in one POST, answered with an array;
- `commentCreate` with a client-made comment id (`input.id`, a uuid), answers with `lastSyncId`
  (the sync counter: another number every run).

Attempts: `good` (later: other comment id, sync ids, request ids), `good_no_ui_state` (never saves
the view preferences), `good_unbatched` (the two batched mutations sent one per POST): full marks.
`empty`: 0. `missing_write` (no comment), `other_operation` (the batch sends `issueRemoveLabel` with
the same variables instead of `issueAddLabel`: the label is not added), `wrong_entity` (labels,
assigns and comments ENG-213, whose details it read): must fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, jdump, task_doc, zip_files
from tests.package.rewards_kit import Truth, gql, sha256_hex, uuid_from

SITE = "https://linear.app"
GRAPHQL = "https://client-api.linear.app/graphql"
BODY = "Bisected to #5521; Priya is taking it."
INSTRUCTION = f"In Linear, add the 'regression' label to ENG-214, assign it to Priya Raman, and comment '{BODY}'."
ISSUES = {"ENG-214": (uuid_from("issue/214"), "Login button misaligned on Safari"),
          "ENG-213": (uuid_from("issue/213"), "Login form autofocus lost after error")}  # fmt: skip
LABELS = {
    "regression": uuid_from("label/regression"),
    "bug": uuid_from("label/bug"),
    "safari": uuid_from("label/safari"),
}
PRIYA, PRIYANKA = uuid_from("user/priya"), uuid_from("user/priyanka")
VIEWER = uuid_from("user/viewer")
VIEW_PREFS = uuid_from("viewprefs/viewer/issue")
DETAILS = ("query IssueDetails($id: String!) { issue(id: $id) { id identifier title state { id name } assignee { id name } "
           "labels { nodes { id name } } team { id key labels { nodes { id name } } } } }")  # fmt: skip
Q = {
    "Viewer": "query Viewer { viewer { id name email organization { id urlKey } } }",
    "UserSearch": "query UserSearch($term: String!) { users(filter: { displayName: { containsIgnoreCase: $term } }) { nodes { id name displayName } } }",
    "ViewPreferencesUpdate": "mutation ViewPreferencesUpdate($id: String!, $input: ViewPreferencesUpdateInput!) { viewPreferencesUpdate(id: $id, input: $input) { success viewPreferences { id preferences } } }",
    "IssueAddLabel": "mutation IssueAddLabel($id: String!, $labelId: String!) { issueAddLabel(id: $id, labelId: $labelId) { success lastSyncId issue { id labelIds } } }",
    "IssueRemoveLabel": "mutation IssueRemoveLabel($id: String!, $labelId: String!) { issueRemoveLabel(id: $id, labelId: $labelId) { success lastSyncId issue { id labelIds } } }",
    "IssueUpdate": "mutation IssueUpdate($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success lastSyncId issue { id assignee { id name } } } }",
    "CommentCreate": "mutation CommentCreate($input: CommentCreateInput!) { commentCreate(input: $input) { success lastSyncId comment { id body createdAt } } }",
}  # fmt: skip


@dataclass
class Run:
    clock: Clock
    prefix: str
    sync: int
    seed: str


def play(run: Run, script: list[str], key: str = "ENG-214", label_op: str = "IssueAddLabel") -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, f"{SITE}/acme/issue/{key}", prefix=run.prefix)
    truth = Truth()
    issue, title = ISSUES[key]
    labels = [LABELS["safari"]]
    headers = {"apollographql-client-name": "linear-web", "apollographql-client-version": "2026.05.1",
               "linear-client-id": uuid_from(f"{run.seed}/client")}  # fmt: skip

    def post(body: Any) -> str:
        return log.call("POST", GRAPHQL, status=200, headers=headers, body=body, response=answer(body))

    def answer(body: Any) -> Any:
        if isinstance(body, list):
            return [answer(b) for b in body]
        op, variables = body["operationName"], body["variables"]
        if op == "Viewer":
            return {"data": {"viewer": {"id": VIEWER, "name": "Sam Ortiz", "email": "sam@acme.example",
                                        "organization": {"id": uuid_from("org/acme"), "urlKey": "acme"}}}}  # fmt: skip
        if op == "UserSearch":
            nodes = [{"id": PRIYA, "name": "Priya Raman", "displayName": "priya"},
                     {"id": PRIYANKA, "name": "Priyanka Shah", "displayName": "priyanka"}]  # fmt: skip
            return {"data": {"users": {"nodes": nodes}}}
        run.sync += 3
        if op == "ViewPreferencesUpdate":
            return {
                "data": {
                    "viewPreferencesUpdate": {
                        "success": True,
                        "viewPreferences": {"id": VIEW_PREFS, "preferences": variables["input"]["preferences"]},
                    }
                }
            }
        if op in ("IssueAddLabel", "IssueRemoveLabel"):
            if op == "IssueAddLabel":
                labels.append(variables["labelId"])
            return {
                "data": {
                    op[0].lower() + op[1:]: {
                        "success": True,
                        "lastSyncId": run.sync,
                        "issue": {"id": variables["id"], "labelIds": list(labels)},
                    }
                }
            }
        if op == "IssueUpdate":
            return {"data": {"issueUpdate": {"success": True, "lastSyncId": run.sync,
                                             "issue": {"id": variables["id"], "assignee": {"id": PRIYA, "name": "Priya Raman"}}}}}  # fmt: skip
        made = variables["input"]
        return {"data": {"commentCreate": {"success": True, "lastSyncId": run.sync,
                                           "comment": {"id": made["id"], "body": made["body"], "createdAt": run.clock.now.isoformat()[:23] + "Z"}}}}  # fmt: skip

    label_body = gql(Q[label_op], {"id": issue, "labelId": LABELS["regression"]}, label_op)
    assign_body = gql(Q["IssueUpdate"], {"id": issue, "input": {"assigneeId": PRIYA}}, "IssueUpdate")
    for step in script:
        if step == "viewer":
            post(gql(Q["Viewer"], {}, "Viewer"))
        elif step == "details":
            extensions = {"persistedQuery": {"version": 1, "sha256Hash": sha256_hex(DETAILS)}}
            url = (f"{GRAPHQL}?operationName=IssueDetails&variables={quote(jdump({'id': key}))}"
                   f"&extensions={quote(jdump(extensions))}")  # fmt: skip
            node = {"id": issue, "identifier": key, "title": title, "state": {"id": uuid_from("state/todo"), "name": "Todo"},
                    "assignee": None, "labels": {"nodes": [{"id": LABELS["safari"], "name": "safari"}]},
                    "team": {"id": uuid_from("team/eng"), "key": "ENG", "labels": {"nodes": [{"id": v, "name": k} for k, v in LABELS.items()]}}}  # fmt: skip
            log.call("GET", url, status=200, headers=headers, response={"data": {"issue": node}})
        elif step == "ui_state":
            cid = post(gql(Q["ViewPreferencesUpdate"], {"id": VIEW_PREFS, "input": {"preferences": {"layout": "list", "showSubIssues": False}}},
                           "ViewPreferencesUpdate"))  # fmt: skip
            truth.add(cid, "save the issue view's preferences", "ui_state")
        elif step == "users":
            post(gql(Q["UserSearch"], {"term": "priya"}, "UserSearch"))
        elif step == "batch":
            cid = post([label_body, assign_body])
            truth.add(cid, "batch: add the regression label, assign Priya")
        elif step == "label":
            cid = post(label_body)
            truth.add(cid, "add the regression label")
        elif step == "assign":
            cid = post(assign_body)
            truth.add(cid, "assign Priya")
        elif step == "comment":
            comment = uuid_from(f"{run.seed}/comment")
            cid = post(
                gql(Q["CommentCreate"], {"input": {"id": comment, "issueId": issue, "body": BODY}}, "CommentCreate")
            )
            truth.add(cid, "comment on the issue")
    return log, truth


RECORDED = ["viewer", "details", "ui_state", "users", "batch", "comment"]
SCRIPTS = {
    "good": RECORDED,
    "good_no_ui_state": ["viewer", "details", "users", "batch", "comment"],
    "good_unbatched": ["viewer", "details", "ui_state", "users", "label", "assign", "comment"],
    "missing_write": ["viewer", "details", "ui_state", "users", "batch"],
}
OTHER = {
    "other_operation": (RECORDED, "ENG-214", "IssueRemoveLabel"),
    "wrong_entity": (RECORDED, "ENG-213", "IssueAddLabel"),
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(Run(clock(2026, 5, 18, 9, 30), "r", 1804412, "linear-rec"), RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_eng_214"), log, None))
    attempts = {}
    for kind, (script, key, label_op) in {
        **{k: (v, "ENG-214", "IssueAddLabel") for k, v in SCRIPTS.items()},
        **OTHER,
    }.items():
        later = Run(clock(2026, 5, 25, 14, 6), "a", 1867390, "linear-later")
        attempt_log, _ = play(later, script, key, label_op)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 5, 25, 14, 6), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
