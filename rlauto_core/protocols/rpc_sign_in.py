"""The password an RPC sign-in sends by position, where no field name says it is one.

JSON-RPC APIs pass arguments as lists: Odoo's `common.authenticate(db, login, password, {})`,
`login(db, user, password)`, and every later `execute_kw(db, uid, password, ...)` sends the
password (or an API key standing for it) again. No name or shape gives it away, so the sign-in
call does: the string after the user's identity (an email, else the argument before the last
string) is a credential, which redaction by value then removes wherever it recurs
(secret_values.py).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from rlauto_core.protocols.rpc_dispatch import rpc_payload

_TOKENS = re.compile(r"[A-Za-z][a-z]*|[0-9]+")
_SIGN_IN = frozenset({"login", "logon", "authenticate", "signin"})


def _signs_in(method: Any) -> bool:
    if not isinstance(method, str):
        return False
    words = [w.lower() for w in _TOKENS.findall(method)]
    joined = {a + b for a, b in itertools.pairwise(words)}  # `sign_in`, `logIn`
    return bool(_SIGN_IN & (set(words) | joined))


def _calls(body: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(method, positional arguments) of a JSON-RPC body and of the call it dispatches."""
    params = body.get("params")
    found = [(body.get("method"), params)]
    if isinstance(params, dict):
        found.append((params.get("method"), params.get("args")))
    return found


def sign_in_passwords(body: str | None) -> list[str]:
    """The passwords a JSON-RPC sign-in request sends by position; none for any other body."""
    parsed = rpc_payload(body, '"method"')
    if parsed is None:
        return []
    found: list[str] = []
    for method, args in _calls(parsed):
        if not _signs_in(method) or not isinstance(args, list):
            continue
        strings = [i for i, a in enumerate(args) if isinstance(a, str) and a]
        who = next((i for i in strings if "@" in args[i]), strings[-2] if len(strings) >= 2 else None)
        after = [i for i in strings if who is not None and i > who]
        if after and len(args[after[0]]) >= 4:
            found.append(args[after[0]])
    return found
