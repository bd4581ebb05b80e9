"""Write the held-out rewards corpus (issue 28, batch B): six apps covering the same classes as
batch A (tests/package/rewards) by other conventions and another recorder (recorder.py: echo with
numeric ids and header lists, Firefox's and mitmproxy's HAR). Measured at first contact
(FIRST_CONTACT.txt) and after batch A's fixes, then fixed for: no longer held out (README.md).

Run: `python tests/package/rewards_heldout/make_rewards_heldout.py`. Deterministic. Layout as batch A:
`recordings/<app>.zip`, `attempts/<app>/<kind>.zip`, `truth/<app>.json`.

Classes: a, sibling-entity writes (drupal_jsonapi, stripe_prices); b, failures inside a 2xx
(wecom_errcode, helpdesk_apollo's partial data); c, GraphQL (helpdesk_apollo: a persisted query,
a UI-state mutation, two root fields in one mutation); d, concurrency values (dynamics_odata's
`@odata.etag`/`If-Match`/`versionnumber`, azure_append's lease id and append position in
headers); e, main-entity shapes (drupal_jsonapi's uuid beside `drupal_internal__nid`,
helpdesk_apollo's Relay ids beside the ticket number).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.package.corpus_kit import write_files  # noqa: E402
from tests.package.rewards_heldout import (  # noqa: E402
    azure_append,
    drupal_jsonapi,
    dynamics_odata,
    helpdesk_apollo,
    stripe_prices,
    wecom_errcode,
)
from tests.package.rewards_kit import App, corpus_files  # noqa: E402

HERE = Path(__file__).resolve().parent
APPS: dict[str, App] = {
    "drupal_jsonapi": drupal_jsonapi.build,
    "stripe_prices": stripe_prices.build,
    "wecom_errcode": wecom_errcode.build,
    "helpdesk_apollo": helpdesk_apollo.build,
    "dynamics_odata": dynamics_odata.build,
    "azure_append": azure_append.build,
}


def files() -> dict[Path, bytes]:
    return corpus_files(HERE, APPS)


def main() -> None:
    write_files(files(), f"held-out rewards corpus under {HERE}")


if __name__ == "__main__":
    main()
