"""Protocols over HTTP and MCP: what a call does and whether it succeeded, as its protocol says
(GraphQL operations and batches, JSON-RPC and `ok: false` errors inside a 200, bulk answers,
form re-renders), requests that carry several calls (GraphQL batches, `_bulk`, JSON batches of
HTTP sub-requests) split into them, and the password a JSON-RPC sign-in sends by position
(rpc_sign_in.py, for redaction). Pure; below evidence, checkers and package, which all ask here."""

from rlauto_core.protocols.batches import split_batches
from rlauto_core.protocols.graphql import (
    Operation,
    get_request,
    is_batch,
    is_endpoint,
    operation_of,
    operations,
    parse_document,
    request_payloads,
)
from rlauto_core.protocols.success import body_failure, graphql_failure, http_failure, http_failures, tool_failure

__all__ = [
    "Operation",
    "body_failure",
    "get_request",
    "graphql_failure",
    "http_failure",
    "http_failures",
    "is_batch",
    "is_endpoint",
    "operation_of",
    "operations",
    "parse_document",
    "request_payloads",
    "split_batches",
    "tool_failure",
]
