"""The request the model gets, kept under the context size with no turn budget.

In order: the system prompt; the conversation's last 12 rounds (role and content); the task
with a digest of steps folded out of the run's state; then the run's rounds. Only the latest
screenshot goes as an image and only the latest UI tree whole: older ones become one-line
placeholders. If that is still over the budget, the oldest rounds are left out (whole rounds,
so every tool message still follows its call) and counted in the digest. The estimate is
deliberately generous: UTF-8 bytes / 3 per token, 1500 tokens per image.
"""

from __future__ import annotations

import base64
import json

from rlauto_core.agent.run.prompts import opening
from rlauto_core.agent.run.state import Round, RunState
from rlauto_core.agent.tools import ScreenStore
from rlauto_core.llm.tool_types import (
    AssistantItem,
    ChatItem,
    ImagePart,
    SystemItem,
    ToolResultItem,
    ToolSpec,
    UserItem,
)

IMAGE_TOKENS = 1500
OUTPUT_RESERVE_TOKENS = 4096
_MESSAGE_OVERHEAD = 8


def text_tokens(text: str) -> int:
    return len(text.encode("utf-8")) // 3 + 1


def item_tokens(item: ChatItem) -> int:
    """The estimate of one item, as it goes on the wire (images at a flat cost)."""
    if isinstance(item, AssistantItem):
        calls = sum(text_tokens(c.name) + text_tokens(c.wire_arguments()) for c in item.tool_calls)
        return _MESSAGE_OVERHEAD + text_tokens(item.content) + calls
    if isinstance(item, UserItem):
        return _MESSAGE_OVERHEAD + text_tokens(item.content) + IMAGE_TOKENS * len(item.images)
    return _MESSAGE_OVERHEAD + text_tokens(item.content)


def tools_tokens(tools: list[ToolSpec]) -> int:
    return text_tokens(json.dumps([t.model_dump() for t in tools]))


def _latest_ui_tree(rounds: list[Round]) -> str | None:
    for round_ in reversed(rounds):
        for result in reversed(round_.results):
            if result.stale is not None:
                return result.call_id
    return None


def _round_items(round_: Round, image: ImagePart | None, latest_tree: str | None) -> list[ChatItem]:
    items: list[ChatItem] = []
    if round_.by_model:
        items.append(AssistantItem(content=round_.text, tool_calls=round_.tool_calls))
        done = {r.call_id: r for r in round_.results}
        for call in round_.tool_calls:
            result = done.get(call.id)
            content = "not executed" if result is None else result.content
            if result is not None and result.stale is not None and result.call_id != latest_tree:
                content = result.stale
            items.append(ToolResultItem(call_id=call.id, name=call.name, content=content))
    notes = [round_.note] if round_.note else []
    shown = round_.screens[-1] if image is not None and round_.screens else None
    notes += [f"[screenshot {s.number} ({s.caption}) not shown again]" for s in round_.screens if s is not shown]
    if notes or image is not None:
        items.append(UserItem(content="\n".join(notes), images=[image] if image is not None else []))
    return items


def _fitting_digest(lines: list[str], dropped: int, room: int) -> tuple[list[str], int]:
    """The newest digest lines whose text fits in `room` tokens; the rest are counted."""
    kept = 0
    used = 0
    for line in reversed(lines):
        cost = text_tokens(line) + 1
        if used + cost > room:
            break
        used += cost
        kept += 1
    return lines[len(lines) - kept :], dropped + len(lines) - kept


def compose(
    state: RunState,
    system: str,
    tools: list[ToolSpec],
    screens: ScreenStore,
    context_tokens: int,
) -> list[ChatItem]:
    """The items of the next request, estimated under `context_tokens` minus the answer's room."""
    budget = context_tokens - OUTPUT_RESERVE_TOKENS - tools_tokens(tools)
    head: list[ChatItem] = [SystemItem(content=system)]
    head += [
        UserItem(content=m.content) if m.role == "user" else AssistantItem(content=m.content) for m in state.history
    ]
    bare_task = UserItem(content=opening(state.instruction, [], 0))
    # room held back for the digest of what is left out, so the newest rounds cannot take it all
    digest_room = min(budget // 10, 2000)
    used = sum(item_tokens(i) for i in head) + item_tokens(bare_task) + digest_room
    latest_screen = next((i for i in range(len(state.rounds) - 1, -1, -1) if state.rounds[i].screens), None)
    latest_tree = _latest_ui_tree(state.rounds)
    image = None
    if latest_screen is not None:
        try:
            data = screens.read(state.rounds[latest_screen].screens[-1])
            image = ImagePart(data_b64=base64.b64encode(data).decode("ascii"))
        except OSError:
            latest_screen = None  # a screen lost from storage: the request goes without an image
    kept: list[list[ChatItem]] = []
    for index in range(len(state.rounds) - 1, -1, -1):
        items = _round_items(state.rounds[index], image if index == latest_screen else None, latest_tree)
        cost = sum(item_tokens(i) for i in items)
        if kept and used + cost > budget:
            break
        kept.append(items)
        used += cost
    left_out = state.rounds[: len(state.rounds) - len(kept)]
    lines = state.digest + [line for r in left_out for line in r.digest()]
    room = budget - used + digest_room
    digest, dropped = _fitting_digest(lines, state.digest_dropped, max(0, room - 40))
    out = [*head, UserItem(content=opening(state.instruction, digest, dropped))]
    for items in reversed(kept):
        out += items
    return out
