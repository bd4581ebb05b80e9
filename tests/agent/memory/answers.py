"""Scripted memory answers: a distillation of the note-writing run, and pieces of it."""

from __future__ import annotations

import json
from typing import Any

from tests.agent.scripts import PACKAGE

RECIPE = (
    "1. Start the notes app (com.example.notes); the list shows the notes and a 'New note' button.\n"
    "2. Tap 'New note', then tap the body field (resource-id com.example.notes:id/body).\n"
    "3. Type the note's text, then tap 'Save'.\n"
    "4. Check the list shows the new note before reporting completion."
)
OPEN_NOTES = {"name": "open the notes app", "aliases": ["notes"], "steps": [{"kind": "app_start", "package": PACKAGE}]}
WRITE_A_NOTE = {
    "name": "write a note",
    "aliases": ["new note"],
    "steps": [
        {"kind": "click", "selector": {"text": "New note"}},
        {"kind": "click", "selector": {"resourceId": f"{PACKAGE}:id/body"}},
        {"kind": "input_text", "text": "Call Alice"},
        {"kind": "click", "selector": {"text": "Save"}},
    ],
}


def distillation(recipe: str = RECIPE, *actions: dict[str, Any], title: str = "Write a note") -> dict[str, Any]:
    return {"recipe": {"title": title, "text": recipe}, "actions": list(actions)}


def cut_inside_last_action(value: dict[str, Any]) -> str:
    """The answer's JSON cut in the middle of its last action, as a model out of tokens leaves it."""
    text = json.dumps(value, ensure_ascii=False)
    last = json.dumps(value["actions"][-1], ensure_ascii=False)
    return text[: text.rindex(last) + len(last) // 2]
