"""Flags: what a local rule found, with the calls involved."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Severity = Literal["info", "warning", "error"]


class Flag(BaseModel):
    code: str
    message: str
    call_ids: list[str] = Field(default_factory=list)
    severity: Severity = "warning"
