"""The package targets of issues 13 and 20 on each corpus: team examples, tuned shapes, held-out set,
other paths.

Run: `python bench/bench_package_targets.py [--corpus team tuned heldout paths rewards rewards_heldout] [--misses]`.
Prints, per corpus, the rate of: golden trajectories at full marks; empty attempts scoring 0;
mutants caught (the self-check's drop/retarget/swap/stray mutants); good attempts (made later:
new server ids, versions, clocks, request ids, no failed retry; or by another valid path) at full
marks; wrong attempts (wrong entity, missing write, wrong order, wrong answer) failing; the
self-check's valid variants at full marks. Targets: 100%, 100%, >= 95%, 100%, 100%, 100%. Attempts
that fail to import are listed apart (a fault of the corpus, never a wrong attempt that failed).
Exit 1 when a target is missed or an attempt does not import. See tests/package/corpora.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.package.corpora import CORPORA, TARGETS, measure


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", default=[c for c, (where, _) in CORPORA.items() if where.is_dir()])
    parser.add_argument("--misses", action="store_true", help="list every miss")
    args = parser.parse_args()
    missed = False
    for corpus in args.corpus:
        rates = measure(corpus)
        print(f"== {corpus}")
        for name, rate in rates.items():
            ok = rate.fraction >= TARGETS[name]
            missed |= not ok
            print(
                f"  {name:22} {rate.hits:4}/{rate.total:<4} {100 * rate.fraction:6.1f}%  target {100 * TARGETS[name]:.0f}%  {'ok' if ok else 'MISSED'}"
            )
            if args.misses:
                for miss in rate.misses:
                    print(f"      - {miss}")
        print(f"  {'attempts not imported':22} {len(rates.unimported):4}  {'MISSED' if rates.unimported else 'ok'}")
        missed |= bool(rates.unimported)
        for what in rates.unimported:
            print(f"      - {what}")
        print(f"  {'attempts not scored':22} {len(rates.unscored):4}  {'MISSED' if rates.unscored else 'ok'}")
        missed |= bool(rates.unscored)
        for what in rates.unscored:
            print(f"      - {what}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
