"""Redaction: secret headers, token-like query parameters and keys, bearer tokens in text."""

from __future__ import annotations

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
