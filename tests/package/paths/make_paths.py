"""Write the paths corpus (issue 20): recordings whose good attempts reach the same end state by
another valid path (reads skipped, reordered or added, ids learned elsewhere, other lock versions,
ETags and tokens) and must score full marks, and wrong attempts that must fail.

Run: `python tests/package/paths/make_paths.py`. Deterministic (fixed clocks and ZIP dates).
`recordings/<app>.zip` is one recorded run, `attempts/<app>/<kind>.zip` the attempts made later:
`good*` take valid paths, `wrong_*` and `missing_write` do not (tests/package/corpus_kit.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.package.corpus_kit import corpus_files, write_files  # noqa: E402
from tests.package.paths import cart_lock, checkout_mcp, etag_form, jira_keys, wiki_space  # noqa: E402

HERE = Path(__file__).resolve().parent
APPS = {
    "cart_lock": cart_lock.build,
    "wiki_space": wiki_space.build,
    "etag_form": etag_form.build,
    "jira_keys": jira_keys.build,
    "checkout_mcp": checkout_mcp.build,
}


def files() -> dict[Path, bytes]:
    out = corpus_files(HERE, APPS)
    return out


def main() -> None:
    write_files(files(), f"paths corpus under {HERE}")


if __name__ == "__main__":
    main()
