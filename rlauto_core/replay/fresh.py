"""Fresh values of a recorded shape: what a session's server makes instead of the recorded ones.

A create answers a new id that looks like the recorded one (digits stay digits of the same
length, letters and separators stay: `card_881` -> `card_357`, `C07INC22910` -> `C41INC60385`), an
id that is a clock (a Slack `ts`) is the session's clock, a lock version moves on by the same
offset for the whole session (so 6 -> 7 in the recording is 1006 -> 1007 in the session), and a
token (an ETag, a CSRF token) is new text of the same length. Seeded per session: a session
replays the same way twice, and two sessions never share their values.
"""

from __future__ import annotations

import random
import re
import string
import time
from typing import Any

_DIGITS = re.compile(r"\d+")
_EPOCH = re.compile(r"^(1[5-9]\d{8})(\d{3})?(\.\d+)?$")
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2})")
VERSION_OFFSET = 1000


class FreshValues:
    """The new values of one session; `taken` holds every value the recording shows, never reused."""

    def __init__(self, seed: int, taken: set[str], started: float | None = None) -> None:
        self._random = random.Random(seed)
        self._taken = set(taken)
        self.started = time.time() if started is None else started

    def _unused(self, make: Any) -> Any:
        for _ in range(50):
            value = make()
            if str(value) not in self._taken:
                self._taken.add(str(value))
                return value
        raise RuntimeError("no fresh value left of this shape")  # 50 collisions: a 1-digit id space

    def identifier(self, recorded: Any) -> Any:
        """A new id of the recorded one's shape (an int stays an int)."""
        if isinstance(recorded, int) and not isinstance(recorded, bool):
            width = len(str(abs(recorded)))
            return self._unused(lambda: int(self._digits(width)))
        text = str(recorded)
        if _EPOCH.match(text):
            return self._unused(lambda: self.clock(text))
        if not _DIGITS.search(text):
            return self._unused(lambda: f"{text}_{self._digits(4)}")
        return self._unused(lambda: _DIGITS.sub(lambda m: self._digits(len(m.group(0))), text))

    def _digits(self, width: int) -> str:
        first = self._random.choice("123456789")
        return first + "".join(self._random.choice(string.digits) for _ in range(width - 1))

    def token(self, recorded: str) -> str:
        """New text of the same length and alphabet (hex stays hex, quotes of an ETag stay)."""

        def new_char(ch: str) -> str:
            if (ch in string.hexdigits and ch.islower()) or ch.isdigit():
                return self._random.choice("0123456789abcdef")
            if ch.isupper():
                return self._random.choice(string.ascii_uppercase)
            if ch.isalpha():
                return self._random.choice(string.ascii_lowercase)
            return ch

        return str(self._unused(lambda: "".join(new_char(ch) for ch in recorded)))

    def clock(self, recorded: str) -> str:
        """The session's time, written as the recorded clock was (epoch s / ms, fraction)."""
        match = _EPOCH.match(recorded)
        if match is None:
            return recorded
        now = time.time() + self._random.random()
        whole = f"{int(now * 1000)}" if match.group(2) else f"{int(now)}"
        fraction = match.group(3)
        if fraction:
            whole += "." + "".join(self._random.choice(string.digits) for _ in range(len(fraction) - 1))
        return whole

    def moved_on(self, recorded: Any) -> Any:
        """A volatile value as this session shows it: versions offset, clocks now, tokens new."""
        if isinstance(recorded, bool) or recorded is None:
            return recorded
        if isinstance(recorded, int):
            return recorded + VERSION_OFFSET if recorded < 1_000_000_000 else int(time.time())
        if isinstance(recorded, float):
            return recorded + VERSION_OFFSET
        text = str(recorded)
        if text.isdigit() and len(text) < 9:
            return str(int(text) + VERSION_OFFSET)
        if _EPOCH.match(text):
            return self.clock(text)
        iso = _ISO.match(text)
        if iso:
            now = time.strftime("%Y-%m-%d" + iso.group(4) + "%H:%M", time.gmtime(self.started))
            return now + text[len(iso.group(0)) :]
        return self.token(text)
