"""WordPress admin (HAR in a ZIP, Chrome; recorded with a browser only: no database diff). Class b
of issue 28, a failure inside a 2xx, a server-rendered form: `user-new.php` answers a refused
create with HTTP 200 and the same form again, its error in WordPress's own markup
(`<div class="error"><ul><li><strong>Error:</strong> ...`, the row marked `form-invalid`), where a
successful create redirects (`302 Location: .../users.php?update=add&id=57`). The recording saves
the site tagline (`options.php`, 302 to `options-general.php?settings-updated=true`), types the
new user's email wrong once (the 200 re-render), then creates the user.

Real shapes: nonces in `_wpnonce` / `_wpnonce_create-user` (ten hex characters, other ones every
run), `_wp_http_referer`, `option_page`/`action` fields, the generated password in `pass1`, the
submit button `createuser=Add New User`, the admin heartbeat (`POST admin-ajax.php`,
`action=heartbeat`, every minute: noise).

Attempts: `good` (later: other nonces, password and new user id, no typo), `good_after_error`
(the same typo first, as recorded): full marks. `empty`: 0. `missing_write` (creates the user,
never saves the tagline): must fail. `failed_write` saves the tagline and submits the new user
with a bad email; the form comes back at 200 with the error and the agent stops: no user was
created, so it must not get full marks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.forms.kit import Browser, token
from tests.package.corpus_kit import Clock, clock, task_doc, zip_files
from tests.package.rewards_kit import Truth, hexid

SITE = "https://fieldnotes.northwind.example"
TAGLINE = "Field notes from the Leeds office"
EMAIL = "marta.lopez@northwind.example"
INSTRUCTION = (
    f"In the WordPress admin, change the site tagline to '{TAGLINE}' and add a new Editor account for "
    f"Marta Lopez (username mlopez, email {EMAIL})."
)
ASSETS = ("/wp-admin/load-styles.php?c=0&dir=ltr&load%5Bchunk_0%5D=dashicons,admin-bar&ver=6.5.3",
          "/wp-includes/js/jquery/jquery.min.js?ver=3.7.1")  # fmt: skip
ROLES = ("subscriber", "contributor", "author", "editor", "administrator")


def layout(title: str, body: str) -> str:
    return f"""<!DOCTYPE html>
<html class="wp-toolbar" lang="en-GB"><head><meta charset="UTF-8"><title>{title} &lsaquo; Field Notes &#8212; WordPress</title></head>
<body class="wp-admin wp-core-ui"><div id="wpwrap"><div id="wpcontent"><div id="wpbody-content"><div class="wrap">
<h1 class="wp-heading-inline">{title}</h1>{body}</div></div></div></div></body></html>
"""


def general_page(nonce: str, tagline: str, updated: bool = False) -> str:
    notice = (
        '<div id="setting-error-settings_updated" class="notice notice-success settings-error is-dismissible"><p><strong>Settings saved.</strong></p></div>'
        if updated
        else ""
    )
    return layout("General Settings", f"""{notice}<form method="post" action="options.php" novalidate="novalidate">
<input type='hidden' name='option_page' value='general' /><input type="hidden" name="action" value="update" />
<input type="hidden" id="_wpnonce" name="_wpnonce" value="{nonce}" /><input type="hidden" name="_wp_http_referer" value="/wp-admin/options-general.php" />
<table class="form-table" role="presentation"><tr><th scope="row"><label for="blogname">Site Title</label></th>
<td><input name="blogname" type="text" id="blogname" value="Field Notes" class="regular-text" /></td></tr>
<tr><th scope="row"><label for="blogdescription">Tagline</label></th>
<td><input name="blogdescription" type="text" id="blogdescription" value="{tagline}" class="regular-text" /></td></tr></table>
<p class="submit"><input type="submit" name="submit" id="submit" class="button button-primary" value="Save Changes"  /></p></form>""")  # fmt: skip


def new_user_page(nonce: str, password: str, *, email: str = "", error: str | None = None) -> str:
    errors = f'<div class="error"><ul>\n<li><strong>Error:</strong> {error}</li>\n</ul></div>' if error else ""
    invalid = " form-invalid" if error else ""
    selected = {"subscriber": " selected='selected'"}
    options = "".join(f"<option{selected.get(r, '')} value='{r}'>{r.title()}</option>" for r in ROLES)
    filled = 'value="mlopez"' if error else ""
    return layout("Add New User", f"""{errors}<p>Create a brand new user and add them to this site.</p>
<form method="post" name="createuser" id="createuser" class="validate" novalidate="novalidate">
<input name="action" type="hidden" value="createuser" />
<input type="hidden" id="_wpnonce_create-user" name="_wpnonce_create-user" value="{nonce}" /><input type="hidden" name="_wp_http_referer" value="/wp-admin/user-new.php" />
<table class="form-table" role="presentation">
<tr class="form-field form-required"><th scope="row"><label for="user_login">Username <span class="description">(required)</span></label></th>
<td><input name="user_login" type="text" id="user_login" {filled} aria-required="true" autocapitalize="none" autocorrect="off" autocomplete="off" maxlength="60" /></td></tr>
<tr class="form-field form-required{invalid}"><th scope="row"><label for="email">Email <span class="description">(required)</span></label></th>
<td><input name="email" type="email" id="email" value="{email}" /></td></tr>
<tr class="form-field"><th scope="row"><label for="first_name">First Name </label></th><td><input name="first_name" type="text" id="first_name" value="" /></td></tr>
<tr class="form-field"><th scope="row"><label for="last_name">Last Name </label></th><td><input name="last_name" type="text" id="last_name" value="" /></td></tr>
<tr class="form-field form-required user-pass1-wrap"><th scope="row"><label for="pass1">Password</label></th>
<td><input type="password" name="pass1" id="pass1" class="regular-text" autocomplete="new-password" data-reveal="1" data-pw="{password}" aria-describedby="pass-strength-result" /></td></tr>
<tr><th scope="row">Send User Notification</th><td><input type="checkbox" name="send_user_notification" id="send_user_notification" value="1" checked="checked" /></td></tr>
<tr class="form-field"><th scope="row"><label for="role">Role</label></th><td><select name="role" id="role">{options}</select></td></tr>
</table><p class="submit"><input type="submit" name="createuser" id="createusersub" class="button button-primary" value="Add New User"  /></p></form>""")  # fmt: skip


def users_page(new_id: int) -> str:
    rows = "".join(f'<tr id="user-{uid}"><td class="username column-username"><strong><a href="{SITE}/wp-admin/user-edit.php?user_id={uid}&#038;wp_http_referer=%2Fwp-admin%2Fusers.php">{login}</a></strong></td><td class="role column-role">{role}</td></tr>'
                   for uid, login, role in ((1, "admin", "Administrator"), (12, "jkeane", "Author"), (new_id, "mlopez", "Editor")))  # fmt: skip
    return layout("Users", f'<div id="message" class="updated notice is-dismissible"><p>New user created. <a href="user-edit.php?user_id={new_id}">Edit user</a></p></div>'
                           f'<table class="wp-list-table widefat fixed striped table-view-list users"><tbody id="the-list" data-wp-lists="list:user">{rows}</tbody></table>')  # fmt: skip


@dataclass
class Run:
    clock: Clock
    seed: str
    new_id: int


def play(run: Run, script: list[str]) -> tuple[Browser, Truth]:
    b = Browser(SITE, run.clock, run.seed, cookie_name="wordpress_logged_in_5c1d8e0b2a7f")
    truth = Truth()
    options_nonce = hexid(f"{run.seed}/options", 10)
    user_nonce = hexid(f"{run.seed}/create-user", 10)
    heartbeat_nonce = hexid(f"{run.seed}/heartbeat", 10)
    password = token(f"{run.seed}/pass1", 24)

    def last() -> str:
        return str(len(b.entries) - 1)

    def heartbeat(screen: str) -> None:
        answer = {"wp-auth-check": True, "server_time": int(run.clock.now.timestamp())}
        b.submit("/wp-admin/admin-ajax.php", [("interval", "60"), ("_nonce", heartbeat_nonce), ("action", "heartbeat"),
                                               ("screen_id", screen), ("has_focus", "false")],
                 status=200, html=json.dumps(answer), fetch=True, mime="application/json; charset=UTF-8")  # fmt: skip
        truth.add(last(), "admin heartbeat", "noise")

    for step in script:
        if step == "tagline":
            b.visit(
                "/wp-admin/options-general.php",
                general_page(options_nonce, "Just another WordPress site"),
                assets=ASSETS,
            )
            b.submit("/wp-admin/options.php", [("option_page", "general"), ("action", "update"), ("_wpnonce", options_nonce),
                                               ("_wp_http_referer", "/wp-admin/options-general.php"), ("blogname", "Field Notes"),
                                               ("blogdescription", TAGLINE), ("submit", "Save Changes")],
                     status=302, location=f"{SITE}/wp-admin/options-general.php?settings-updated=true")  # fmt: skip
            truth.add(last(), "save the tagline")
            b.visit(
                "/wp-admin/options-general.php?settings-updated=true",
                general_page(options_nonce, TAGLINE, True),
                assets=ASSETS,
            )
            heartbeat("options-general")
        elif step in ("user", "user_typo", "user_typo_only"):
            b.visit("/wp-admin/user-new.php", new_user_page(user_nonce, password), assets=ASSETS)
            fields = [("action", "createuser"), ("_wpnonce_create-user", user_nonce), ("_wp_http_referer", "/wp-admin/user-new.php"),
                      ("user_login", "mlopez"), ("email", EMAIL), ("first_name", "Marta"), ("last_name", "Lopez"), ("url", ""),
                      ("pass1", password), ("send_user_notification", "1"), ("role", "editor"), ("createuser", "Add New User")]  # fmt: skip
            if step != "user":
                typo = [(n, "marta.lopez@northwind" if n == "email" else v) for n, v in fields]
                b.submit("/wp-admin/user-new.php", typo, status=200,
                         html=new_user_page(user_nonce, password, email="marta.lopez@northwind", error="The email address is not correct."))  # fmt: skip
                truth.add(last(), "create refused: 200 re-render with the error", "failed")
                if step == "user_typo_only":
                    continue
            b.submit(
                "/wp-admin/user-new.php",
                fields,
                status=302,
                location=f"{SITE}/wp-admin/users.php?update=add&id={run.new_id}",
            )
            truth.add(last(), "create the user mlopez")
            b.visit(f"/wp-admin/users.php?update=add&id={run.new_id}", users_page(run.new_id), assets=ASSETS)
    return b, truth


def _zip(task: dict[str, Any], b: Browser) -> bytes:
    har = json.dumps(b.har(), indent=1, ensure_ascii=False).encode() + b"\n"
    return zip_files({"task.json": task, "wp-admin.har": har})


RECORDED = ["tagline", "user_typo"]
SCRIPTS = {
    "good": ["tagline", "user"],
    "good_after_error": RECORDED,
    "missing_write": ["user"],
    "failed_write": ["tagline", "user_typo_only"],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    browser, truth = play(Run(clock(2026, 5, 14, 10, 12), "wp-recorded", 57), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, SITE, "rec_wp_tagline_user"), browser)
    attempts = {}
    for kind, script in SCRIPTS.items():
        attempt, _ = play(Run(clock(2026, 5, 21, 17, 40), "wp-later", 61), script)
        attempts[kind] = _zip(task_doc("", SITE, f"attempt_{kind}"), attempt)
    empty = Browser(SITE, clock(2026, 5, 21, 17, 40), "wp-empty")
    empty.visit("/wp-admin/", layout("Dashboard", "<p>Welcome to WordPress!</p>"), assets=ASSETS)
    attempts["empty"] = _zip(task_doc("", SITE, "attempt_empty"), empty)
    return recording, attempts, truth.document(INSTRUCTION)
