"""The local snapshot cache: a restarted dashboard reads only the index files added since."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards import index_snapshot
from dashboards.repository import Repository
from rlauto_core.store.storage import FsspecStorage
from tests.dashboards.index_builder import BASE_TIME, ItemSpec, write_item


@pytest.fixture(autouse=True)
def save_after_every_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_snapshot, "CACHE_AFTER_FILES", 1)  # the sample index has a dozen files


def test_a_restart_reads_the_cache_and_only_new_index_files(filled_storage: FsspecStorage, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = Repository(filled_storage.url, refresh_seconds=0, cache_dir=cache)
    assert first.count_items() == 6
    assert len(list(cache.glob("*/items_raw.parquet"))) == 1
    # after the cache was written: one old file becomes unreadable, one new item arrives
    old = next(p for p in filled_storage.list("index/items") if "it-zero" in p)
    filled_storage.write_bytes(old, b"garbage")
    write_item(filled_storage, ItemSpec("job-c", "it-new", "a new one", finished_at=BASE_TIME))
    restarted = Repository(filled_storage.url, refresh_seconds=0, cache_dir=cache)
    assert restarted.count_items() == 7
    assert restarted.health().unreadable == []  # the old file was never read again
    assert restarted.get_item("job-a", "it-zero") is not None


def test_a_broken_or_foreign_cache_is_ignored(filled_storage: FsspecStorage, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    Repository(filled_storage.url, refresh_seconds=0, cache_dir=cache).count_items()
    (meta,) = cache.glob("*/meta.json")
    meta.write_text("{not json")
    assert Repository(filled_storage.url, refresh_seconds=0, cache_dir=cache).count_items() == 6
    other = Repository(f"{filled_storage.url}-elsewhere", refresh_seconds=0, cache_dir=cache)
    assert other.count_items() == 0  # another storage URL never sees this cache's rows


def test_an_index_file_deleted_after_caching_drops_its_rows(filled_storage: FsspecStorage, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    Repository(filled_storage.url, refresh_seconds=0, cache_dir=cache).count_items()
    filled_storage.delete(next(p for p in filled_storage.list("index/items") if "it-full" in p))
    restarted = Repository(filled_storage.url, refresh_seconds=0, cache_dir=cache)
    assert restarted.count_items() == 5 and restarted.get_item("job-a", "it-full") is None
