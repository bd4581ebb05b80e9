"""What the fake model server records of a request, and answers computed from a request.

`draft_in` / `analyzer_answer` make the `echo_draft` analyzer: one that agrees with the offline
draft package its prompt carries.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RecordedRequest:
    role: str
    api: str
    path: str
    headers: dict[str, str]
    body: Any
    via_proxy: bool = False
    at: float = field(default_factory=time.time)

    def prompt_text(self) -> str:
        """Every message, input and instruction text of the request, joined."""
        if not isinstance(self.body, dict):
            return str(self.body)
        parts: list[str] = []
        if isinstance(self.body.get("instructions"), str):
            parts.append(self.body["instructions"])
        for message in self.body.get("messages") or self.body.get("input") or []:
            if isinstance(message, dict):
                content = message.get("content")
                if isinstance(content, list):  # content parts: their text, an image as a marker
                    content = " ".join(str(p.get("text", "[image]")) for p in content if isinstance(p, dict))
                parts.append(content if isinstance(content, str) else json.dumps(content))
        return "\n".join(parts)

    def messages(self) -> list[dict[str, Any]]:
        if not isinstance(self.body, dict):
            return []
        found = self.body.get("messages") or self.body.get("input") or []
        return [m for m in found if isinstance(m, dict)]


_DRAFT_BLOCK = re.compile(r"=== DRAFT PACKAGE[^\n]*===\n(.*?)\n\n?=== ", re.DOTALL)


def draft_in(request: RecordedRequest) -> dict[str, Any]:
    """The offline draft package an analyzer prompt carries."""
    found = _DRAFT_BLOCK.search(request.prompt_text())
    if not found:
        raise ValueError("the request carries no DRAFT PACKAGE block")
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def analyzer_answer(draft: dict[str, Any]) -> dict[str, Any]:
    """The AnalyzerResult of a model that agrees with the draft (checkers kept by key)."""
    return {
        "recommended_instruction": draft["instruction"],
        "recommended_groups": [
            {"title": g["title"], "description": g["description"], "calls": g["call_ids"]} for g in draft["groups"]
        ],
        "recommended_rubrics": [
            {
                "title": r["title"],
                "description": r["description"],
                "max_score": r["max_score"],
                "checker_key": r["checker_key"],
            }
            for r in draft["rubrics"]
        ],
        "golden_trajectory": draft["golden_call_ids"],
        "evidence_limits": [],
    }
