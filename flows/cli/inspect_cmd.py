"""`rlauto inspect PATH`: what a recording holds, what the rules flag, what a model would see."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from flows.cli.app import app, fail, load_settings
from rlauto_core.errors import RlautoError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rlauto_core.evidence import CallEvidence, Evidence
    from rlauto_core.recording import Call, Recording
    from rlauto_core.rules import Flag


def inspect_recording(path: Path, mode: str | None, profile: str | None, max_upload_mb: float) -> dict[str, Any]:
    from rlauto_core.evidence import build_evidence
    from rlauto_core.importers import import_path
    from rlauto_core.rules import get_profile, run_rules
    from rlauto_core.secret_values import recorded_secrets

    rule_profile = get_profile(profile)
    recording = import_path(path, requested_mode=mode, max_upload_mb=max_upload_mb)
    evidence = build_evidence(recording)
    flags = run_rules(recording, evidence, rule_profile)
    # a secret the recording carries is left out wherever it recurs (an echo, a URL, a later field)
    return recorded_secrets(recording).value(_report(recording, evidence, flags, rule_profile.name))


def _report(recording: Recording, evidence: Evidence, flags: list[Flag], profile: str) -> dict[str, Any]:
    from rlauto_core.evidence import evidence_chars, full_evidence, slim_evidence

    return {
        "source": recording.source_name,
        "mode": recording.mode.value,
        "detected_mode": recording.detected_mode.value,
        "rule_profile": profile,
        "instruction": recording.task.instruction,
        "calls_total": len(evidence.calls),
        "calls_significant": len(evidence.significant),
        "state_changing": evidence.state_changing,
        "writes": _writes(recording, evidence),
        "created": _created(recording, evidence),
        "volatile": _volatile(recording, evidence),
        "main_entity": evidence.main_entity._asdict() if evidence.main_entity else None,
        # why: how many writes hit it and act on it, the runner-up, and the parameters ruled out
        "main_entity_choice": choice.model_dump(mode="json") if (choice := evidence.main_entity_choice) else None,
        "flags": [f.model_dump(include={"code", "message", "call_ids", "severity"}) for f in flags],
        "noise_removed": evidence.noise_removed,
        "slim_chars": evidence_chars(slim_evidence(recording, evidence)),
        "full_chars": evidence_chars(full_evidence(recording, evidence)),
        "files": [f.name for f in recording.files],
    }


def _significant_writes(recording: Recording, evidence: Evidence) -> Iterator[tuple[CallEvidence, Call]]:
    calls = recording.calls
    for info in evidence.significant:
        if info.state_changing:
            yield info, calls[info.index]


def _writes(recording: Recording, evidence: Evidence) -> list[dict[str, Any]]:
    """Each significant write by name (a form's route and fields), with where its answer points."""
    from rlauto_core.forms import location_of
    from rlauto_core.recording import HttpCall
    from rlauto_core.redact import redact_url

    found: list[dict[str, Any]] = []
    for info, call in _significant_writes(recording, evidence):
        write: dict[str, Any] = {"id": info.id, "name": info.name, "status": info.status, "failed": info.failed}
        location = location_of(call) if isinstance(call, HttpCall) else None
        if location is not None:
            write["location"] = redact_url(location.target)
        if info.failure:
            write["failure"] = info.failure
        found.append(write)
    return found


def _created(recording: Recording, evidence: Evidence) -> list[dict[str, str]]:
    """Ids a write's answer made (a JSON body, a Location): a later attempt gets other ones."""
    from rlauto_core.package import invented_values
    from rlauto_core.redact import is_secret_field, redact_text

    made = invented_values(recording, evidence)
    return [
        {"value": redact_text(value), "call_id": o.call_id, "field": f"{o.root}.{o.path}"}
        for value, o in made.items()
        # a session token a write answered is no id to show; a Location's whole URL or path
        # repeats the ids its segments and fragment show
        if not is_secret_field(o.path) and f"{o.root}.{o.path}" not in ("location.url", "location.path")
    ]


def _volatile(recording: Recording, evidence: Evidence) -> list[dict[str, str]]:
    """Fields of the writes that a later, equally good attempt sends differently (CSRF tokens, clocks...)."""
    from rlauto_core.package import input_locations, volatile_kind

    found: list[dict[str, str]] = []
    for info, call in _significant_writes(recording, evidence):
        for loc in input_locations(call):
            kind = volatile_kind(loc.path, loc.value) if loc.root != "segment" else None
            if kind is not None:
                found.append({"call_id": info.id, "field": f"{loc.root}.{loc.path}", "kind": kind})
    return found


@app.command("inspect")
def inspect_command(
    path: Annotated[Path, typer.Argument(help="A recording ZIP or a bare .har file.")],
    mode: Annotated[str | None, typer.Option("--mode", help="Override mode detection: api or mcp.")] = None,
    profile: Annotated[str | None, typer.Option("--profile", help="Rule profile (default echo-05061347).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Show a recording's calls, state changes, main entity, flags and evidence sizes."""
    if mode is not None and mode not in ("api", "mcp"):
        fail(f"--mode: must be 'api' or 'mcp', not {mode!r}")
    try:
        report = inspect_recording(path, mode, profile, load_settings().max_upload_mb)
    except RlautoError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    _print_report(report)


def _print_report(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"[bold]{report['source']}[/bold]  mode={report['mode']}  profile={report['rule_profile']}")
    if report["instruction"]:
        console.print(f"instruction: {report['instruction']}")
    main = report["main_entity"]
    console.print(
        f"calls: {report['calls_total']} total, {report['calls_significant']} significant; "
        f"state-changing: {', '.join(report['state_changing']) or 'none'}; "
        f"main entity: {main['key'] + '=' + main['value'] if main else 'none'}"
    )
    choice = report["main_entity_choice"] or {}
    for label, tally in (("chosen", choice.get("chosen")), ("runner-up", choice.get("runner_up"))):
        if tally:
            console.print(
                f"  {label}: {tally['key']}={tally['value']} (hit by {tally['writes']} writes, "
                f"acted on by {tally['acted_on']})"
            )
    if choice.get("parameters"):
        passed = ", ".join(f"{k}={v}" for k, v in choice["parameters"])
        console.print(f"  never the main entity (passed to writes on another entity): {passed}")
    if report["noise_removed"]:
        console.print("noise removed: " + ", ".join(f"{k} {v}" for k, v in report["noise_removed"].items()))
    for write in report["writes"]:
        where = f" -> {write['location']}" if write.get("location") else ""
        outcome = f"failed: {write.get('failure') or write['status']}" if write["failed"] else str(write["status"])
        console.print(f"write {write['id']}: {write['name']} [{outcome}]{where}", markup=False)
    if report["created"]:
        console.print(
            "created: " + ", ".join(f"{c['value']} by {c['call_id']} ({c['field']})" for c in report["created"])
        )
    if report["volatile"]:
        console.print(
            "volatile: " + ", ".join(f"{v['field']} of {v['call_id']} ({v['kind']})" for v in report["volatile"])
        )
    console.print(f"evidence: slim {report['slim_chars']} chars, full {report['full_chars']} chars")
    if report["flags"]:
        table = Table("flag", "severity", "calls", "message")
        for flag in report["flags"]:
            table.add_row(flag["code"], flag["severity"], ", ".join(flag["call_ids"][:6]), flag["message"])
        console.print(table)
    else:
        console.print("flags: none")
