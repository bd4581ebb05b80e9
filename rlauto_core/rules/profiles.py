"""Rule profiles: named, versioned rule sets.

The seed names three profiles without saying how they differ; here they share every rule and
differ only in strictness (see docs/rules.md):
- `echo-05061347` (default): the current echo extension. Cross-entity checked over every
  significant call; hygiene findings are warnings.
- `rl-env-4.30`: the RL environment's import gate, strict. Same checks; hygiene and failed calls
  are errors, a single state change is flagged as too simple.
- `echo-04281753`: the older extension, lenient. Cross-entity checked over state-changing calls
  only; noise and order findings are informational.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel

from rlauto_core.errors import ConfigError
from rlauto_core.rules.flags import Severity

# The profiles a run may name; `PROFILES` below has one entry per name.
RuleProfileName = Literal["echo-05061347", "rl-env-4.30", "echo-04281753"]
DEFAULT_PROFILE: RuleProfileName = "echo-05061347"


class RuleProfile(BaseModel):
    name: RuleProfileName
    version: str
    cross_entity_scope: Literal["significant", "state_changing"]
    hygiene_severity: Severity  # cross-entity, unread-before-mark-read, order rules
    noise_severity: Severity
    failure_severity: Severity
    min_state_changes: int  # fewer successful state changes than this is flagged


PROFILES: dict[str, RuleProfile] = {
    p.name: p
    for p in (
        RuleProfile(
            name=DEFAULT_PROFILE,
            version="2026.05.06",
            cross_entity_scope="significant",
            hygiene_severity="warning",
            noise_severity="info",
            failure_severity="warning",
            min_state_changes=1,
        ),
        RuleProfile(
            name="rl-env-4.30",
            version="2026.04.30",
            cross_entity_scope="significant",
            hygiene_severity="error",
            noise_severity="warning",
            failure_severity="error",
            min_state_changes=2,
        ),
        RuleProfile(
            name="echo-04281753",
            version="2026.04.28",
            cross_entity_scope="state_changing",
            hygiene_severity="info",
            noise_severity="info",
            failure_severity="warning",
            min_state_changes=1,
        ),
    )
}
assert set(PROFILES) == set(get_args(RuleProfileName))  # one definition per name
PROFILE_NAMES: tuple[RuleProfileName, ...] = get_args(RuleProfileName)


def get_profile(name: str | None) -> RuleProfile:
    key = name or DEFAULT_PROFILE
    if key not in PROFILES:
        raise ConfigError(f"unknown rule profile {key!r}; known: {', '.join(PROFILES)}")
    return PROFILES[key]
