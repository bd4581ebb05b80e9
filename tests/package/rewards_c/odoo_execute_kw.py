"""Odoo 17's external JSON-RPC API from a pricing script (echo network.json as a bare array, string
ids, epoch-second times, base64 answers; an Odoo Online database: no database diff). Classes a and
b of issue 28: every call is `POST /jsonrpc` with `{"jsonrpc": "2.0", "method": "call", "params":
{"service": "object", "method": "execute_kw", "args": [db, uid, api_key, model, method, args,
kwargs]}, "id": n}`: the model and the method are positions in `params.args`, never in the URL,
and every answer is HTTP 200 with `result` or an `error` object. The task creates the 2026
wholesale pricelist and archives the 2025 one (`write [[4], {"active": false}]`), a sibling of
the same model the instruction names, listed beside "Wholesale 2025 (CHF)" and "Retail EUR".

Real shapes: `common.version` and `common.authenticate` first (the uid is only in that answer),
`search_read` with domains (`[["name", "ilike", "Wholesale"]]`), many2one values `[id, name]`,
`create` answering the new id as a bare integer, `write` answering `true`, Odoo's error object
`{"code": 200, "message": "Odoo Server Error", "data": {"name": "odoo.exceptions.AccessError",
"message", "debug", "arguments", "context"}}`.

Attempts: `good` (later, the same user: another API key, the script's key having been rotated;
another new pricelist id, request ids), `good_archive_first` (archives before it creates): full
marks. `empty`: 0. `missing_write` (the 2025 pricelist left active), `wrong_entity` (archives
"Wholesale 2025 (CHF)"), `stray_write` (archives both 2025 pricelists), `failed_write` (its
archive is sent with company 2 only in its context and answered 200 with an AccessError: the 2025
pricelist stays active): must fail.
"""

from __future__ import annotations

from typing import Any

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_c.recorder import array_id, echo_array
from tests.package.rewards_heldout.recorder import Recorder, at
from tests.package.rewards_kit import Truth, hexid

SITE = "https://nordhafen-trading.odoo.com"
RPC = f"{SITE}/jsonrpc"
DB = "nordhafen-trading-main-11820354"
INSTRUCTION = (
    "In Odoo, create the pricelist 'Wholesale 2026' in EUR for the company Nordhafen Trading GmbH, then archive the "
    "old pricelist 'Wholesale 2025'."
)
PRICELISTS = {4: ("Wholesale 2025", 1, "EUR"), 6: ("Wholesale 2025 (CHF)", 1, "CHF"), 1: ("Retail EUR", 1, "EUR")}
OLD, CHF = 4, 6
CURRENCY = {"EUR": 125, "CHF": 5}
LOGINS = {2: ("pricing@nordhafen-trading.de", "Pricing Bot")}


def play(seed: str, start: Any, steps: list[tuple[str, int]], uid: int = 2) -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    key = hexid(seed + "/apikey", 40)
    new_id = 9 if seed == "rec" else 12
    headers = {"User-Agent": "python-requests/2.32.3", "Accept": "application/json", "Accept-Encoding": "gzip, deflate"}
    answer_headers = {"Content-Type": "application/json", "Server": "nginx", "X-Content-Type-Options": "nosniff"}
    number = [int(hexid(seed + "/rid", 6), 16) % 900_000]

    def rpc(service: str, method: str, args: list[Any], result: Any = None, error: dict[str, Any] | None = None) -> str:
        number[0] += 1
        body = {
            "jsonrpc": "2.0",
            "method": "call",
            "params": {"service": service, "method": method, "args": args},
            "id": number[0],
        }
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": number[0]}
        if error is not None:
            answer["error"] = error
        else:
            answer["result"] = result
        return rec.send("POST", RPC, status=200, body=body, headers={**headers, "Content-Type": "application/json"}, answer=answer,
                        answer_headers={**answer_headers, "Set-Cookie": f"session_id={hexid(seed + '/sid', 40)}; Expires=Sat, 20 Jun 2026 09:00:00 GMT; Max-Age=604800; HttpOnly; Path=/; SameSite=Lax"})  # fmt: skip

    def kw(model: str, method: str, args: list[Any], kwargs: dict[str, Any], **more: Any) -> str:
        return rpc("object", "execute_kw", [DB, uid, key, model, method, args, kwargs], **more)

    active = dict.fromkeys(PRICELISTS, True)
    context = {"lang": "de_DE", "tz": "Europe/Berlin", "allowed_company_ids": [1]}
    for step, target in steps:
        if step == "login":
            rpc("common", "version", [], {"server_version": "17.0+e", "server_version_info": [17, 0, 0, "final", 0, "e"],
                                          "server_serie": "17.0", "protocol_version": 1})  # fmt: skip
            rpc("common", "authenticate", [DB, LOGINS[uid][0], key, {}], uid)
        elif step == "list":
            rows = [{"id": i, "name": n, "currency_id": [CURRENCY[c], c], "company_id": [co, "Nordhafen Trading GmbH"], "active": active[i]}
                    for i, (n, co, c) in PRICELISTS.items()]  # fmt: skip
            kw("product.pricelist", "search_read", [[["active", "=", True]]],
               {"fields": ["name", "currency_id", "company_id", "active"], "order": "name asc", "context": context}, result=rows)  # fmt: skip
            kw("res.currency", "search_read", [[["name", "=", "EUR"]]], {"fields": ["name", "symbol"], "limit": 1},
               result=[{"id": 125, "name": "EUR", "symbol": "€"}])  # fmt: skip
        elif step == "create":
            values = {
                "name": "Wholesale 2026",
                "currency_id": 125,
                "company_id": 1,
                "discount_policy": "without_discount",
            }
            cid = kw("product.pricelist", "create", [values], {"context": context}, result=new_id)
            truth.add(array_id(cid), "create the pricelist Wholesale 2026")
        elif step == "archive":
            cid = kw("product.pricelist", "write", [[target], {"active": False}], {"context": context}, result=True)
            active[target] = False
            truth.add(array_id(cid), f"archive the pricelist {PRICELISTS[target][0]}")
        elif step == "archive_other_company":  # company 2 only: the record rule hides company 1's pricelist
            name = PRICELISTS[target][0]
            message = (f"Due to security restrictions, you are not allowed to access 'Pricelist' (product.pricelist) records.\n\n"
                       f"Records: {name} (id={target})\nUser: {LOGINS[uid][1]} (id={uid})\n\nThis restriction is due to the following rules:\n"
                       "- Pricelist multi-company\n\nNote: this might be a multi-company issue.")  # fmt: skip
            error = {"code": 200, "message": "Odoo Server Error",
                     "data": {"name": "odoo.exceptions.AccessError", "debug": "Traceback (most recent call last):\n  File \"/home/odoo/src/odoo/odoo/http.py\", "
                              "line 1765, in _serve_db\n    return service_model.retrying(self._serve_ir_http, self.env)\n...\nodoo.exceptions.AccessError: " + message.split("\n")[0],
                              "message": message, "arguments": [message], "context": {}}}  # fmt: skip
            kw(
                "product.pricelist",
                "write",
                [[target], {"active": False}],
                {"context": {**context, "allowed_company_ids": [2]}},
                error=error,
            )
    return rec, truth


RECORDED = [("login", 0), ("list", 0), ("create", 0), ("archive", OLD)]
SCRIPTS: dict[str, list[tuple[str, int]]] = {
    "good": RECORDED,
    "good_archive_first": [("login", 0), ("list", 0), ("archive", OLD), ("create", 0)],
    "missing_write": [("login", 0), ("list", 0), ("create", 0)],
    "wrong_entity": [("login", 0), ("list", 0), ("create", 0), ("archive", CHF)],
    "stray_write": [("login", 0), ("list", 0), ("create", 0), ("archive", OLD), ("archive", CHF)],
    "failed_write": [("login", 0), ("list", 0), ("create", 0), ("archive_other_company", OLD)],
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files({"task.json": task, "network.json": echo_array(rec, "script://pricing/rollover_2026.py")})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 15, 9, 1), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, SITE, "rec_pricelist_rollover"), rec)
    attempts = {kind: _zip(task_doc("", SITE, f"attempt_{kind}"), play("later", at(2026, 5, 22, 13, 27), steps)[0])
                for kind, steps in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(task_doc("", SITE, "attempt_empty"), Recorder(at(2026, 5, 22, 13, 27)))
    return recording, attempts, truth.document(INSTRUCTION)
