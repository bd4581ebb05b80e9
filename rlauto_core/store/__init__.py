"""Storage: the `Storage` protocol over fsspec, where each file lives, the parquet index, what a
batch's sources name, uploads, reviews and the bundle of a job's packages."""

from rlauto_core.store import layout
from rlauto_core.store.bundle import Bundle, BundleMember, bundle_packages, write_bundle
from rlauto_core.store.claims import Claim, ClaimDecision, decide, take_claim, write_claim
from rlauto_core.store.env_evals import (
    ENV_EVALS_DIR,
    ENV_EVALS_SCHEMA,
    EnvEvalRow,
    append_env_evals,
    attempt_folder,
    read_env_evals,
)
from rlauto_core.store.env_evals import summary as eval_summary
from rlauto_core.store.index import (
    IndexedItem,
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
from rlauto_core.store.job_ids import JobIdError, batch_job_id, checked_job_id, safe_job_id
from rlauto_core.store.jobs import DeletedJob, JobDeletionError, delete_job, job_folders
from rlauto_core.store.outcome import (
    ITEM_STATUSES,
    BatchOutcome,
    CheckFigures,
    ItemOutcome,
    ItemStatus,
    IterationResult,
    JobStatus,
)
from rlauto_core.store.recorder import Recorder, json_bytes
from rlauto_core.store.reviews import REVIEW_DECISIONS, Decision, Review, ReviewError, add_review
from rlauto_core.store.rows import ItemRow, IterationRow, index_rows
from rlauto_core.store.sources import (
    ACCEPTED_KINDS,
    Expansion,
    copy_source,
    expand_sources,
    read_source,
    sha256_of,
    source_name_of,
)
from rlauto_core.store.staging import local_copy, open_staged, stage_recording
from rlauto_core.store.storage import (
    FsspecStorage,
    Storage,
    is_transient_storage_error,
    open_storage,
    with_storage_retry,
)
from rlauto_core.store.streams import STREAM_BLOCK_BYTES
from rlauto_core.store.uploads import (
    UPLOAD_SUFFIXES,
    StoredUploads,
    UploadError,
    checked_names,
    store_uploads,
    upload_file_name,
)

__all__ = [
    "ACCEPTED_KINDS",
    "DIMENSION_COLUMNS",
    "ENV_EVALS_DIR",
    "ENV_EVALS_SCHEMA",
    "ITEMS_DIR",
    "ITEMS_SCHEMA",
    "ITEM_STATUSES",
    "ITERATIONS_DIR",
    "ITERATIONS_SCHEMA",
    "REVIEWS_DIR",
    "REVIEWS_SCHEMA",
    "REVIEW_DECISIONS",
    "STREAM_BLOCK_BYTES",
    "UPLOAD_SUFFIXES",
    "BatchOutcome",
    "Bundle",
    "BundleMember",
    "CheckFigures",
    "Claim",
    "ClaimDecision",
    "Decision",
    "DeletedJob",
    "EnvEvalRow",
    "Expansion",
    "FsspecStorage",
    "IndexedItem",
    "ItemOutcome",
    "ItemRow",
    "ItemStatus",
    "IterationResult",
    "IterationRow",
    "JobDeletionError",
    "JobIdError",
    "JobStatus",
    "Recorder",
    "Review",
    "ReviewError",
    "ReviewRow",
    "Storage",
    "StoredUploads",
    "UploadError",
    "add_review",
    "append_env_evals",
    "append_item",
    "append_review",
    "attempt_folder",
    "batch_job_id",
    "bundle_packages",
    "checked_job_id",
    "checked_names",
    "copy_source",
    "decide",
    "delete_job",
    "eval_summary",
    "expand_sources",
    "index_rows",
    "is_transient_storage_error",
    "job_folders",
    "json_bytes",
    "layout",
    "local_copy",
    "open_staged",
    "open_storage",
    "read_env_evals",
    "read_source",
    "read_table",
    "safe_job_id",
    "sha256_of",
    "source_name_of",
    "stage_recording",
    "store_uploads",
    "take_claim",
    "upload_file_name",
    "with_storage_retry",
    "write_bundle",
    "write_claim",
]
