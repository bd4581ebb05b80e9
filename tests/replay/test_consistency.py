"""State follows the session, not the recording: lock versions and ETags move on from what the
session showed (a stale one is refused), a delete makes the entity missing, ids a create made are
the session's own, and two sessions of one environment share nothing."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.config import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.package import export_package
from rlauto_core.replay import Environment, ReplayEnv
from tests.package.offline import package_offline
from tests.recording_builders import api_recording, http

API = "https://docs.example.com/api"


def _etag(call: dict[str, Any], tag: str) -> dict[str, Any]:
    call["responseHeaders"] = {"content-type": "application/json", "ETag": tag, "Set-Cookie": "sid=CANARY-docs"}
    return call


@pytest.fixture(scope="module")
def docs_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A document app: read (version 6), update (version 7), create, delete, read the deleted one."""
    calls = [
        _etag(
            http("r1", "GET", f"{API}/docs/d_100", response={"id": "d_100", "title": "Plan", "version": 6}), '"v6a1"'
        ),
        _etag(
            http(
                "r2",
                "PUT",
                f"{API}/docs/d_100",
                body={"title": "Plan B", "version": 6},
                response={"id": "d_100", "title": "Plan B", "version": 7},
            ),
            '"v7b2"',
        ),
        http(
            "r3",
            "POST",
            f"{API}/docs",
            201,
            body={"title": "Notes"},
            response={"id": "d_207", "title": "Notes", "version": 1},
        ),
        http("r4", "DELETE", f"{API}/docs/d_207", 204),
        http("r5", "GET", f"{API}/docs/d_207", 404, response={"error": "not_found", "message": "no such doc"}),
    ]
    return _packaged(
        tmp_path_factory.mktemp("docs"), calls, "Rename doc d_100 to 'Plan B', create the doc 'Notes', then delete it"
    )


def _packaged(folder: Path, calls: list[dict[str, Any]], instruction: str) -> Path:
    """The recording of `calls` packaged offline, as the package ZIP an environment opens."""
    source = folder / "app.zip"
    source.write_bytes(api_recording(calls, instruction))
    done = package_offline(source, RunOptions(), folder)
    assert done.package is not None, done.error
    return done.package_path or export_package(
        source, done.package, folder, root_prefix=import_path(source).root_prefix
    )


def test_versions_and_etags_move_on_and_a_stale_one_is_refused(docs_package: Path) -> None:
    env = ReplayEnv(Environment(docs_package))
    env.reset()
    read = env.step({"method": "GET", "path": "/api/docs/d_100"})
    version, etag = read["body"]["version"], read["headers"]["ETag"]
    assert version != 6 and etag != '"v6a1"' and len(etag) == len('"v6a1"')
    assert "Set-Cookie" not in read["headers"]  # the recording's cookies stay behind
    stale = env.step({"method": "PUT", "path": "/api/docs/d_100", "body": {"title": "Plan B", "version": 6}})
    assert stale["status"] == 409  # the recording's version, not the one this session showed
    updated = env.step({"method": "PUT", "path": "/api/docs/d_100", "body": {"title": "Plan B", "version": version}})
    assert updated["status"] == 200 and updated["body"]["version"] == version + 1  # moved on as recorded: 6 -> 7
    assert updated["body"]["title"] == "Plan B"
    if_match = env.step({"method": "PUT", "path": "/api/docs/d_100", "headers": {"If-Match": '"v6a1"'},
                         "body": {"title": "Plan B", "version": version + 1}})  # fmt: skip
    assert if_match["status"] == 412


def test_a_create_gets_a_fresh_id_and_a_delete_makes_it_missing(docs_package: Path) -> None:
    environment = Environment(docs_package)
    first, second = ReplayEnv(environment), ReplayEnv(environment)
    first.reset()
    second.reset()
    made = first.step({"method": "POST", "path": "/api/docs", "body": {"title": "Minutes"}})
    doc = made["body"]["id"]
    assert made["status"] == 201 and doc != "d_207" and doc.startswith("d_") and len(doc) == len("d_207")
    assert made["body"]["title"] == "Minutes"  # what this session wrote, not the recorded title
    assert first.step({"method": "GET", "path": "/api/docs/d_207"})["status"] == 404  # the recording's id
    assert second.step({"method": "DELETE", "path": f"/api/docs/{doc}"})["status"] == 404  # not its doc
    other = second.step({"method": "POST", "path": "/api/docs", "body": {"title": "Notes"}})["body"]["id"]
    assert other != doc
    assert first.step({"method": "DELETE", "path": f"/api/docs/{doc}"})["status"] == 204
    gone = first.step({"method": "GET", "path": f"/api/docs/{doc}"})
    assert gone["status"] == 404 and set(gone["body"]) == {"error", "message"}  # the app's own error shape
    assert first.step({"method": "DELETE", "path": f"/api/docs/{doc}"})["status"] == 404
    assert second.step({"method": "DELETE", "path": f"/api/docs/{other}"})["status"] == 204  # its own is there


DESK = "https://desk.example.com/api"
TOKENS = ("q8Zr3LmT0aXv7NcE2bWk9YdH", "Jf4Ps1GuR6tB0eVn8KqM3zXa")  # as the recording's server gave them


@pytest.fixture(scope="module")
def desk_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A helpdesk whose every write sends back the CSRF token the last answer gave, and whose
    answers hand out the next one: the form, the ticket's create, then a comment on it."""
    calls = [
        http("r1", "GET", f"{DESK}/tickets/new", response={"form": "ticket", "csrf_token": TOKENS[0]}),
        http("r2", "POST", f"{DESK}/tickets", 201, body={"subject": "Printer jam", "csrf_token": TOKENS[0]},
             response={"id": "t_501", "subject": "Printer jam", "csrf_token": TOKENS[1]}),
        http("r3", "POST", f"{DESK}/tickets/t_501/comments", 201,
             body={"text": "Tray 2 is stuck", "csrf_token": TOKENS[1]},
             response={"id": "c_77", "ticket": "t_501", "text": "Tray 2 is stuck"}),
    ]  # fmt: skip
    return _packaged(
        tmp_path_factory.mktemp("desk"), calls, "Open the ticket 'Printer jam' and comment 'Tray 2 is stuck' on it"
    )


def test_a_csrf_token_moves_on_per_session_and_the_recorded_one_is_refused(desk_package: Path, tmp_path: Path) -> None:
    """A secret by its name, so the answers are redacted as a package is; the session still hands
    out a token of its own that the next write must send back (it answered one "[REDACTED]" for
    every token, and took any value, the recorded one too)."""
    environment = Environment(desk_package)
    env = ReplayEnv(environment, out_dir=tmp_path)
    env.reset()
    form = env.step({"method": "GET", "path": "/api/tickets/new"})
    first = form["body"]["csrf_token"]
    assert first != TOKENS[0] and len(first) == len(TOKENS[0])  # new text of the recorded shape
    stale = env.step({"method": "POST", "path": "/api/tickets", "body": {"subject": "Printer jam", "csrf_token": TOKENS[0]}})  # fmt: skip
    assert stale["status"] == 409  # the recording's token was never this session's
    made = env.step({"method": "POST", "path": "/api/tickets", "body": {"subject": "Printer jam", "csrf_token": first}})
    assert made["status"] == 201 and made["body"]["id"] != "t_501"
    then = made["body"]["csrf_token"]
    assert then not in (first, TOKENS[1]) and len(then) == len(TOKENS[1])  # moved on, as the recording showed
    ticket = made["body"]["id"]
    commented = env.step({"method": "POST", "path": f"/api/tickets/{ticket}/comments",
                          "body": {"text": "Tray 2 is stuck", "csrf_token": then}})  # fmt: skip
    assert commented["status"] == 201 and commented["body"]["ticket"] == ticket
    reward = env.close()
    assert reward.passed and reward.score == reward.max_score  # the stale try cost nothing
    assert reward.attempt is not None
    with zipfile.ZipFile(reward.attempt) as kept:
        text = "".join(kept.read(name).decode("utf-8", "replace") for name in kept.namelist())
    # the recording's tokens are nowhere; the ones the agent sent back are kept redacted
    assert not any(token in text for token in TOKENS) and '"csrf_token":"[REDACTED]"' in text.replace('\\"', '"')
    other = ReplayEnv(environment)  # the next session hands out a token of its own
    other.reset()
    assert other.step({"method": "GET", "path": "/api/tickets/new"})["body"]["csrf_token"] not in (first, TOKENS[0])
