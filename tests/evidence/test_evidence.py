"""Evidence: classification, the significant-call filter, entities and the main entity."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rlauto_core.evidence import build_evidence, evidence_chars, full_evidence, slim_evidence
from rlauto_core.importers import import_bytes
from tests.recording_builders import api_recording, http, mcp_recording, tool

BASE = "https://chat.example.com"


@pytest.mark.parametrize(
    ("name", "writes"),
    [
        ("discord_send_message", True),
        ("slack_create_channel", True),
        ("discord_mark_channel_read", True),
        ("notes_add_tag", True),
        ("github_invite_collaborator", True),
        ("discord_list_messages", False),
        ("discord_get_unread_count", False),
        ("searchMessages", False),
        ("fetch_issue", False),
        ("sendMessage", True),
    ],
)
def test_tool_verbs_decide_state_changing(name: str, writes: bool) -> None:
    recording = import_bytes(mcp_recording([tool("c1", name, {"channelId": "C01"})]), "r.zip")
    assert build_evidence(recording).calls[0].state_changing is writes


def test_tool_annotations_in_session_catalog_win_over_the_name() -> None:
    session = {"servers": [{"name": "x", "tools": [{"name": "x_send_digest", "annotations": {"readOnlyHint": True}}]}]}
    recording = import_bytes(
        mcp_recording([tool("c1", "x_send_digest", {"channelId": "C01"})], **{"session.json": session}), "r.zip"
    )
    assert build_evidence(recording).calls[0].state_changing is False


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("discord_start_typing", "typing"),
        ("discord_update_presence", "presence"),
        ("discord_heartbeat", "heartbeat"),
        ("slack_whoami", "auth"),
        ("login", "auth"),
        ("slack_auth_test", "auth"),
        ("app_get_pending_invites", "pending"),
        ("x_init_workspace", "bootstrap"),
        ("bootstrap_client", "bootstrap"),
        ("telemetry_flush", "telemetry"),
        ("page_view", "telemetry"),
        ("discord_ping", "heartbeat"),
        ("discord_get_current_user", "auth"),
        ("discord_send_message", None),
        ("create_shipping_label", None),
    ],
)
def test_mcp_noise_list_matches_with_server_prefixes(name: str, category: str | None) -> None:
    recording = import_bytes(mcp_recording([tool("c1", name)]), "r.zip")
    call = build_evidence(recording).calls[0]
    assert call.noise_category == category
    assert call.significant is (category is None)


def test_http_noise_is_removed_and_counted_by_category() -> None:
    requests = [
        http("r1", "GET", f"{BASE}/static/app.4f2a.js", resource_type="script"),
        http("r2", "GET", f"{BASE}/img/logo.png", resource_type="other"),
        http("r3", "GET", f"{BASE}/fonts/inter.woff2", resource_type="other"),
        http("r4", "POST", "https://www.google-analytics.com/g/collect?v=2", status=204, resource_type="ping"),
        http("r5", "OPTIONS", f"{BASE}/api/v1/channels/C01/messages", status=204),
        http("r6", "GET", f"{BASE}/api/v1/channels/C01", status=304),
        http("r7", "GET", "wss://chat.example.com/gateway", status=101, resource_type="other"),
        http("r8", "POST", f"{BASE}/api/v1/channels/C01/messages", status=201, body={"text": "hi"}),
        http("r9", "POST", f"{BASE}/telemetry/batch", status=200, resource_type="xhr"),
    ]
    evidence = build_evidence(import_bytes(api_recording(requests), "r.zip"))
    assert [c.id for c in evidence.significant] == ["r8"]
    assert evidence.noise_removed == {
        "analytics": 2,
        "font": 1,
        "image": 1,
        "not_modified": 1,
        "preflight": 1,
        "static": 1,
        "websocket": 1,
    }
    assert evidence.state_changing == ["r8"]


def test_graphql_queries_are_reads_and_mutations_writes() -> None:
    requests = [
        http("q", "POST", f"{BASE}/graphql", body={"query": "query Issues { issues { id } }"}),
        http("m", "POST", f"{BASE}/graphql", body={"query": 'mutation { createIssue(title: "x") { id } }'}),
        http("s", "POST", f"{BASE}/api/search", body={"q": "x"}),
    ]
    evidence = build_evidence(import_bytes(api_recording(requests), "r.zip"))
    assert evidence.state_changing == ["m"]


def test_entities_from_path_query_body_and_arguments_share_canonical_keys() -> None:
    requests = [
        http("r1", "POST", f"{BASE}/api/v1/guilds/G1/channels/C01/messages?thread_id=T5", body={"reply_to": "M7"}),
    ]
    api_call = build_evidence(import_bytes(api_recording(requests), "r.zip")).calls[0]
    assert {(e.key, e.value) for e in api_call.entities} == {
        ("guildId", "G1"),
        ("channelId", "C01"),
        ("threadId", "T5"),
        ("messageId", "M7"),
    }
    mcp_call = build_evidence(
        import_bytes(mcp_recording([tool("c1", "x_send", {"channel_id": "C01", "guildID": "G1"})]), "r.zip")
    ).calls[0]
    assert {(e.key, e.value) for e in mcp_call.entities} == {("channelId", "C01"), ("guildId", "G1")}


def test_slugs_after_collections_are_entities_but_sub_resources_are_not() -> None:
    requests = [http("r1", "POST", f"{BASE}/v2/projects/web/issues", body={"title": "x"}, status=201)]
    call = build_evidence(import_bytes(api_recording(requests), "r.zip")).calls[0]
    assert [(e.key, e.value) for e in call.entities] == [("projectId", "web")]
    requests = [http("r1", "GET", f"{BASE}/api/users/me/settings")]
    assert build_evidence(import_bytes(api_recording(requests), "r.zip")).calls[0].entities == []


def test_main_entity_is_the_one_most_successful_writes_touch() -> None:
    calls = [
        tool("c1", "discord_list_messages", {"channelId": "C99"}),
        tool("c2", "discord_send_message", {"channelId": "C01", "content": "a"}),
        tool("c3", "discord_add_reaction", {"channelId": "C02", "emoji": "x"}),
        tool("c4", "discord_mark_channel_read", {"channelId": "C01"}),
    ]
    evidence = build_evidence(import_bytes(mcp_recording(calls), "r.zip"))
    assert evidence.main_entity is not None
    assert (evidence.main_entity.key, evidence.main_entity.value) == ("channelId", "C01")


def test_an_id_several_writes_hit_beats_a_uuid_one_answer_carries() -> None:
    """Issue 28, main entity: the create's answer carries an issue key and a uuid; the later writes
    act on the key, so the key is the main entity, named from its route."""
    api = f"{BASE}/rest/api/2"
    calls = [
        http("r1", "POST", f"{api}/issue", 201, {"fields": {"summary": "Fix login"}},
             {"id": "10043", "key": "ENG-43", "uuid": "3f2a9c1e-7b44-4d0a-9e2f-5c8b1a6d7e90"}),
        http("r2", "PUT", f"{api}/issue/ENG-43", 204, {"fields": {"priority": {"name": "High"}}}),
        http("r3", "POST", f"{api}/issue/ENG-43/comment", 201, {"body": "Repro on staging"}, {"id": "9001"}),
    ]  # fmt: skip
    main = build_evidence(import_bytes(api_recording(calls), "r.zip")).main_entity
    assert main is not None and (main.key, main.value) == ("issueId", "ENG-43")


def test_a_document_id_after_an_action_word_is_the_main_entity() -> None:
    """`/_doc/{id}` and `/_update/{id}` have no collection word before the id: still an entity, so
    a recording whose writes all act on one document has a main entity."""
    search = f"{BASE}/search/notes"
    calls = [
        http("r1", "GET", f"{search}/_doc/runbook-7", response={"_id": "runbook-7", "_source": {"title": "Keys"}}),
        http("r2", "POST", f"{search}/_update/runbook-7", 200, {"doc": {"title": "Rotated keys"}},
             {"_id": "runbook-7", "result": "updated"}),
    ]  # fmt: skip
    main = build_evidence(import_bytes(api_recording(calls), "r.zip")).main_entity
    assert main is not None and main.value == "runbook-7" and main.key.endswith("Id")


def test_slim_evidence_drops_noise_redacts_secrets_and_is_smaller() -> None:
    canary = "sk-CANARY-9f8e7d6c5b4a39281706"
    requests = [
        http("r1", "GET", f"{BASE}/static/app.js", resource_type="script"),
        http(
            "r2",
            "POST",
            f"{BASE}/api/v1/channels/C01/messages?access_token={canary}",
            status=201,
            body={"text": "got it", "password": canary},
            response={"ok": True, "message": {"id": "M9", "text": "got it", "blob": "x" * 5000}},
            headers={"authorization": f"Bearer {canary}", "cookie": f"sid={canary}"},
        ),
    ]
    recording = import_bytes(api_recording(requests), "r.zip")
    evidence = build_evidence(recording)
    slim = slim_evidence(recording, evidence)
    full = full_evidence(recording, evidence)
    assert [c["id"] for c in slim["calls"]] == ["r2"]
    assert slim["calls"][0]["response"]["message"]["id"] == "M9"
    assert canary not in json.dumps(slim) and canary not in json.dumps(full)
    assert "[REDACTED]" in json.dumps(full)
    assert evidence_chars(slim) < evidence_chars(full) / 3


def test_long_ids_get_short_stable_aliases_in_slim_evidence() -> None:
    long_id = "7f9c2ba4-e88f-11d0-9a6b-00c04fd430c8"
    recording = import_bytes(mcp_recording([tool(long_id, "x_create_note", {"folderId": "F1"})]), "r.zip")
    slim = slim_evidence(recording, build_evidence(recording))
    assert slim["calls"][0]["id"] == "c0"
    assert slim["calls"][0]["ref"] == long_id


def _rpc(call_id: str, method: str, args: list[Any], result: Any) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "method": "call", "params": {"service": "object", "method": "execute_kw", "args": args}}
    return http(call_id, "POST", f"{BASE}/jsonrpc", body=body, response={"jsonrpc": "2.0", "id": 1, "result": result})


def test_an_rpc_dispatchers_call_reads_or_writes_as_its_inner_method_on_the_records_it_lists() -> None:
    """Odoo's `execute_kw(db, uid, password, model, method, positional, ...)`: every call is `POST
    /jsonrpc`; `search_read` reads, `create` and `write` write, and `write([[4], ...])` acts on
    pricelist 4; the sign-in and the version call are no writes of the task."""
    head = ["db1", 2, "pw-key"]
    calls = [
        http("r0", "POST", f"{BASE}/jsonrpc", body={"jsonrpc": "2.0", "method": "call", "params": {
            "service": "common", "method": "authenticate", "args": ["db1", "ana@x.example", "pw-key", {}]}},
             response={"jsonrpc": "2.0", "id": 1, "result": 2}),
        _rpc("r1", "search_read", [*head, "product.pricelist", "search_read", [[["active", "=", True]]]], []),
        _rpc("r2", "create", [*head, "product.pricelist", "create", [{"name": "Wholesale 2026"}]], 9),
        _rpc("r3", "write", [*head, "product.pricelist", "write", [[4], {"active": False}]], True),
    ]  # fmt: skip
    evidence = build_evidence(import_bytes(api_recording(calls), "rpc.zip"))
    assert [c.state_changing for c in evidence.calls] == [False, False, True, True]
    assert ("pricelistId", "4") in {(e.key, e.value) for e in evidence.calls[3].entities}
    assert evidence.main_entity is not None and evidence.main_entity.value == "4"
