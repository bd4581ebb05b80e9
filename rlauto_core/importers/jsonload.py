"""Strict JSON loading for recording files: every failure is a RecordingError naming the file."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import msgspec

from rlauto_core.errors import RecordingError

MAX_DEPTH = 100
# One string value larger than this is refused: nothing a recorder writes needs it, and a
# model prompt or a package could not carry it anyway.
MAX_STRING_BYTES = 32 * 1024 * 1024
MAX_KEY_CHARS = 64 * 1024


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


_BOM = b"\xef\xbb\xbf"
_FALLBACK = object()
_decoder = msgspec.json.Decoder()


def _fast_loads(data: bytes | bytearray) -> Any:
    """msgspec's parser, about twice as fast as the standard one on recordings and value for
    value the same where both accept the input (integers beyond 64 bits stay exact). It refuses
    what we refuse (NaN, Infinity, bad UTF-8, deep nesting) and a little more (lone surrogate
    escapes, numbers that overflow a float): on any refusal the caller falls back to the
    standard parser, which keeps those and names the problem of the rest."""
    view = memoryview(data)
    if data[:3] == _BOM:
        view = view[3:]
    try:
        return _decoder.decode(view)
    except (msgspec.MsgspecError, RecursionError):
        return _FALLBACK


def load_json(data: bytes | bytearray, file: str) -> Any:
    """Parse UTF-8 JSON (a BOM is allowed); NaN/Infinity, bad UTF-8 and deep nesting are refused."""
    value = _fast_loads(data)
    if value is not _FALLBACK:
        return value
    if not data.strip():
        raise RecordingError(file, "file is empty")
    try:
        # bytes input lets json detect and skip a UTF-8 BOM without a second decoded copy
        return json.loads(data, parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise RecordingError(file, f"not valid UTF-8 (byte {exc.start})") from None
    except RecursionError:
        raise RecordingError(file, "JSON nesting is too deep") from None
    except json.JSONDecodeError as exc:
        raise RecordingError(file, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:
        raise RecordingError(file, f"invalid JSON: {exc}") from None


def load_json_lines(data: bytes | bytearray, file: str) -> list[Any]:
    """Parse JSON Lines: one JSON value per non-blank line."""
    values: list[Any] = []
    lines: list[bytes] = bytes(data).splitlines() if isinstance(data, bytearray) else data.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        try:
            values.append(json.loads(line, parse_constant=_reject_constant))
        except UnicodeDecodeError as exc:
            raise RecordingError(file, f"line {number}: not valid UTF-8 (byte {exc.start})") from None
        except RecursionError:
            raise RecordingError(file, f"line {number}: JSON nesting is too deep") from None
        except ValueError as exc:
            raise RecordingError(file, f"line {number}: invalid JSON: {exc}") from None
    return values


def check_shape(value: Any, file: str, where: str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse structures deeper than `max_depth` or strings over MAX_STRING_BYTES (iteratively)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise RecordingError(file, f"{where}: nesting deeper than {max_depth} levels")
        if isinstance(node, dict):
            for key in node:
                if isinstance(key, str) and len(key) > MAX_KEY_CHARS:
                    raise RecordingError(
                        file, f"{where}: a key of {len(key)} characters, over the limit of {MAX_KEY_CHARS}"
                    )
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
        elif isinstance(node, str) and len(node) > MAX_STRING_BYTES:
            raise RecordingError(
                file, f"{where}: a string of {len(node) / 1e6:.1f} MB, over the {MAX_STRING_BYTES // 2**20} MiB limit"
            )


def expect_dict(value: Any, file: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordingError(file, f"{where} must be an object, got {type_name(value)}")
    return value


def expect_list(value: Any, file: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordingError(file, f"{where} must be an array, got {type_name(value)}")
    return value


def optional_str(value: Any, file: str, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise RecordingError(file, f"{where} must be a string, got {type_name(value)}")


def optional_number(value: Any, file: str, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise RecordingError(file, f"{where} must be a number, got {type_name(value)}")
    return float(value)


def type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)
