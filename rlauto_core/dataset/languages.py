"""The instruction in Chinese and in English, where a package has them.

A package carries one `task.instruction`. A recording may add translations in its task.json,
which the builder keeps as unknown `task` keys: `instruction_zh` / `instruction_en` (or
camelCase `instructionZh` / `instructionEn`), or an object `instructions` (also `translations`,
`polished`: what `rlauto polish` answers) holding `zh` / `en` (`zh-CN`, `zh-Hans`, `cn`,
`en-US`... too). A language the recording does not give is filled with `task.instruction` when
that is written in the language's script (Han characters for Chinese; Latin letters and no Han
for English), else left null: a trainer never gets a Chinese column holding English text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
_LATIN = re.compile(r"[A-Za-z]")

_FLAT_KEYS = {
    "zh": ("instruction_zh", "instructionZh", "instruction_cn", "instructionCn"),
    "en": ("instruction_en", "instructionEn"),
}
_NESTED_KEYS = ("instructions", "translations", "polished")
_CODES = {"zh": ("zh", "zh-CN", "zh_CN", "zh-Hans", "zh-cn", "cn"), "en": ("en", "en-US", "en_US", "en-GB", "en-us")}


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _given(task: Mapping[str, Any], language: str) -> str | None:
    for key in _FLAT_KEYS[language]:
        found = _text(task.get(key))
        if found:
            return found
    for key in _NESTED_KEYS:
        nested = task.get(key)
        if isinstance(nested, Mapping):
            for code in _CODES[language]:
                found = _text(nested.get(code))
                if found:
                    return found
    return None


def script_of(text: str) -> str | None:
    """zh when the text has Han characters, en when it has Latin letters and no Han, else None."""
    if _HAN.search(text):
        return "zh"
    if _LATIN.search(text):
        return "en"
    return None


def instruction_languages(task: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(Chinese, English) instruction of a package's `task` object (the JSON as written)."""
    zh, en = _given(task, "zh"), _given(task, "en")
    main = _text(task.get("instruction"))
    if main:
        script = script_of(main)
        if zh is None and script == "zh":
            zh = main
        elif en is None and script == "en":
            en = main
    return zh, en
