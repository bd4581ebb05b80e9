"""What the memory says to models: the distillation and audit prompts, and the sections a run's
system prompt gets from recall. No placeholder a model could copy as an answer: the one example
is a recipe for a made-up app no real task uses (an example about Wi-Fi once made the quality
gate refuse correct Wi-Fi recipes), and the gate refuses copies of its text."""

from __future__ import annotations

import json
from typing import Any

EXAMPLE_RECIPE = (
    "1. Open the Orchard Planner app (package org.example.orchard).\n"
    "2. Tap 'Beds', then the bed named in the task.\n"
    "3. Tap 'Plant', pick the variety from the list and confirm with 'Add'.\n"
    "4. Check that the bed's card lists the new variety before reporting completion."
)
TITLE_HINT = "the kind of task in a few words"
TEXT_HINT = "short numbered lines in plain words"
FIELD_HINTS = (TITLE_HINT, TEXT_HINT)

DISTIL_SYSTEM = f"""You turn one finished phone task into memory for the next similar task.
Answer with ONE JSON object and nothing else, with two members:
- "recipe": an object with "title" ({TITLE_HINT}, not this task's data) and "text": how to do
  this kind of task on this phone, as {TEXT_HINT}: which app, which screens, which elements
  (by their text, resource-id or description), what to check at the end. No screen coordinates.
  Not a log of this run: what to do next time.
- "actions": at most 3 named, reusable actions (a name like "open the notes app", optional
  "aliases", and "steps": 1 to 4 steps copied from CANDIDATE STEPS; leave steps out, never
  invent steps or coordinates). Give an empty list when no action is reusable.
A recipe for another task, to show the level of detail (do not copy it):
{EXAMPLE_RECIPE}"""

AUDIT_SYSTEM = """You review a library of recipes a phone agent learned from its own runs. For each
recipe decide "keep" or "delete": delete a recipe that is wrong, vague, a placeholder, a copy of
another recipe in the list, tied to one run's data so it cannot help a similar task, or that
names screen coordinates. Keep one that tells a next run what to do. Score each 0 (useless) to
10 (excellent) and give a one-sentence reason. Answer with ONE JSON object:
{"ratings": [{"id": "<the recipe's id>", "verdict": "keep" or "delete", "score": 0-10, "reason": "<one sentence>"}]}
with one rating for every recipe listed."""

RECALL_EXPERIENCE_HEAD = (
    "## Experience from similar tasks\n"
    "These recipes worked for similar tasks on this phone before. Follow them where the screen "
    "matches; the screen decides."
)
RECALL_ACTIONS_HEAD = (
    "## Reusable actions\n"
    "Named actions that worked before, as steps with their element locators. Prefer these "
    "locators (tap by the same text, resource_id or description); if the screen differs from "
    "what they expect, take a screenshot to check before you act."
)


def distil_user(instruction: str, calls: list[str], left_out: int, candidates: list[dict[str, Any]]) -> str:
    lines = [f"TASK: {instruction}", "", f"TOOL CALLS THAT WORKED, in order ({len(calls)}):"]
    lines += [f"{n}. {call}" for n, call in enumerate(calls, start=1)]
    if left_out:
        lines.append(f"({left_out} more calls not listed: taps by coordinates and calls beyond the list)")
    lines += ["", f"CANDIDATE STEPS for actions (the first {len(candidates)} successful steps, as step-task steps):"]
    lines.append(json.dumps(candidates, ensure_ascii=False))
    return "\n".join(lines)


def audit_user(recipes: list[dict[str, str]]) -> str:
    return "RECIPES:\n" + json.dumps(recipes, ensure_ascii=False, indent=1)


def experience_section(recipes: list[tuple[str, str]]) -> str:
    """(instruction it came from, recipe text) pairs, best first."""
    parts = [RECALL_EXPERIENCE_HEAD]
    for number, (instruction, text) in enumerate(recipes, start=1):
        parts.append(f"### {number}. Learned from: {instruction[:300]}\n{text}")
    return "\n\n".join(parts)


def actions_section(actions: list[tuple[str, list[str], list[dict[str, Any]]]]) -> str:
    """(name, aliases, steps) of each action, best first."""
    lines = [RECALL_ACTIONS_HEAD]
    for name, aliases, steps in actions:
        also = f" (also: {', '.join(aliases)})" if aliases else ""
        lines.append(f"- {name}{also}: {json.dumps(steps, ensure_ascii=False, separators=(',', ':'))}")
    return "\n".join(lines)
