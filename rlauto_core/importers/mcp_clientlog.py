"""Client logs that carry one JSON-RPC message per line after a timestamp and a server prefix,
as Claude Desktop writes `mcp.log` and `mcp-server-NAME.log`:

    2025-01-01T10:00:00.000Z [server] [info] Message from client: {...} { metadata: undefined }

Every other line (start-up notes, the server's stderr, multi-line metadata dumps) is skipped.
The client's logger cuts long messages (`...[8499 chars truncated]...`): a cut response keeps
its call with an unknown result (flagged); a cut `tools/call` request has lost its arguments,
so the file is refused rather than turned into a recording that invents them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rlauto_core.errors import RecordingError
from rlauto_core.importers.jsonload import MAX_STRING_BYTES, check_shape
from rlauto_core.importers.mcp_jsonrpc import Pairing, Sender
from rlauto_core.importers.timestamps import parse_timestamp
from rlauto_core.recording import ImportNote, ToolCall

_LEVELS = frozenset({"trace", "debug", "info", "notice", "warn", "warning", "error", "fatal"})
_LINE = re.compile(
    r"(?P<ts>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)\s+"
    r"\[(?P<a>[^\]\n]{1,200})\]\s+\[(?P<b>[^\]\n]{1,200})\]\s+"
    r"Message from (?P<side>client|server):\s*"
)
_ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,30})')
_METHOD = re.compile(r'"method"\s*:\s*"([^"\\]{1,200})"')


class _Constant(Exception):
    """NaN or Infinity in a message: JSON has neither, and a value we cannot compare."""


def _reject_constant(name: str) -> Any:
    raise _Constant(name)


_decoder = json.JSONDecoder(parse_constant=_reject_constant)


def is_client_log(text: str) -> bool:
    """Some line, among the first 2000, is a `Message from client|server:` line."""
    for number, line in enumerate(_lines(text)):
        if number >= 2000:
            return False
        if _LINE.match(line):
            return True
    return False


def import_client_log(text: str, file: str) -> tuple[list[ToolCall], list[ImportNote]]:
    pairing = Pairing(file)
    for number, line in enumerate(_lines(text), start=1):
        match = _LINE.match(line)
        if match is None:
            continue
        where = f"line {number}"
        if len(line) > MAX_STRING_BYTES:
            raise RecordingError(file, f"{where}: a line of {len(line) / 1e6:.1f} MB, over the limit")
        server = _server(match.group("a"), match.group("b"))
        timestamp = parse_timestamp(match.group("ts"), file, f"{where}: timestamp")
        side: Sender = "client" if match.group("side") == "client" else "server"
        message = _message(line, match.end(), file, where)
        if message is None:
            _cut_line(pairing, line[match.end() :], side, server, timestamp, file, where)
            continue
        check_shape(message, file, where)
        pairing.message(message, where, server=server, timestamp=timestamp, sender=side)
    return pairing.calls, pairing.notes()


def _lines(text: str) -> list[str]:
    """Lines split at LF only: a message may hold U+2028 or U+0085 raw (JSON.stringify keeps
    them), which `str.splitlines` would take for line ends."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _message(line: str, start: int, file: str, where: str) -> Any:
    """The JSON object after the prefix (the logger's ` { metadata: undefined }` tail is left),
    or None when the text is cut or is not JSON."""
    try:
        value, _ = _decoder.raw_decode(line, start)
    except RecursionError:
        raise RecordingError(file, f"{where}: JSON nesting is too deep") from None
    except _Constant as exc:
        raise RecordingError(file, f"{where}: {exc} is not valid JSON") from None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _cut_line(pairing: Pairing, text: str, side: Sender, server: str, timestamp: Any, file: str, where: str) -> None:
    id_match = _ID.search(text[:400])
    key = None
    if id_match:
        raw = id_match.group(1)
        key = json.loads(raw) if raw.startswith('"') else raw
        key = str(key)
    method_match = _METHOD.search(text[:400])
    method = method_match.group(1) if method_match else None
    if side == "client":
        if method == "tools/call":
            raise RecordingError(
                file,
                f"{where}: the client's log cut this tools/call request"
                f"{' ' + key if key else ''}, so its arguments are lost; "
                "a log that truncates messages cannot be a recording (use a recorder or an untruncated log)",
            )
        if method is not None:
            pairing.other_request(key, server, sender="client")
        return
    if method is None:
        pairing.cut_response(key, server, timestamp, sender="server")
    else:
        pairing.other_request(key, server, sender="server")


def _server(first: str, second: str) -> str:
    """`[server] [info]` as Claude Desktop writes it; `[info] [server]` is read too."""
    return second if first.lower() in _LEVELS and second.lower() not in _LEVELS else first
