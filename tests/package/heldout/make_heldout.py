"""Write the held-out corpus: recordings and attempts nobody tuned the analyzer on.

Run: `python tests/package/heldout/make_heldout.py`. Deterministic (fixed clocks and ZIP dates).
`recordings/<app>.zip` is one recorded run, `attempts/<app>/<kind>.zip` the attempts made later
(see tests/package/corpus_kit.py); `verdicts/` holds recordings that must not become packages.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.package.corpus_kit import write_corpus  # noqa: E402
from tests.package.heldout import bookshop, browse_only, crm_lookup, helpdesk, invoices, matrix_rooms, teamchat  # noqa: E402

HERE = Path(__file__).resolve().parent
APPS = {
    "bookshop": bookshop.build,
    "teamchat": teamchat.build,
    "invoices": invoices.build,
    "helpdesk": helpdesk.build,
    "crm_lookup": crm_lookup.build,
    "matrix_rooms": matrix_rooms.build,
}


def files() -> dict[Path, bytes]:
    out: dict[Path, bytes] = {}
    for name, build in APPS.items():
        recording, attempts = build()
        out.update(write_corpus(HERE, name, recording, attempts))
    out[HERE / "verdicts" / "browse_only.har"] = browse_only.build()
    return out


def main() -> None:
    for path, data in files().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"held-out corpus written under {HERE}")


if __name__ == "__main__":
    main()
