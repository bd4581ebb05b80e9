"""Where an agent run lives in storage.

```
agent/runs/{run}/state.json            the run's state (messages, policy counters, usage)
agent/runs/{run}/events/{seq:08d}.json one object per event, in order (object stores cannot append)
agent/runs/{run}/steps.jsonl           the step log `rlauto agent policy` replays
agent/runs/{run}/screens/{n:06d}.jpg   each screenshot as the model saw it (scaled JPEG)
agent/runs/{run}/thumbs/{n:06d}.jpg    its thumbnail, for step cards
agent/runs/{run}/files/NAME            files the agent made: its deliverables
agent/conversations/{conversation}.json  the conversation: 60 messages at most
```
A run id is the Prefect flow run id in a deployment (any id of letters, digits, `._-`).
"""

from __future__ import annotations

import re

from rlauto_core.errors import ConfigError

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def checked_id(value: str, what: str = "run id") -> str:
    if not _ID.fullmatch(value) or ".." in value:
        raise ConfigError(
            f"{what} {value!r}: use 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return value


def run_dir(run_id: str) -> str:
    return f"agent/runs/{checked_id(run_id)}"


def state_path(run_id: str) -> str:
    return f"{run_dir(run_id)}/state.json"


def events_dir(run_id: str) -> str:
    return f"{run_dir(run_id)}/events"


def event_path(run_id: str, seq: int) -> str:
    return f"{events_dir(run_id)}/{seq:08d}.json"


def step_log_path(run_id: str) -> str:
    return f"{run_dir(run_id)}/steps.jsonl"


def screen_path(run_id: str, number: int) -> str:
    return f"{run_dir(run_id)}/screens/{number:06d}.jpg"


def thumb_path(run_id: str, number: int) -> str:
    return f"{run_dir(run_id)}/thumbs/{number:06d}.jpg"


def files_dir(run_id: str) -> str:
    return f"{run_dir(run_id)}/files"


def conversation_path(conversation_id: str) -> str:
    return f"agent/conversations/{checked_id(conversation_id, 'conversation id')}.json"
