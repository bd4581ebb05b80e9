"""The quality gate of a distilled recipe: what is refused before it reaches the library.

Seed 003 learned these the hard way: a prompt with a copyable placeholder example got
`"1. …\\n2. …"` stored as a recipe, and a thinking model that spent its budget reasoning left
near-empty text. Refused, each with its reason:
- near-empty: fewer than `MIN_CONTENT_CHARS` letters, digits or CJK characters once numbering,
  bullets and punctuation are taken out;
- placeholders: half or more of the lines are only an ellipsis, a `<...>` / `[...]` stub, or
  words like TODO, TBD, xxx, "step N";
- a copy of the prompt's own example: its TEXT, compared character by character once numbering,
  case and punctuation are out (`COPY_SIMILARITY` or more), not its topic (a bigram measure
  refused a correct Wi-Fi recipe at 0.66 when the example was about Wi-Fi); or the prompt's field
  descriptions given back;
- coordinates (`(540, 1200)`, `x=540`, bounds `[0,80][1080,200]`): they break on another screen;
- longer than `MAX_RECIPE_CHARS`: a recipe is a short list of moves, not a transcript.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from rlauto_core.memory.experience import MAX_RECIPE_CHARS
from rlauto_core.memory.similarity import normalised

MIN_CONTENT_CHARS = 24
COPY_SIMILARITY = 0.8
_CONTENT = re.compile(r"[^\W_]", re.UNICODE)
_NUMBERING = re.compile(
    r"^\s*(?:[-*•·]|\(?\d{1,3}[.)、:：]|\d{1,3}\s|步骤\s*\d+[.、:：]?|step\s*\d+[.:)]?)\s*", re.IGNORECASE
)
_PLACEHOLDER_LINE = re.compile(
    r"^(?:[.…。·\-_\s]*|<[^<>]{0,60}>|\[[^\[\]]{0,60}\]|\{[^{}]{0,60}\}|(?:todo|tbd|xxx+|placeholder|etc|等等|略|…+)[.!。]*)$",
    re.IGNORECASE,
)
_COORDINATES = re.compile(
    r"\(\s*\d{2,5}\s*,\s*\d{2,5}\s*\)|\b[xy]\s*[=:]\s*\d{2,5}\b|\[\d{1,5},\d{1,5}\]\[\d{1,5},\d{1,5}\]|坐标\s*\d",
    re.IGNORECASE,
)


def _plain_lines(text: str) -> list[str]:
    return [normalised(_NUMBERING.sub("", line)) for line in text.splitlines() if line.strip()]


def copied(text: str, example: str) -> float:
    """How much of `text` is the example's own wording (0-1): each line matched character by
    character against the example's closest line once numbering, case and punctuation are out,
    weighted by length. A lightly edited or reordered copy scores near 1; a recipe on the same
    topic in its own words far lower (a Wi-Fi recipe against a Wi-Fi example: 0.63)."""
    theirs = _plain_lines(example)
    ours = [line for line in _plain_lines(text) if line]
    total = sum(len(line) for line in ours)
    if not total or not theirs:
        return 0.0
    best = (max(SequenceMatcher(None, line, other, autojunk=False).ratio() for other in theirs) for line in ours)
    return sum(len(line) * score for line, score in zip(ours, best, strict=True)) / total


def recipe_problem(text: str, example: str, field_hints: tuple[str, ...] = ()) -> str | None:
    """Why `text` may not be stored as a recipe, or None when it passes."""
    stripped = text.strip()
    lines = [line for line in stripped.splitlines() if line.strip()]
    bodies = [_NUMBERING.sub("", line).strip() for line in lines]
    content = sum(len(_CONTENT.findall(body)) for body in bodies if not _PLACEHOLDER_LINE.match(body))
    if not lines or content < MIN_CONTENT_CHARS:
        return f"near-empty recipe ({content} characters of content, at least {MIN_CONTENT_CHARS})"
    placeholders = sum(1 for body in bodies if _PLACEHOLDER_LINE.match(body))
    if placeholders * 2 >= len(lines):
        return f"placeholder recipe ({placeholders} of {len(lines)} lines are placeholders)"
    if copied(stripped, example) >= COPY_SIMILARITY:
        return "a copy of the prompt's own example, not a recipe for this task"
    lowered = stripped.lower()
    for hint in field_hints:
        if hint.lower() in lowered:
            return f"gives back the prompt's description of the field ({hint!r}) instead of a recipe"
    if _COORDINATES.search(stripped):
        return "names screen coordinates: a recipe says which element, by its text or id"
    if len(stripped) > MAX_RECIPE_CHARS:
        return f"{len(stripped)} characters: a recipe has at most {MAX_RECIPE_CHARS}"
    return None
