"""Held-out form apps: conventions the tuned corpus (tests/forms/apps) does not use.

Written once, before anything in rlauto_core was changed for them, and scored as they first
came out (docs/packages.md, "Held-out form apps"): camelCase and dotted field names (Spring,
ASP.NET Core MVC model binding), `303` to a relative `?id=` Location (PHP), an id that appears
only in the page the redirect leads to (Spring's pet), UUID and slug ids, fragment-only ids,
htmx `hx-post`/`hx-put`/`hx-delete` answered with fragments, a `CSRF` header instead of a field.

Each app is `build() -> (recording, {kind: attempt})`; `good*` attempts are the task done again
another day (other ids, tokens, optional reads skipped or reordered), `wrong_*` change one
choice or one text, `missing_write` leaves a write out, `empty` does nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from tests.forms.kit import Browser, recording_zip, token
from tests.package.corpus_kit import Clock, clock


def page(title: str, body: str, *, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>\n"


def options(values: dict[str, str]) -> str:
    return "".join(f'<option value="{v}">{label}</option>' for v, label in values.items())


@dataclass
class Day:
    clock: Clock
    seed: str
    ids: tuple[str, ...]  # what the server hands out this day, in order
    skip_reads: bool = False


Script = Callable[[Day, dict[str, object]], Browser]


def build_app(site: str, instruction: str, script: Script, recorded: Day, later: Callable[[], Day],
              golden: dict[str, object], attempts: dict[str, dict[str, object]], name: str) -> Callable[[], tuple[bytes, dict[str, bytes]]]:  # fmt: skip
    def build() -> tuple[bytes, dict[str, bytes]]:
        recording = recording_zip(instruction, site, f"rec_{name}", script(recorded, golden))
        out = {}
        for kind, change in attempts.items():
            day = later()
            if kind.startswith("good_"):
                day.skip_reads = True
            out[kind] = recording_zip("", site, f"attempt_{name}_{kind}", script(day, {**golden, **change}))
        out["empty"] = recording_zip("", site, f"attempt_{name}_empty", script(later(), {**golden, "stop": 0}))
        return recording, out

    return build


def stop_at(choice: dict[str, object], step: int) -> bool:
    return isinstance(choice.get("stop"), int) and step >= int(choice["stop"])  # type: ignore[call-overload]


# 1. Spring MVC clinic: camelCase fields, `_csrf`, absolute Location; the pet's id is only in the
#    owner page the redirect leads to (a link `/owners/11/pets/14/edit`), not in any Location.
CLINIC = "http://clinic.greenhill.example"
PET_TYPES = {"bird": "bird", "cat": "cat", "dog": "dog", "hamster": "hamster"}


def clinic(day: Day, c: dict[str, object]) -> Browser:
    b = Browser(CLINIC, day.clock, day.seed, cookie_name="JSESSIONID")
    owner, pet, other_pet = day.ids
    csrf = lambda: b.fresh("csrf")  # noqa: E731
    if not day.skip_reads:
        b.visit("/owners/find", page("Find owners", '<form action="/owners"><input name="lastName"></form>'))
    b.visit("/owners/new", page("New owner", f'<form method="post"><input type="hidden" name="_csrf" value="{csrf()}">'
            '<input name="firstName"><input name="lastName"><input name="address"><input name="city">'
            '<input name="telephone"><button class="btn" type="submit">Add Owner</button></form>'))  # fmt: skip
    if stop_at(c, 0):
        return b
    b.submit("/owners/new", [("firstName", "Lucia"), ("lastName", str(c["last"])), ("address", "14 Quay Street"),
                             ("city", "Galway"), ("telephone", "0915550147"), ("_csrf", csrf())],
             status=302, location=f"{CLINIC}/owners/{owner}")  # fmt: skip
    b.visit(f"/owners/{owner}", page("Owner", f'<h2>Owner</h2><a href="/owners/{owner}/edit">Edit</a>'
                                     f'<a href="/owners/{owner}/pets/new">Add New Pet</a>'))  # fmt: skip
    b.visit(f"/owners/{owner}/pets/new", page("New pet", f'<form method="post"><input type="hidden" name="_csrf" '
            f'value="{csrf()}"><input name="name"><input type="date" name="birthDate"><select name="type">'
            f'{options(PET_TYPES)}</select><button type="submit">Add Pet</button></form>'))  # fmt: skip
    b.submit(f"/owners/{owner}/pets/new", [("_csrf", csrf()), ("id", ""), ("name", "Biscuit"),
                                           ("birthDate", "2024-03-02"), ("type", str(c["type"]))],
             status=302, location=f"{CLINIC}/owners/{owner}")  # fmt: skip
    pets = f'<a href="/owners/{owner}/pets/{other_pet}/edit">Edit Pet</a>' if not day.skip_reads else ""
    b.visit(f"/owners/{owner}", page("Owner", f'<h2>Pets and Visits</h2><dl><dt>Name</dt><dd>Biscuit</dd></dl>'
            f'<a href="/owners/{owner}/pets/{pet}/edit">Edit Pet</a> <a href="/owners/{owner}/pets/{pet}/visits/new">'
            f"Add Visit</a>{pets}"))  # fmt: skip
    if stop_at(c, 2):
        return b
    b.visit(f"/owners/{owner}/pets/{pet}/visits/new", page("New visit", f'<form method="post"><input type="hidden" '
            f'name="_csrf" value="{csrf()}"><input type="date" name="date"><input name="description"></form>'))  # fmt: skip
    b.submit(f"/owners/{owner}/pets/{pet}/visits/new", [("_csrf", csrf()), ("date", "2026-06-10"),
                                                        ("description", str(c["visit"])), ("petId", pet)],
             status=302, location=f"{CLINIC}/owners/{owner}")  # fmt: skip
    b.visit(f"/owners/{owner}", page("Owner", f'<a href="/owners/{owner}/pets/{pet}/edit">Edit Pet</a>'))
    return b


CLINIC_VISIT = "Annual vaccination and a claw trim"
clinic_app = build_app(
    CLINIC,
    f"Register owner Lucia Byrne (14 Quay Street, Galway, 0915550147), add her dog Biscuit born 2024-03-02, "
    f"and book a visit for Biscuit on 2026-06-10: '{CLINIC_VISIT}'.",
    clinic, Day(clock(2026, 6, 1, 9, 0), "clinic-rec", ("11", "14", "3")),
    lambda: Day(clock(2026, 6, 8, 15, 30), "clinic-later", ("27", "41", "3")),
    {"last": "Byrne", "type": "dog", "visit": CLINIC_VISIT},
    {"good": {}, "good_no_search": {}, "wrong_option": {"type": "cat"}, "wrong_content": {"last": "Burns"},
     "missing_write": {"stop": 2}},
    "clinic",
)  # fmt: skip


# 2. A PHP CRM: one front controller, `303 See Other` to a relative `?id=` Location, the
#    contact's id sent back in a hidden `contact_id` field, the note's id only in a fragment.
CRM = "https://crm.lakeside-motors.example"
STAGES = {"1": "Lead", "2": "Test drive booked", "3": "Negotiating", "4": "Won"}


def php_crm(day: Day, c: dict[str, object]) -> Browser:
    b = Browser(CRM, day.clock, day.seed, cookie_name="PHPSESSID")
    contact, note = day.ids
    tok = token(day.seed + "/tok", 32)
    if not day.skip_reads:
        b.visit("/index.php?page=contacts", page("Contacts", '<a href="index.php?page=contacts&action=new">New</a>'))
    b.visit("/index.php?page=contacts&action=new", page("New contact", f'<form method="post" action="index.php?page='
            f'contacts&action=save"><input type="hidden" name="csrf_token" value="{tok}"><input name="fullname">'
            f'<input name="phone"><select name="stage_id">{options(STAGES)}</select>'
            '<input type="submit" name="save" value="Save contact"></form>'))  # fmt: skip
    if stop_at(c, 0):
        return b
    b.submit("/index.php?page=contacts&action=save", [("csrf_token", tok), ("fullname", "Darius Okafor"),
                                                       ("phone", "+44 7700 900412"), ("stage_id", str(c["stage"])),
                                                       ("save", "Save contact")],
             status=303, location=f"index.php?page=contacts&action=view&id={contact}")  # fmt: skip
    b.visit(f"/index.php?page=contacts&action=view&id={contact}", page("Darius Okafor", f'<form method="post" '
            f'action="index.php?page=notes&action=add"><input type="hidden" name="csrf_token" value="{tok}">'
            f'<input type="hidden" name="contact_id" value="{contact}"><textarea name="body"></textarea>'
            '<input type="submit" name="save" value="Add note"></form>'))  # fmt: skip
    if stop_at(c, 1):
        return b
    b.submit("/index.php?page=notes&action=add", [("csrf_token", tok), ("contact_id", contact),
                                                   ("body", str(c["note"])), ("save", "Add note")],
             status=303, location=f"index.php?page=contacts&action=view&id={contact}#note{note}")  # fmt: skip
    b.visit(f"/index.php?page=contacts&action=view&id={contact}", page("Darius Okafor", f'<p id="note{note}">ok</p>'))
    return b


CRM_NOTE = "Wants the hybrid estate in grey; call back Thursday."
php_crm_app = build_app(
    CRM,
    f"Add Darius Okafor (+44 7700 900412) as a contact at stage 'Test drive booked' and add the note '{CRM_NOTE}'",
    php_crm, Day(clock(2026, 6, 2, 10, 0), "crm-rec", ("318", "77")),
    lambda: Day(clock(2026, 6, 9, 11, 0), "crm-later", ("402", "95")),
    {"stage": "2", "note": CRM_NOTE},
    {"good": {}, "good_direct": {}, "wrong_option": {"stage": "3"},
     "wrong_content": {"note": "Not interested any more."}, "missing_write": {"stop": 1}},
    "php_crm",
)  # fmt: skip


# 3. A Phoenix wiki whose ids are UUIDs: `_csrf_token`, `page[...]` fields, `_method=put`,
#    `302` to `/spaces/eng/pages/<uuid>`.
WIKI = "https://wiki.proseware.example"
PAGE_BODY = "Rotate the signing key every 90 days; keep the last two keys valid."


def wiki(day: Day, c: dict[str, object]) -> Browser:
    b = Browser(WIKI, day.clock, day.seed, cookie_name="_proseware_key")
    page_id = day.ids[0]
    csrf = token(day.seed + "/csrf", 56)
    meta = f'<meta name="csrf-token" content="{csrf}">'
    if not day.skip_reads:
        b.visit("/spaces/eng", page("Engineering", '<a href="/spaces/eng/pages/new">New page</a>', head=meta))
    b.visit("/spaces/eng/pages/new", page("New page", f'<form action="/spaces/eng/pages" method="post">'
            f'<input name="_csrf_token" type="hidden" value="{csrf}"><input name="page[title]">'
            '<textarea name="page[body]"></textarea><button type="submit">Save</button></form>', head=meta))  # fmt: skip
    if stop_at(c, 0):
        return b
    b.submit("/spaces/eng/pages", [("_csrf_token", csrf), ("page[title]", "Key rotation"), ("page[body]", "TODO")],
             status=302, location=f"/spaces/eng/pages/{page_id}")  # fmt: skip
    b.visit(f"/spaces/eng/pages/{page_id}", page("Key rotation", f'<form action="/spaces/eng/pages/{page_id}" '
            f'method="post"><input name="_method" type="hidden" value="put"><input name="_csrf_token" type="hidden" '
            f'value="{csrf}"><textarea name="page[body]"></textarea><select name="page[status]">'
            '<option value="draft">Draft</option><option value="published">Published</option></select>'
            "<button>Save</button></form>", head=meta))  # fmt: skip
    if stop_at(c, 1):
        return b
    b.submit(f"/spaces/eng/pages/{page_id}", [("_method", "put"), ("_csrf_token", csrf), ("page[body]", str(c["body"])),
                                              ("page[status]", str(c["status"]))],
             status=302, location=f"/spaces/eng/pages/{page_id}")  # fmt: skip
    b.visit(f"/spaces/eng/pages/{page_id}", page("Key rotation", f"<article>{c['body']}</article>", head=meta))
    return b


def _uuid(seed: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, seed))


wiki_app = build_app(
    WIKI,
    f"In the Engineering space, create a page 'Key rotation', then set its text to '{PAGE_BODY}' and publish it.",
    wiki, Day(clock(2026, 6, 3, 8, 0), "wiki-rec", (_uuid("wiki-rec"),)),
    lambda: Day(clock(2026, 6, 10, 8, 0), "wiki-later", (_uuid("wiki-later"),)),
    {"body": PAGE_BODY, "status": "published"},
    {"good": {}, "good_direct": {}, "wrong_option": {"status": "draft"},
     "wrong_content": {"body": "Rotate the key every year."}, "missing_write": {"stop": 1}},
    "wiki",
)  # fmt: skip


# 4. A blog admin whose posts are slugs with a random tail (`/posts/rotating-keys-5f2a9c/`),
#    Django style: trailing slashes, `csrfmiddlewaretoken`, tags as repeated fields.
BLOG = "https://blog.fourthcoffee.example"
TAGS = {"3": "security", "5": "ops", "8": "release-notes"}


def blog(day: Day, c: dict[str, object]) -> Browser:
    b = Browser(BLOG, day.clock, day.seed, cookie_name="sessionid")
    slug = day.ids[0]
    csrf = lambda: b.fresh("csrf")  # noqa: E731
    if not day.skip_reads:
        b.visit("/admin/posts/", page("Posts", '<a href="/admin/posts/new/">New</a>'))
    b.visit("/admin/posts/new/", page("New post", f'<form method="post"><input type="hidden" '
            f'name="csrfmiddlewaretoken" value="{csrf()}"><input name="title"><textarea name="body"></textarea>'
            f'<select name="tags" multiple>{options(TAGS)}</select><input type="submit" value="Save draft"></form>'))  # fmt: skip
    if stop_at(c, 0):
        return b
    tags = [("tags", t) for t in c["tags"]]  # type: ignore[attr-defined]
    b.submit("/admin/posts/new/", [("csrfmiddlewaretoken", csrf()), ("title", "Rotating keys safely"),
                                   ("body", str(c["body"])), *tags],
             status=302, location=f"/admin/posts/{slug}/")  # fmt: skip
    b.visit(f"/admin/posts/{slug}/", page("Rotating keys safely", f'<form method="post" action="/admin/posts/{slug}/'
            f'publish/"><input type="hidden" name="csrfmiddlewaretoken" value="{csrf()}">'
            '<input type="submit" value="Publish"></form>'))  # fmt: skip
    if stop_at(c, 1):
        return b
    b.submit(f"/admin/posts/{slug}/publish/", [("csrfmiddlewaretoken", csrf())], status=302,
             location=f"{BLOG}/admin/posts/{slug}/?published=1")  # fmt: skip
    return b


BLOG_BODY = "How we rotate signing keys without downtime."
blog_app = build_app(
    BLOG,
    f"Write a post 'Rotating keys safely' with the text '{BLOG_BODY}', tagged security and ops, and publish it.",
    blog, Day(clock(2026, 6, 4, 9, 0), "blog-rec", ("rotating-keys-safely-5f2a9c",)),
    lambda: Day(clock(2026, 6, 11, 9, 0), "blog-later", ("rotating-keys-safely-e81d07",)),
    {"body": BLOG_BODY, "tags": ["3", "5"]},
    {"good": {}, "good_other_tag_order": {"tags": ["5", "3"]}, "wrong_option": {"tags": ["3", "8"]},
     "wrong_content": {"body": "Keys never need rotating."}, "missing_write": {"stop": 1}},
    "blog",
)  # fmt: skip


# 5. ASP.NET Core MVC orders: dotted and indexed model-binding names (`Order.CustomerId`,
#    `Lines[0].Sku`), `__RequestVerificationToken`, a `200` re-render with a validation summary
#    in the recording, `302` to `/Orders/Details/5012`, then a ship form posting to it.
SHOP = "https://orders.wideworld.example"
CARRIERS = {"ups": "UPS", "dhl": "DHL", "royalmail": "Royal Mail"}


def mvc_orders(day: Day, c: dict[str, object]) -> Browser:
    b = Browser(SHOP, day.clock, day.seed, cookie_name=".AspNetCore.Cookies")
    order = day.ids[0]
    rvt = lambda: "CfDJ8" + b.fresh("rvt")  # noqa: E731
    form = (f'<form method="post" action="/Orders/Create"><input name="Order.CustomerId"><input name="Lines[0].Sku">'
            f'<input name="Lines[0].Quantity"><input name="__RequestVerificationToken" type="hidden" value="{rvt()}">'
            '<button type="submit">Create order</button></form>')  # fmt: skip
    b.visit("/Orders/Create", page("Create order", form))
    if stop_at(c, 0):
        return b
    lines = [("Order.CustomerId", "C-2291"), ("Lines[0].Sku", "WW-TEE-BLK-M"), ("Lines[0].Quantity", str(c["qty"]))]
    if not day.skip_reads:  # the recorded person first forgot the quantity
        b.submit("/Orders/Create", [*lines[:2], ("Lines[0].Quantity", ""), ("__RequestVerificationToken", rvt())],
                 status=200, html=page("Create order", '<div class="validation-summary-errors"><ul><li>The Quantity '
                                       f"field is required.</li></ul></div>{form}"))  # fmt: skip
    b.submit("/Orders/Create", [*lines, ("__RequestVerificationToken", rvt())], status=302,
             location=f"/Orders/Details/{order}")  # fmt: skip
    b.visit(f"/Orders/Details/{order}", page("Order", f'<form method="post" action="/Orders/Ship/{order}">'
            f'<select name="Carrier">{options(CARRIERS)}</select><input name="__RequestVerificationToken" '
            f'type="hidden" value="{rvt()}"><button type="submit">Ship</button></form>'))  # fmt: skip
    if stop_at(c, 1):
        return b
    b.submit(f"/Orders/Ship/{order}", [("Carrier", str(c["carrier"])), ("__RequestVerificationToken", rvt())],
             status=302, location=f"/Orders/Details/{order}")  # fmt: skip
    return b


mvc_orders_app = build_app(
    SHOP,
    "Create an order for customer C-2291 of 3 x WW-TEE-BLK-M and ship it with DHL.",
    mvc_orders, Day(clock(2026, 6, 5, 14, 0), "orders-rec", ("5012",)),
    lambda: Day(clock(2026, 6, 12, 14, 0), "orders-later", ("5077",)),
    {"qty": "3", "carrier": "dhl"},
    {"good": {}, "wrong_option": {"carrier": "ups"}, "wrong_content": {"qty": "2"}, "missing_write": {"stop": 1}},
    "mvc_orders",
)  # fmt: skip


# 6. A Flask + htmx task list: `hx-post` answered `200` with the new item's fragment
#    (`<li id="task-901">`, its id also in the fragment's `hx-put`/`hx-delete` attributes),
#    then `hx-put` and `hx-delete` as real PUT and DELETE; the CSRF token in an `X-CSRFToken`
#    header; a search box firing `hx-get` fragments as the person types.
TASKS = "https://todo.blueyonder.example"


def task_item(task: str, title: str, done: bool) -> str:
    return (f'<li id="task-{task}" class="{"done" if done else ""}"><input type="checkbox" hx-put="/tasks/{task}" '
            f'name="done" {"checked" if done else ""}>{title}<button hx-delete="/tasks/{task}">x</button></li>')  # fmt: skip


def htmx_tasks(day: Day, c: dict[str, object]) -> Browser:
    b = Browser(TASKS, day.clock, day.seed, cookie_name="session")
    task = day.ids[0]
    csrf = token(day.seed + "/csrf", 48)
    hx = {"HX-Request": "true", "HX-Current-URL": TASKS + "/lists/4", "X-CSRFToken": csrf}
    b.visit("/lists/4", page("Groceries", '<form hx-post="/lists/4/tasks" hx-target="#tasks" hx-swap="beforeend">'
            '<input name="title"><input type="date" name="due"></form><ul id="tasks">'
            f"{task_item('880', 'Old milk', False)}</ul>", head=f'<meta name="csrf-token" content="{csrf}">'))  # fmt: skip
    if not day.skip_reads:
        for typed in ("ol", "oat"):
            b.partial(f"/lists/4/search?q={typed}", {**hx, "HX-Trigger": "search"}, "<ul></ul>")
    if stop_at(c, 0):
        return b
    b.submit("/lists/4/tasks", [("title", str(c["title"])), ("due", "2026-06-14")], status=200, fetch=True,
             headers={**hx, "HX-Target": "tasks"}, html=task_item(task, str(c["title"]), False))  # fmt: skip
    if stop_at(c, 1):
        return b
    b.submit(f"/tasks/{task}", [("done", "on")], status=200, fetch=True, headers={**hx, "HX-Target": f"task-{task}"},
             html=task_item(task, str(c["title"]), True))  # fmt: skip
    if c.get("delete", True):
        b.submit(f"/tasks/{c.get('delete_id', '880')}", [], status=200, fetch=True, headers=hx, html="")
    return b


def _put_delete(browser: Browser) -> Browser:
    """htmx sends `hx-put` and `hx-delete` as real PUT and DELETE requests: fix the methods."""
    for entry in browser.entries:
        request = entry["request"]
        url = request["url"]
        if request["method"] == "POST" and "/tasks/" in url and "/lists/" not in url:
            text = request.get("postData", {}).get("text", "")
            request["method"] = "PUT" if text else "DELETE"
            if not text:
                request.pop("postData", None)
                request["bodySize"] = 0
            for header in request["headers"]:
                if header["name"] == ":method":
                    header["value"] = request["method"]
    return browser


htmx_app = build_app(
    TASKS,
    "In the Groceries list, add 'Oat milk' due 2026-06-14, tick it off, and delete the 'Old milk' task.",
    lambda day, c: _put_delete(htmx_tasks(day, c)), Day(clock(2026, 6, 6, 18, 0), "tasks-rec", ("901",)),
    lambda: Day(clock(2026, 6, 13, 18, 0), "tasks-later", ("944",)),
    {"title": "Oat milk"},
    {"good": {}, "good_no_search": {}, "wrong_option": {"delete_id": "872"},
     "wrong_content": {"title": "Soy milk"}, "missing_write": {"delete": False}},
    "htmx_tasks",
)  # fmt: skip


APPS = {
    "clinic": clinic_app,
    "php_crm": php_crm_app,
    "wiki": wiki_app,
    "blog": blog_app,
    "mvc_orders": mvc_orders_app,
    "htmx_tasks": htmx_app,
}
