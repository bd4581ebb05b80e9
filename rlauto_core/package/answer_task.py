"""Answer tasks: a recording that changes nothing, whose instruction asks for something a read shows.

"What is the delivery status of order ORD-77120?" recorded as a search and one order read: the
package asks the agent to make that read and to report what it showed. The values are the
answer fields whose names the instruction uses (`status`, `phones.direct` for "direct phone
number"), from the read that best matches the instruction: it names an entity the instruction
names, or answers about it outside a list. Nothing found means nothing to check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rlauto_core.evidence.classify import name_tokens
from rlauto_core.evidence.models import Evidence
from rlauto_core.evidence.sidecalls import SIDE_CATEGORIES
from rlauto_core.package.checkgen import CheckContext, call_checker
from rlauto_core.package.dataflow import input_locations, output_locations
from rlauto_core.package.draft import DraftRubric
from rlauto_core.package.models import GoldenStep
from rlauto_core.package.roles import safe_key
from rlauto_core.package.wording import call_title
from rlauto_core.recording import Call

MAX_VALUES = 3
_INDEX = re.compile(r"^\d+$")
_STOP = frozenset(
    ["the", "and", "what", "which", "who", "whom", "whose", "when", "where", "how", "tell", "give", "find", "look",
     "show", "report", "please", "with", "from", "for", "that", "this", "his", "her", "its", "their", "has", "have",
     "does", "did", "are", "was", "were", "is", "it", "me", "us", "of", "in", "on", "up", "at", "by", "to", "an",
     "id", "ids", "get", "list", "read", "fetch", "search"]
)  # fmt: skip
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b|多少|几个", re.IGNORECASE)
_COUNT_KEYS = frozenset(["total", "count", "totalcount", "total_count", "size"])


@dataclass(frozen=True)
class AnswerPart:
    """One value the attempt must report: where the recording shows it."""

    call_id: str
    field: str
    value: Any


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _asked_words(instruction: str) -> set[str]:
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", instruction)}
    return {_stem(w) for w in words - _STOP if len(w) >= 3}


def _field_words(path: str) -> set[str]:
    """Words of a field's name and of the objects around it, not of the lists it sits in."""
    parts = path.split(".")
    named = [
        p
        for n, p in enumerate(parts)
        if not _INDEX.match(p) and not (n + 1 < len(parts) and _INDEX.match(parts[n + 1]))
    ]
    return {_stem(w) for part in named for w in name_tokens(part)}


def _stated(value: Any, instruction: str) -> bool:
    """Does the instruction state this value itself ("Jonas Weber", "ORD-77120")? Then it is no answer."""
    text = str(value).strip().lower()
    if len(text) < 3:
        return False
    if " " in text:
        return text in instruction.lower()
    return text in {w.strip(".,:;!?'\"()").lower() for w in instruction.split()}


def _read_bonus(call: Call, told_text: str) -> int:
    """A read that names (in its request) something the instruction names is about the asked entity."""
    lowered = told_text.lower()
    for loc in input_locations(call):
        value = loc.value
        named = isinstance(value, str | int) and not isinstance(value, bool) and len(str(value)) >= 3
        if named and str(value).lower() in lowered:
            return 2
    return 0


def recorded_parts(answer: str, reads: list[tuple[GoldenStep, Call]]) -> list[AnswerPart]:
    """The values of the annotator's own answer that a read shows (longest first, each once)."""
    lowered = answer.lower()
    found: dict[str, AnswerPart] = {}
    for _, call in reads:
        for root, path, value in output_locations(call):
            text = str(value).strip()
            if value is None or isinstance(value, bool | dict | list) or len(text) < 2 or text.lower() not in lowered:
                continue
            if not re.search(rf"(?<![\w]){re.escape(text.lower())}(?![\w])", lowered):
                continue  # "12" inside "2026-05-12" is no value of the answer
            found.setdefault(text.lower(), AnswerPart(call.id, f"{root}.{path}", value))
    ordered = sorted(found.values(), key=lambda p: -len(str(p.value)))
    kept: list[AnswerPart] = []
    for part in ordered:  # "DHL" inside "DHL Express" adds nothing
        if not any(str(part.value).lower() in str(k.value).lower() for k in kept):
            kept.append(part)
    return kept[:MAX_VALUES]


def answer_parts(
    instruction: str, reads: list[tuple[GoldenStep, Call]], recorded: str | None = None
) -> list[AnswerPart]:
    """What the attempt must report: the values of the annotator's answer a read shows, else the
    fields the instruction asks about, from the read that shows them best; empty when no read does."""
    if recorded and recorded.strip():
        parts = recorded_parts(recorded, reads)
        if parts:
            return parts
    asked = _asked_words(instruction)
    counting = bool(_COUNT.search(instruction))
    best: tuple[int, int, list[AnswerPart]] = (0, -1, [])
    for order, (_, call) in enumerate(reads):
        scored: list[tuple[int, AnswerPart]] = []
        outputs = output_locations(call)
        about = any(
            not any(_INDEX.match(p) for p in path.split(".")) and _stated(v, instruction)
            for _, path, v in outputs
            if isinstance(v, str)
        )
        for root, path, value in outputs:
            if value is None or isinstance(value, bool | dict | list) or _stated(value, instruction):
                continue
            words = _field_words(path)
            hits = len(words & asked)
            if counting and path.split(".")[-1].lower() in _COUNT_KEYS:
                hits += 2
            in_list = any(_INDEX.match(p) for p in path.split("."))
            if hits and not (words <= {"id"}) and not in_list:
                scored.append((hits, AnswerPart(call.id, f"{root}.{path}", value)))
        if not scored:
            continue
        top = max(points for points, _ in scored)
        parts = [part for points, part in scored if points == top][:MAX_VALUES]
        rank = top * 10 + _read_bonus(call, instruction) + (2 if about else 0)
        if (rank, order) > best[:2]:
            best = (rank, order, parts)
    return best[2]


def answer_pattern(value: Any) -> str:
    """A regex finding the value in free text: `in_transit` also as "in transit", a phone number with
    any separators, a number not inside a longer one."""
    text = str(value).strip()
    if re.fullmatch(r"-?\d+(\.\d+)?", text):
        return rf"(?<![\d.]){re.escape(text)}(?![\d])"
    tokens = [t for t in re.split(r"[\s_\-]+", text) if t]
    return r"[\s_-]*".join(re.escape(t) for t in tokens) or re.escape(text)


def answer_text(parts: list[AnswerPart]) -> str:
    """The golden attempt's report: the values, as the recording shows them."""
    return "; ".join(str(p.value) for p in parts)


def nothing_to_check(evidence: Evidence, instruction: str) -> str:
    """The verdict's reason when a recording gives a package nothing to grade."""
    side = {k: v for k, v in evidence.noise_removed.items() if k in SIDE_CATEGORIES}
    shown = f" (only side calls: {', '.join(f'{k} {v}' for k, v in sorted(side.items()))})" if side else ""
    why = "no read shows what the instruction asks for" if instruction.strip() else "no instruction says what to report"
    return f"nothing to check: the recording changes no state{shown}, and {why}"


def answer_rubrics(
    parts: list[AnswerPart], steps: list[GoldenStep], calls: dict[str, Call | None], ctx: CheckContext
) -> list[DraftRubric]:
    """One rubric per read the answer comes from (made again, on the same entity) and one per value."""
    rubrics: list[DraftRubric] = []
    by_id = {s.call_id: s for s in steps}
    for cid in dict.fromkeys(p.call_id for p in parts):
        call, step = calls.get(cid), by_id.get(cid)
        if call is None or step is None:
            continue
        rubrics.append(
            DraftRubric(
                title=call_title(call, step, ctx),
                description=f"The attempt reads what the answer comes from, as recorded call {cid} did.",
                max_score=1,
                checker_key=f"lookup_{safe_key(cid)}",
                checker=call_checker(call, ctx),
            )
        )
    for number, part in enumerate(parts, start=1):
        label = part.field.split(".", 1)[-1]
        rubrics.append(
            DraftRubric(
                title=f"The answer reports {label} '{part.value}'",
                description=f"The attempt's answer (task.answer) states {part.value!r}, what {part.call_id} showed "
                f"at {part.field}.",
                max_score=2,
                checker_key=f"answer_{number}",
                checker={"kind": "answer", "answer": {"regex": answer_pattern(part.value), "case_insensitive": True}},
            )
        )
    return rubrics
