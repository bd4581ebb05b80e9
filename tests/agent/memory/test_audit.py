"""The experience audit: the model rates, the library is only marked; a person's keep is never
rated again; deleting needs a person's confirmation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.memory import audit_experience
from rlauto_core.errors import ConfigError
from rlauto_core.memory import AuditFailed, ExperienceLibrary, audit_experiences, memory_client
from rlauto_core.store.storage import FsspecStorage
from tests.agent.memory.conftest import Brain, settings_for
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest

TASKS = ["Write the note 'Call Alice'", "Write the note 'Pay rent'", "Open settings and turn on wifi", "Take a photo"]


def _library(storage: FsspecStorage) -> tuple[ExperienceLibrary, list[str]]:
    library = ExperienceLibrary(storage)
    ids = [library.add(t, t, f"1. Open the right app for: {t}.\n2. Do it and check the screen.").id for t in TASKS]
    return library, ids


def _ids_in(request: RecordedRequest) -> list[str]:
    listed = request.prompt_text().split("RECIPES:\n", 1)[1]
    return [r["id"] for r in json.loads(listed)]


def rate_all(verdict: str, score: int = 2) -> Any:
    def answer(request: RecordedRequest) -> dict[str, Any]:
        return {
            "json": {
                "ratings": [
                    {"id": i, "verdict": verdict, "score": score, "reason": f"{verdict} it"} for i in _ids_in(request)
                ]
            }
        }

    return answer


def test_the_audit_only_marks_and_a_kept_recipe_is_never_rated_again(
    storage: FsspecStorage, fake_llm: FakeLlmServer
) -> None:
    library, ids = _library(storage)
    library.keep(ids[3], "Ann")
    ratings = {
        "json": {
            "ratings": [
                {"id": ids[0], "verdict": "keep", "score": 8, "reason": "clear and reusable"},
                {"id": ids[1], "verdict": "suggest delete", "score": 2.4, "reason": "a copy of the first one"},
                {"id": ids[2], "verdict": "delete", "score": 1, "reason": "vague"},
                {"id": "exp-unknown", "verdict": "delete", "score": 0, "reason": "not in the list"},
            ]
        }
    }
    brain = Brain(memory=[ratings, rate_all("delete")])
    fake_llm.script("agent", brain)
    with memory_client(settings_for(fake_llm)) as client:
        summary = audit_experiences(storage, client)
        assert _ids_in(brain.memory_requests[0]) == ids[:3]  # the kept one is not even shown
        assert (summary.recipes, summary.rated, summary.kept_by_person) == (4, 3, 1)
        assert summary.suggested_delete == [ids[1], ids[2]] and summary.unrated == []
        assert [e.id for e in library.all()] == ids  # nothing deleted
        marks = {i: library.mark(i) for i in ids}
        assert (marks[ids[0]].suggestion, marks[ids[0]].score, marks[ids[0]].pending_delete) == ("keep", 8, False)
        assert (marks[ids[1]].suggestion, marks[ids[1]].score, marks[ids[1]].reason) == (
            "delete",
            2,
            "a copy of the first one",
        )
        assert marks[ids[1]].pending_delete and marks[ids[1]].model == "agent"
        assert marks[ids[3]].decision == "kept" and marks[ids[3]].suggestion is None
        # a person keeps the one suggested for deletion: the next audit, however severe, skips it
        library.keep(ids[1], "Bob")
        again = audit_experiences(storage, client)
    assert _ids_in(brain.memory_requests[1]) == [ids[0], ids[2]]
    assert again.kept_by_person == 2 and again.suggested_delete == [ids[0], ids[2]]
    assert library.mark(ids[1]).decision == "kept" and not library.mark(ids[1]).pending_delete
    assert [e.id for e in library.all()] == ids


def test_deleting_a_recipe_needs_a_persons_confirmation(storage: FsspecStorage) -> None:
    library, ids = _library(storage)
    with pytest.raises(ConfigError, match="needs the name of the person who confirms it"):
        library.delete(ids[0], confirmed_by="  ")
    assert library.get(ids[0]) is not None
    assert library.delete(ids[0], confirmed_by="Ann") is True
    assert library.get(ids[0]) is None and library.mark(ids[0]) is None


def test_an_audit_with_no_usable_answer_fails_and_marks_nothing(
    storage: FsspecStorage, fake_llm: FakeLlmServer
) -> None:
    library, ids = _library(storage)
    fake_llm.script("agent", Brain(memory=[{"text": "I think they are all fine!"}]))
    with memory_client(settings_for(fake_llm)) as client, pytest.raises(AuditFailed, match="no usable answer"):
        audit_experiences(storage, client)
    assert all(library.mark(i) is None for i in ids)


def test_recipes_go_in_batches_and_a_missing_rating_leaves_one_unrated(
    storage: FsspecStorage, fake_llm: FakeLlmServer
) -> None:
    library, ids = _library(storage)

    def all_but_last(request: RecordedRequest) -> dict[str, Any]:
        listed = _ids_in(request)
        return {
            "json": {
                "ratings": [{"id": i, "verdict": "keep", "score": 7, "reason": "ok"} for i in listed if i != ids[-1]]
            }
        }

    brain = Brain(memory=[all_but_last])
    fake_llm.script("agent", brain)
    with memory_client(settings_for(fake_llm)) as client:
        summary = audit_experiences(storage, client, batch=3)
    assert [len(_ids_in(r)) for r in brain.memory_requests] == [3, 1]
    assert summary.rated == 3 and summary.unrated == [ids[-1]] and library.mark(ids[-1]) is None


def test_duckdb_reads_the_libraries_as_tables(storage: FsspecStorage) -> None:
    import duckdb

    from rlauto_core.memory import ActionLibrary
    from tests.agent.memory.answers import WRITE_A_NOTE

    library, ids = _library(storage)
    library.recall("Write the note 'Buy bread'")
    library.record_rating(ids[2], "delete", 1, "vague", "agent")
    ActionLibrary(storage).save(WRITE_A_NOTE)
    root = storage.full_path("agent/memory")
    with duckdb.connect() as con:
        rows = con.sql(
            f"SELECT e.instruction, e.hits, a.suggestion FROM read_json('{root}/experiences/*.json') e "
            f"LEFT JOIN read_json('{root}/experience_audit/*.json') a ON a.experience_id = e.id ORDER BY e.instruction"
        ).fetchall()
        actions = con.sql(f"SELECT name, len(steps) FROM read_json('{root}/actions/*.json')").fetchall()
    assert rows == [
        ("Open settings and turn on wifi", 0, "delete"),
        ("Take a photo", 0, None),
        ("Write the note 'Call Alice'", 1, None),
        ("Write the note 'Pay rent'", 1, None),
    ]
    assert actions == [("write a note", 4)]


@pytest.mark.prefect
@pytest.mark.slow  # a flow run on the session server
def test_an_empty_library_needs_no_model_from_the_cli_and_the_flow_alike(
    prefect_api_url: str, storage: FsspecStorage, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No key anywhere: the CLI and the daily flow both audit the empty library, exit 0 / complete,
    with the same summary; with a recipe in it, both refuse with the same reason."""
    monkeypatch.delenv("AGENT_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env from the checkout
    runner = CliRunner()
    cli = runner.invoke(app, ["experience", "audit", "--storage", storage.url, "--json"], env={"AGENT_API_KEY": ""})
    assert cli.exit_code == 0, cli.stderr
    flow = audit_experience(storage_url=storage.url)
    assert json.loads(cli.stdout) == flow.model_dump(mode="json") and flow.recipes == 0
    text = runner.invoke(app, ["experience", "audit", "--storage", storage.url], env={"AGENT_API_KEY": ""})
    assert text.stdout.strip() == "audited 0 recipes: the library is empty (no model needed)"
    _library(storage)
    refused = runner.invoke(app, ["experience", "audit", "--storage", storage.url], env={"AGENT_API_KEY": ""})
    assert refused.exit_code == 2 and refused.stderr.startswith("error: no model for the audit: set AGENT_API_KEY")
    with pytest.raises(ConfigError, match="no model for the audit: set AGENT_API_KEY"):
        audit_experience(storage_url=storage.url)
