"""How a package says things: rubric titles, database row descriptions, the instruction the offline
analyzer writes when none was recorded, and subtasks (one per endpoint or tool)."""

from __future__ import annotations

import re
from typing import Any

from rlauto_core.evidence.models import EntityRef
from rlauto_core.package.checkgen import CheckContext
from rlauto_core.package.dataflow import input_locations
from rlauto_core.package.draft import DraftGroup
from rlauto_core.package.models import GoldenStep
from rlauto_core.package.volatile import volatile_kind
from rlauto_core.protocols import operation_of
from rlauto_core.recording import Call, HttpCall, Recording

_VERBS = {"POST": "Create", "PUT": "Replace", "PATCH": "Update", "DELETE": "Delete", "GET": "Read"}


def call_title(call: Call, step: GoldenStep, ctx: CheckContext) -> str:
    target = ""
    if step.target is not None:
        found = ctx.values.origin(step.target.value)
        target = (
            f" on {step.target.key} {step.target.value}"
            if found is None
            else f" on the {step.target.key} {found[0].call_id} {'returned' if found[1] else 'created'}"
        )
    content = content_summary(call, set(ctx.values.invented) | set(ctx.values.handed))
    return f"{call_label(call)}{target} succeeds" + (f" with {content}" if content else "")


def call_label(call: Call) -> str:
    """`POST /graphql (cartLinesAdd)`: one GraphQL endpoint serves many operations; name the one."""
    if isinstance(call, HttpCall) and (operation := operation_of(call)) is not None:
        return f"{call.name} ({operation.label})"
    return call.name


def content_summary(call: Call, server_made: set[str] | None = None) -> str:
    """Up to two values the agent wrote (never a token, a version, a query text or a server-made id)."""
    parts: list[str] = []
    for loc in input_locations(call):
        if loc.root in ("segment", "query") or len(parts) >= 2:
            continue
        if loc.path.split(".")[0] in ("query", "operationName", "extensions") or volatile_kind(loc.path, loc.value):
            continue
        if server_made and str(loc.value) in server_made:
            continue
        value = loc.value
        if isinstance(value, str) and value and not re.fullmatch(r"[\w.:-]*\d[\w.:-]*", value):
            shown = value if len(value) <= 48 else value[:45] + "..."
            parts.append(f"{loc.path.split('.')[-1]} '{shown}'")
    return ", ".join(parts)


def _shown(column: str, value: Any) -> str:
    if isinstance(value, dict) and "created" in value:
        return f"{column} = an id the attempt created"
    if isinstance(value, dict) and "any" in value:
        return f"{column} = {value['any'][0]!r} or an id the attempt was handed"
    if isinstance(value, dict) and "eq" in value:
        value = value["eq"]
    if isinstance(value, str) and len(value) > 40:
        value = value[:37] + "..."
    return f"{column}={value!r}"


def row_text(table: str, op: str, row: dict[str, Any]) -> str:
    shown = ", ".join(_shown(k, v) for k, v in row.items())
    verb = {"insert": "a new row", "update": "an updated row", "delete": "a deleted row"}[op]
    return f"{verb} in {table} with {shown}"


def action(call: Call, named: bool = True) -> str:
    """`create card (POST /api/boards/b_12/cards)`; without the call's name for instructions."""
    if isinstance(call, HttpCall):
        nouns = [s for s in call.path.split("/") if s and not any(ch.isdigit() for ch in s)]
        noun = nouns[-1] if nouns else "resource"
        noun = noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun
        verb = _VERBS.get(call.method.upper(), call.method.upper()).lower()
        return f"{verb} {noun.replace('_', ' ')}" + (f" ({call.name})" if named else "")
    return call.tool.replace("_", " ") + (f" ({call.tool})" if named else "")


def written_instruction(steps: list[GoldenStep], calls: dict[str, Call | None], main: EntityRef | None) -> str:
    """Written from the state changes when the annotator gave none: goal and entities, no clicks."""
    actions = []
    for step in steps:
        call = calls[step.call_id]
        if step.state_changing and call is not None:
            content = content_summary(call)
            actions.append(action(call, named=False) + (f" with {content}" if content else ""))
    if not actions:
        actions = [action(c, named=False) for c in calls.values() if c is not None][:3] or ["look up the recorded data"]
    where = f"For {main.key} {main.value}: " if main else ""
    return where + ", then ".join(actions) + "."


def _group_key(call: Call) -> str:
    if isinstance(call, HttpCall):
        segments = ["{id}" if any(ch.isdigit() for ch in s) else s for s in call.path.split("/") if s]
        return f"{call.method.upper()} /" + "/".join(segments)
    return call.tool


def groups(steps: list[GoldenStep], calls: dict[str, Call | None], recording: Recording) -> list[DraftGroup]:
    """One subtask per endpoint (API) or tool (MCP), in order of first use."""
    groups: dict[str, DraftGroup] = {}
    for step in steps:
        call = calls[step.call_id]
        if call is None:
            continue
        key = _group_key(call)
        if key not in groups:
            kind = "write" if step.state_changing else "read"
            groups[key] = DraftGroup(
                title=action(call)[:1].upper() + action(call)[1:],
                description=f"Calls to {key} ({kind}) on the main entity.",
                call_ids=[],
            )
        groups[key].call_ids.append(step.call_id)
    return list(groups.values())
