"""Discord-like MCP session (echo mcp_calls.json): reply to a message and mark the channel read."""

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

# ----------------------------------------------------------------------------- 3. discord-like MCP


def discord() -> None:
    start = datetime(2026, 5, 6, 16, 2, 41, 250000, tzinfo=UTC)
    clock = Clock(start)
    calls = EchoCalls(clock, "discord")
    guild, chan, other = "1098234567890123456", "1101987654321098765", "1101987654321000042"
    maya_msg = "1237700112233445566"
    me = {"id": "880011223344556677", "username": "kim.dev", "globalName": "Kim"}
    history = [
        {
            "id": maya_msg,
            "channelId": chan,
            "author": {"id": "880099887766554433", "username": "maya"},
            "content": "Can someone pick up the hotfix for the login loop before Thursday's release?",
            "timestamp": "2026-05-06T15:58:02.118Z",
        },
        {
            "id": "1237699001122334455",
            "channelId": chan,
            "author": {"id": "880055443322110099", "username": "ravi"},
            "content": "RC2 is tagged, changelog in the doc.",
            "timestamp": "2026-05-06T15:40:11.500Z",
        },
        {
            "id": "1237698000000000001",
            "channelId": chan,
            "author": {"id": "880099887766554433", "username": "maya"},
            "content": "Release planning sync moved to 15:00.",
            "timestamp": "2026-05-06T14:02:47.002Z",
        },
    ]
    calls.add("discord_get_current_user", {}, me, gap_ms=0)
    calls.add("discord_update_presence", {"status": "online", "activity": None}, {"ok": True})
    calls.add(
        "discord_list_guilds",
        {},
        {
            "guilds": [
                {"id": guild, "name": "Acme Eng"},
                {"id": "1098230000000000001", "name": "Side project"},
            ]
        },
    )
    calls.add(
        "discord_list_channels",
        {"guildId": guild},
        {
            "channels": [
                {"id": chan, "name": "release-planning", "type": "text"},
                {"id": other, "name": "random", "type": "text"},
                {"id": "1101987654321000077", "name": "incidents", "type": "text"},
            ]
        },
    )
    calls.add(
        "discord_list_messages",
        {"guildId": guild, "channelId": chan, "limit": 20},
        {"messages": history},
        duration_ms=210,
    )
    calls.add(
        "discord_list_messages",
        {"guildId": guild, "channelId": other, "limit": 10},
        {
            "messages": [
                {
                    "id": "1237701000000000009",
                    "channelId": other,
                    "author": {"id": "880055443322110099", "username": "ravi"},
                    "content": "lunch?",
                }
            ]
        },
    )
    calls.add("discord_heartbeat", {"sequence": 42}, {"ack": True}, gap_ms=900, duration_ms=8)
    calls.add("discord_start_typing", {"channelId": chan}, {"ok": True}, gap_ms=1500, duration_ms=30)
    reply = {
        "id": "1237702555666777888",
        "channelId": chan,
        "guildId": guild,
        "author": {"id": me["id"], "username": me["username"]},
        "content": "On it, I'll ship the login-loop hotfix today.",
        "messageReference": {"messageId": maya_msg, "channelId": chan},
        "timestamp": "2026-05-06T16:02:49.112Z",
    }
    calls.add(
        "discord_send_message",
        {"guildId": guild, "channelId": chan, "content": reply["content"], "replyTo": maya_msg},
        reply,
        gap_ms=4200,
        duration_ms=180,
    )
    calls.add(
        "discord_get_unread_count",
        {"guildId": guild, "channelId": chan},
        {"channelId": chan, "unread": 3, "mentions": 1},
    )
    calls.add(
        "discord_mark_channel_read",
        {"guildId": guild, "channelId": chan, "messageId": reply["id"]},
        {"ok": True, "channelId": chan, "lastReadMessageId": reply["id"]},
        gap_ms=1100,
    )
    calls.add("discord_heartbeat", {"sequence": 43}, {"ack": True}, gap_ms=300, duration_ms=7)
    calls.add(
        "discord_list_messages",
        {"guildId": guild, "channelId": chan, "limit": 5},
        {"messages": [reply, *history][:5]},
    )
    end = clock.tick(500)
    tools = [
        tool_spec("discord_get_current_user", "The logged-in user.", {}, []),
        tool_spec("discord_update_presence", "Set presence status.", {"status": "string"}, ["status"]),
        tool_spec("discord_heartbeat", "Gateway heartbeat.", {"sequence": "integer"}, []),
        tool_spec("discord_list_guilds", "Guilds the user is in.", {}, []),
        tool_spec("discord_list_channels", "Channels of a guild.", {"guildId": "string"}, ["guildId"]),
        tool_spec(
            "discord_list_messages",
            "Latest messages of a channel.",
            {"guildId": "string", "channelId": "string", "limit": "integer"},
            ["channelId"],
        ),
        tool_spec("discord_start_typing", "Show the typing indicator.", {"channelId": "string"}, ["channelId"]),
        tool_spec(
            "discord_send_message",
            "Send a message, optionally as a reply.",
            {"guildId": "string", "channelId": "string", "content": "string", "replyTo": "string"},
            ["channelId", "content"],
        ),
        tool_spec(
            "discord_get_unread_count",
            "Unread messages in a channel.",
            {"guildId": "string", "channelId": "string"},
            ["channelId"],
        ),
        tool_spec(
            "discord_mark_channel_read",
            "Mark a channel read up to a message.",
            {"guildId": "string", "channelId": "string", "messageId": "string"},
            ["channelId"],
        ),
    ]
    instruction = (
        "In Acme Eng's #release-planning, reply to Maya's latest message saying you'll ship the "
        "login-loop hotfix today, then mark the channel as read."
    )
    dbdiff = {
        "tables": {
            "messages": {
                "inserted": [
                    {
                        "id": reply["id"],
                        "channel_id": chan,
                        "author_id": me["id"],
                        "content": reply["content"],
                        "reply_to": maya_msg,
                    }
                ],
                "updated": [],
                "deleted": [],
            },
            "read_states": {
                "inserted": [],
                "updated": [
                    {
                        "before": {"channel_id": chan, "user_id": me["id"], "mention_count": 1, "unread": 3},
                        "after": {
                            "channel_id": chan,
                            "user_id": me["id"],
                            "mention_count": 0,
                            "unread": 0,
                            "last_read_id": reply["id"],
                        },
                    }
                ],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "discord_reply.zip",
        [
            ("task.json", task_json("rec_dc_7888", start, "mcp://discord", instruction, ["c9", "c11"])),
            ("mcp_calls.json", pretty({"version": 1, "calls": calls.calls})),
            (
                "session.json",
                session_json(
                    "s_dc_41",
                    start,
                    end,
                    {"id": me["id"], "name": me["username"]},
                    [{"name": "discord", "version": "1.4.0", "tools": tools}],
                ),
            ),
            ("dbdiff.json", pretty(dbdiff)),
        ],
    )
