"""Analyzer prompts: shared + API or MCP system prompt, and the user prompt of one iteration."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from rlauto_core.llm.types import Message
from rlauto_core.prompts.answers import AnalyzerResult
from rlauto_core.prompts.dsl import VALUE_ROLES, dsl_reference
from rlauto_core.recording import Mode

SHARED_SYSTEM = """\
You are the analyzer of RL-Auto. From ONE recording of a person doing a computer task you write
an RL task package that an agent will be trained and graded on. A draft package made by rules is
given; refine it. Everything you write must be grounded in the recording's evidence.

Rules:
1. INSTRUCTION: one self-contained goal a user would say, naming the target entities by the
   names/ids that appear in the evidence; several meaningful steps; no click-by-click
   micromanagement; nothing the recording does not show.
2. GROUPS: recommended_groups are subtasks; each lists the call ids it relies on.
3. RUBRICS: atomic, one per required outcome (every state change the task asks for, every
   database row it must leave); nothing graded that the task did not ask; each has a checker_key.
4. CHECKERS: executable, declarative, in the DSL below. Grade what the agent controls (target
   entity, content, order); compare each value by its role (VALUE ROLES below): an id the
   attempt creates by dataflow, a stable id by value without requiring a read, a volatile value
   never. An attempt with no calls must fail every rubric that is about a state change. Side
   calls (telemetry, recommendations, UI state such as grid state, saved filters, bookmarks) are
   never required. Order two writes on one entity only when the instruction says so. A recording
   that changes nothing is graded on the answer it shows (kind answer).
5. GOLDEN TRAJECTORY: the call ids of the reference solution, in a valid order, exactly the
   needed calls: no noise, no strays, no calls on another entity.
6. Use call ids exactly as the evidence prints them ("id"). Put what the recording cannot show,
   and every call you rejected as a stray, in evidence_limits.
7. Answer with ONE JSON object matching the schema at the end of the user message; no prose.
"""

API_SYSTEM = """\
API mode: the recording is HTTP traffic. Group calls by HTTP endpoint ("METHOD /path"); a
subtask never mixes endpoints it does not need. Checkers use kind http_call (method, path or
path_template + path_params, query, request body fields, response status/body fields), dbdiff,
order, absent, count. Ignore login, token refresh, telemetry, analytics, static assets and
page loads: they are never part of the task.
"""

MCP_TRAJECTORY_RULES = """\
MCP TRAJECTORY RULES (hard constraints, a package that breaks one fails the judge):
- ENTITY CONSISTENCY: every call used by a group, a rubric or the golden trajectory shares the
  same channel/guild/message/thread id. The main entity is the id hit by the most write calls.
- NOISE BLACKLIST: never use these tools in recommended_groups, checkers or the golden
  trajectory: login, logout, refresh_token, get_session, whoami, get_current_user, get_self,
  me, default_config, start_typing, stop_typing, set_typing, presence, heartbeat, ping,
  get_pending_*, list_pending_*, telemetry_*, page_load, page_view, init_*, bootstrap_*,
  *_typing_*, auth_*, session_*, *_telemetry, *_heartbeat, *_ping.
- ORDER CONSTRAINTS: mark_*_read comes before any get_unread_* / list_unread_* check;
  create_* comes before the list_* / get_* that verifies it; send_message comes before the
  list_messages / search_*_messages that verifies it.
- STRAY-CALL REJECTION: a call that breaks any rule above is dropped from groups, rubrics and
  the golden trajectory, and named in evidence_limits.
"""

MCP_SYSTEM = (
    """\
MCP mode: the recording is MCP tool calls. Group calls by tool; a tool name is copied EXACTLY
as recorded (never shortened, renamed or re-prefixed). Checkers use kind mcp_call (tool,
server, arguments, result), dbdiff, order, absent, count.
"""
    + MCP_TRAJECTORY_RULES
)


def analyzer_system_prompt(mode: Mode) -> str:
    specific = MCP_SYSTEM if mode is Mode.MCP else API_SYSTEM
    return "\n".join([SHARED_SYSTEM, specific, VALUE_ROLES, dsl_reference()])


def _block(title: str, body: str) -> str:
    return f"=== {title} ===\n{body.strip()}\n"


def _json(value: Any) -> str:
    # compact: indentation costs tokens on every call and models read compact JSON as well
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@lru_cache(maxsize=32)
def answer_schema(model: type[Any]) -> str:
    # built from the class alone and asked for on every model call: pydantic's schema walk cost
    # about 6 ms of CPU a call, held under the GIL while the batch's other items wait
    return json.dumps(model.model_json_schema(), ensure_ascii=False, separators=(",", ":"))


def analyzer_user_prompt(
    *,
    slim_evidence: dict[str, Any],
    flags: list[dict[str, Any]],
    draft: dict[str, Any],
    memory: str,
    judge_feedback: str,
    user_feedback: str,
    iteration: int,
    max_iterations: int,
) -> str:
    parts = [
        _block("ITERATION", f"{iteration} of {max_iterations}"),
        _block(
            'SLIM EVIDENCE (significant calls only; noise already removed; calls with "write": true change '
            'state, the others read; long ids appear as c<N> with the recorded id in "ref")',
            _json(slim_evidence),
        ),
        _block("LOCAL RULE FLAGS", _json(flags) if flags else "none"),
        _block("DRAFT PACKAGE (rule-based; refine it, keep what is right)", _json(draft)),
    ]
    if memory.strip():
        parts.append(_block("ITERATION MEMORY (problems still open from earlier iterations)", memory))
    if judge_feedback.strip():
        parts.append(_block("JUDGE FEEDBACK", judge_feedback))
    if user_feedback.strip():
        parts.append(_block("USER FEEDBACK (follow it unless it breaks a hard rule)", user_feedback))
    parts.append(_block("ANSWER JSON SCHEMA", answer_schema(AnalyzerResult)))
    return "\n".join(parts)


def analyzer_messages(mode: Mode, user_prompt: str) -> list[Message]:
    return [
        Message(role="system", content=analyzer_system_prompt(mode)),
        Message(role="user", content=user_prompt),
    ]
