"""The tools an agent sees: an MCP package's recorded tools (names, descriptions and input schemas
verbatim from the recording's `tools/list`, or a schema read from the recorded arguments), or one
`http_request` tool over an API package's recorded endpoints; as MCP tools and as OpenAI function
schemas. And the check of a call's arguments against its schema."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from rlauto_core.recording import Mode, Recording

HTTP_TOOL = "http_request"
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


class EnvTool(BaseModel):
    name: str
    description: str = ""
    input_schema: dict[str, Any]

    def openai(self) -> dict[str, Any]:
        """The OpenAI function-calling form."""
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.input_schema}}  # fmt: skip


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if value is not None else "null"


def _inferred(recording: Recording, tool: str) -> dict[str, Any]:
    """A schema from the arguments the recording sent the tool (keys sent every time are required)."""
    sent = [c.arguments for c in recording.tool_calls if c.tool == tool]
    properties: dict[str, Any] = {}
    for arguments in sent:
        for key, value in arguments.items():
            properties.setdefault(key, {"type": _type_of(value)} if value is not None else {})
    required = sorted(k for k in properties if all(k in a for a in sent))
    return {"type": "object", "properties": properties, "required": required}


def tool_schemas(recording: Recording) -> list[EnvTool]:
    if recording.mode is Mode.API:
        return [http_tool(recording)]
    catalog = {t.name: t for s in (recording.session.servers if recording.session else []) for t in s.tools}
    names = list(dict.fromkeys([*catalog, *(c.tool for c in recording.tool_calls)]))
    tools = []
    for name in names:
        spec = catalog.get(name)
        schema = spec.input_schema if spec is not None and spec.input_schema else _inferred(recording, name)
        tools.append(EnvTool(name=name, description=(spec.description if spec else None) or "", input_schema=schema))
    return tools


def http_tool(recording: Recording) -> EnvTool:
    endpoints = sorted({c.name for c in recording.http_calls if c.status})
    listed = "; ".join(endpoints[:40]) + (" ..." if len(endpoints) > 40 else "")
    return EnvTool(
        name=HTTP_TOOL,
        description=f"Send one HTTP request to the app's API. Endpoints the app answers: {listed}",
        input_schema={
            "type": "object",
            "properties": {
                "method": {"type": "string", "enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
                "path": {"type": "string", "description": "the path, with its query string if any"},
                "body": {"description": "the JSON body (an object), or form text"},
                "headers": {"type": "object", "description": "request headers (If-Match, Content-Type)"},
            },
            "required": ["method", "path"],
        },
    )


def argument_problem(tool: EnvTool | None, arguments: Any) -> str | None:
    """What is wrong with a call's arguments for its tool's schema (the top level: an object,
    the required keys, the JSON types of the properties it names), or None."""
    if not isinstance(arguments, dict):
        return f"arguments must be a JSON object, got {_type_of(arguments)}"
    if tool is None:
        return None
    schema = tool.input_schema
    missing = [k for k in schema.get("required") or [] if k not in arguments]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    properties = schema.get("properties") or {}
    for key, value in arguments.items():
        wanted = properties.get(key, {}).get("type") if isinstance(properties.get(key), dict) else None
        kinds = [wanted] if isinstance(wanted, str) else list(wanted or [])
        allowed = tuple(t for k in kinds for t in _JSON_TYPES.get(k, ()))
        if allowed and not (isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed)):
            return f"argument {key!r} must be {' or '.join(kinds)}, got {_type_of(value)}"
    return None
