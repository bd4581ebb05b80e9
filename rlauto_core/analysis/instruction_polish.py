"""`optimizeTask`: the package's instruction polished into both languages (`task.instructions`
{zh, en}, how in `task.instructionPolish`), each iteration before the judge reads the package.

The offline analyzer tidies deterministically (whitespace, a leading capital, end punctuation)
and fills a language only with text really written in it: the instruction itself in its own
script, or a translation the recording gives; the other stays empty and a note says so. The
model analyzer asks its model once more with the polish prompt (`prompts.polish`), once per
distinct instruction; a permanent failure falls back to the offline tidy with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from rlauto_core.analysis.polish import polish_task
from rlauto_core.llm.errors import PermanentModelError
from rlauto_core.llm.types import ModelClient, TokenUsage
from rlauto_core.package.models import TaskPackage

_SPACES = re.compile(r"[ \t\u00a0\u3000]+")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# a space before Chinese punctuation is a typing slip; spaces between words are kept (one may
# end a name: "#产品 频道")
_HAN_GAP = re.compile(r" +(?=[\uff0c\u3002\uff1b\uff1a\uff01\uff1f\u3001])")
_SPACE_BEFORE_PUNCT = re.compile(r" +([,.;:!?])")
_EN_END = ".!?\"')]»”’"
_ZH_END = "。！？”’）」』"


class InstructionPolish(BaseModel):
    zh: str | None = None
    en: str | None = None
    notes: str = ""
    by: str = "offline"  # "offline" or the model's name
    usage: TokenUsage = TokenUsage()


def tidy_instruction(text: str) -> str:
    """Whitespace folded (lines joined), spaces before punctuation removed, a leading lower-case word capitalised, end punctuation added."""
    lines = [_SPACES.sub(" ", line).strip() for line in text.splitlines()]
    tidy = " ".join(line for line in lines if line)
    tidy = _SPACE_BEFORE_PUNCT.sub(r"\1", _HAN_GAP.sub("", tidy))
    if not tidy:
        return tidy
    if _HAN.search(tidy):
        return tidy if tidy[-1] in _ZH_END + _EN_END else tidy + "。"
    first = tidy.split(" ", 1)[0]
    if first.isalpha() and first.islower():  # "reply ..." -> "Reply ...", never "iPhone" or an id
        tidy = tidy[0].upper() + tidy[1:]
    return tidy if tidy[-1] in _EN_END else tidy + "."


def polish_offline(instruction: str, recorded_task: Mapping[str, Any], note: str = "") -> InstructionPolish:
    from rlauto_core.dataset.languages import instruction_languages  # the dataset's own rule

    zh, en = instruction_languages({**recorded_task, "instruction": instruction})
    notes = [note] if note else []
    notes.append("offline: whitespace, capitalisation and end punctuation tidied")
    for code, value in (("zh", zh), ("en", en)):
        if value is None:
            notes.append(f"no {code} text: the recording gives none and no model translated it")
    return InstructionPolish(
        zh=tidy_instruction(zh) if zh else None, en=tidy_instruction(en) if en else None, notes="; ".join(notes)
    )


class ModelPolisher:
    """The model's polish, asked once per distinct instruction text (the loop's later iterations
    often keep the instruction)."""

    def __init__(self, client: ModelClient, model: str) -> None:
        self._client, self._model = client, model
        self._done: dict[str, InstructionPolish] = {}

    def polish(self, instruction: str, recorded_task: Mapping[str, Any]) -> InstructionPolish:
        if not instruction.strip():
            return polish_offline(instruction, recorded_task, note="no instruction to polish")
        if instruction in self._done:  # already paid for: no usage the second time
            return self._done[instruction].model_copy(update={"usage": TokenUsage()})
        try:
            outcome = polish_task(instruction, self._client)
        except PermanentModelError as exc:
            return polish_offline(instruction, recorded_task, note=f"model polish failed: {exc}")
        answer = outcome.result
        done = InstructionPolish(
            zh=answer.zh.strip(), en=answer.en.strip(), notes=answer.notes, by=self._model, usage=outcome.usage
        )
        self._done[instruction] = done
        return done


def with_polish(package: TaskPackage, polish: InstructionPolish) -> TaskPackage:
    """The package with `task.instructions` {zh, en} and `task.instructionPolish` {by, notes}."""
    task = package.task.model_dump(by_alias=True)
    task["instructions"] = {"zh": polish.zh, "en": polish.en}
    task["instructionPolish"] = {"by": polish.by, "notes": polish.notes}
    return package.model_copy(update={"task": type(package.task).model_validate(task)})
