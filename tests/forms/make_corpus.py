"""Write the form-app corpus: recordings of server-rendered apps and attempts made later.

Run: `python tests/forms/make_corpus.py`. Deterministic (fixed clocks, seeded tokens, fixed ZIP
dates). `corpus/recordings/<app>.zip` is one recorded run (task.json and a Chrome-style HAR),
`corpus/attempts/<app>/<kind>.zip` an attempt made another day: `good*` ones must pass, `wrong_*`
and `missing_write` ones must fail, `empty` does nothing (see tests/forms/test_corpus.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.forms.apps import (  # noqa: E402
    admin_console,
    django_crm,
    documents,
    helpdesk,
    laravel_board,
    turbo_stock,
    webforms_expenses,
)
from tests.package.corpus_kit import write_corpus  # noqa: E402

HERE = Path(__file__).resolve().parent / "corpus"
APPS = {
    "helpdesk": helpdesk.build,
    "admin_console": admin_console.build,
    "documents": documents.build,
    "django_crm": django_crm.build,
    "laravel_board": laravel_board.build,
    "webforms_expenses": webforms_expenses.build,
    "turbo_stock": turbo_stock.build,
}


def files() -> dict[Path, bytes]:
    out: dict[Path, bytes] = {}
    for name, build in APPS.items():
        recording, attempts = build()
        out.update(write_corpus(HERE, name, recording, attempts))
    return out


def main() -> None:
    for path, data in files().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"form-app corpus written under {HERE}")


if __name__ == "__main__":
    main()
