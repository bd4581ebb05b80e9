"""The thin task of the `export-dataset` flow: the core export, nothing more."""

from __future__ import annotations

from prefect import task

from rlauto_core.dataset import ExportOptions, ExportSummary, export_dataset, open_source_storage
from tasks.retry import STORAGE_WRITE


@task(name="export-dataset", task_run_name="export-dataset-{options.format}", **STORAGE_WRITE)
def export_dataset_task(storage_url: str, out: str, options: ExportOptions) -> ExportSummary:
    """Write the dataset (data file + card) to `out`; bad input is a `DatasetError` (not retried)."""
    return export_dataset(open_source_storage(storage_url), out, options)
