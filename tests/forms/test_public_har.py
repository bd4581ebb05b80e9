"""A HAR a real tool wrote of a real server-rendered app: Charles Proxy recording a person signing
in to TesterHome (Rails 5.2 with rails-ujs and Turbolinks; tests/data/SOURCES.md). Its form post
has only `postData.params`, a repeated `user[remember_me]`, an `X-CSRF-Token` header, and an
answer carrying `Location`; its secrets are the author's published test account."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from typer.testing import CliRunner

from flows.cli import app
from rlauto_core.checkers.views import parse_body
from rlauto_core.config import RunOptions
from rlauto_core.evidence import build_evidence, full_evidence, slim_evidence
from rlauto_core.forms import location_fields
from rlauto_core.importers import import_path
from rlauto_core.package import export_package, volatile_kind
from rlauto_core.package.dataflow import output_locations
from rlauto_core.rules import run_rules
from tests.conftest import DATA
from tests.package.offline import package_offline

HAR = DATA / "har" / "charles_rails_login.har"
PASSWORD = "LongForEver"
CSRF = "0zAKFDDPnNI2+Vwq/iwDPR9vo7KWobfNLAye4EaGBTlsSxMzTNf39lLF9z35f5mcROM7JgOP+azBCuDe84G+XA=="


def secrets() -> list[str]:
    """The password, the CSRF token, and every cookie value the HAR holds."""
    log = json.loads(HAR.read_text())["log"]
    cookies = [c["value"] for e in log["entries"] for part in ("request", "response")
               for c in e[part].get("cookies", []) if len(c.get("value") or "") >= 12]  # fmt: skip
    return [PASSWORD, CSRF, *cookies]


def test_the_rails_sign_in_form_reads_as_fields_and_stays_auth_noise() -> None:
    recording = import_path(HAR)
    evidence = build_evidence(recording)
    sign_in = recording.http_calls[2]
    body = parse_body(sign_in.request_body, sign_in.request_body_encoding, sign_in.header("content-type"))
    assert body == {"utf8": "✓", "user": {"login": "debugtalk", "password": PASSWORD, "remember_me": ["0", "1"]},
                    "commit": "Sign In"}  # fmt: skip
    info = evidence.calls[2]
    assert info.name == "POST /account/sign_in (user[login], user[password], user[remember_me])"
    assert info.state_changing and info.noise_category == "auth"  # signing in is no task write
    assert [f.code for f in run_rules(recording, evidence) if f.severity == "error"] == ["no_state_change"]
    # rails-ujs answered 200 with the next page in Location: what the answer points at
    assert location_fields(sign_in) == {"url": "https://testerhome.com/", "host": "testerhome.com", "path": "/"}


def test_the_sign_in_pages_csrf_token_is_a_volatile_offer() -> None:
    page = import_path(HAR).http_calls[0]
    offers = {path: value for root, path, value in output_locations(page) if root == "html"}
    assert offers["meta.csrf-token"] == [CSRF] and offers["meta.csrf-param"] == ["authenticity_token"]
    assert volatile_kind("meta.csrf-token", CSRF) == "csrf"
    assert offers["inputs.user[remember_me]"] == ["0", "1"]  # the hidden 0 and the checkbox's 1


def test_its_secrets_reach_no_evidence_no_inspect_and_no_package(tmp_path: Path) -> None:
    found = secrets()
    raw = HAR.read_text()
    assert len(found) > 5 and all(s in raw for s in found)
    recording = import_path(HAR)
    evidence = build_evidence(recording)
    views = json.dumps([slim_evidence(recording, evidence), full_evidence(recording, evidence)], ensure_ascii=False)
    result = CliRunner().invoke(app, ["inspect", str(HAR), "--json"])
    assert result.exit_code == 0, result.stderr
    outcome = package_offline(HAR, RunOptions(redact_secrets=True), tmp_path)
    assert outcome.package is not None and not outcome.passed  # no instruction, no task write: a person's turn
    exported = export_package(HAR, outcome.package, tmp_path / "out", redact_secrets=True)
    with zipfile.ZipFile(exported) as archive:
        packaged = {name: archive.read(name).decode("utf-8", "replace") for name in archive.namelist()}
    for where, text in {"evidence": views, "inspect": result.stdout, **packaged}.items():
        for secret in found:
            assert secret not in text, (where, secret[:12])
