"""Dataset export for RL trainers: the newest item rows of the index, their best packages and
newest reviews, as one typed parquet (or JSON Lines) file with a dataset card (docs/dataset.md)."""

from rlauto_core.dataset.card import render_card
from rlauto_core.dataset.errors import DatasetError
from rlauto_core.dataset.export import export_dataset, open_source_storage
from rlauto_core.dataset.languages import instruction_languages
from rlauto_core.dataset.models import (
    DATASET_FORMATS,
    MAX_PACKAGE_BYTES,
    DatasetFormat,
    ExportOptions,
    ExportSummary,
    SkippedItem,
)
from rlauto_core.dataset.output import CARD_MARKER, CARD_NAME, DATA_NAMES
from rlauto_core.dataset.schema import COLUMN_NAMES, DATASET_SCHEMA

__all__ = [
    "CARD_MARKER",
    "CARD_NAME",
    "COLUMN_NAMES",
    "DATASET_FORMATS",
    "DATASET_SCHEMA",
    "DATA_NAMES",
    "MAX_PACKAGE_BYTES",
    "DatasetError",
    "DatasetFormat",
    "ExportOptions",
    "ExportSummary",
    "SkippedItem",
    "export_dataset",
    "instruction_languages",
    "open_source_storage",
    "render_card",
]
