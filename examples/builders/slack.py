"""Slack-like MCP session (echo mcp_calls.json): create a channel, invite, post."""

from __future__ import annotations

from datetime import UTC, datetime

from builders.kit import (
    OUT,
    Clock,
    EchoCalls,
    pretty,
    session_json,
    task_json,
    tool_spec,
    write_zip,
)

# ----------------------------------------------------------------------------- 4. slack-like MCP


def slack() -> None:
    start = datetime(2026, 5, 8, 2, 14, 9, 0, tzinfo=UTC)
    clock = Clock(start)
    calls = EchoCalls(clock, "slack")
    team, me = "T04ACME01", "U04KIM0001"
    dana, lee = "U04DANA002", "U04LEE0003"
    new_chan = "C07INC22910"
    calls.add(
        "slack_auth_test",
        {},
        {
            "ok": True,
            "url": "https://acme.slack.example/",
            "team": "Acme",
            "user": "kim",
            "team_id": team,
            "user_id": me,
        },
        gap_ms=0,
    )
    calls.add("slack_whoami", {}, {"id": me, "name": "kim", "tz": "Europe/Berlin"})
    calls.add("slack_get_presence", {"user": me}, {"presence": "active", "online": True})
    calls.add(
        "slack_list_users",
        {"query": "dana"},
        {"members": [{"id": dana, "name": "dana", "real_name": "Dana Whitfield"}]},
    )
    calls.add(
        "slack_list_users",
        {"query": "lee"},
        {"members": [{"id": lee, "name": "lee", "real_name": "Lee Okafor"}]},
    )
    channel = {
        "id": new_chan,
        "name": "incident-2291",
        "is_private": True,
        "created": 1778206455,
        "creator": me,
        "topic": {"value": "Checkout 5xx spike, 2026-05-08"},
    }
    c_create = calls.add(
        "slack_create_channel",
        {"name": "incident-2291", "is_private": True, "topic": "Checkout 5xx spike, 2026-05-08"},
        {"ok": True, "channel": channel},
        gap_ms=3100,
    )
    calls.add(
        "slack_list_channels",
        {"types": "private_channel", "limit": 50},
        {"channels": [channel, {"id": "C05OPS00001", "name": "ops-private", "is_private": True}]},
    )
    c_invite = calls.add(
        "slack_invite_to_channel",
        {"channel": new_chan, "users": [dana, lee]},
        {"ok": True, "channel": {**channel, "num_members": 3}},
        gap_ms=2300,
    )
    calls.add("slack_get_presence", {"user": dana}, {"presence": "away", "online": False})
    summary = (
        ":rotating_light: Incident 2291: checkout returns 5xx for ~8% of requests since 01:52 UTC. "
        "Suspect: inventory service timeouts after the 01:45 deploy. Dana on rollback, Lee on comms."
    )
    c_post = calls.add(
        "slack_post_message",
        {"channel": new_chan, "text": summary, "unfurl_links": False},
        {
            "ok": True,
            "channel": new_chan,
            "ts": "1778206481.000200",
            "message": {"user": me, "text": summary, "ts": "1778206481.000200"},
        },
        gap_ms=5200,
    )
    end = clock.tick(800)
    names = [
        ("slack_auth_test", "Check the token and return the identity.", {}),
        ("slack_whoami", "The current user.", {}),
        ("slack_get_presence", "A user's presence.", {"user": "string"}),
        ("slack_list_users", "Search workspace members.", {"query": "string"}),
        (
            "slack_create_channel",
            "Create a channel.",
            {"name": "string", "is_private": "boolean", "topic": "string"},
        ),
        ("slack_list_channels", "List channels.", {"types": "string", "limit": "integer"}),
        ("slack_invite_to_channel", "Invite users to a channel.", {"channel": "string", "users": "array"}),
        ("slack_post_message", "Post a message.", {"channel": "string", "text": "string"}),
    ]
    tools = [tool_spec(n, d, p, list(p)[:1]) for n, d, p in names]
    instruction = (
        "Create a private Slack channel #incident-2291 with the topic 'Checkout 5xx spike, 2026-05-08', "
        "invite Dana and Lee, and post the incident summary in it."
    )
    dbdiff = {
        "tables": {
            "channels": {
                "inserted": [{"id": new_chan, "name": "incident-2291", "is_private": True, "creator_id": me}],
                "updated": [],
                "deleted": [],
            },
            "channel_members": {
                "inserted": [
                    {"channel_id": new_chan, "user_id": me},
                    {"channel_id": new_chan, "user_id": dana},
                    {"channel_id": new_chan, "user_id": lee},
                ],
                "updated": [],
                "deleted": [],
            },
            "messages": {
                "inserted": [{"ts": "1778206481.000200", "channel_id": new_chan, "user_id": me, "text": summary}],
                "updated": [],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "slack_incident_channel.zip",
        [
            (
                "task.json",
                task_json("rec_sl_2291", start, "mcp://slack", instruction, [c_create, c_invite, c_post]),
            ),
            ("mcp_calls.json", pretty({"version": 1, "calls": calls.calls})),
            (
                "session.json",
                session_json(
                    "s_sl_77",
                    start,
                    end,
                    {"id": me, "name": "kim"},
                    [{"name": "slack", "version": "2.1.3", "tools": tools}],
                ),
            ),
            ("dbdiff.json", pretty(dbdiff)),
        ],
    )
