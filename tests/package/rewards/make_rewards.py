"""Write the rewards corpus (issue 28, batch A, "guides the fixes"): one app per class of the
issue's "Why", each a recording, its attempts and the ground truth of its writes.

Run: `python tests/package/rewards/make_rewards.py`. Deterministic (fixed clocks, seeded ids, fixed
ZIP dates). `recordings/<app>.zip` is one recorded run, `attempts/<app>/<kind>.zip` the attempts
made later (`good`, `good_<path>`: full marks; `empty`: 0; every other kind is wrong and must
fail: tests/package/corpora.py, WRONG_KINDS), `truth/<app>.json` what each write of the recording
really did (tests/package/rewards_kit.py). Measured before any fix: FIRST_CONTACT.txt.

Classes: a, sibling-entity writes (releases_rest, key_rotation_mcp, boards_har); b, failures inside
a 2xx (shopify_admin_gql, odoo_jsonrpc, slack_ok_false, wp_admin_forms, es_bulk); c, GraphQL as a
protocol (linear_gql); d, concurrency values under names no word list holds (es_seqno,
gcs_generation, magento_form_key, consul_cas_mcp); e, main-entity shapes (ct_cart; also es_seqno's
`/_update/{id}` and linear_gql's uuid beside the issue key).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.package.corpus_kit import write_files  # noqa: E402
from tests.package.rewards import (  # noqa: E402
    boards_har,
    consul_cas_mcp,
    ct_cart,
    es_bulk,
    es_seqno,
    gcs_generation,
    key_rotation_mcp,
    linear_gql,
    magento_form_key,
    odoo_jsonrpc,
    releases_rest,
    shopify_admin_gql,
    slack_ok_false,
    wp_admin_forms,
)
from tests.package.rewards_kit import App, corpus_files  # noqa: E402

HERE = Path(__file__).resolve().parent
APPS: dict[str, App] = {
    # a: sibling-entity writes
    "releases_rest": releases_rest.build,
    "key_rotation_mcp": key_rotation_mcp.build,
    "boards_har": boards_har.build,
    # b: failures inside a 2xx
    "shopify_admin_gql": shopify_admin_gql.build,
    "odoo_jsonrpc": odoo_jsonrpc.build,
    "slack_ok_false": slack_ok_false.build,
    "wp_admin_forms": wp_admin_forms.build,
    "es_bulk": es_bulk.build,
    # c: GraphQL as a protocol
    "linear_gql": linear_gql.build,
    # d: concurrency values under other names
    "es_seqno": es_seqno.build,
    "gcs_generation": gcs_generation.build,
    "magento_form_key": magento_form_key.build,
    "consul_cas_mcp": consul_cas_mcp.build,
    # e: main-entity shapes
    "ct_cart": ct_cart.build,
}


def files() -> dict[Path, bytes]:
    return corpus_files(HERE, APPS)


def main() -> None:
    write_files(files(), f"rewards corpus under {HERE}")


if __name__ == "__main__":
    main()
