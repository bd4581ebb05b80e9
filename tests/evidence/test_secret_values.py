"""Redaction by value: a secret found once (a header, a field, a cookie, a form's token) is removed
wherever else it recurs in the same recording (an answer's body, free text, a URL, a later request
under another name), in evidence, `rlauto inspect`, the package and its exported files; values
that are data (a project key `ENG`, ids, names, a short `sid`, a wordy value under a secret name)
stay."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from rlauto_core.config import RunOptions
from rlauto_core.evidence import build_evidence, full_evidence, slim_evidence
from rlauto_core.importers import import_bytes, import_path
from rlauto_core.package import export_package, package_to_json
from rlauto_core.pipeline import analysis_for, run_item
from tests.in_process_cli import invoke
from tests.recording_builders import api_recording, http, mcp_recording, tool

BASE = "https://jira.example.com"
TOKEN = "CANARY-header-Yk3Jd9Qm2LxP0vRt"  # sent as a bearer token, echoed later in a body and a URL
SESSION = "CANARY-session-8f2kQ7wL1xZ4"  # a login's answer names it; a later request sends it as `clientRef`
PASSWORD = "CANARY-pw-5tGb7Yhn"
NAMED = {  # each newly covered name, its own canary, sent in a form; echoed in the form's answer
    "pwd": "CANARY-pwd-1aQ9zX",
    "passwd": "CANARY-passwd-2bW8y",
    "session_key": "CANARY-sk-3cE7xV",
    "sessionid": "CANARY-sid-4dR6wB",
    "PHPSESSID": "CANARY-php-5eT5vN",
    "form_key": "CANARY-fk-6fY4uM",
    "xsrf": "CANARY-xsrf-7gU3t",
    "sid": "k3Jd9Qm2LxP0vRt7sWc4",
}
CANARIES = (TOKEN, SESSION, PASSWORD, *NAMED.values())
KEPT = ("ENG", "ENG-43", "Engineering", "10043", "Fix login", "KSFO", "accepted", "ana")


def echo_recording() -> bytes:
    auth = {"authorization": f"Bearer {TOKEN}", "cookie": f"JSESSIONID={SESSION}; theme=dark"}
    form = "&".join(f"{name}={value}" for name, value in NAMED.items()) + "&key=ENG&title=Runbook"
    requests = [
        http("r1", "POST", f"{BASE}/rest/auth/1/session", body={"username": "ana", "password": PASSWORD},
             response={"session": {"name": "JSESSIONID", "value": SESSION}, "token_type": "Bearer"}),
        http("r2", "GET", f"{BASE}/rest/api/2/project?key=ENG", headers=auth,
             response={"projects": [{"id": "10000", "key": "ENG", "name": "Engineering"}], "cookie_consent": "accepted"}),
        http("r3", "POST", f"{BASE}/rest/api/2/issue", status=201, headers=auth,
             body={"fields": {"project": {"key": "ENG"}, "summary": "Fix login"}, "clientRef": SESSION},
             response={"id": "10043", "key": "ENG-43", "resolution": "accepted",
                       "debug": f"authorised by {TOKEN} for ana",
                       "export": f"{BASE}/export/ENG-43.csv?ref={TOKEN}"}),
        http("r4", "GET", f"{BASE}/rest/api/2/issue/10043?expand=names&ref={TOKEN}", headers=auth,
             response={"id": "10043", "key": "ENG-43", "fields": {"summary": "Fix login"}}),
        http("r5", "POST", f"{BASE}/secure/Preferences.jspa", headers={**auth, "content-type":
             "application/x-www-form-urlencoded"}, response={"saved": True, "echo": form}),
        http("r6", "GET", f"{BASE}/rest/weather?sid=KSFO", headers=auth, response={"station": "KSFO"}),
    ]  # fmt: skip
    requests[4]["requestBody"] = form
    return api_recording(requests, "Create the issue 'Fix login' in project ENG")


def _leaks(text: str) -> list[str]:
    return [c for c in CANARIES if c in text]


def test_every_secret_found_by_name_or_shape_is_found_once_and_data_is_not() -> None:
    from rlauto_core.secret_values import recorded_secrets

    found = recorded_secrets(import_bytes(echo_recording(), "echo.zip"))
    assert set(CANARIES) <= set(found.values)
    assert not [v for v in found.values if v in (*KEPT, "Bearer", "dark", "10000")]


def test_an_echoed_secret_reaches_no_evidence_and_no_inspect_report(tmp_path: Path) -> None:
    data = echo_recording()
    path = _file(tmp_path, data)
    assert all(c in zipfile.ZipFile(path).read("network.json").decode() for c in CANARIES)  # planted
    recording = import_bytes(data, "echo.zip")
    evidence = build_evidence(recording)
    views = json.dumps([slim_evidence(recording, evidence), full_evidence(recording, evidence)], ensure_ascii=False)
    assert not _leaks(views)
    assert all(k in views for k in KEPT)
    result = invoke("inspect", str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert not _leaks(result.stdout) and "ENG" in result.stdout


def test_an_echoed_secret_reaches_no_package_snapshot_or_exported_file(tmp_path: Path) -> None:
    path = _file(tmp_path, echo_recording())
    recording = import_path(path)
    options = RunOptions(redact_secrets=True)
    written: list[str] = []
    done = run_item(recording, options, *analysis_for(None, options),
                    on_iteration=lambda s: written.append(json.dumps(s.model_dump(mode="json"))) or {})  # fmt: skip
    task = json.dumps(package_to_json(done.package), ensure_ascii=False)
    assert not _leaks(task) and not _leaks("".join(written)) and not _leaks(done.outcome.model_dump_json())
    assert "Fix login" in task and "ENG-43" in task and "ENG" in task
    zipped = export_package(path, done.package, tmp_path / "out", root_prefix=recording.root_prefix,
                            redact_secrets=True)  # fmt: skip
    with zipfile.ZipFile(zipped) as archive:
        files = {name: archive.read(name).decode() for name in archive.namelist()}
    assert set(files) == {"task.json", "network.json"}
    for name, text in files.items():
        assert not _leaks(text), (name, _leaks(text))
    network = json.loads(files["network.json"])
    assert network["requests"][2]["responseBody"].count("[REDACTED]") == 2  # the body's echo and the URL's
    assert json.loads(network["requests"][1]["responseBody"])["projects"][0] == {
        "id": "10000", "key": "ENG", "name": "Engineering"
    }  # fmt: skip
    assert "sid=KSFO" in network["requests"][5]["url"]


def test_a_tool_calls_secret_is_removed_from_later_calls_under_other_names() -> None:
    """MCP: a result names a session key; a later call sends it as `ref`, a third echoes it."""
    key = "CANARY-mcp-9hI2oP4kL"
    calls = [
        tool("c1", "crm_login", {"user": "ana"}, {"structuredContent": {"session_key": key, "user": "ana"}}),
        tool("c2", "crm_create_contact", {"name": "Ines Duarte", "ref": key}, {"structuredContent": {"id": "C77"}}),
        tool("c3", "crm_get_contact", {"id": "C77"}, {"content": [{"type": "text", "text": f"C77 opened with {key}"}]}),
    ]
    recording = import_bytes(mcp_recording(calls, "Add the contact Ines Duarte"), "crm.zip")
    evidence = build_evidence(recording)
    views = json.dumps([slim_evidence(recording, evidence), full_evidence(recording, evidence)])
    assert key not in views and "Ines Duarte" in views and "C77" in views


def test_a_forms_hidden_token_is_removed_where_it_recurs_under_other_names() -> None:
    """A token first seen as a page's hidden input, sent back in a header and a field whose names
    no list holds and echoed in a later answer's text: gone from all of them; the form's data stay."""
    hidden = "CANARY-hidden-Qm4vT8sK2pLw"
    page = (f'<form action="/tickets" method="post"><input type="hidden" name="authenticity_token" '
            f'value="{hidden}"><input name="ticket[subject]" value=""></form>')  # fmt: skip
    calls = [
        http("r1", "GET", f"{BASE}/tickets/new", response=None),
        http("r2", "POST", f"{BASE}/tickets", status=201, headers={"x-desk-ref": hidden},
             body={"ticket": {"subject": "Printer jam"}, "formRef": hidden},
             response={"id": "T-88", "subject": "Printer jam", "note": f"accepted with ref {hidden}"}),
    ]  # fmt: skip
    calls[0]["responseBody"] = page
    calls[0]["responseHeaders"] = {"content-type": "text/html; charset=utf-8"}
    recording = import_bytes(api_recording(calls, "Open the ticket 'Printer jam'"), "desk.zip")
    from rlauto_core.secret_values import recorded_secrets

    assert hidden in recorded_secrets(recording).values
    evidence = build_evidence(recording)
    views = json.dumps([slim_evidence(recording, evidence), full_evidence(recording, evidence)], ensure_ascii=False)
    assert hidden not in views and "Printer jam" in views and "T-88" in views


def test_a_password_an_rpc_sign_in_sends_by_position_reaches_no_package() -> None:
    """Odoo's JSON-RPC: `authenticate(db, login, password, {})`, then `execute_kw(db, uid, password,
    ...)` on every call. No name says which argument is the password; the sign-in's order does
    (after the user's identity), and it is then removed from every call; the database name and the
    record's values stay."""
    key = "CANARY-odoo-3f9c1a7e55d2b804"
    db = "nordhafen-main-1182"

    def rpc(call_id: str, service: str, method: str, args: list[Any], result: Any) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "method": "call", "params": {"service": service, "method": method, "args": args}}
        return http(
            call_id, "POST", f"{BASE}/jsonrpc", body=body, response={"jsonrpc": "2.0", "id": 1, "result": result}
        )

    calls = [
        rpc("r1", "common", "authenticate", [db, "pricing@nordhafen.example", key, {}], 2),
        rpc("r2", "object", "execute_kw", [db, 2, key, "product.pricelist", "create", [{"name": "Wholesale 2026"}]], 9),
        rpc("r3", "object", "execute_kw", [db, 2, key, "product.pricelist", "write", [[4], {"active": False}]], True),
    ]
    recording = import_bytes(
        api_recording(calls, "Create the pricelist 'Wholesale 2026' and archive pricelist 4"), "o.zip"
    )
    from rlauto_core.secret_values import recorded_secrets

    assert key in recorded_secrets(recording).values and db not in recorded_secrets(recording).values
    options = RunOptions()
    done = run_item(recording, options, *analysis_for(None, options))
    assert done.package is not None
    task = json.dumps(package_to_json(done.package), ensure_ascii=False)
    assert key not in task and "Wholesale 2026" in task


def test_sign_in_passwords_by_position_and_nothing_else() -> None:
    from rlauto_core.protocols.rpc_sign_in import sign_in_passwords

    def body(method: str, args: Any, nested: bool = True) -> str:
        if nested:
            return json.dumps({"jsonrpc": "2.0", "method": "call", "params": {"method": method, "args": args}})
        return json.dumps({"jsonrpc": "2.0", "method": method, "params": args})

    assert sign_in_passwords(body("authenticate", ["db", "ana@x.example", "s3cret-pw", {}])) == ["s3cret-pw"]
    assert sign_in_passwords(body("user.logIn", ["ana", "hunter22"], nested=False)) == ["hunter22"]
    assert sign_in_passwords(body("session.sign_in", ["db", "ana", "pw-9f8e"])) == ["pw-9f8e"]
    assert sign_in_passwords(body("execute_kw", ["db", 2, "k", "res.partner", "read"])) == []  # no sign-in
    assert sign_in_passwords(body("loginfo", ["a", "b"], nested=False)) == []  # a word that only starts alike
    for hostile in ("", "[1, 2]", '{"method": "login", "params": "x"}', '{"method": ', "{" * 100_000,
                    json.dumps({"method": "login", "params": [None, 3, {"a": 1}]}), "x" * 2_000_000):  # fmt: skip
        assert sign_in_passwords(hostile) == []


def test_secret_values_keep_what_they_do_not_know_and_find_every_spelling() -> None:
    from rlauto_core.secret_values import SecretValues, secrets_in_json

    values = secrets_in_json({"headers": [{"name": "Cookie", "value": "sid=ab/cd+ef12==; lang=en"}]})
    text = "echo ab/cd+ef12== and ab%2Fcd%2Bef12%3D%3D and ab\\/cd+ef12== in en"
    assert values.text(text) == "echo [REDACTED] and [REDACTED] and [REDACTED] in en"
    assert SecretValues().value({"a": ["x"]}) == {"a": ["x"]}
    assert values.value({"ab/cd+ef12==": 1, "n": 2}) == {"[REDACTED]": 1, "n": 2}


def _file(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "echo.zip"
    path.write_bytes(data)
    return path
