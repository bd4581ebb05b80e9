"""Salesforce REST API from a sales-ops script (echo network.json as a bare array, string ids,
epoch-second times, base64 answers; Salesforce is the store: no database diff). Class b of issue
28, a failure inside a 2xx, a composite answer: `POST /services/data/v60.0/composite` with
`allOrNone: false` runs each sub-request on its own and answers HTTP 200 with
`compositeResponse[i].httpStatusCode` per item; one item refused (400, `DUPLICATES_DETECTED`: the
org's duplicate rule matched "Jana Kowalski" at the Swiss sister account) while the other is
created (201). The recording queries the accounts, sends the composite (the contact refused, the
opportunity created), then creates the contact again alone with `Sforce-Duplicate-Rule-Header:
allowSave=true`.

Real shapes: SOQL in the query string, 18-character ids (`001...`, `003...`, `006...`),
`referenceId`s, sub-request answers with `httpHeaders.Location`, `{"id", "success", "errors"}`,
the duplicate error's `duplicateResult` with its `matchResults`, `Sforce-Limit-Info:
api-usage=N/15000`, a 200 `query` answer with `totalSize`, `done`, `attributes`.

Attempts: `good` (later: one composite sent with allowSave, both items 201; other ids, usage
counts), `good_separate` (the contact and the opportunity created by two `sobjects` POSTs): full
marks. `empty`: 0. `missing_write` (the contact only), `failed_write` (the recording's composite
without allowSave: the contact refused inside the 200, and the agent stops: no contact exists),
`wrong_entity` (both created on "Nordwind Logistik AG", the Swiss account): must fail.
"""

from __future__ import annotations

from typing import Any

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_c.recorder import array_id, echo_array
from tests.package.rewards_heldout.recorder import Recorder, at
from tests.package.rewards_kit import Truth, hexid

INSTANCE = "https://nordwind-sales.my.salesforce.com"
API = f"{INSTANCE}/services/data/v60.0"
INSTRUCTION = (
    "In Salesforce, on the account Nordwind Logistik GmbH (Hamburg), add the contact Jana Kowalski, Head of Procurement, "
    "jana.kowalski@nordwind-logistik.de, and the opportunity 'Nordwind - Fleet telematics 2026' at stage Qualification, "
    "amount 84,000, close date 2026-09-30."
)
ACCOUNTS = {"GmbH": ("001Qy00000Lk8mPIAR", "Nordwind Logistik GmbH", "Hamburg"),
            "AG": ("001Qy00000Lk9TbIAJ", "Nordwind Logistik AG", "Zürich")}  # fmt: skip
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def sfid(prefix: str, seed: str) -> str:
    digits = hexid(seed, 30)
    return prefix + "Qy0000" + "".join(ALPHABET[int(digits[i : i + 2], 16) % 62] for i in range(0, 18, 2))


def play(seed: str, start: Any, steps: list[str], account: str = "GmbH") -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    acc = ACCOUNTS[account][0]
    usage = [4100 + int(hexid(seed + "/usage", 3), 16) % 900]
    token = "00DQy000000bX9r!AQ4AQ" + hexid(seed + "/sid", 60)
    base = {"Authorization": f"Bearer {token}", "Accept": "application/json", "User-Agent": "simple-salesforce/1.12.6",
            "X-PrettyPrint": "0"}  # fmt: skip
    contact = {"FirstName": "Jana", "LastName": "Kowalski", "Title": "Head of Procurement",
               "Email": "jana.kowalski@nordwind-logistik.de", "AccountId": acc}  # fmt: skip
    opportunity = {"Name": "Nordwind - Fleet telematics 2026", "StageName": "Qualification", "Amount": 84000,
                   "CloseDate": "2026-09-30", "AccountId": acc}  # fmt: skip
    duplicate = [{"message": "You're creating a duplicate record. We recommend you use an existing record instead.",
                  "errorCode": "DUPLICATES_DETECTED", "fields": [],
                  "duplicateResult": {"allowSave": True, "duplicateRule": "Standard_Contact_Duplicate_Rule",
                                      "duplicateRuleEntityType": "Contact", "errorMessage": "You're creating a duplicate record. We recommend you use an existing record instead.",
                                      "matchResults": [{"entityType": "Contact", "matchEngine": "FuzzyMatchEngine", "rule": "Standard_Contact_Match_Rule_v1_1",
                                                        "size": 1, "success": True, "matchRecords": [{"matchConfidence": 91.5, "record": {
                                                            "attributes": {"type": "Contact", "url": "/services/data/v60.0/sobjects/Contact/003Qy00000DupJnKIAU"},
                                                            "Id": "003Qy00000DupJnKIAU"}}]}]}}]  # fmt: skip

    def answer_headers() -> dict[str, str]:
        usage[0] += 1
        return {"Content-Type": "application/json;charset=UTF-8", "Sforce-Limit-Info": f"api-usage={usage[0]}/15000",
                "X-Request-Id": hexid(f"{seed}/req/{len(rec.exchanges)}", 20), "Vary": "Accept-Encoding"}  # fmt: skip

    def created(kind: str, new: str) -> dict[str, Any]:
        return {"body": {"id": new, "success": True, "errors": []}, "httpHeaders": {"Location": f"/services/data/v60.0/sobjects/{kind}/{new}"},
                "httpStatusCode": 201}  # fmt: skip

    for step in steps:
        if step == "query":
            soql = "SELECT+Id,Name,BillingCity+FROM+Account+WHERE+Name+LIKE+'Nordwind%25'+ORDER+BY+Name"
            records = [{"attributes": {"type": "Account", "url": f"/services/data/v60.0/sobjects/Account/{i}"}, "Id": i, "Name": n, "BillingCity": c}
                       for i, n, c in ACCOUNTS.values()]  # fmt: skip
            rec.send("GET", f"{API}/query?q={soql}", status=200, headers=base, answer={"totalSize": 2, "done": True, "records": records},
                     answer_headers=answer_headers())  # fmt: skip
        elif step in ("composite", "composite_allow", "composite_contact_only"):
            requests = [
                {
                    "method": "POST",
                    "url": "/services/data/v60.0/sobjects/Contact",
                    "referenceId": "newContact",
                    "body": contact,
                }
            ]
            if step != "composite_contact_only":
                requests.append({"method": "POST", "url": "/services/data/v60.0/sobjects/Opportunity", "referenceId": "newOpportunity",
                                 "body": opportunity})  # fmt: skip
            headers = {**base, "Content-Type": "application/json"}
            if step == "composite":
                items = [{"body": duplicate, "httpHeaders": {}, "httpStatusCode": 400, "referenceId": "newContact"}]
            else:
                headers["Sforce-Duplicate-Rule-Header"] = "allowSave=true"
                items = [{**created("Contact", sfid("003", f"{seed}/contact")), "referenceId": "newContact"}]
            if step != "composite_contact_only":
                items.append(
                    {**created("Opportunity", sfid("006", f"{seed}/opportunity")), "referenceId": "newOpportunity"}
                )
            cid = rec.send("POST", f"{API}/composite", status=200, headers=headers, body={"allOrNone": False, "compositeRequest": requests},
                           answer={"compositeResponse": items}, answer_headers=answer_headers())  # fmt: skip
            what = {"composite": "the composite: the opportunity created (201); the contact refused 400 DUPLICATES_DETECTED inside the 200",
                    "composite_allow": "the composite: create the contact and the opportunity (both 201)",
                    "composite_contact_only": "the composite: create the contact"}[step]  # fmt: skip
            truth.add(array_id(cid), what)
        else:  # "contact" or "opportunity", one sobjects POST
            kind = step.capitalize()
            headers = {**base, "Content-Type": "application/json"}
            if kind == "Contact":
                headers["Sforce-Duplicate-Rule-Header"] = "allowSave=true"
            new = sfid("003" if kind == "Contact" else "006", f"{seed}/{step}")
            cid = rec.send("POST", f"{API}/sobjects/{kind}", status=201, headers=headers, body=contact if kind == "Contact" else opportunity,
                           answer={"id": new, "success": True, "errors": []},
                           answer_headers={**answer_headers(), "Location": f"/services/data/v60.0/sobjects/{kind}/{new}"})  # fmt: skip
            truth.add(
                array_id(cid), f"create the {step} (allowSave)" if kind == "Contact" else "create the opportunity"
            )
    return rec, truth


RECORDED = ["query", "composite", "contact"]
SCRIPTS: dict[str, tuple[list[str], str]] = {
    "good": (["query", "composite_allow"], "GmbH"),
    "good_separate": (["query", "contact", "opportunity"], "GmbH"),
    "missing_write": (["query", "composite_contact_only"], "GmbH"),
    "failed_write": (["query", "composite"], "GmbH"),
    "wrong_entity": (["query", "composite_allow"], "AG"),
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files({"task.json": task, "network.json": echo_array(rec, "script://sales-ops/onboard_contact.py")})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 18, 11, 20), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, INSTANCE, "rec_nordwind_onboarding"), rec)
    attempts = {kind: _zip(task_doc("", INSTANCE, f"attempt_{kind}"), play(f"later/{kind}", at(2026, 5, 25, 8, 3), steps, account)[0])
                for kind, (steps, account) in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(task_doc("", INSTANCE, "attempt_empty"), Recorder(at(2026, 5, 25, 8, 3)))
    return recording, attempts, truth.document(INSTRUCTION)
