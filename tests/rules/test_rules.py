"""Local rules: MCP trajectory hygiene, API recording checks, and the three profiles."""

from __future__ import annotations

import pytest

from rlauto_core.errors import ConfigError
from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.recording import Recording
from rlauto_core.rules import Flag, get_profile, run_rules
from tests.recording_builders import api_recording, http, mcp_recording, task_json, tool, zip_bytes

BASE = "https://shop.example.com"


def flags_of(recording: Recording, profile: str | None = None) -> dict[str, Flag]:
    return {f.code: f for f in run_rules(recording, build_evidence(recording), profile)}


def discord_like() -> Recording:
    calls = [
        tool("c1", "discord_start_typing", {"channelId": "C01"}),
        tool("c2", "discord_list_messages", {"channelId": "C02"}),
        tool("c3", "discord_send_message", {"channelId": "C01", "content": "got it"}),
        tool("c4", "discord_get_unread_count", {"channelId": "C01"}),
        tool("c5", "discord_mark_channel_read", {"channelId": "C01"}),
    ]
    return import_bytes(mcp_recording(calls), "discord.zip")


def test_cross_entity_flag_names_the_key_and_the_conflicting_values() -> None:
    flag = flags_of(discord_like())["cross_entity_channelId"]
    assert "C01" in flag.message and "C02" in flag.message
    assert set(flag.call_ids) == {"c2", "c3", "c4", "c5"}


def test_unread_check_before_mark_read_is_flagged() -> None:
    flag = flags_of(discord_like())["unread_check_before_mark_read"]
    assert flag.call_ids == ["c4", "c5"]


def test_unread_check_after_mark_read_is_not_flagged() -> None:
    calls = [
        tool("c1", "discord_mark_channel_read", {"channelId": "C01"}),
        tool("c2", "discord_get_unread_count", {"channelId": "C01"}),
    ]
    assert "unread_check_before_mark_read" not in flags_of(import_bytes(mcp_recording(calls), "r.zip"))


def test_noise_tools_present_lists_them() -> None:
    flag = flags_of(discord_like())["noise_tools_present"]
    assert flag.call_ids == ["c1"] and "discord_start_typing" in flag.message


def test_list_only_before_send_breaks_the_order_rule_and_after_does_not() -> None:
    before = [
        tool("c1", "chat_list_messages", {"channelId": "C01"}),
        tool("c2", "chat_send_message", {"channelId": "C01", "content": "x"}),
    ]
    assert flags_of(import_bytes(mcp_recording(before), "r.zip"))["order_send_before_list"].call_ids == ["c1", "c2"]
    after = [*before, tool("c3", "chat_list_messages", {"channelId": "C01"})]
    assert "order_send_before_list" not in flags_of(import_bytes(mcp_recording(after), "r.zip"))


def test_verify_list_only_before_create_is_flagged() -> None:
    calls = [
        tool("c1", "slack_list_channels", {}),
        tool("c2", "slack_create_channel", {"name": "incident"}),
    ]
    assert "order_create_before_verify" in flags_of(import_bytes(mcp_recording(calls), "r.zip"))


def test_failed_write_retried_successfully_says_so() -> None:
    requests = [
        http("r1", "POST", f"{BASE}/api/cart/items", status=500, body={"productId": "p1"}),
        http("r2", "POST", f"{BASE}/api/cart/items", status=201, body={"productId": "p1"}),
        http("r3", "POST", f"{BASE}/api/orders", status=409, body={"cartId": "k1"}),
    ]
    flags = flags_of(import_bytes(api_recording(requests), "r.zip"))
    assert flags["failed_state_change_retried"].call_ids == ["r1", "r2"]
    assert "retried successfully as r2" in flags["failed_state_change_retried"].message
    assert flags["failed_state_change"].call_ids == ["r3"]
    assert "409" in flags["failed_state_change"].message


def test_no_state_change_and_auth_only() -> None:
    reads = [http("r1", "GET", f"{BASE}/api/products")]
    assert flags_of(import_bytes(api_recording(reads), "r.zip"))["no_state_change"].severity == "error"
    auth = [http("r1", "POST", f"{BASE}/api/login", body={"user": "u"}), http("r2", "POST", f"{BASE}/oauth/token")]
    flags = flags_of(import_bytes(api_recording(auth), "r.zip"))
    assert flags["auth_only"].call_ids == ["r1", "r2"]


def test_annotator_marked_requests_missing_from_the_recording() -> None:
    data = zip_bytes(
        {
            "task.json": task_json(marked=["r1", "r404"]),
            "network.json": [http("r1", "POST", f"{BASE}/api/orders", status=201)],
        }
    )
    flag = flags_of(import_bytes(data, "r.zip"))["annotator_requests_missing"]
    assert flag.call_ids == ["r404"]


def test_profiles_differ_in_strictness_only() -> None:
    recording = discord_like()
    default = flags_of(recording, "echo-05061347")
    strict = flags_of(recording, "rl-env-4.30")
    lenient = flags_of(recording, "echo-04281753")
    assert default["cross_entity_channelId"].severity == "warning"
    assert strict["cross_entity_channelId"].severity == "error"
    # the old extension only compares ids among state-changing calls: C02 was only read
    assert "cross_entity_channelId" not in lenient
    assert "too_few_state_changes" not in default
    one_write = import_bytes(mcp_recording([tool("c1", "chat_send_message", {"channelId": "C1"})]), "r.zip")
    assert "too_few_state_changes" in flags_of(one_write, "rl-env-4.30")


def test_unknown_profile_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown rule profile 'nope'"):
        get_profile("nope")
