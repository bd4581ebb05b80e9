"""Property: any generated recording's own package passes its golden, fails an empty attempt, catches mutants."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.checkers import score
from rlauto_core.evidence.build import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.judging.selfcheck import golden_attempt, self_check
from rlauto_core.package.builder import build_package
from rlauto_core.package.calls import attempt_from_calls
from rlauto_core.rules import run_rules
from tests.recording_builders import api_recording, http, mcp_recording, tool

TEXT = (
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=3, max_size=24)
    .map(str.strip)
    .filter(lambda s: len(s) >= 3)
)
Op = tuple[str, str]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[str, str, list[Op], list[int], bool]:
    mode = draw(st.sampled_from(["api", "mcp"]))
    workspace = f"ws_{draw(st.integers(10, 999))}"
    ops: list[Op] = [("create", draw(TEXT))]
    ops += draw(
        st.lists(
            st.one_of(
                st.tuples(st.just("update"), st.sampled_from(["open", "done", "blocked"])),
                st.tuples(st.just("comment"), TEXT),
                st.tuples(st.just("read"), st.just("")),
            ),
            max_size=4,
        )
    )
    ids = draw(st.lists(st.integers(1000, 99999), min_size=len(ops), max_size=len(ops), unique=True))
    return mode, workspace, ops, ids, draw(st.booleans())


def build(mode: str, workspace: str, ops: list[Op], ids: list[int], noisy: bool) -> bytes:
    """A recording: list the workspace, create an item, then update/comment/read it (plus noise)."""
    item = f"it_{ids[0]}"
    base = "https://api.example.com/api"
    calls: list[dict[str, Any]] = []
    listing = {"items": [{"id": f"it_{ids[-1] + 7}", "title": "older"}], "workspaceId": workspace}
    if mode == "api":
        calls.append(http("r0", "GET", f"{base}/workspaces/{workspace}/items", 200, None, listing))
    else:
        calls.append(tool("c0", "app_list_items", {"workspaceId": workspace}, _result(listing)))
    for n, (kind, value) in enumerate(ops, start=1):
        if noisy:
            calls.append(
                http(f"n{n}", "GET", "https://cdn.example.com/app.js", 200, resource_type="script")
                if mode == "api"
                else tool(f"n{n}", "app_heartbeat")
            )
        if mode == "api":
            calls.append(_api(n, kind, value, workspace, item, base))
        else:
            calls.append(_mcp(n, kind, value, workspace, item))
    return api_recording(calls, "") if mode == "api" else mcp_recording(calls, "")


def _result(payload: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "ok"}], "structuredContent": payload, "isError": False}


def _api(n: int, kind: str, value: str, workspace: str, item: str, base: str) -> dict[str, Any]:
    if kind == "create":
        return http(f"r{n}", "POST", f"{base}/workspaces/{workspace}/items", 201, {"title": value}, {"id": item})
    if kind == "update":
        return http(f"r{n}", "PATCH", f"{base}/items/{item}", 200, {"status": value}, {"id": item, "status": value})
    if kind == "comment":
        return http(f"r{n}", "POST", f"{base}/items/{item}/comments", 201, {"text": value}, {"ok": True})
    return http(f"r{n}", "GET", f"{base}/items/{item}", 200, None, {"id": item})


def _mcp(n: int, kind: str, value: str, workspace: str, item: str) -> dict[str, Any]:
    if kind == "create":
        return tool(f"c{n}", "app_create_item", {"workspaceId": workspace, "title": value}, _result({"id": item}))
    if kind == "update":
        return tool(f"c{n}", "app_update_item", {"itemId": item, "status": value}, _result({"id": item}))
    if kind == "comment":
        return tool(f"c{n}", "app_add_comment", {"itemId": item, "text": value}, _result({"ok": True}))
    return tool(f"c{n}", "app_get_item", {"itemId": item}, _result({"id": item}))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_golden_passes_and_empty_fails(scenario: tuple[str, str, list[Op], list[int], bool]) -> None:
    recording = import_bytes(build(*scenario), "generated.zip")
    evidence = build_evidence(recording)
    flags = run_rules(recording, evidence)
    package = build_package(recording, evidence, analyze_offline(recording, evidence, flags), flags=flags)
    assert package.task.rubrics, "a recording with a write must get rubrics"
    golden, problems = golden_attempt(package, recording)
    assert problems == []
    report = score(package, golden)
    assert report.passed and report.score == report.max_score, [r for r in report.rubrics if not r.passed]
    # the package alone (task.json) replays the same golden trajectory
    alone, _ = golden_attempt(package, None)
    assert score(package, alone).passed
    empty = score(package, attempt_from_calls(None, [], "empty", recording.mode))
    assert empty.score == 0 and not empty.passed
    # a redo where the server hands out other ids, with other noise, passes too
    mode, workspace, ops, ids, noisy = scenario
    redo = import_bytes(build(mode, workspace, ops, [i + 100_000 for i in ids], not noisy), "redo.zip")
    assert score(package, redo).passed
    # and every mutant (drop, retarget, swap, stray) loses points, repeated writes included
    check = self_check(package, recording)
    assert check.problems == [] and check.caught_fraction == 1.0
