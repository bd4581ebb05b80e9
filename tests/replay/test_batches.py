"""An agent sending several calls in one request: a batched GraphQL POST (a JSON array of
operations) and an Elasticsearch `_bulk` (NDJSON). Import splits the recording's batches into
their calls, so the environment knows single operations and document calls; it answers each part
of an agent's batch as if sent alone and joins the answers as the app does (the array of answers;
`{took, errors, items}`). The attempt keeps the request whole, as the agent sent it, and importing
it splits it as a live recording is split: `rlauto score` and the live path agree.

Apps: the rewards corpus's linear_gql (Apollo batching) and es_bulk (tests/package/rewards), each
attempt replayed as its client sent it. Two attempt kinds are not compared with their recorded
score, for what the environment cannot know (docs/replay.md): es_bulk's `failed_write`, whose
third item the server refused in a conflict it does not replay (an environment answers a recorded
transient failure as its success, tested below). linear_gql's `wrong_entity` reads an issue the
recording never showed by a bare `id`: a read by an id nobody showed is answered as missing."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import httpx
import pytest
import rlauto

from flows.cli.env_http import http_app
from rlauto_core.checkers import score
from rlauto_core.config import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.replay import Environment, ReplayEnv
from tests.in_process_cli import invoke
from tests.package.offline import package_offline
from tests.replay.helpers import BATCH_CORPUS, REWARDS, http_step, play, sent_calls, served

# every attempt kind of the two apps, but the one the module's docstring names
KINDS = {
    "linear_gql": (
        "good",
        "good_no_ui_state",
        "good_unbatched",
        "empty",
        "missing_write",
        "other_operation",
        "wrong_entity",
    ),
    "es_bulk": ("good", "good_no_search", "empty", "missing_write"),
}


def _ndjson(*lines: Mapping[str, object]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _scored_by_cli(package: Path, attempt: Path) -> dict[str, object]:
    done = invoke("score", str(package), str(attempt), "--json")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_batched_graphql_post_over_http_answers_the_array_and_its_attempt_scores_full_marks(
    batch_packages: dict[str, Path], tmp_path: Path
) -> None:
    package = batch_packages["linear_gql"]
    recorded = sent_calls(BATCH_CORPUS["linear_gql"])
    at = next(i for i, c in enumerate(recorded) if (c.request_body or "").startswith("["))
    with served(http_app(Environment(package), tmp_path)) as url, httpx.Client(base_url=url) as client:
        answers = play(recorded, http_step(client))
        reward = client.post("/__env/end").json()
    batch = answers[at]
    assert batch["status"] == 200 and isinstance(batch["body"], list)
    assert [list(item["data"]) for item in batch["body"]] == [["issueAddLabel"], ["issueUpdate"]]
    recorded_answers = json.loads(recorded[at].response_body or "")
    for mine, theirs in zip(batch["body"], recorded_answers, strict=True):
        field = next(iter(theirs["data"]))
        assert mine["data"][field]["success"] is True
        # the sync counter is the session's, not the recording's
        assert mine["data"][field]["lastSyncId"] != theirs["data"][field]["lastSyncId"]
    assert reward["passed"] and reward["score"] == reward["max_score"] > 0 and reward["unknown_calls"] == 0

    [attempt] = tmp_path.glob("*/attempt.zip")
    kept = sent_calls(attempt)
    assert len(kept) == len(recorded)  # the batch is one request in the attempt, as the agent sent it
    assert [op["operationName"] for op in json.loads(kept[at].request_body or "")] == ["IssueAddLabel", "IssueUpdate"]
    assert json.loads(kept[at].response_body or "") == batch["body"]
    imported = {c.id: c for c in import_path(attempt).http_calls}
    ops = [imported[f"{kept[at].id}-op{n}"] for n in (1, 2)]  # split on import like a live recording
    assert [json.loads(op.response_body or "") for op in ops] == batch["body"]
    cli = _scored_by_cli(package, attempt)
    assert (cli["score"], cli["max_score"], cli["passed"]) == (reward["score"], reward["max_score"], True)


def test_a_bulk_over_http_answers_its_items_and_its_attempt_scores_full_marks(
    batch_packages: dict[str, Path], tmp_path: Path
) -> None:
    package = batch_packages["es_bulk"]
    recorded = sent_calls(BATCH_CORPUS["es_bulk"])  # a search, a bulk of three (the third refused), the third alone
    bulks = [i for i, c in enumerate(recorded) if c.path.endswith("/_bulk")]
    with served(http_app(Environment(package), tmp_path)) as url, httpx.Client(base_url=url) as client:
        answers = play(recorded, http_step(client))
        reward = client.post("/__env/end").json()
    first = answers[bulks[0]]
    assert first["status"] == 200 and set(first["body"]) == {"took", "errors", "items"}
    items = [(action, result["_id"], result["status"]) for i in first["body"]["items"] for action, result in i.items()]
    # the recording's refused SKU-1003 is answered as its later success: no transient failure is replayed
    assert items == [("update", "SKU-1001", 200), ("update", "SKU-1002", 200), ("update", "SKU-1003", 200)]
    assert first["body"]["errors"] is False
    recorded_items = json.loads(recorded[bulks[0]].response_body or "")["items"]
    assert first["body"]["items"][0]["update"]["_seq_no"] != recorded_items[0]["update"]["_seq_no"]  # the session's
    assert reward["passed"] and reward["score"] == reward["max_score"] > 0

    [attempt] = tmp_path.glob("*/attempt.zip")
    kept = sent_calls(attempt)
    assert [c.path for c in kept] == [c.path for c in recorded]  # each bulk kept whole
    imported = import_path(attempt).http_calls
    documents = [(c.method, c.path, c.status) for c in imported if c.extra.get("bulk")]
    assert documents == [
        ("POST", "/products/_update/SKU-1001", 200),
        ("POST", "/products/_update/SKU-1002", 200),
        ("POST", "/products/_update/SKU-1003", 200),
        ("POST", "/products/_update/SKU-1003", 200),
    ]
    cli = _scored_by_cli(package, attempt)
    assert (cli["score"], cli["max_score"], cli["passed"]) == (reward["score"], reward["max_score"], True)


@pytest.mark.parametrize(("app", "kind"), [(app, kind) for app, kinds in KINDS.items() for kind in kinds])
def test_each_corpus_attempt_sent_as_its_client_sent_it_scores_as_its_recorded_form(
    batch_packages: dict[str, Path], app: str, kind: str
) -> None:
    source = REWARDS / "attempts" / app / f"{kind}.zip"
    env = rlauto.open_env(batch_packages[app])
    live = score(env.environment.package, import_path(source))
    env.reset()
    play(sent_calls(source), env.step)
    replayed = env.close()
    if kind == "wrong_entity":
        # the issue it reads by a bare id was never shown: missing in the session, as it was for the
        # app; the attempt then goes on with what it has, so only the verdict is the live one's
        assert not replayed.passed and not live.passed and replayed.score < replayed.max_score
        return
    assert (replayed.score, replayed.passed) == (live.score, live.passed)
    assert {r.id for r in replayed.rubrics if not r.passed} == {r.id for r in live.rubrics if not r.passed}


def test_parts_it_cannot_do_fail_inside_the_joined_answer_and_broken_or_huge_batches_are_refused(
    batch_packages: dict[str, Path],
) -> None:
    es = rlauto.open_env(batch_packages["es_bulk"])
    es.reset()
    doc = {"doc": {"status": "discontinued"}}
    mixed = _ndjson({"update": {"_index": "products", "_id": "SKU-1001"}}, doc,
                    {"update": {"_index": "products", "_id": "SKU-9999"}}, doc,  # a document nobody showed
                    {"index": {"_index": "orders", "_id": "o-1"}}, {"total": 3})  # an index nobody recorded  # fmt: skip
    answer = es.step({"method": "POST", "path": "/_bulk", "body": mixed})
    assert answer["status"] == 200 and answer["body"]["errors"] is True
    results = [next(iter(i.items())) for i in answer["body"]["items"]]
    assert [(action, r["_id"], r["status"]) for action, r in results] == [
        ("update", "SKU-1001", 200),
        ("update", "SKU-9999", 404),
        ("index", "o-1", 404),
    ]
    assert "error" not in results[0][1] and all("error" in r for _, r in results[1:])
    broken = es.step({"method": "POST", "path": "/_bulk", "body": '{"update": {"_index": "products"}}\nnot json\n'})
    assert broken["status"] == 400
    huge = _ndjson(
        *[line for _ in range(1001) for line in ({"update": {"_index": "products", "_id": "SKU-1001"}}, doc)]
    )
    assert es.step({"method": "POST", "path": "/_bulk", "body": huge})["status"] == 413
    assert es.step({"method": "POST", "path": "/products/_update/SKU-1002", "body": doc})["status"] == 200  # goes on
    assert es.session is not None
    logged = es.session.calls
    assert [c.outcome for c in logged] == ["missing", "invalid", "invalid", "answered"]
    assert logged[0].parts == ["answered", "missing", "unknown"]
    reward = es.close()
    assert reward.unknown_calls == 1 and not reward.passed  # SKU-1003 never discontinued

    gql = rlauto.open_env(batch_packages["linear_gql"])
    gql.reset()
    batch = [{"query": 'mutation { issueDelete(id: "x") { success } }'}, {"query": "query Viewer { viewer { id } }"}]
    joined = gql.step({"method": "POST", "path": "/graphql", "body": batch})
    assert joined["status"] == 200 and len(joined["body"]) == 2
    assert joined["body"][0]["data"] is None
    assert joined["body"][0]["errors"][0]["message"] == 'Cannot query field "issueDelete" on type "Mutation".'
    assert joined["body"][1]["data"]["viewer"]["id"]  # the recorded query is answered beside it
    nested = gql.step({"method": "POST", "path": "/graphql", "body": "[" * 100_000})  # past any parser's depth
    assert nested["status"] == 400
    assert gql.session is not None
    assert [c.outcome for c in gql.session.calls] == ["unknown", "invalid"]
    assert gql.close().unknown_calls == 1


SF_COMPOSITE = Path(__file__).resolve().parents[1] / "package" / "rewards_c" / "recordings" / "salesforce_composite.zip"


def test_a_composite_an_agent_sends_is_answered_part_by_part_with_its_references_filled(tmp_path: Path) -> None:
    """Batch C's Salesforce app: the agent sends the contact and the opportunity in one composite,
    the opportunity naming the contact by reference. Each part is answered as if sent alone (a
    fresh id, 201), the reference gets the id the first part made, the answer is Salesforce's own
    `compositeResponse`, and the kept attempt scores full marks when imported again."""
    done = package_offline(SF_COMPOSITE, RunOptions(), tmp_path)
    assert done.package_path is not None, done.error
    env = ReplayEnv(Environment(done.package_path), out_dir=tmp_path / "sessions")
    env.reset()
    account = "001Qy00000Lk8mPIAR"
    contact = {
        "FirstName": "Jana",
        "LastName": "Kowalski",
        "Title": "Head of Procurement",
        "Email": "jana.kowalski@nordwind-logistik.de",
        "AccountId": account,
    }
    deal = {
        "Name": "Nordwind - Fleet telematics 2026",
        "StageName": "Qualification",
        "Amount": 84000,
        "CloseDate": "2026-09-30",
        "AccountId": account,
        "Description": "Contact @{newContact.id}",
    }
    body = {"allOrNone": False, "compositeRequest": [
        {"method": "POST", "url": "/services/data/v60.0/sobjects/Contact", "referenceId": "newContact", "body": contact},
        {"method": "POST", "url": "/services/data/v60.0/sobjects/Opportunity", "referenceId": "newOpp", "body": deal},
    ]}  # fmt: skip
    answer = env.step({"method": "POST", "path": "/services/data/v60.0/composite", "body": body})
    assert answer["status"] == 200
    parts = answer["body"]["compositeResponse"]
    assert [p["httpStatusCode"] for p in parts] == [201, 201] and [p["referenceId"] for p in parts] == [
        "newContact",
        "newOpp",
    ]
    made = parts[0]["body"]["id"]
    assert made != "003Qy00003NMHP9BbN" and len(made) == 18  # the session's own id, of the recorded shape
    reward = env.close()
    assert reward.passed and reward.score == reward.max_score and reward.unknown_calls == 0
    assert reward.attempt is not None
    kept = import_path(reward.attempt)
    opportunity = next(c for c in kept.http_calls if c.path.endswith("/Opportunity"))
    assert f"Contact {made}" in (opportunity.request_body or "")  # the reference, filled on import too
