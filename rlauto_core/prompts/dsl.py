"""A compact reference of the checker DSL for prompts, generated from the DSL's own tables."""

from __future__ import annotations

from rlauto_core.checkers.dsl import KIND_KEYS, REQUIRED_KEYS
from rlauto_core.checkers.predicates import MODIFIERS, OPERATORS


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
