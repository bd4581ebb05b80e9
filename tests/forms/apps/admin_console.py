"""A Laravel-style admin console: every form is a page navigation carrying `_token`, and the
browser's POST stands for a PUT or a DELETE through `_method`. The recorded person first types a
broken email; the server answers 422 and re-renders the form with the error, then the fixed
form goes through (302 back to the edit page). Then one of the user's API keys is revoked.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.forms.kit import Browser, recording_zip, token
from tests.package.corpus_kit import Clock, clock

SITE = "https://backoffice.fabrikam.example"
INSTRUCTION = "Change Maya Chen's role to Auditor and revoke her 'ci-deploy' API key."
ROLES = {"admin": "Administrator", "auditor": "Auditor", "editor": "Editor", "support": "Support"}
USERS = {"41": "Arjun Mehta", "42": "Maya Chen", "58": "Victor Ng"}
KEYS = {"5521": "ci-deploy", "5530": "grafana-read"}
ASSETS = ("/build/assets/app-Bz3k1Q.css", "/build/assets/app-D8xu2m.js")
EMAIL = "maya.chen@fabrikam.example"


def layout(title: str, csrf: str, body: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="csrf-token" content="{csrf}">
<title>{title} - Backoffice</title><link rel="stylesheet" href="/build/assets/app-Bz3k1Q.css"></head>
<body><header><a href="/admin/users">Users</a> <a href="/admin/audit-log">Audit log</a></header>
<main class="container">{body}</main><script src="/build/assets/app-D8xu2m.js"></script></body></html>
"""


def user_list(csrf: str) -> str:
    rows = "".join(
        f'<tr data-user-id="{uid}"><td>{name}</td><td><a href="/admin/users/{uid}/edit">Edit</a></td></tr>'
        for uid, name in USERS.items()
    )
    return layout("Users", csrf, f"<table>{rows}</table>")


def edit_page(csrf: str, role: str, email: str, keys: dict[str, str], *, error: str | None = None) -> str:
    options = "".join(
        f'<option value="{value}"{" selected" if value == role else ""}>{label}</option>'
        for value, label in ROLES.items()
    )
    invalid = " is-invalid" if error else ""
    feedback = f'<div class="invalid-feedback">{error}</div>' if error else ""
    key_forms = "".join(
        f"""<li data-key-id="{kid}">{label}
  <form method="POST" action="{SITE}/admin/users/42/api-keys/{kid}"><input type="hidden" name="_token" value="{csrf}">
  <input type="hidden" name="_method" value="DELETE"><button type="submit">Revoke</button></form></li>"""
        for kid, label in keys.items()
    )
    form = f"""<form method="POST" action="{SITE}/admin/users/42">
  <input type="hidden" name="_token" value="{csrf}" autocomplete="off"><input type="hidden" name="_method" value="PUT">
  <input class="form-control" name="name" value="Maya Chen">
  <input class="form-control{invalid}" name="email" value="{email}">{feedback}
  <select class="form-select" name="role">{options}</select>
  <button type="submit" class="btn btn-primary">Save</button></form>
<h2>API keys</h2><ul>{key_forms}</ul>"""
    return layout("Edit Maya Chen", csrf, form)


@dataclass
class Run:
    clock: Clock
    seed: str
    typo_first: bool


def play(run: Run, role: str | None, revoke: bool) -> Browser:
    b = Browser(SITE, run.clock, run.seed, cookie_name="backoffice_session")
    b.cookies["XSRF-TOKEN"] = token(f"{run.seed}/xsrf", 120)
    csrf = token(f"{run.seed}/csrf", 40)
    keys = dict(KEYS)
    b.visit("/admin/users", user_list(csrf), assets=ASSETS)
    b.visit("/admin/users/42/edit", edit_page(csrf, "editor", EMAIL, keys), assets=ASSETS)
    if role is not None:
        if run.typo_first:
            broken = "maya.chen@fabrikam"
            error = "The email field must be a valid email address."
            b.submit("/admin/users/42", [("_token", csrf), ("_method", "PUT"), ("name", "Maya Chen"),
                                         ("email", broken), ("role", role)],
                     status=422, html=edit_page(csrf, role, broken, keys, error=error))  # fmt: skip
        b.submit("/admin/users/42", [("_token", csrf), ("_method", "PUT"), ("name", "Maya Chen"),
                                     ("email", EMAIL), ("role", role)],
                 status=302, location=f"{SITE}/admin/users/42/edit")  # fmt: skip
        b.visit("/admin/users/42/edit", edit_page(csrf, role, EMAIL, keys), assets=ASSETS)
    if revoke:
        b.submit("/admin/users/42/api-keys/5521", [("_token", csrf), ("_method", "DELETE")],
                 status=302, location=f"{SITE}/admin/users/42/edit")  # fmt: skip
        keys.pop("5521")
        b.visit("/admin/users/42/edit", edit_page(csrf, role or "editor", EMAIL, keys), assets=ASSETS)
    return b


RECORDED = Run(clock(2026, 5, 13, 10, 2), "admin-recorded", typo_first=True)


def later() -> Run:
    return Run(clock(2026, 5, 20, 17, 45), "admin-later", typo_first=False)


ATTEMPTS = {
    "good": ("auditor", True),
    "wrong_option": ("support", True),  # another role
    "missing_write": ("auditor", False),  # the key stays
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = recording_zip(INSTRUCTION, SITE, "rec_backoffice_maya", play(RECORDED, "auditor", True))
    attempts = {kind: recording_zip("", SITE, f"attempt_{kind}", play(later(), *script))
                for kind, script in ATTEMPTS.items()}  # fmt: skip
    attempts["empty"] = recording_zip("", SITE, "attempt_empty", play(later(), None, False))
    return recording, attempts
