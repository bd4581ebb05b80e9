"""Magento 2 admin (HAR in a ZIP, Chrome, plus the database diff of the shop's own MySQL). Class d
of issue 28, concurrency and session values under names no word list holds: every admin write
carries the session's `form_key` (16 characters, given by the page in a hidden input and in
`window.FORM_KEY`), and every admin URL carries a per-route secret key in its path
(`/key/<64 hex>/`); both differ every session.

Real shapes: the custom admin path (`/admin_x7k2q/`), the product grid's data read
`GET mui/index/render/?namespace=product_listing&...&isAjax=true`, the grid's bookmark save
(`POST mui/bookmark/save/`: grid state, UI-state), the product form's AJAX `validate` (a POST
answered `{"error":false}`, which changes nothing) before its `save` (302 back to the edit page,
"You saved the product."), the mass action `massStatus` with `selected[]`, `namespace` and
`status=2` (302 to the grid, "A total of 1 record(s) have been updated.").

Attempts: `good` (later: another form_key and URL keys, cookies), `good_direct` (opens the edit
page by its URL, no grid search or bookmark first): full marks. `empty`: 0. `missing_write`
(never disables the product), `wrong_entity` (marks down and disables MS10, the other tee the
grid shows): must fail.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.forms.kit import Browser, token
from tests.package.corpus_kit import Clock, clock, diff, task_doc, zip_files
from tests.package.rewards_kit import Truth, hexid

SITE = "https://shop.northwind.example"
ADMIN = "/admin_x7k2q"
INSTRUCTION = (
    "In the Magento admin, mark down the Aero Daily Fitness Tee (SKU MS09): set its price to 24.00 and its "
    "quantity to 150, then disable it from the product grid."
)
PRODUCTS = {"42": ("MS09", "Aero Daily Fitness Tee", "29.000000", "100.0000"),
            "43": ("MS10", "Logan HeatTec Tee", "24.000000", "73.0000")}  # fmt: skip
ASSETS = ("/static/version1715412345/adminhtml/Magento/backend/en_US/css/styles.css",
          "/static/version1715412345/adminhtml/Magento/backend/en_US/requirejs/require.js")  # fmt: skip


@dataclass
class Run:
    clock: Clock
    seed: str


def page(title: str, form_key: str, body: str, message: str = "") -> str:
    notice = (
        f'<div class="messages"><div class="message message-success success"><div data-ui-id="messages-message-success">{message}</div></div></div>'
        if message
        else ""
    )
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title} / Magento Admin</title>
<script>window.FORM_KEY = '{form_key}';</script></head><body class="adminhtml-catalog-product">
<div class="page-wrapper"><main id="anchor-content" class="page-content">{notice}<input name="form_key" type="hidden" value="{form_key}">{body}</main></div></body></html>
"""  # fmt: skip


def play(run: Run, script: list[str], pid: str = "42") -> tuple[Browser, dict[str, Any], Truth]:
    b = Browser(SITE, run.clock, run.seed, cookie_name="admin")
    truth = Truth()
    form_key = token(f"{run.seed}/form_key", 16).replace("-", "x").replace("_", "Q")
    b.cookies["form_key"] = form_key

    def key(route: str) -> str:
        return hexid(f"{route}/{form_key}", 64)

    def last() -> str:
        return str(len(b.entries) - 1)

    sku, name, price, qty = PRODUCTS[pid]
    grid_url = f"{ADMIN}/catalog/product/index/key/{key('catalog/product/index')}/"
    edit_url = f"{ADMIN}/catalog/product/edit/id/{pid}/key/{key('catalog/product/edit')}/"
    rows: dict[str, list[Any]] = {"price": [], "qty": [], "status": [], "bookmark": []}
    xhr = {"X-Requested-With": "XMLHttpRequest", "Accept": "application/json, text/javascript, */*; q=0.01"}
    for step in script:
        if step == "grid":
            b.visit(
                grid_url,
                page(
                    "Products",
                    form_key,
                    '<div data-role="grid-wrapper" data-bind="scope: \'product_listing.product_listing\'"></div>',
                ),
                assets=ASSETS,
            )
            items = [{"entity_id": i, "sku": s, "name": n, "price": p, "qty": q, "status": "1", "type_id": "simple",
                      "actions": {"edit": {"href": f"{SITE}{ADMIN}/catalog/product/edit/id/{i}/key/{key('catalog/product/edit')}/", "label": "Edit"}}}
                     for i, (s, n, p, q) in PRODUCTS.items()]  # fmt: skip
            b.partial(f"{ADMIN}/mui/index/render/?namespace=product_listing&search=Tee&filters%5Bplaceholder%5D=true"
                      f"&paging%5BpageSize%5D=20&paging%5Bcurrent%5D=1&sorting%5Bfield%5D=entity_id&sorting%5Bdirection%5D=asc&isAjax=true",
                      xhr, json.dumps({"items": items, "totalRecords": len(items)}), mime="application/json")  # fmt: skip
        elif step == "bookmark":
            state = {"current": {"search": {"value": "Tee"}, "paging": {"pageSize": 20, "current": 1},
                                 "columns": {"qty": {"visible": True}, "salable_quantity": {"visible": False}}}}  # fmt: skip
            b.submit(f"{ADMIN}/mui/bookmark/save/", [("data", json.dumps(state, separators=(",", ":"))), ("namespace", "product_listing"),
                                                     ("form_key", form_key)], status=200, html="", fetch=True, headers=xhr, mime="application/json")  # fmt: skip
            truth.add(last(), "save the product grid's bookmark (grid state)", "ui_state")
            rows["bookmark"].append({"before": {"namespace": "product_listing", "identifier": "current"},
                                     "after": {"namespace": "product_listing", "identifier": "current", "config": json.dumps(state)}})  # fmt: skip
        elif step == "edit":
            fields = "".join(
                f'<input name="product[{f}]" value="{v}">'
                for f, v in (("name", name), ("sku", sku), ("price", price[:-4]))
            )
            b.visit(
                edit_url,
                page(name, form_key, f'<form id="product_form" data-form-key="{form_key}">{fields}</form>'),
                assets=ASSETS,
            )
            fields_sent = [("product[name]", name), ("product[sku]", sku), ("product[price]", "24.00"), ("product[tax_class_id]", "2"),
                           ("product[quantity_and_stock_status][qty]", "150"), ("product[quantity_and_stock_status][is_in_stock]", "1"),
                           ("product[status]", "1"), ("product[visibility]", "4"), ("product[url_key]", name.lower().replace(" ", "-")),
                           ("form_key", form_key)]  # fmt: skip
            b.submit(f"{ADMIN}/catalog/product/validate/id/{pid}/type/simple/store/0/set/4/key/{key('catalog/product/validate')}/?isAjax=true",
                     fields_sent, status=200, html='{"error":false}', fetch=True, headers=xhr, mime="application/json")  # fmt: skip
            save = f"{ADMIN}/catalog/product/save/id/{pid}/type/simple/store/0/set/4/back/edit/key/{key('catalog/product/save')}/"
            b.submit(
                save,
                fields_sent,
                status=302,
                location=f"{SITE}{ADMIN}/catalog/product/edit/id/{pid}/back/edit/key/{key('catalog/product/edit')}/",
            )
            truth.add(last(), f"save {sku}: price 24.00, qty 150")
            b.visit(f"{ADMIN}/catalog/product/edit/id/{pid}/back/edit/key/{key('catalog/product/edit')}/",
                    page(name, form_key, "", "You saved the product."), assets=ASSETS)  # fmt: skip
            rows["price"].append({"before": {"entity_id": int(pid), "attribute_id": 77, "store_id": 0, "value": float(price)},
                                  "after": {"entity_id": int(pid), "attribute_id": 77, "store_id": 0, "value": 24.0}})  # fmt: skip
            rows["qty"].append(
                {"before": {"product_id": int(pid), "qty": float(qty)}, "after": {"product_id": int(pid), "qty": 150.0}}
            )
        else:  # disable from the grid
            b.submit(f"{ADMIN}/catalog/product/massStatus/key/{key('catalog/product/massStatus')}/",
                     [("selected[]", pid), ("namespace", "product_listing"), ("search", "Tee"), ("filters[placeholder]", "true"),
                      ("status", "2"), ("form_key", form_key)], status=302, location=f"{SITE}{grid_url}")  # fmt: skip
            truth.add(last(), f"disable {sku} (massStatus)")
            b.visit(
                grid_url, page("Products", form_key, "", "A total of 1 record(s) have been updated."), assets=ASSETS
            )
            rows["status"].append({"before": {"entity_id": int(pid), "attribute_id": 97, "store_id": 0, "value": 1},
                                   "after": {"entity_id": int(pid), "attribute_id": 97, "store_id": 0, "value": 2}})  # fmt: skip
    dbdiff = diff(catalog_product_entity_decimal={"updated": rows["price"]}, cataloginventory_stock_item={"updated": rows["qty"]},
                  catalog_product_entity_int={"updated": rows["status"]}, ui_bookmark={"updated": rows["bookmark"]})  # fmt: skip
    return b, dbdiff, truth


def _zip(task: dict[str, Any], b: Browser, dbdiff: dict[str, Any] | None) -> bytes:
    files: dict[str, Any] = {"task.json": task, "magento-admin.har": json.dumps(b.har(), indent=1).encode() + b"\n"}
    if dbdiff is not None:
        files["dbdiff.json"] = dbdiff
    return zip_files(files)


RECORDED = ["grid", "bookmark", "edit", "grid", "disable"]
SCRIPTS = {
    "good": RECORDED,
    "good_direct": ["edit", "grid", "disable"],
    "missing_write": ["grid", "bookmark", "edit"],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    browser, dbdiff, truth = play(Run(clock(2026, 5, 20, 15, 10), "magento-recorded"), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, SITE, "rec_ms09_markdown"), browser, dbdiff)
    attempts = {}
    for kind, script in {**SCRIPTS, "wrong_entity": RECORDED}.items():
        attempt, attempt_diff, _ = play(
            Run(clock(2026, 5, 27, 8, 55), "magento-later"), script, "43" if kind == "wrong_entity" else "42"
        )
        attempts[kind] = _zip(task_doc("", SITE, f"attempt_{kind}"), attempt, attempt_diff)
    empty = Browser(SITE, clock(2026, 5, 27, 8, 55), "magento-empty", cookie_name="admin")
    empty.visit(f"{ADMIN}/admin/dashboard/", page("Dashboard", "Zx8Lq2Wm4Pv6Tn1R", ""), assets=ASSETS)
    attempts["empty"] = _zip(task_doc("", SITE, "attempt_empty"), empty, None)
    return recording, attempts, truth.document(INSTRUCTION)
