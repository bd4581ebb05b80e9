"""Scripted model answers for agent runs on the notes app."""

from __future__ import annotations

from typing import Any

PACKAGE = "com.example.notes"


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": args}


def turn(*calls: dict[str, Any], text: str = "", reasoning: str = "") -> dict[str, Any]:
    return {"tool_calls": list(calls), "text": text, "reasoning": reasoning}


def completion(*deliverables: str, todo: list[str] | None = None, summary: str = "Wrote the note") -> dict[str, Any]:
    return call(
        "report_task",
        kind="completion",
        summary=summary,
        checked=["the note is in the list"],
        evidence=["the list shows 'Call Alice'"],
        todo=todo or [],
        deliverables=list(deliverables),
    )


WRITE_NOTE = [
    turn(call("app_start", package=PACKAGE), reasoning="open the notes app first"),
    turn(call("tap", text="New note")),
    turn(call("tap", resource_id=f"{PACKAGE}:id/body"), call("type_text", text="Call Alice")),
    turn(call("ui_tree"), call("tap", text="Save")),
    turn(call("save_screenshot", name="notes")),
    turn(completion("files/notes.jpg")),
]


def requests_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body.get("messages") or [] if isinstance(m, dict)]


def images_in(body: dict[str, Any]) -> int:
    count = 0
    for m in body.get("messages") or body.get("input") or []:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):
            count += sum(1 for p in content if p.get("type") in ("image_url", "input_image"))
    return count


def texts_of(body: dict[str, Any]) -> str:
    """All text the request carries (no image data)."""
    parts: list[str] = []
    for m in body.get("messages") or body.get("input") or []:
        content = m.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p["text"] for p in content if "text" in p]
        if m.get("output"):
            parts.append(str(m["output"]))
    return "\n".join(parts)
