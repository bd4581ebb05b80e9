"""Canaries: a form app's session secrets (CSRF tokens in hidden inputs, `csrf-token` metas, form
fields and multipart parts; session cookies; a password typed into a form) never reach the
evidence, the model's view, `rlauto inspect`, or a package."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from typer.testing import CliRunner

from flows.cli import app
from rlauto_core.config import RunOptions
from rlauto_core.evidence import build_evidence, full_evidence, slim_evidence
from rlauto_core.importers import import_path
from rlauto_core.redact import REDACTED, redact_body, redact_form_secrets, redact_json, redact_text
from tests.forms.kit import Browser, recording_zip
from tests.package.corpus_kit import clock
from tests.package.offline import package_offline

SITE = "https://desk.example"
TOKEN_META = "CANARY-meta-csrf-9a8b7c6d"
TOKEN_FORM = "CANARY-form-csrf-1f2e3d4c"
TOKEN_PART = "CANARY-part-csrf-5a6b7c8d"
PASSWORD = "CANARY-password-0x77"
CANARIES = (TOKEN_META, TOKEN_FORM, TOKEN_PART, PASSWORD)


def test_form_secrets_are_redacted_where_form_traffic_puts_them() -> None:
    body = f"utf8=%E2%9C%93&authenticity_token={TOKEN_FORM}&user%5Bpassword%5D={PASSWORD}&user%5Blogin%5D=ann"
    assert (
        redact_text(body)
        == f"utf8=%E2%9C%93&authenticity_token={REDACTED}&user%5Bpassword%5D={REDACTED}&user%5Blogin%5D=ann"
    )
    page = (f'<meta name="csrf-param" content="authenticity_token" /><meta content="{TOKEN_META}" name="csrf-token">'
            f"<input type=hidden name='csrfmiddlewaretoken' value='{TOKEN_FORM}'><input name=_csrf value={TOKEN_PART}>"
            '<input name="q" value="printer">')  # fmt: skip
    redacted = redact_text(page)
    assert not any(c in redacted for c in CANARIES)
    assert 'content="authenticity_token"' in redacted and 'value="printer"' in redacted  # the rest is kept
    part = (f'--b\r\nContent-Disposition: form-data; name="authenticity_token"\r\n\r\n{TOKEN_PART}\r\n'
            '--b\r\nContent-Disposition: form-data; name="doc[title]"\r\n\r\nMSA\r\n--b--\r\n')  # fmt: skip
    assert TOKEN_PART not in redact_form_secrets(part) and "MSA" in redact_form_secrets(part)
    # ASP.NET WebForms: the page state blobs and the anti-forgery field, as a form and as hidden inputs
    state = "CANARY-viewstate-" + "Qk9" * 40
    webforms = (f"__EVENTTARGET=&__VIEWSTATE={state}&__VIEWSTATEGENERATOR=CA0B0334&__EVENTVALIDATION={TOKEN_PART}"
                f"&__RequestVerificationToken={TOKEN_FORM}&ctl00%24MainContent%24txtAmount=48.60")  # fmt: skip
    redacted = redact_text(webforms)
    assert not any(c in redacted for c in (state, TOKEN_PART, TOKEN_FORM))
    assert "__VIEWSTATEGENERATOR=CA0B0334" in redacted and "txtAmount=48.60" in redacted
    hidden = f'<input type="hidden" name="__VIEWSTATE" id="__VIEWSTATE" value="{state}" />'
    assert state not in redact_text(hidden) and 'name="__VIEWSTATE"' in redact_text(hidden)
    # the other rules still hold, and prose is left alone
    assert TOKEN_FORM not in (redact_body(f'{{"html": "<input name=\\"_token\\" value=\\"{TOKEN_FORM}\\">"}}') or "")
    assert redact_text("set the title = Jam & Co") == "set the title = Jam & Co"
    assert TOKEN_FORM not in str(redact_json({"postData": {"text": f"_token={TOKEN_FORM}&a=1"}}))


def app_recording(tmp_path: Path) -> Path:
    """A session whose pages, forms, headers and cookies carry the canaries."""
    b = Browser(SITE, clock(2026, 5, 12, 9, 0), "canary", cookie_name="_desk_session")
    page = (f'<html><head><meta name="csrf-token" content="{TOKEN_META}"></head><body>'
            f'<form action="/tickets" method="post"><input type="hidden" name="authenticity_token" value="{TOKEN_FORM}">'
            '<select name="ticket[queue_id]"><option value="7">Hardware</option></select></form></body></html>')  # fmt: skip
    b.visit("/tickets/new", page)
    b.submit("/session", [("authenticity_token", TOKEN_FORM), ("user[email]", "ann@desk.example"),
                          ("user[password]", PASSWORD)], status=303, location="/tickets")  # fmt: skip
    b.submit("/tickets", [("authenticity_token", TOKEN_FORM), ("ticket[subject]", "Printer jams"),
                          ("ticket[queue_id]", "7")], status=303, location="/tickets/88123", turbo=True)  # fmt: skip
    b.submit("/tickets/88123/attachments", [("authenticity_token", TOKEN_PART), ("attachment[note]", "photo")],
             status=302, location="/tickets/88123", boundary="----WebKitFormBoundaryCanary")  # fmt: skip
    b.entries[-1]["request"]["headers"].append({"name": "X-CSRF-Token", "value": TOKEN_META})
    path = tmp_path / "canary.zip"
    path.write_bytes(recording_zip("Open a Hardware ticket 'Printer jams' and attach a note 'photo'", SITE,
                                   "rec_canary", b))  # fmt: skip
    return path


def session_cookies(path: Path) -> list[str]:
    recording = import_path(path)
    return [v.split("=", 1)[1].split(";")[0] for c in recording.http_calls for n, v in c.response_headers
            if n.lower() == "set-cookie"]  # fmt: skip


def test_no_canary_reaches_evidence_inspect_or_a_package(tmp_path: Path) -> None:
    path = app_recording(tmp_path)
    raw = zipfile.ZipFile(path).read("recording.har").decode()
    cookies = session_cookies(path)
    assert cookies and all(c in raw for c in (*CANARIES, *cookies))  # the recording holds them all
    recording = import_path(path)
    evidence = build_evidence(recording)
    views = json.dumps([slim_evidence(recording, evidence), full_evidence(recording, evidence)], ensure_ascii=False)
    result = CliRunner().invoke(app, ["inspect", str(path), "--json"])
    assert result.exit_code == 0, result.stderr
    outcome = package_offline(path, RunOptions(redact_secrets=True), tmp_path / "out")
    assert outcome.passed and outcome.package_path is not None, outcome.error
    with zipfile.ZipFile(outcome.package_path) as archive:
        packaged = {name: archive.read(name).decode("utf-8", "replace") for name in archive.namelist()}
    assert any(name.endswith("task.json") for name in packaged) and any(name.endswith(".har") for name in packaged)
    for where, text in {"evidence": views, "inspect": result.stdout, **packaged}.items():
        for secret in (*CANARIES, *cookies):
            assert secret not in text, (where, secret[:12])


def test_webforms_page_state_and_token_reach_no_package(tmp_path: Path) -> None:
    """The WebForms app of the corpus: every `__VIEWSTATE`, `__EVENTVALIDATION` and
    `__RequestVerificationToken` value it sent or was shown is gone from the package."""
    source = Path(__file__).parent / "corpus" / "recordings" / "webforms_expenses.zip"
    raw = zipfile.ZipFile(source).read("recording.har").decode()
    names = r"__VIEWSTATE|__EVENTVALIDATION|__RequestVerificationToken"
    shown = re.findall(rf'name=\\"(?:{names})\\"[^>]*?value=\\"([^"\\]+)', raw)
    sent = re.findall(rf"(?:{names})=([^&\"]+)", raw)
    secrets = {s for s in shown + sent if len(s) > 20}
    assert len(secrets) >= 6
    outcome = package_offline(source, RunOptions(redact_secrets=True), tmp_path)
    assert outcome.passed and outcome.package_path is not None, outcome.error
    with zipfile.ZipFile(outcome.package_path) as archive:
        text = "".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
    assert "CA0B0334" in text  # the generator's page name stays
    assert not [s[:16] for s in secrets if s in text]
