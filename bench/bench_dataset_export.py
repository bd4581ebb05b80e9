"""Dataset export: throughput and peak memory against a baseline measured in the same run.

A store of N packaged items (one recording packaged by the core loop, cloned under new ids, each
package padded with a recorded response of PAD bytes) and one of 4N. Prints, for each:
- the baseline: reading every package file and parsing its JSON (the least any export does);
- the export (parquet and jsonl): seconds, rows/s, and its ratio to the baseline;
- the peak of Python allocations of the export and of holding every package at once, and the
  ratio of the 4N peak to the N peak (1.0: memory does not grow with the store).

Run: python bench/bench_dataset_export.py [--items N] [--pad BYTES]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rlauto_core.dataset import ExportOptions, export_dataset
from rlauto_core.store import Storage
from tests.dataset.synthetic import build_large_store, peak_bytes, read_everything


def _baseline(storage: Storage) -> float:
    started = time.perf_counter()
    for path in storage.glob("exports/*/*/task-package.json"):
        json.loads(storage.read_bytes(path))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=250)
    parser.add_argument("--pad", type=int, default=50_000)
    args = parser.parse_args()
    peaks: dict[int, int] = {}
    with tempfile.TemporaryDirectory(prefix="bench-dataset-") as tmp:
        for items in (args.items, 4 * args.items):
            storage = build_large_store(Path(tmp) / f"store-{items}", items, args.pad)
            base = _baseline(storage)
            print(f"{items + 1} items, packages padded by {args.pad} bytes; baseline read+parse {base:.2f} s")
            for fmt in ("parquet", "jsonl"):
                started = time.perf_counter()
                summary = export_dataset(storage, f"{tmp}/out-{items}-{fmt}", ExportOptions(format=fmt))
                took = time.perf_counter() - started
                print(
                    f"  export {fmt:7s} {took:6.2f} s  {summary.rows / took:7.1f} rows/s  {took / base:5.1f}x baseline"
                )
            peak_out = f"{tmp}/peak-{items}"
            peaks[items] = peak_bytes(lambda s=storage, o=peak_out: export_dataset(s, o, ExportOptions()))  # type: ignore[misc]
            naive = peak_bytes(lambda s=storage: read_everything(s))  # type: ignore[misc]
            print(f"  peak: export {peaks[items] / 1e6:.1f} MB, every package held {naive / 1e6:.1f} MB")
    print(f"peak ratio 4N/N: {peaks[4 * args.items] / peaks[args.items]:.2f} (1.0 = bounded)")


if __name__ == "__main__":
    main()
