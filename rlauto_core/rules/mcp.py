"""MCP trajectory hygiene (seed layer 1): cross-entity ids, unread check before mark-read,
noise tools, and the order rules (create before verify-list, send before list/search)."""

from __future__ import annotations

from collections import defaultdict

from rlauto_core.evidence.classify import name_tokens
from rlauto_core.evidence.models import CallEvidence, Evidence
from rlauto_core.rules.flags import Flag
from rlauto_core.rules.profiles import RuleProfile

# Keys that name the conversation/workspace a task lives in; ids of users or labels may differ.
SCOPE_KEYS = ("guildId", "channelId", "threadId", "conversationId", "workspaceId", "projectId", "boardId",
              "repoId", "teamId", "chatId", "folderId", "noteId", "issueId", "documentId")  # fmt: skip


def cross_entity_flags(evidence: Evidence, profile: RuleProfile) -> list[Flag]:
    scope = [c for c in evidence.significant if profile.cross_entity_scope == "significant" or c.state_changing]
    values: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for call in scope:
        for ref in call.entities:
            if ref.key in SCOPE_KEYS:
                values[ref.key][ref.value].append(call.id)
    flags = []
    for key, by_value in values.items():
        if len(by_value) > 1:
            listed = "; ".join(f"{value} ({', '.join(ids)})" for value, ids in by_value.items())
            flags.append(
                Flag(
                    code=f"cross_entity_{key}",
                    message=f"calls touch {len(by_value)} different {key} values: {listed}",
                    call_ids=[i for ids in by_value.values() for i in ids],
                    severity=profile.hygiene_severity,
                )
            )
    return flags


def _is_unread_check(call: CallEvidence) -> bool:
    tokens = name_tokens(call.name)
    return not call.state_changing and "unread" in tokens and bool({"get", "list", "count"} & set(tokens))


def _is_mark_read(call: CallEvidence) -> bool:
    tokens = name_tokens(call.name)
    return "mark" in tokens and "read" in tokens


def unread_check_flags(evidence: Evidence, profile: RuleProfile) -> list[Flag]:
    calls = evidence.significant
    marks = [c for c in calls if _is_mark_read(c)]
    if not marks:
        return []
    first_mark = marks[0].index
    early = [c for c in calls if _is_unread_check(c) and c.index < first_mark]
    if not early:
        return []
    return [
        Flag(
            code="unread_check_before_mark_read",
            message=(
                f"{', '.join(f'{c.name} ({c.id})' for c in early)} before {marks[0].name} ({marks[0].id}): "
                "an unread check belongs after marking read, or out of the trajectory"
            ),
            call_ids=[c.id for c in early] + [marks[0].id],
            severity=profile.hygiene_severity,
        )
    ]


def noise_flags(evidence: Evidence, profile: RuleProfile) -> list[Flag]:
    noisy = [c for c in evidence.calls if c.noise_category]
    if not noisy:
        return []
    names = sorted({c.name for c in noisy})
    return [
        Flag(
            code="noise_tools_present",
            message=f"{len(noisy)} background call(s) filtered out: {', '.join(names)}",
            call_ids=[c.id for c in noisy],
            severity=profile.noise_severity,
        )
    ]


def _resource(call: CallEvidence) -> str:
    """The noun a tool acts on: `slack_create_channel` -> `channel`, `list_messages` -> `message`."""
    tokens = name_tokens(call.name)
    noun = tokens[-1] if tokens else ""
    return noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun


def order_flags(evidence: Evidence, profile: RuleProfile) -> list[Flag]:
    """A verify read (list/get/search) of a resource only before its create/send is out of order."""
    flags: list[Flag] = []
    calls = evidence.significant
    # reads grouped once by resource: a scan per write was quadratic (50k calls took minutes)
    reads_of: dict[str, list[CallEvidence]] = defaultdict(list)
    for call in calls:
        if not call.state_changing:
            reads_of[_resource(call)].append(call)
    for write in calls:
        tokens = set(name_tokens(write.name))
        if not write.state_changing or not ({"create", "send", "post"} & tokens):
            continue
        resource = _resource(write)
        reads = reads_of.get(resource, [])
        # reads are in recorded order: "some before, none after" is "the last read is before"
        if reads and reads[-1].index < write.index:
            before = reads
            rule = "send_before_list" if {"send", "post"} & tokens else "create_before_verify"
            flags.append(
                Flag(
                    code=f"order_{rule}",
                    message=(
                        f"{', '.join(f'{c.name} ({c.id})' for c in before)} only before {write.name} ({write.id}): "
                        f"a verify read of {resource} must come after the {'send' if 'send' in rule else 'create'}"
                    ),
                    call_ids=[c.id for c in before] + [write.id],
                    severity=profile.hygiene_severity,
                )
            )
    return flags
