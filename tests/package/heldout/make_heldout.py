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

from tests.package.corpus_kit import corpus_files, write_files  # noqa: E402
from tests.package.heldout import (  # noqa: E402
    bookshop,
    browse_only,
    calendar_mcp,
    crm_lookup,
    helpdesk,
    invoices,
    issue_transition,
    matrix_rooms,
    pulls_count,
    storefront_graphql,
    teamchat,
)

HERE = Path(__file__).resolve().parent
APPS = {
    "bookshop": bookshop.build,
    "teamchat": teamchat.build,
    "invoices": invoices.build,
    "helpdesk": helpdesk.build,
    "crm_lookup": crm_lookup.build,
    "matrix_rooms": matrix_rooms.build,
    # a second batch, written after the first had been used once (see docs/packages.md)
    "issue_transition": issue_transition.build,
    "storefront_graphql": storefront_graphql.build,
    "calendar_mcp": calendar_mcp.build,
    "pulls_count": pulls_count.build,
}


def files() -> dict[Path, bytes]:
    out = corpus_files(HERE, APPS)
    out[HERE / "verdicts" / "browse_only.har"] = browse_only.build()
    return out


def main() -> None:
    write_files(files(), f"held-out corpus under {HERE}")


if __name__ == "__main__":
    main()
