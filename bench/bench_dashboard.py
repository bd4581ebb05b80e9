"""Dashboard repository benchmark: every page's queries on an index of 10k items / 50k iterations.

The index is laid out as the pipeline writes it: one parquet file per item per table (20k files),
plus the JSON files of a few items for the detail page. Prints, all measured in this run:
- the baseline: a bare DuckDB `count(*)` over the same parquet files (items, iterations);
- the first load of the repository's snapshot (a new process pays it once);
- each repository query's median, and its ratio to the items baseline;
- each page's total (its queries' medians summed), against the 200 ms target.

Run: python bench/bench_dashboard.py [--index-dir DIR] [--repeat N]
(--index-dir reuses an index built by an earlier run; it is built there when empty.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duckdb

from dashboards.models import ItemQuery
from dashboards.package_diff import changes
from dashboards.repository import Repository
from dashboards.views.rubrics import golden_report
from rlauto_core.store import add_review
from tests.dashboards.index_builder import generated_specs, write_item

ITEMS = 10_000
ITERATIONS_PER_ITEM = 5
JOBS = 40
ITEMS_WITH_FILES = 50  # the detail page reads these items' packages
TARGET_MS = 200.0


class PlainDirectory:
    """Writes files straight to a local folder: building 20k files with fsync would take minutes."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write_bytes(self, path: str, data: bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def build_index(root: Path) -> None:
    writer = PlainDirectory(root)
    started = time.perf_counter()
    for number, spec in enumerate(generated_specs(ITEMS, ITERATIONS_PER_ITEM, JOBS)):
        write_item(writer, spec, with_files=number < ITEMS_WITH_FILES)  # type: ignore[arg-type]
    print(f"built {ITEMS} items x {ITERATIONS_PER_ITEM} iterations in {time.perf_counter() - started:.1f} s")


def median_ms(action: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def bare_count(pattern: str) -> int:
    con = duckdb.connect(":memory:")
    try:
        rows = con.sql("SELECT count(*) FROM read_parquet($p)", params={"p": [pattern]}).fetchall()
        return int(rows[0][0])
    finally:
        con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index-dir", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    root = args.index_dir or Path(tempfile.mkdtemp(prefix="bench-dashboard-"))
    if not (root / "index" / "items").is_dir():
        build_index(root)
    items_glob = str(root / "index" / "items" / "*" / "*.parquet")
    iterations_glob = str(root / "index" / "iterations" / "*" / "*.parquet")

    assert bare_count(items_glob) == ITEMS
    baseline_items = median_ms(lambda: bare_count(items_glob), 3)
    baseline_iterations = median_ms(lambda: bare_count(iterations_glob), 3)
    print(f"baseline: DuckDB count(*) over {ITEMS} item files {baseline_items:.0f} ms, "
          f"over the iteration files {baseline_iterations:.0f} ms")  # fmt: skip

    cache = Path(tempfile.mkdtemp(prefix="bench-dashboard-cache-"))
    started = time.perf_counter()
    repository = Repository(root.as_uri(), refresh_seconds=3600, cache_dir=cache)
    assert repository.count_items() == ITEMS
    first_load = (time.perf_counter() - started) * 1000
    print(f"first snapshot load (no cache: all 20k files, then writes the cache): {first_load:.0f} ms "
          f"= {first_load / baseline_items:.2f}x the items baseline")  # fmt: skip
    started = time.perf_counter()
    assert Repository(root.as_uri(), cache_dir=cache).count_items() == ITEMS
    restart = (time.perf_counter() - started) * 1000
    print(f"restart with the local cache (reads 1 file per table + lists index/): {restart:.0f} ms "
          f"= {restart / baseline_items:.3f}x the items baseline")  # fmt: skip

    sample = repository.find_items(ItemQuery(job_ids=("job-000",), sort="item_id", descending=False)).rows[0]
    job, item = sample.job_id, sample.item_id
    record = repository.get_item(job, item)
    iterations = repository.get_iterations(job, item)
    assert record is not None and record.package_path and len(iterations) == ITERATIONS_PER_ITEM

    newest = tuple(j.job_id for j in repository.list_jobs()[:6])
    best = repository.read_json(record.package_path)
    first, last = (repository.read_json(it.package_path or "") for it in (iterations[0], iterations[-1]))
    assert not isinstance(golden_report(best), str) and changes(first, last)

    def refresh_check() -> None:
        repository.refresh()
        repository.count_items()

    queries: dict[str, list[tuple[str, Callable[[], Any]]]] = {
        "overview": [
            ("list_jobs", repository.list_jobs),
            ("health", repository.health),
            ("score_distribution (6 newest jobs)", lambda: repository.score_distribution(newest)),
            ("activity (per day, 6 newest jobs)", lambda: repository.activity("day", newest)),
        ],
        "items": [
            ("filter_choices", repository.filter_choices),
            ("find_items (default page)", lambda: repository.find_items(ItemQuery())),
            ("find_items (job+verdict+flags+score, by score)", lambda: repository.find_items(
                ItemQuery(job_ids=("job-001", "job-002"), verdicts=("PASS", "NEEDS_REVISION"),
                          flag_codes=("NOISE_TOOL",), score_min=6, score_max=12, sort="total_score"))),
            ("find_items (text search, page 3)", lambda: repository.find_items(
                ItemQuery(text="channel", page=3, page_size=50))),
            ("find_items (unreviewed)", lambda: repository.find_items(ItemQuery(decisions=("unreviewed",)))),
        ],
        "item": [
            ("get_item", lambda: repository.get_item(job, item)),
            ("get_iterations", lambda: repository.get_iterations(job, item)),
            ("get_reviews", lambda: repository.get_reviews(job, item)),
            ("read_json (best package)", lambda: repository.read_json(record.package_path or "")),
            ("read_json x2 (diff of two iterations)", lambda: [
                repository.read_json(it.package_path or "") for it in (iterations[0], iterations[-1])]),
            ("golden scored by its checkers (rubrics beside golden)", lambda: golden_report(best)),
            ("changes of two iterations' packages (side by side)", lambda: changes(first, last)),
        ],
        "refresh": [
            ("refresh check (list 20k files, nothing new)", refresh_check),
        ],
    }  # fmt: skip
    print(f"\n{'page / query':<58}{'median ms':>10}{'x baseline':>12}")
    medians: dict[str, dict[str, float]] = {}
    for page, entries in queries.items():
        medians[page] = {}
        for name, action in entries:
            action()  # warm
            ms = median_ms(action, args.repeat)
            medians[page][name] = ms
            print(f"{page + ': ' + name:<58}{ms:>10.1f}{ms / baseline_items:>12.4f}")
    # what one render runs: the items page runs filter_choices and ONE find_items (the slowest here)
    finds = [ms for name, ms in medians["items"].items() if name.startswith("find_items")]
    totals = {
        "overview": sum(medians["overview"].values()),
        "items": medians["items"]["filter_choices"] + max(finds),
        "item": sum(medians["item"].values()),
    }

    def review() -> None:
        add_review(repository.storage, job, item, "accept", "bench")
        repository.refresh()
        repository.count_items()

    review_ms = median_ms(review, 5)
    print(f"{'review: add_review + the next query (reads 1 new file)':<58}{review_ms:>10.1f}"
          f"{review_ms / baseline_items:>12.4f}")  # fmt: skip
    print()
    for page, total in totals.items():
        verdict = "OK" if total <= TARGET_MS else "OVER"
        print(f"page {page:<9} queries total {total:7.1f} ms  (target <= {TARGET_MS:.0f} ms: {verdict})")
    refresh = medians["refresh"]["refresh check (list 20k files, nothing new)"]
    print(f"(a render that also falls on the 5 s refresh check adds {refresh:.0f} ms)")


if __name__ == "__main__":
    main()
