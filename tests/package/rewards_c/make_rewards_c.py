"""Write the rewards corpus batch C (issue 28): five apps written after issue 28 was closed by batches
A (tests/package/rewards) and B (tests/package/rewards_heldout), by conventions neither uses and
with three more writers (recorder.py: Playwright's and Safari's HAR, an echo bare array with
base64 answers; batch B's mitmproxy HAR). Measured once at first contact (FIRST_CONTACT.txt),
before any fix (README.md).

Run: `python tests/package/rewards_c/make_rewards_c.py`. Deterministic (fixed clocks, seeded ids,
fixed ZIP dates). Layout as batches A and B: `recordings/<app>.zip`, `attempts/<app>/<kind>.zip`,
`truth/<app>.json`.

Apps: shopify_user_errors (GraphQL `userErrors` inside a 200, `compareQuantity`), odoo_execute_kw
(JSON-RPC 2.0 `POST /jsonrpc` with `execute_kw`, sibling-entity writes, the `error` object inside a
200), couch_rev (CouchDB `_rev`/`rev`, ids with colons), salesforce_composite (`compositeResponse`
items refused inside a 200), grails_fleet (a server-rendered form, `SYNCHRONIZER_TOKEN`, a 200
re-render on a refused save, Grails' `version`).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.package.corpus_kit import write_files  # noqa: E402
from tests.package.rewards_c import (  # noqa: E402
    couch_rev,
    grails_fleet,
    odoo_execute_kw,
    salesforce_composite,
    shopify_user_errors,
)
from tests.package.rewards_kit import App, corpus_files  # noqa: E402

HERE = Path(__file__).resolve().parent
APPS: dict[str, App] = {
    "shopify_user_errors": shopify_user_errors.build,
    "odoo_execute_kw": odoo_execute_kw.build,
    "couch_rev": couch_rev.build,
    "salesforce_composite": salesforce_composite.build,
    "grails_fleet": grails_fleet.build,
}


def files() -> dict[Path, bytes]:
    return corpus_files(HERE, APPS)


def main() -> None:
    write_files(files(), f"rewards corpus batch C under {HERE}")


if __name__ == "__main__":
    main()
