"""Local rules: flags computed from the recording and its evidence, before any model runs."""

from __future__ import annotations

from rlauto_core.evidence.models import Evidence
from rlauto_core.recording import Mode, Recording
from rlauto_core.rules import api, mcp
from rlauto_core.rules.capture import import_flags
from rlauto_core.rules.flags import Flag
from rlauto_core.rules.profiles import (
    DEFAULT_PROFILE,
    PROFILE_NAMES,
    PROFILES,
    RuleProfile,
    RuleProfileName,
    get_profile,
)

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "PROFILE_NAMES",
    "Flag",
    "RuleProfile",
    "RuleProfileName",
    "get_profile",
    "run_rules",
]


def run_rules(recording: Recording, evidence: Evidence, profile: str | RuleProfile | None = None) -> list[Flag]:
    rules = profile if isinstance(profile, RuleProfile) else get_profile(profile)
    flags: list[Flag] = []
    flags += api.auth_only_flags(evidence)
    flags += api.state_change_flags(evidence, rules)
    flags += api.annotator_flags(recording, evidence)
    flags += api.failure_flags(evidence, rules)
    flags += import_flags(recording)
    if recording.mode is Mode.MCP:
        flags += mcp.cross_entity_flags(evidence, rules)
        flags += mcp.unread_check_flags(evidence, rules)
        flags += mcp.order_flags(evidence, rules)
        flags += mcp.noise_flags(evidence, rules)
        flags += api.unanswered_flags(recording)
    return flags
