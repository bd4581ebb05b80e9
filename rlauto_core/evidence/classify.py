"""State-changing or read: by HTTP method (the effective one: GraphQL and search POSTs are reads),
by tool verb."""

from __future__ import annotations

import re

from rlauto_core.forms import effective_method
from rlauto_core.protocols import Operation, operations
from rlauto_core.protocols.rpc_dispatch import dispatched_method, rpc_payload
from rlauto_core.recording import HttpCall, Session, ToolCall

WRITE_VERBS = frozenset(
    ["create", "send", "post", "update", "edit", "delete", "remove", "add", "set", "mark", "invite", "kick", "ban", "unban", "pin", "unpin", "react", "unreact", "upload", "move", "assign", "unassign", "archive", "unarchive", "close", "reopen", "rename", "join", "leave", "reply", "share", "submit", "publish", "write", "insert", "put", "patch", "approve", "reject", "merge", "tag", "untag", "label", "transfer", "schedule", "cancel", "complete", "resolve", "star", "unstar", "follow", "unfollow", "subscribe", "unsubscribe", "mute", "unmute", "block", "unblock", "vote", "like", "unlike", "save", "store", "modify", "change", "replace", "upsert", "register", "enable", "disable", "grant", "revoke", "toggle", "clear", "reset", "restore", "duplicate", "copy", "forward", "attach", "detach", "link", "unlink", "import", "checkout", "purchase", "pay", "order", "book", "claim", "accept", "decline", "dismiss", "hide", "unhide", "lock", "unlock"]
)  # fmt: skip
READ_VERBS = frozenset(
    ["get", "list", "search", "read", "fetch", "find", "query", "view", "show", "describe", "count", "check", "lookup", "download", "browse", "retrieve", "load", "peek", "inspect", "whoami", "stat", "status", "poll", "watch", "preview", "export", "summarize", "version", "authenticate"]
)  # fmt: skip
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_READ_POST_SEGMENTS = frozenset({"search", "query", "lookup", "graphql-query", "_search", "batch_get", "preview"})
_TOKEN_RE = re.compile(r"[A-Za-z][a-z]*|[0-9]+")


def name_tokens(name: str) -> list[str]:
    """`discord_sendMessage` -> ["discord", "send", "message"]."""
    words: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", name):
        words.extend(t.lower() for t in _TOKEN_RE.findall(chunk))
    return words


def tool_is_state_changing(call: ToolCall, session: Session | None = None) -> bool:
    hint = _annotation_hint(call, session)
    if hint is not None:
        return hint
    for token in name_tokens(call.tool):
        if token in WRITE_VERBS:
            return True
        if token in READ_VERBS:
            return False
    return False


def _annotation_hint(call: ToolCall, session: Session | None) -> bool | None:
    """MCP tool annotations (`readOnlyHint`) from the session's catalog win over name guessing."""
    if session is None:
        return None
    for server in session.servers:
        if call.server and server.name != call.server:
            continue
        for tool in server.tools:
            if tool.name == call.tool:
                annotations = (tool.model_extra or {}).get("annotations")
                if isinstance(annotations, dict) and isinstance(annotations.get("readOnlyHint"), bool):
                    return not annotations["readOnlyHint"]
    return None


def http_is_state_changing(call: HttpCall, graphql: list[Operation] | None = None) -> bool:
    """By the method the server acts on (a form's `_method` override), whatever sent it: fetch,
    xhr or a page navigation; a GraphQL call by its operation (a mutation writes, a query reads,
    whatever the method)."""
    graphql = operations(call) if graphql is None else graphql
    if graphql:
        return any(op.writes for op in graphql)
    method = effective_method(call)
    if method not in _WRITE_METHODS:
        return False
    if method == "POST":
        segments = [s for s in call.path.lower().split("/") if s]
        if segments and segments[-1] in _READ_POST_SEGMENTS:
            return False
        # an RPC route or method says what it does: `/call_kw/crm.lead/web_search_read`, `eth_getBalance`
        named = [n for n in [*segments[-1:], *_rpc_methods(call)] if _first_verb(n) is not None]
        if named and all(_first_verb(name) == "read" for name in named):
            return False
    return True


def _first_verb(name: str) -> str | None:
    for token in name_tokens(name):
        if token in WRITE_VERBS:
            return "write"
        if token in READ_VERBS:
            return "read"
    return None


def _rpc_methods(call: HttpCall) -> list[str]:
    """A JSON-RPC request's method (and a dispatcher's inner one, `params.method`)."""
    payload = rpc_payload(call.request_body) if call.request_body_encoding == "text" else None
    if payload is None:
        return []
    params = payload.get("params")
    inner = params.get("method") if isinstance(params, dict) else None
    found = [m for m in (payload.get("method"), inner) if isinstance(m, str)]
    method = dispatched_method(payload)  # Odoo's execute_kw(db, uid, password, model, method, ...)
    return [*found, method] if method is not None else found
