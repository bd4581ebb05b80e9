"""What an environment can and cannot simulate, per package (`env.coverage`, docs/replay.md)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from rlauto_core.checkers.outputs import output_locations
from rlauto_core.package.volatile import volatile_kind
from rlauto_core.recording import ToolCall
from rlauto_core.replay.dbdiff import unexplained_rows
from rlauto_core.replay.render import MOVING
from rlauto_core.replay.world import World


class RouteCoverage(BaseModel):
    route: str  # `METHOD /path/{}` or the tool
    exchanges: int
    writes: int
    answers_only_errors: bool = False


class EnvCoverage(BaseModel):
    """`recorded`: the endpoints or tools it answers; `simulated`: the state it keeps; `unknown`:
    what it cannot know and how it answers that."""

    recorded: list[RouteCoverage] = Field(default_factory=list)
    simulated: list[str] = Field(default_factory=list)
    unknown: list[str] = Field(default_factory=list)


def coverage_of(world: World) -> EnvCoverage:
    recorded = [
        RouteCoverage(route=route, exchanges=len(found), writes=sum(e.write for e in found),
                      answers_only_errors=not any(e.succeeded for e in found))
        for route, found in world.routes.items()
    ]  # fmt: skip
    simulated = []
    for value, origin in world.made.items():
        simulated.append(f"fresh id for {value!r} (made by {origin.call_id}'s {origin.root}.{origin.path})")
    volatile = sorted({
        ".".join(p for p in path.split(".") if not p.isdigit()) for e in world.exchanges for _, path, value in output_locations(e.call)
        if volatile_kind(path, value) in MOVING
    })  # fmt: skip
    if volatile:
        simulated.append("moved on per session (versions, tokens, clocks): " + ", ".join(volatile[:20]))
    deletes = [r for r in world.routes if any(w in r.lower() for w in ("delete", "remove", "destroy", "archive"))]
    if deletes:
        simulated.append("deletes honoured (later calls on the entity answer as missing): " + ", ".join(deletes))
    if world.recording.dbdiff is not None:
        simulated.append("database diff: the recorded rows of the writes the session made, with its values")
    unknown = [
        "a call no recorded route or tool matches: answered as the app's unknown route (404) or an MCP tool "
        "error, and logged in the session",
        "an id the session never had (the recording's own new ids, ids nobody showed, deleted ones): answered as "
        "a missing entity",
        "effects the recording does not show (other users, background jobs, e-mails): not simulated",
    ]
    unknown += [f"a route only ever answered with an error: {c.route}" for c in recorded if c.answers_only_errors]
    unknown += [f"a database row no recorded write explains: {row}" for row in unexplained_rows(world)]
    unanswered = [c.tool for c in world.recording.tool_calls if isinstance(c, ToolCall) and not c.answered]
    unknown += [f"a tool whose call the recording never saw answered: {tool}" for tool in unanswered]
    return EnvCoverage(recorded=recorded, simulated=simulated, unknown=unknown)
