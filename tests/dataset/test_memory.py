"""Memory stays bounded: four times the packages, about the same peak (one batch at a time), far
below holding every package at once. Measured as ratios within this run, never absolute."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlauto_core.dataset import ExportOptions, export_dataset
from tests.dataset.synthetic import build_large_store, peak_bytes, read_everything

pytestmark = pytest.mark.slow


def test_peak_memory_does_not_grow_with_the_store(tmp_path: Path) -> None:
    options = ExportOptions(batch_bytes=1 << 20)  # batches of ~20 packages of 50 kB
    peaks, naive = {}, {}
    for items in (40, 160):
        storage = build_large_store(tmp_path / f"store-{items}", items, pad_bytes=50_000)
        out = tmp_path / f"out-{items}"
        peaks[items] = peak_bytes(lambda s=storage, o=out: export_dataset(s, str(o), options))
        naive[items] = peak_bytes(lambda s=storage: read_everything(s))
        assert (out / "tasks.parquet").is_file()
    assert naive[160] > 3 * naive[40]  # the store really grew fourfold
    assert peaks[160] < 1.5 * peaks[40], peaks
    assert peaks[160] < naive[160] / 2, (peaks, naive)
