"""The parquet index: the lasting contract between the pipeline and the dashboard.

Append-only. Every finished item writes one file per table; a re-run writes new rows and the
newest `finished_at` (items) / `created_at` (reviews) wins when read.

Layout under the storage root:
    index/items/job=<job_id>/<item_id>-<stamp>.parquet
    index/iterations/job=<job_id>/<item_id>-<stamp>.parquet
    index/reviews/<stamp>-<uuid>.parquet
"""

from __future__ import annotations

import pyarrow as pa

from rlauto_core.store.columns import arrow_schema
from rlauto_core.store.rows import DIMENSION_COLUMNS as DIMENSION_COLUMNS
from rlauto_core.store.rows import ItemRow, IterationRow

ITEMS_DIR = "index/items"
ITERATIONS_DIR = "index/iterations"
REVIEWS_DIR = "index/reviews"

# Derived from the row models, which take the outcome's own fields (rlauto_core.store.rows):
# a column is declared once, there.
ITEMS_SCHEMA = arrow_schema(ItemRow)
ITERATIONS_SCHEMA = arrow_schema(IterationRow)

REVIEWS_SCHEMA = pa.schema(
    [
        ("job_id", pa.string()),
        ("item_id", pa.string()),
        ("decision", pa.string()),  # rlauto_core.store.reviews.REVIEW_DECISIONS
        ("comment", pa.string()),
        ("reviewer", pa.string()),
        ("created_at", pa.timestamp("ms", tz="UTC")),
    ]
)
