"""Write the tuned corpus: the shapes real apps produce that the offline analyzer was developed on.

Run: `python tests/package/tuned/make_tuned.py`. Deterministic. Layout as the held-out corpus
(tests/package/heldout/make_heldout.py): `recordings/`, `attempts/<app>/<kind>.zip`, `verdicts/`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.package.corpus_kit import corpus_files, write_files  # noqa: E402
from tests.package.tuned import chat_invite, cms_publish, order_lookup, orders_grid, shop_locks, verdict_cases  # noqa: E402

HERE = Path(__file__).resolve().parent
APPS = {
    "shop_locks": shop_locks.build,
    "chat_invite": chat_invite.build,
    "orders_grid": orders_grid.build,
    "cms_publish": cms_publish.build,
    "order_lookup": order_lookup.build,
}


def files() -> dict[Path, bytes]:
    out = corpus_files(HERE, APPS)
    out[HERE / "verdicts" / "grid_save_only.zip"] = verdict_cases.grid_save_only()
    out[HERE / "verdicts" / "lookup_without_instruction.zip"] = verdict_cases.lookup_without_instruction()
    return out


def main() -> None:
    write_files(files(), f"tuned corpus under {HERE}")


if __name__ == "__main__":
    main()
