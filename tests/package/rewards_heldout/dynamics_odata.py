"""Dynamics 365 / Dataverse Web API over OData v4 (echo network.json: numeric ids, epoch-ms times,
header lists; with the database diff of the org's tables). Class d of issue 28, concurrency
values: every record carries `@odata.etag` (`W/"4412203"`) and `versionnumber` (the same row
version as a number); each update sends the ETag back in `If-Match`, with `Prefer:
return=representation` so its answer gives the new ETag, which the next update sends. A task is
created bound to the account with `regardingobjectid_account@odata.bind` (204, its id only in the
`OData-EntityId` header).

Real shapes: `/api/data/v9.2/accounts(<guid>)`, `$select`/`$filter` with OData literals, GUIDs,
`OData-MaxVersion`/`OData-Version: 4.0`, option-set codes (`paymenttermscode` 3 = Net 60), a 412
with Dataverse's error object (`{"error": {"code": "0x80060882", "message": "The version of the
existing record doesn't match the RowVersion property provided."}}`).

Attempts: `good` (later: other ETags and version numbers, task id), `good_412_retry` (its first
update sends a stale ETag, is refused 412, reads the account again and updates): full marks.
`empty`: 0. `missing_write` (no follow-up task), `wrong_entity` (updates "Contoso Ltd" and binds the
task to it): must fail.
"""

from __future__ import annotations

from typing import Any

from tests.package.corpus_kit import diff, task_doc, zip_files
from tests.package.rewards_heldout.recorder import Recorder, at, echo_document
from tests.package.rewards_kit import Truth, uuid_from

ORG = "https://northwind.crm4.dynamics.com"
API = f"{ORG}/api/data/v9.2"
SUBJECT = "Confirm new credit terms with finance"
INSTRUCTION = (
    "In Dynamics 365, raise Contoso Pharmaceuticals' credit limit to 75000 with payment terms Net 60, "
    f"then add a task '{SUBJECT}' due 2026-06-05 regarding that account, and finally set the account's "
    "description to 'Credit terms reviewed May 2026'."
)
ACCOUNTS = {"Contoso Pharmaceuticals": uuid_from("crm/contoso-pharma"), "Contoso Ltd": uuid_from("crm/contoso-ltd")}
ODATA = {"OData-MaxVersion": "4.0", "OData-Version": "4.0", "Accept": "application/json"}


def play(
    seed: str, start: Any, steps: list[str], account: str = "Contoso Pharmaceuticals"
) -> tuple[Recorder, dict[str, Any], Truth]:
    rec = Recorder(start)
    truth = Truth()
    acc = ACCOUNTS[account]
    version = 4412203 if seed == "rec" else 5107788
    auth = {
        **ODATA,
        "Authorization": f"Bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.{uuid_from(seed + '/jwt').replace('-', '')}",
    }
    state: dict[str, Any] = {"creditlimit": 50000, "paymenttermscode": 1, "description": None}
    rows: dict[str, list[Any]] = {"account": [], "task": []}

    def record() -> dict[str, Any]:
        return {"@odata.etag": f'W/"{version}"', "accountid": acc, "name": account, "versionnumber": version, **state}

    def answer_headers(extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"Content-Type": "application/json; odata.metadata=minimal", "OData-Version": "4.0",
                "REQ_ID": uuid_from(f"{seed}/req/{len(rec.exchanges)}"), **(extra or {})}  # fmt: skip

    for step in steps:
        if step == "find":
            rec.send("GET", f"{API}/accounts?$select=name,creditlimit,paymenttermscode,description,versionnumber"
                            f"&$filter=name%20eq%20'{account.replace(' ', '%20')}'", status=200, headers=auth,
                     answer={"@odata.context": f"{API}/$metadata#accounts(name,creditlimit,paymenttermscode,description,versionnumber)",
                             "value": [record()]}, answer_headers=answer_headers())  # fmt: skip
        elif step in ("terms", "stale_terms", "describe"):
            change = (
                {"creditlimit": 75000, "paymenttermscode": 3}
                if step != "describe"
                else {"description": "Credit terms reviewed May 2026"}
            )
            sent = version if step != "stale_terms" else version - 6
            headers = {
                **auth,
                "If-Match": f'W/"{sent}"',
                "Prefer": "return=representation",
                "Content-Type": "application/json",
            }
            if step == "stale_terms":
                version += 2  # a workflow touched the account since this agent last saw it
                rec.send("PATCH", f"{API}/accounts({acc})", status=412, body=change, headers=headers,
                         answer={"error": {"code": "0x80060882", "message": "The version of the existing record doesn't match the RowVersion property provided."}},
                         answer_headers=answer_headers())  # fmt: skip
                continue
            before = {k: state[k] for k in change}
            state.update(change)
            version += 1
            cid = rec.send("PATCH", f"{API}/accounts({acc})", status=200, body=change, headers=headers,
                           answer={"@odata.context": f"{API}/$metadata#accounts/$entity", **record()}, answer_headers=answer_headers())  # fmt: skip
            truth.add(cid, "update the account: " + ", ".join(change))
            rows["account"].append(
                {
                    "before": {"accountid": acc, **before},
                    "after": {"accountid": acc, **change, "versionnumber": version},
                }
            )
        else:  # task
            task = uuid_from(f"{seed}/task")
            body = {"subject": SUBJECT, "scheduledend": "2026-06-05T00:00:00Z", "prioritycode": 1,
                    "regardingobjectid_account@odata.bind": f"/accounts({acc})"}  # fmt: skip
            cid = rec.send("POST", f"{API}/tasks", status=204, body=body, headers={**auth, "Content-Type": "application/json"}, answer=None,
                           answer_headers=answer_headers({"OData-EntityId": f"{API}/tasks({task})", "Location": f"{API}/tasks({task})"}))  # fmt: skip
            truth.add(cid, "create the follow-up task")
            rows["task"].append(
                {
                    "activityid": task,
                    "subject": SUBJECT,
                    "scheduledend": "2026-06-05T00:00:00Z",
                    "regardingobjectid": acc,
                }
            )
    return rec, diff(account={"updated": rows["account"]}, task={"inserted": rows["task"]}), truth


RECORDED = ["find", "terms", "task", "describe"]
SCRIPTS = {
    "good": RECORDED,
    "good_412_retry": ["find", "stale_terms", "find", "terms", "task", "describe"],
    "missing_write": ["find", "terms", "describe"],
}


def _zip(task: dict[str, Any], rec: Recorder, dbdiff: dict[str, Any] | None) -> bytes:
    files: dict[str, Any] = {
        "task.json": task,
        "network.json": echo_document(rec, f"{ORG}/main.aspx?pagetype=entityrecord"),
    }
    if dbdiff is not None:
        files["dbdiff.json"] = dbdiff
    return zip_files(files)


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, dbdiff, truth = play("rec", at(2026, 5, 18, 13, 0), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, ORG, "rec_contoso_credit"), rec, dbdiff)
    attempts = {}
    for kind, steps in {**SCRIPTS, "wrong_entity": RECORDED}.items():
        attempt, attempt_diff, _ = play(
            "later",
            at(2026, 5, 29, 10, 20),
            steps,
            "Contoso Ltd" if kind == "wrong_entity" else "Contoso Pharmaceuticals",
        )
        attempts[kind] = _zip(task_doc("", ORG, f"attempt_{kind}"), attempt, attempt_diff)
    attempts["empty"] = _zip(task_doc("", ORG, "attempt_empty"), Recorder(at(2026, 5, 29, 10, 20)), None)
    return recording, attempts, truth.document(INSTRUCTION)
