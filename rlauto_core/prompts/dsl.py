"""A compact reference of the checker DSL for prompts, generated from the DSL's own tables."""

from __future__ import annotations

from rlauto_core.checkers.dsl import KIND_KEYS, REQUIRED_KEYS
from rlauto_core.checkers.predicates import MODIFIERS, OPERATORS

VALUE_ROLES = """\
VALUE ROLES (how a checker compares each value a call sends; the builder rewrites checkers to them,
and every package must give full marks to valid variants of its golden: reads dropped or
reordered, server ids renamed, volatile values changed):
- created in the attempt (an id the server made for this attempt, e.g. the page id its own create
  returned): {"created": "<checker key of the create>"}, or {"created": true} for an id a read that
  names nothing handed out (the session's cart); never pinned to one recorded read.
- stable reference (the same in every attempt: named by the instruction, a read-only entity, the
  user's own resource): compared by value; never require the read that showed it.
- volatile (lock versions, ETags / If-Match, client clocks, idempotency keys, mutation ids, CSRF and
  session tokens, request ids, totals the server computes): never compared; the call's success
  counts. A value the instruction names is never volatile.
- content (titles, bodies, amounts, choices): compared (free text without regard to case).
order and absent's given judge that a call happened, by its essential features (method, route,
the ids it works on), not how every argument was made.
"""


def dsl_reference() -> str:
    lines = ['Checker DSL (rubric_checkers maps checker_key -> one checker object with a "kind"):']
    for kind, keys in KIND_KEYS.items():
        required = ", ".join(REQUIRED_KEYS[kind]) or "none"
        lines.append(f"- {kind}: keys {', '.join(keys)} (required: {required})")
    lines += [
        "Predicates: a bare scalar means equality; an object combines operators that must all hold: "
        + ", ".join(sorted(OPERATORS))
        + f"; modifier {', '.join(sorted(MODIFIERS))}: true.",
        '`same_as` points at another call checker\'s field: {"same_as": {"checker": KEY, "field": "arguments.channelId"}}.',
        '`created`: an id an earlier answer of the attempt carried ({"created": true}), or an earlier answer of a '
        'call matching checker KEY ({"created": KEY}). `any`: one of several predicates holds '
        '({"any": ["cart_5", {"created": true}]}).',
        'Map keys (request, response, arguments, result, row) are dotted field paths, e.g. "body.text".',
        "order/absent/count take checker keys or inline http_call/mcp_call matchers.",
        "answer checks what the attempt reports (its task.answer text) with a predicate.",
        "Examples:",
        '  {"kind": "mcp_call", "tool": "discord_send_message", "arguments": {"channelId": "C01", '
        '"content": {"contains": "got it", "case_insensitive": true}}}',
        '  {"kind": "http_call", "method": "POST", "path_template": "/api/v1/channels/{id}/messages", '
        '"path_params": {"id": "C01"}, "request": {"body.text": "got it"}, "status": {"lt": 300}}',
        '  {"kind": "order", "before": "send_reply", "after": "mark_read"}',
        '  {"kind": "dbdiff", "table": "messages", "op": "insert", "row": {"channel_id": "C01"}}',
        '  {"kind": "answer", "answer": {"contains": "DHL Express", "case_insensitive": true}}',
    ]
    return "\n".join(lines)
