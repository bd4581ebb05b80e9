"""Handing the phone to a person: login, 2FA, captcha, missing information, authorisation only.

The core only calls a hook. It blocks until the person is done and returns an optional note;
the loop then goes on with the same run, its history, the note and a fresh screenshot. In a
deployment the hook pauses the Prefect flow run for a typed RunInput (part of the `run-agent`
flow); tests and the SDK pass their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TakeoverReason = Literal["login", "2fa", "captcha", "missing_information", "authorisation"]


class TakeoverArgs(BaseModel):
    """The arguments of `request_takeover`."""

    model_config = ConfigDict(extra="forbid")

    reason: TakeoverReason = Field(description="login | 2fa | captcha | missing_information | authorisation")
    message: str = Field(min_length=1, max_length=1000, description="exactly what the person must do now")


class TakeoverRequest(BaseModel):
    run_id: str
    serial: str
    reason: TakeoverReason
    message: str
    step: int


class TakeoverAnswer(BaseModel):
    """What the person says when handing back; nothing needs to be typed."""

    note: str | None = Field(default=None, max_length=4000)


TakeoverHook = Callable[[TakeoverRequest], TakeoverAnswer]
