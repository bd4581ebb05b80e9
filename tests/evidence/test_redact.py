"""Redaction: secret headers, token-like query parameters and keys, bearer tokens in text."""

from __future__ import annotations

import pytest

from rlauto_core.redact import REDACTED, redact_body, redact_json, redact_text, redact_url

CANARY = "CANARY-a1b2c3d4e5f6g7h8"


def test_url_query_tokens_and_credentials_are_redacted() -> None:
    url = f"https://u:{CANARY}@api.example.com/v1/x?access_token={CANARY}&page=2&sig={CANARY}"
    redacted = redact_url(url)
    assert CANARY not in redacted
    assert "page=2" in redacted and "api.example.com/v1/x" in redacted


def test_json_headers_keys_and_nested_values() -> None:
    value = {
        "headers": [{"name": "Authorization", "value": f"Bearer {CANARY}"}, {"name": "Accept", "value": "json"}],
        "requestHeaders": {"cookie": f"sid={CANARY}", "x-api-key": CANARY},
        "body": {"password": CANARY, "max_tokens": 100, "note": f"token {CANARY}"},
    }
    redacted = redact_json(value)
    assert CANARY not in str(redacted)
    assert redacted["headers"][1]["value"] == "json"
    assert redacted["body"]["max_tokens"] == 100
    assert redacted["requestHeaders"]["cookie"] == REDACTED


def test_bodies_json_form_and_text() -> None:
    assert CANARY not in (redact_body(f'{{"refresh_token": "{CANARY}", "a": 1}}') or "")
    assert CANARY not in (redact_body(f"grant_type=password&password={CANARY}") or "")
    assert CANARY not in redact_text(f"Authorization: Bearer {CANARY}")
    assert redact_text("nothing secret here") == "nothing secret here"


def test_har_cookie_lists_lose_their_values_and_keep_their_names() -> None:
    """A HAR's `cookies` pairs are named after the cookie (`bsess`), not after a secret: the
    list's key says the values are credentials."""
    value = {"request": {"cookies": [{"name": "bsess", "value": CANARY, "path": "/"}],
                         "queryString": [{"name": "page", "value": "2"}]},
             "response": {"cookies": [{"name": "theme", "value": CANARY, "httpOnly": True}]}}  # fmt: skip
    redacted = redact_json(value)
    assert CANARY not in str(redacted)
    assert redacted["request"]["cookies"] == [{"name": "bsess", "value": REDACTED, "path": "/"}]
    assert redacted["request"]["queryString"] == [{"name": "page", "value": "2"}]
    assert redacted["response"]["cookies"][0]["httpOnly"] is True


def test_redact_strings_scrubs_every_string_inside_and_keeps_the_shape() -> None:
    from rlauto_core.redact import REDACTED, redact_strings

    canary = "canary-typed-key-5b1e"
    value = {"steps": [{"kind": "type", "text": f"use {canary}"}, 3, None], "name": "Bearer abc.def.ghi"}
    assert redact_strings(value, (canary,)) == {
        "steps": [{"kind": "type", "text": f"use {REDACTED}"}, 3, None],
        "name": f"Bearer {REDACTED}",
    }


LIVE_KEY = "Yk3Jd9Qm2LxP0vRt7sWc4hNa8eUf1ZoB"  # a random API key, as a response may hand one out


def test_a_bare_key_or_code_with_a_human_value_is_data_and_stays() -> None:
    """A Confluence space key, a Jira issue key, a country code: the very names an instruction uses."""
    value = {
        "results": [{"id": 98304, "key": "ENG", "name": "Engineering"}],
        "issue": {"key": "ENG-42", "id": "10042"},
        "country": {"code": "DE", "name": "Germany"},
        "release": {"key": "release-2026-05-notes"},
    }
    assert redact_json(value) == value
    assert redact_url("https://wiki.example.com/rest/api/space?key=ENG&expand=homepage").endswith(
        "key=ENG&expand=homepage"
    )
    assert redact_text("see https://wiki.example.com/display?key=ENG&code=DE") == (
        "see https://wiki.example.com/display?key=ENG&code=DE"
    )
    assert redact_body("key=ENG&title=Runbook") == "key=ENG&title=Runbook"


def test_a_bare_key_or_code_holding_a_credential_is_redacted() -> None:
    value = {
        "integration": {"name": "CI bot", "key": LIVE_KEY},
        "webhook": {"key": "whsec_9f8e7d6c5b4a39281706f5e4"},
        "maps": {"key": "AIzaSyD4k2Lm9Qx7Vt3Rw8Yz1Ab5Cd6Ef7Gh8Ij"},
        "oauth": {"code": "4c9d2e7f1a8b3c6d5e0f9a2b"},
        "headers": [{"name": "key", "value": LIVE_KEY}, {"name": "key", "value": "ENG"}],
    }
    redacted = redact_json(value)
    text = str(redacted)
    assert LIVE_KEY not in text and "whsec_9f8e" not in text and "AIzaSyD4" not in text and "4c9d2e7f" not in text
    assert redacted["integration"]["name"] == "CI bot" and redacted["headers"][1] == {"name": "key", "value": "ENG"}
    assert LIVE_KEY not in redact_url(f"https://maps.example.com/api?key={LIVE_KEY}&q=Berlin")
    assert LIVE_KEY not in redact_text(f"GET /v1/x?key={LIVE_KEY}&page=2") and "page=2" in redact_text(
        f"?key={LIVE_KEY}&page=2"
    )
    assert LIVE_KEY not in (redact_body(f"key={LIVE_KEY}&title=Runbook") or "")


def test_names_that_say_credential_are_redacted_whatever_they_hold() -> None:
    value = {
        "csrf": "c5Rf8Kq2Wm", "_csrf": "short", "csrfmiddlewaretoken": "x", "X-XSRF-TOKEN": "x",
        "api_key": "k", "apiKey": "k", "access_token": "t", "refresh_token": "t", "secret": "s", "password": "p",
    }  # fmt: skip
    assert set(redact_json(value).values()) == {REDACTED}
    # ids and names are data, short or long: a random-looking message id is no credential
    kept = {"id": LIVE_KEY, "name": "ENG", "_id": "q8Zk2XpN4tLm7RvWc", "idempotencyKey": "9f1c2e4a-1b7d-4e0a"}
    assert redact_json(kept) == kept


def test_looks_like_credential_shapes() -> None:
    from rlauto_core.redact import looks_like_credential

    for secret in (LIVE_KEY, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU", "sk_live_51HxYzAbCdEfGhIjKl",
                   "550e8400-e29b-41d4-a716-446655440000"):  # fmt: skip
        assert looks_like_credential(secret), secret
    for data in ("ENG", "ENG-42", "release-2026-05-notes", "Engineering handbook 2026", "2026-05-11T08:30:00Z", "DE"):
        assert not looks_like_credential(data), data


def test_sig_is_a_credential_alone_or_as_an_ending_and_data_as_a_prefix() -> None:
    value = {"sig": CANARY, "sig_v4": CANARY, "urlSig": CANARY, "X-Amz-Signature": CANARY,
             "signup": "2026-05-01", "signal": "strong", "significant": True, "signed_in": True}  # fmt: skip
    redacted = redact_json(value)
    assert CANARY not in str(redacted)
    assert {k: redacted[k] for k in ("signup", "signal", "significant", "signed_in")} == {
        "signup": "2026-05-01", "signal": "strong", "significant": True, "signed_in": True,
    }  # fmt: skip


NEW_NAMES = ("pwd", "passwd", "user[pwd]", "session_key", "sessionid", "PHPSESSID", "form_key", "xsrf", "_xsrf", "sid")


@pytest.mark.parametrize("name", NEW_NAMES)
def test_the_secret_names_missed_before_are_redacted_wherever_they_stand(name: str) -> None:
    """As a JSON key, a `{name, value}` pair, a query parameter (in a URL and quoted in free text),
    a form field and a hidden input: the same names, the same answer."""
    assert redact_json({name: LIVE_KEY, "title": "Runbook"}) == {name: REDACTED, "title": "Runbook"}
    assert redact_json([{"name": name, "value": LIVE_KEY}]) == [{"name": name, "value": REDACTED}]
    assert LIVE_KEY not in redact_url(f"https://app.example.com/a?{name}={LIVE_KEY}&page=2")
    said = redact_text(f"open https://app.example.com/a?{name}={LIVE_KEY}&page=2 now")
    assert LIVE_KEY not in said and "page=2 now" in said
    assert LIVE_KEY not in (redact_body(f"{name}={LIVE_KEY}&title=Runbook") or "")
    page = redact_text(f'<input type="hidden" name="{name}" value="{LIVE_KEY}"><input name="q" value="ENG">')
    assert LIVE_KEY not in page and 'value="ENG"' in page


def test_a_short_human_sid_is_data_and_stays() -> None:
    """`sid` is a session id or a station, site or step id: a short human value stays."""
    for value in ("KSFO", "S-4", "ENG-42", "12", "eu-west"):
        assert redact_json({"sid": value}) == {"sid": value}
        assert redact_text(f"see /stations?sid={value}&day=2") == f"see /stations?sid={value}&day=2"
        assert redact_text(f'<input name="sid" value="{value}">') == f'<input name="sid" value="{value}">'
    for value in (LIVE_KEY, "a1b2c3d4e5f6a7b8c9d0", "s%3Ak3Jd9Qm2LxP0vRt7.sWc4hNa"):
        assert redact_json({"sid": value}) == {"sid": REDACTED}, value


def test_a_body_nested_past_the_parsers_depth_is_redacted_as_text_not_raised() -> None:
    """An agent's request to a replay environment is redacted before it is kept: a hostile body
    of 100 000 `[` made the JSON parser raise RecursionError through the server."""
    nested = "[" * 100_000
    assert redact_body(nested) == nested
    assert CANARY not in (redact_body(f'{{"auth": "Bearer {CANARY}", "a": ' + nested) or "")


def test_secrets_under_their_names_go_from_json_too_broken_to_parse() -> None:
    """A truncated body (a HAR cut at its size limit) is redacted as text: a secret-named key's
    value still goes, whatever it looks like; data stays."""
    cut = '{"password": "hunter2secret", "token": "abcdefabcdef1234567890", "title": "Runbook", "key": "ENG"'
    redacted = redact_body(cut) or ""
    assert "hunter2secret" not in redacted and "abcdefabcdef1234567890" not in redacted
    assert '"title": "Runbook"' in redacted and '"key": "ENG"' in redacted
    assert redact_text('ratio 3:4, "note": "see 12:30"') == 'ratio 3:4, "note": "see 12:30"'
