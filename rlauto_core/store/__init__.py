"""Storage: the `Storage` protocol over fsspec, where each file lives, the parquet index, what a
batch's sources name, uploads, reviews and the bundle of a job's packages."""

from rlauto_core.store import layout
from rlauto_core.store.bundle import Bundle, BundleMember, bundle_packages
from rlauto_core.store.claims import Claim, ClaimDecision, decide, take_claim, write_claim
from rlauto_core.store.index import (
    IndexedItem,
    ItemRow,
    IterationRow,
    ReviewRow,
    append_item,
    append_review,
    read_table,
)
from rlauto_core.store.index_schema import (
    DIMENSION_COLUMNS,
    ITEMS_DIR,
    ITEMS_SCHEMA,
    ITERATIONS_DIR,
    ITERATIONS_SCHEMA,
    REVIEWS_DIR,
    REVIEWS_SCHEMA,
)
from rlauto_core.store.reviews import REVIEW_DECISIONS, Decision, Review, ReviewError, add_review
from rlauto_core.store.sources import Expansion, expand_sources, read_source, sha256_of, source_name_of
from rlauto_core.store.storage import (
    FsspecStorage,
    Storage,
    is_transient_storage_error,
    open_storage,
    with_storage_retry,
)
from rlauto_core.store.uploads import StoredUploads, UploadError, checked_names, store_uploads, upload_file_name

__all__ = [
    "DIMENSION_COLUMNS",
    "ITEMS_DIR",
    "ITEMS_SCHEMA",
    "ITERATIONS_DIR",
    "ITERATIONS_SCHEMA",
    "REVIEWS_DIR",
    "REVIEWS_SCHEMA",
    "REVIEW_DECISIONS",
    "Bundle",
    "BundleMember",
    "Claim",
    "ClaimDecision",
    "Decision",
    "Expansion",
    "FsspecStorage",
    "IndexedItem",
    "ItemRow",
    "IterationRow",
    "Review",
    "ReviewError",
    "ReviewRow",
    "Storage",
    "StoredUploads",
    "UploadError",
    "add_review",
    "append_item",
    "append_review",
    "bundle_packages",
    "checked_names",
    "decide",
    "expand_sources",
    "is_transient_storage_error",
    "layout",
    "open_storage",
    "read_source",
    "read_table",
    "sha256_of",
    "source_name_of",
    "store_uploads",
    "take_claim",
    "upload_file_name",
    "with_storage_retry",
    "write_claim",
]
