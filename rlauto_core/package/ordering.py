"""Order the instruction implies between writes on one entity ("invite Sam, then post the notice").

A data dependency already orders two writes (the later one uses what the earlier created). Two
writes that merely act on the same channel or invoice are ordered only when the recording does
them in that order and the instruction says so: its clauses are split at sequence words (then,
after that, next, finally, before/after, 然后, 之后 ...) and each write is placed in the clause
that names its action (or the values it sends). "Invite Sam and post the notice" orders nothing.
"""

from __future__ import annotations

import re
from typing import Any

from rlauto_core.evidence.classify import name_tokens
from rlauto_core.package.dataflow import id_like, input_locations
from rlauto_core.package.models import GoldenStep
from rlauto_core.protocols import operation_of
from rlauto_core.recording import Call, HttpCall

_SEQUENCE = re.compile(
    r"(?:,\s*|\s+)(?:and\s+)?(?:then|after\s+that|afterwards|next|finally|followed\s+by)\b|然后|之后|接着|随后|最后",
    re.IGNORECASE,
)
_LEADING = re.compile(r"^\s*(?:after|once|when)\s+(.+?),\s*(.+)$", re.IGNORECASE | re.DOTALL)
_BEFORE = re.compile(r"\s+before\s+", re.IGNORECASE)
_AFTER = re.compile(r"\s+after\s+", re.IGNORECASE)
# Action words that name the same kind of step (an instruction says "tell", the tool "send_message").
_FAMILIES = [
    {"post", "send", "message", "say", "tell", "announce", "reply", "respond", "write", "comment", "answer",
     "发布", "发送", "发消息", "回复", "告诉", "留言"},
    {"invite", "add", "member", "members", "join", "邀请", "加入", "拉入"},
    {"create", "make", "open", "file", "new", "start", "add", "创建", "新建", "新增", "添加"},
    {"update", "change", "set", "edit", "mark", "rename", "move", "modify", "patch", "transition", "transitions",
     "更新", "修改", "设置", "设为", "标记", "改名", "重命名", "移动", "移到"},
    {"delete", "remove", "drop", "删除", "移除"},
    {"publish", "release", "发布"},
    {"notify", "notification", "notifications", "email", "alert", "通知"},
    {"note", "notes", "备注", "笔记"},
    {"hold", "暂停", "挂起"},
    {"share", "分享", "共享"},
    {"tag", "tags", "label", "labels", "标签"},
    {"assign", "assignee", "分配", "指派"},
    {"archive", "归档"},
    {"close", "solve", "resolve", "complete", "关闭", "解决", "完成"},
    {"pin", "置顶"},
    {"upload", "attach", "上传", "附加"},
]  # fmt: skip
_METHOD_VERB = {"POST": "create", "PUT": "update", "PATCH": "update", "DELETE": "delete"}


def clauses(instruction: str) -> list[str]:
    """The instruction's steps in the order it asks for them."""
    text = instruction.strip()
    leading = _LEADING.match(text)
    if leading:
        return clauses(leading.group(1)) + clauses(leading.group(2))
    found: list[str] = []
    for part in _SEQUENCE.split(text):
        if _BEFORE.search(part):
            found.extend(p for p in _BEFORE.split(part) if p.strip())
        elif _AFTER.search(part):
            found.extend(p for p in reversed(_AFTER.split(part)) if p.strip())
        elif part.strip():
            found.append(part)
    return found


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word


def _operation(call: HttpCall) -> str | None:
    """A GraphQL call's operation (`cartLinesAdd`): one endpoint, the action is in the body."""
    operation = operation_of(call)
    return operation.label if operation is not None else None


def _action_words(call: Call) -> set[str]:
    if isinstance(call, HttpCall):
        operation = _operation(call)
        if operation is not None:
            words = set(name_tokens(operation))
        else:
            words = {_METHOD_VERB.get(call.method.upper(), "")}
            for segment in call.path.split("/"):
                if segment and not any(ch.isdigit() for ch in segment):
                    words.update(name_tokens(segment))
        words -= {"api", "rest", "v", ""}
    else:
        tokens = name_tokens(call.tool)
        if call.server and tokens and tokens[0] == call.server.lower():
            tokens = tokens[1:]  # `chat_post_message` of server `chat`: the prefix names no action
        words = set(tokens)
    return {_stem(w) for w in words} | words


def _families(words: set[str], text: str = "") -> list[int]:
    """Families named by these words, or (for Chinese, written without spaces) inside the text."""
    return [
        n
        for n, family in enumerate(_FAMILIES)
        if words & family or any(term in text for term in family if not term.isascii())
    ]


def _score(call: Call, clause: str) -> int:
    """How strongly a clause names this call: its own action verb (4) or a kindred one (3), a value it
    sends (2, or 1 for one plain word)."""
    lowered = clause.lower()
    words = {_stem(w) for w in re.findall(r"[a-z]+", lowered)} | set(re.findall(r"[a-z]+", lowered))
    actions = _action_words(call)
    verbs = {w for w in actions if any(w in family for family in _FAMILIES)}
    points = 4 if verbs & words else 3 if set(_families(actions)) & set(_families(words, clause)) else 0
    for loc in input_locations(call):
        if loc.root == "segment":
            continue  # the entity both writes act on names neither step
        values: list[Any] = loc.value if isinstance(loc.value, list) else [loc.value]
        for value in values:
            text = str(value).lower() if value is not None and not isinstance(value, bool) else ""
            if len(text) >= 3 and text in lowered:
                points += 2 if (" " in text or id_like(value)) else 1
    return points


def _clause_of(call: Call, parts: list[str]) -> int | None:
    scores = [_score(call, part) for part in parts]
    best = max(scores, default=0)
    if best == 0 or scores.count(best) > 1:
        return None  # named nowhere, or equally in two steps: the instruction orders nothing for it
    return scores.index(best)


def _same_entity(a: GoldenStep, b: GoldenStep, entities: dict[str, set[tuple[str, str]]]) -> bool:
    """Both act on one entity: the same id value, whatever key each endpoint names it by
    (`roomId` in one body, `rid` in the other)."""
    if a.target is not None and b.target is not None and a.target.value == b.target.value:
        return True
    values = {v for _, v in entities.get(a.call_id, set())}
    return any(v in values for _, v in entities.get(b.call_id, set()))


def implied_order(
    instruction: str, writes: list[GoldenStep], calls: dict[str, Call | None], entities: dict[str, set[tuple[str, str]]]
) -> list[tuple[str, str]]:
    """(earlier, later) call ids of writes on one entity that the instruction asks for in that order,
    as the recording did them; pairs a data dependency already orders are left out."""
    parts = clauses(instruction)
    if len(parts) < 2:
        return []
    placed: list[tuple[GoldenStep, int]] = []
    for step in writes:
        call = calls.get(step.call_id)
        where = _clause_of(call, parts) if call is not None else None
        if where is not None:
            placed.append((step, where))
    pairs: list[tuple[str, str]] = []
    for (first, i), (second, j) in ((p, q) for n, p in enumerate(placed) for q in placed[n + 1 :]):
        if i < j and first.call_id not in second.depends_on and _same_entity(first, second, entities):
            pairs.append((first.call_id, second.call_id))
    # one pair per neighbouring steps: invite -> post, not also invite -> every later write
    kept: list[tuple[str, str]] = []
    order = {s.call_id: where for s, where in placed}
    for earlier, later in pairs:
        if not any(order[a] > order[earlier] and b == later for a, b in pairs):
            kept.append((earlier, later))
    return list(dict.fromkeys(kept))
