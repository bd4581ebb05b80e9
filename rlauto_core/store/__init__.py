"""Storage: the `Storage` protocol over fsspec, where each file lives, and the parquet index."""

from rlauto_core.store import layout
from rlauto_core.store.index import ItemRow, IterationRow, ReviewRow, append_item, append_review, read_table
from rlauto_core.store.index_schema import (
    DIMENSION_COLUMNS,
    ITEM_STATUSES,
    ITEMS_DIR,
    ITEMS_SCHEMA,
    ITERATIONS_DIR,
    ITERATIONS_SCHEMA,
    REVIEW_DECISIONS,
    REVIEWS_DIR,
    REVIEWS_SCHEMA,
)
from rlauto_core.store.storage import (
    FsspecStorage,
    Storage,
    is_transient_storage_error,
    open_storage,
    with_storage_retry,
)

__all__ = [
    "DIMENSION_COLUMNS",
    "ITEMS_DIR",
    "ITEMS_SCHEMA",
    "ITEM_STATUSES",
    "ITERATIONS_DIR",
    "ITERATIONS_SCHEMA",
    "REVIEWS_DIR",
    "REVIEWS_SCHEMA",
    "REVIEW_DECISIONS",
    "FsspecStorage",
    "ItemRow",
    "IterationRow",
    "ReviewRow",
    "Storage",
    "append_item",
    "append_review",
    "is_transient_storage_error",
    "layout",
    "open_storage",
    "read_table",
    "with_storage_retry",
]
