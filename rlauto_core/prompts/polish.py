"""The polish prompt: a raw task text becomes a clear Chinese and English instruction plus notes."""

from __future__ import annotations

from rlauto_core.llm.types import Message
from rlauto_core.prompts.analyzer import answer_schema
from rlauto_core.prompts.answers import PolishedTask

POLISH_SYSTEM = """\
You polish task instructions for computer-use agents. Rewrite the raw text as ONE clear,
self-contained instruction: the goal, the target entities by the exact names/ids given, and any
constraint; no click-by-click steps; keep every id, name and quoted value exactly as written;
never add facts. Give it in Chinese (zh) and English (en), and list in notes what you changed
or what is ambiguous. Answer with one JSON object: {"zh": ..., "en": ..., "notes": ...}.
"""


def polish_messages(raw: str) -> list[Message]:
    user = f"=== RAW TASK ===\n{raw.strip()}\n\n=== ANSWER JSON SCHEMA ===\n{answer_schema(PolishedTask)}"
    return [Message(role="system", content=POLISH_SYSTEM), Message(role="user", content=user)]
