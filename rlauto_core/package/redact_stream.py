"""Secrets out of a recorded JSON, HAR or JSON Lines file as it streams, for `--redact-secrets`.

The rules are `rlauto_core.redact`'s (`redact_json`, `redact_text`), applied piece by piece: the
outer levels of a JSON document (the document, `log`, `log.entries`: any object or array less
than `STREAM_DEPTH` levels deep) are walked as they are read, and each value one level below is
decoded, redacted and written alone. A HAR is thus held one entry (one request and its response)
at a time, never whole; JSON Lines one line at a time. The output is what redacting the whole
document gave (same rules, same `indent=1` layout); only a walked object's `value` member that
comes before its `name` waits for it (or the object's end), so that the pair rule sees both.

Input that is not one JSON document is redacted line by line (each line as JSON, else as text);
bytes that are not UTF-8 are copied as they are. Both are found only while reading, so the
result goes to a temporary file first and the source is opened again for the next way.

A secret the rules found is removed by value too, wherever it recurs (`rlauto_core.secret_values`):
`find_secrets` reads a file the same way, collecting the values instead of writing, and the
export hands what it found in every file of the recording to `redact_stream`.
"""

from __future__ import annotations

import codecs
import json
import shutil
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import IO, Any

from rlauto_core.redact import is_secret_name, redact_json, redact_text
from rlauto_core.secret_values import SecretFinder, SecretValues

CHUNK = 1 << 18  # characters read at a time (and the least a value's buffer grows by)
STREAM_DEPTH = 3  # the document, `log` and `log.entries` are walked; their values decoded whole
_DECODER = json.JSONDecoder()

Opener = Callable[[], AbstractContextManager[IO[bytes]]]
# what becomes of each decoded value (the value, how deep it sits): redacted, or looked at
Rule = Callable[[Any, int], Any]


class _NotOneDocument(Exception):
    """Not a single JSON document: redact it line by line instead."""


def redact_stream(open_source: Opener, sink: IO[bytes], secrets: SecretValues | None = None) -> None:
    """Write the redacted bytes of the file `open_source()` opens (called up to three times),
    with `secrets` removed wherever they appear."""
    known = secrets or SecretValues()

    def rule(value: Any, depth: int) -> Any:
        return known.value(redact_json(value, depth))

    def line_rule(line: str) -> str:
        return known.text(_redacted_line(line))

    with tempfile.TemporaryFile() as spool:
        if not _read(open_source, spool, rule, line_rule):
            with open_source() as source:  # not text: kept as it is
                shutil.copyfileobj(source, sink, CHUNK)
            return
        spool.seek(0)
        shutil.copyfileobj(spool, sink, CHUNK)


def find_secrets(open_source: Opener) -> SecretValues:
    """The secret values the file `open_source()` opens carries (none when it is not text)."""
    finder = SecretFinder()

    def rule(value: Any, _depth: int) -> Any:
        finder.json(value)
        return value

    def line_rule(line: str) -> str:
        try:
            finder.json(json.loads(line))
        except (ValueError, RecursionError):
            finder.string(line)
        return line

    _read(open_source, _Discard(), rule, line_rule)
    return finder.found()


class _Discard:
    def write(self, data: bytes) -> int:
        return len(data)

    def seek(self, offset: int) -> int:
        return 0

    def truncate(self) -> int:
        return 0


def _read(open_source: Opener, sink: Any, rule: Rule, line_rule: Callable[[str], str]) -> bool:
    """One JSON document's values, else each line, through the rules into `sink`; False when
    the file is not text."""
    try:
        try:
            with open_source() as source:
                _Document(source, sink, rule).write()
        except _NotOneDocument:
            sink.seek(0)
            sink.truncate()
            with open_source() as source:
                _write_lines(source, sink, line_rule)
    except UnicodeDecodeError:
        return False
    return True


def _dumped(value: Any, level: int) -> str:
    # json.dumps(indent=1) of the whole document, for a value `level` levels down
    return json.dumps(value, ensure_ascii=False, indent=1).replace("\n", "\n" + " " * level)


class _Document:
    """One JSON document read from `source` in chunks, written redacted to `sink`."""

    def __init__(self, source: IO[bytes], sink: IO[bytes], rule: Rule) -> None:
        self.source, self.sink, self.rule = source, sink, rule
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.buffer, self.pos, self.eof = "", 0, False

    def write(self) -> None:
        if self._peek() is None:
            raise _NotOneDocument  # empty: the line way keeps it empty
        self._value(0)
        if self._peek() is not None:
            raise _NotOneDocument  # more after the document: JSON Lines or text

    # reading

    def _read(self, at_least: int) -> bool:
        """Append at least `at_least` characters (fewer at the end); False at the end of input."""
        self.buffer, self.pos = self.buffer[self.pos :], 0
        grown = 0
        while grown < at_least and not self.eof:
            raw = self.source.read(CHUNK)
            text = self.decoder.decode(raw, final=not raw)
            self.eof = not raw
            self.buffer += text
            grown += len(text)
        return grown > 0

    def _peek(self) -> str | None:
        """The next character that is not whitespace (consumed up to it); None at the end."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if not self._read(CHUNK):
                return None

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            raise _NotOneDocument
        self.pos += 1

    def _decoded(self) -> Any:
        """The next whole JSON value, read until complete (the buffer at least doubling)."""
        while True:
            self._peek()
            try:
                value, end = _DECODER.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as exc:
                truncated = exc.msg.startswith("Unterminated string") or exc.pos >= len(self.buffer) - 6
                if self.eof or not truncated:
                    raise _NotOneDocument from None
            except RecursionError:
                raise _NotOneDocument from None
            else:
                if end < len(self.buffer) or self.eof:  # a number at the buffer's end may go on
                    self.pos = end
                    return value
            self._read(max(CHUNK, len(self.buffer) - self.pos))

    # writing

    def _out(self, text: str) -> None:
        self.sink.write(text.encode("utf-8"))

    def _value(self, depth: int) -> None:
        """The value at the read position, `depth` levels down, redacted and written."""
        opening = self._peek()
        if opening == "{" and depth < STREAM_DEPTH:
            self._object(depth)
        elif opening == "[" and depth < STREAM_DEPTH:
            self._array(depth)
        else:
            # the depth redact_json would have reached it at (its cap on nesting counts from the top)
            self._out(_dumped(self.rule(self._decoded(), depth), depth))

    def _object(self, depth: int) -> None:
        self._expect("{")
        indent = "\n" + " " * (depth + 1)
        name: tuple[Any] | None = None  # the `name` member's value, once read
        held: tuple[Any] | None = None  # a `value` member read before any `name`
        written = 0

        def member(key: str, value: Any) -> None:
            nonlocal written
            self._out(("," if written else "{") + indent + json.dumps(key, ensure_ascii=False) + ": ")
            self._out(_dumped(value, depth + 1))
            written += 1

        while self._peek() != "}":
            if written or held:
                self._expect(",")
            key = self._decoded()
            if not isinstance(key, str):
                raise _NotOneDocument
            self._expect(":")
            if key == "name":
                name = (self._decoded(),)
                member("name", self.rule({"name": name[0]}, depth)["name"])
                if held is not None:  # the pair's value came first
                    member("value", self.rule({"name": name[0], "value": held[0]}, depth)["value"])
                    held = None
            elif key == "value":
                if name is None:
                    held = (self._decoded(),)  # its name may still come: the pair rule needs both
                else:
                    member("value", self.rule({"name": name[0], "value": self._decoded()}, depth)["value"])
            elif self._peek() in ("{", "[") and depth + 1 < STREAM_DEPTH and not is_secret_name(key):
                self._out(("," if written else "{") + indent + json.dumps(key, ensure_ascii=False) + ": ")
                self._value(depth + 1)  # redact_json would only recurse into it: walk it
                written += 1
            else:
                member(key, self.rule({key: self._decoded()}, depth)[key])
        self.pos += 1
        if held is not None:
            member("value", self.rule({"value": held[0]}, depth)["value"])
        self._out("\n" + " " * depth + "}" if written else "{}")

    def _array(self, depth: int) -> None:
        self._expect("[")
        indent = "\n" + " " * (depth + 1)
        count = 0
        while self._peek() != "]":
            if count:
                self._expect(",")
            self._out(("," if count else "[") + indent)
            self._value(depth + 1)
            count += 1
        self.pos += 1
        self._out("\n" + " " * depth + "]" if count else "[]")


def _write_lines(source: IO[bytes], sink: IO[bytes], rule: Callable[[str], str]) -> None:
    """Each line as JSON (redacted) or as text; lines and the final newline as `str.splitlines`
    and the whole-file redaction had them."""
    first, ends_with_newline, written = True, False, False
    for raw in source:
        text = raw.decode("utf-8-sig" if first else "utf-8")
        first = False
        if not text:
            continue
        ends_with_newline = text.endswith("\n")
        for line in text.splitlines():
            sink.write((("\n" if written else "") + rule(line)).encode("utf-8"))
            written = True
    if ends_with_newline:
        sink.write(b"\n")


def _redacted_line(line: str) -> str:
    if not line.strip():
        return line
    try:
        return json.dumps(redact_json(json.loads(line)), ensure_ascii=False)
    except (ValueError, RecursionError):
        return redact_text(line)
