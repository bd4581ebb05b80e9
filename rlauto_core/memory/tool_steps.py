"""A run's successful tool calls as step-task steps: what the action library learns from.

Only what a step task can replay is converted: a tap by text, resource-id or description
(`click` with that selector), typing, swipes, keys, starting and stopping apps, waits. A tap by
coordinates is never converted (an action holds no coordinate); looking, files, reports and
takeovers are not steps.
"""

from __future__ import annotations

from typing import Any

from rlauto_core.agent.policy import StepRecord
from rlauto_core.agent.tools import WAIT_CAP_S

MAX_INPUT_STEPS = 10  # at most this many steps go into one distillation of actions


def _selector(args: dict[str, Any]) -> dict[str, Any] | None:
    selector: dict[str, Any] = {}
    for tool_key, step_key in (("text", "text"), ("resource_id", "resourceId"), ("description", "description")):
        if isinstance(args.get(tool_key), str):
            selector[step_key] = args[tool_key]
    if not selector:
        return None
    if isinstance(args.get("index"), int) and args["index"] > 0:
        selector["instance"] = args["index"]
    return selector


def step_of(record: StepRecord) -> dict[str, Any] | None:
    """The step a successful call replays as, or None."""
    if not record.ok:
        return None
    args, tool = record.args, record.tool
    if tool == "tap":
        if "x" in args or "y" in args:
            return None
        selector = _selector(args)
        return {"kind": "click", "selector": selector} if selector else None
    if tool == "type_text" and isinstance(args.get("text"), str):
        return {"kind": "input_text", "text": args["text"], **({"clear": True} if args.get("clear") else {})}
    if tool == "swipe" and isinstance(args.get("direction"), str):
        return {
            "kind": "swipe",
            "direction": args["direction"],
            "scale": args.get("distance", 0.5),  # the agent's default distance, not the step's
            "duration_s": args.get("duration_s", 0.3),
        }
    if tool == "press_key" and isinstance(args.get("key"), str):
        return {"kind": "press_key", "key": args["key"]}
    if tool == "app_start" and isinstance(args.get("package"), str):
        return {
            "kind": "app_start",
            "package": args["package"],
            **({"stop_first": True} if args.get("stop_first") else {}),
        }
    if tool == "app_stop" and isinstance(args.get("package"), str):
        return {"kind": "app_stop", "package": args["package"]}
    if tool == "wait" and isinstance(args.get("seconds"), int | float):
        return {"kind": "wait", "seconds": min(float(args["seconds"]), WAIT_CAP_S)}
    return None


def candidate_steps(records: list[StepRecord], limit: int = MAX_INPUT_STEPS) -> list[dict[str, Any]]:
    """The first `limit` successful calls that convert to steps, in order."""
    out: list[dict[str, Any]] = []
    for record in records:
        step = step_of(record)
        if step is not None:
            out.append(step)
            if len(out) >= limit:
                break
    return out
