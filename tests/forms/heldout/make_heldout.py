"""Write the held-out form corpus (tests/forms/heldout/corpus): apps by conventions the tuned
corpus does not use, written before rlauto_core was changed for them.

Run: `python tests/forms/heldout/make_heldout.py`. Deterministic, like tests/forms/make_corpus.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.forms.heldout.apps import APPS  # noqa: E402
from tests.package.corpus_kit import corpus_files, write_files  # noqa: E402

HERE = Path(__file__).resolve().parent / "corpus"


def files() -> dict[Path, bytes]:
    return corpus_files(HERE, APPS)


if __name__ == "__main__":
    write_files(files(), f"held-out form corpus under {HERE}")
