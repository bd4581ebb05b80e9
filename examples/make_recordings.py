"""Write the example recordings to examples/recordings/ (deterministic: same bytes every run).

Run: `python examples/make_recordings.py`. Every timestamp is fixed and every ZIP entry has a
fixed date_time and permissions, so re-running gives identical files. The secrets planted in
the recordings (Bearer tokens, cookies, an `access_token` query) contain the marker
`CANARY` so redaction tests can grep for them; see examples/README.md.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from builders.boards import board_chrome_har, board_firefox_zip
from builders.discord import discord
from builders.issue_tracker import issue_tracker
from builders.kit import OUT
from builders.notes import notes_jsonrpc
from builders.shop import shop
from builders.slack import slack

BUILDERS: list[Callable[[], None]] = [
    issue_tracker,
    shop,
    discord,
    slack,
    board_chrome_har,
    board_firefox_zip,
    notes_jsonrpc,
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for build in BUILDERS:
        build()
    for path in sorted(OUT.iterdir()):
        sys.stdout.write(f"{path.name}\t{path.stat().st_size} bytes\n")


if __name__ == "__main__":
    main()
