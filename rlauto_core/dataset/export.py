"""`export_dataset`: the selected items' best packages as one data file and its card.

Packages are read eight at a time and written a batch at a time (`ExportOptions.batch_rows` rows
or `batch_bytes` of package JSON, whichever comes first), so memory holds one batch, not the
store. An item without a usable package is skipped with its reason; a storage that fails while
the export reads it stops the export (nothing is replaced) rather than skip everything.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from pydantic import ValidationError

from rlauto_core.dataset import selection as sel
from rlauto_core.dataset.card import render_card
from rlauto_core.dataset.errors import DatasetError
from rlauto_core.dataset.models import MAX_PACKAGE_BYTES, ExportOptions, ExportSummary, SkippedItem, SkipReason
from rlauto_core.dataset.output import CARD_NAME, DATA_NAMES, OutputFolder
from rlauto_core.dataset.rows import dataset_row, package_document, repaired
from rlauto_core.dataset.writers import RowSink, fits, open_sink, to_batch
from rlauto_core.errors import PackageError, RecordingError
from rlauto_core.importers.jsonload import load_json
from rlauto_core.package import JudgeResult
from rlauto_core.redact import redact_json, redact_text, redact_url
from rlauto_core.store import ITEMS_DIR, FsspecStorage, Storage, layout

READERS = 8


class _Skip(Exception):
    def __init__(self, reason: SkipReason, detail: str) -> None:
        self.reason, self.detail = reason, detail


def open_source_storage(url: str) -> FsspecStorage:
    """The storage to export from; unlike `open_storage` a missing local folder is an error,
    never created."""
    shown = redact_url(url)
    try:
        storage = FsspecStorage(url)
    except (ValueError, ImportError, OSError) as exc:
        raise DatasetError(f"{shown}: not a storage URL we can open ({exc})") from None
    protocol = storage.fs.protocol
    if "file" in ((protocol,) if isinstance(protocol, str) else protocol) and not os.path.isdir(storage.root):
        raise DatasetError(f"{shown}: no such folder")
    return storage


def _check_options(options: ExportOptions) -> None:
    job = options.job_id
    if job is not None:
        try:
            safe = layout.safe_job_id(job)
        except ValueError:
            safe = ""
        if safe != job:
            raise DatasetError(f"--job {job[:80]!r}: not a job id (letters, digits, '.', '_' and '-' only)")


def _known_jobs(storage: Storage) -> list[str]:
    jobs = {p.split("/")[2].removeprefix("job=") for p in storage.list(ITEMS_DIR) if p.count("/") >= 3}
    return sorted(jobs)


def _select(storage: Storage, options: ExportOptions) -> sel.Selection:
    keeps: list[sel.Keep] = []
    if options.only_accepted:
        keeps.append(sel.only_accepted)
    if options.min_score is not None:
        keeps.append(sel.min_score(options.min_score))
    shown = redact_url(storage.url)
    try:
        selection = sel.select(storage, options.job_id, keeps)
        if selection.items_in_index == 0 and options.job_id:
            known = _known_jobs(storage)
    except Exception as exc:  # the store itself: unreachable, refused, no such bucket
        raise DatasetError(f"{shown}: storage cannot be read ({type(exc).__name__}: {_one_line(exc)})") from None
    if selection.items_in_index == 0:
        unreadable = len(selection.unreadable_index_files)
        why = f" ({unreadable} index files could not be read)" if unreadable else ""
        if options.job_id:
            listed = ", ".join(known[:5]) + (f" and {len(known) - 5} more" if len(known) > 5 else "")
            raise DatasetError(
                f"--job {options.job_id}: no such job in the index at {shown}{why}; jobs: {listed or 'none'}"
            )
        raise DatasetError(f"{shown}: the index holds no item{why}: nothing to export")
    return selection


def _one_line(exc: BaseException) -> str:
    """An error of the store or the disk as one line (a signed URL in it loses its signature)."""
    return redact_text(" ".join(str(exc).split()))[:300]


def _read_package(storage: Storage, candidate: sel.Candidate) -> tuple[dict[str, Any], int]:
    job, item = candidate.key
    try:
        path = layout.best_path(job, item, "task-package")
        data = storage.read_bytes(path)
    except ValueError as exc:
        raise _Skip("unsafe ids", str(exc)) from None
    except FileNotFoundError:
        if candidate.get("package_path"):
            raise _Skip("package missing", f"{candidate.get('package_path')} is not in storage") from None
        status, error = candidate.get("status"), candidate.get("error")
        raise _Skip("no package", f"status {status}" + (f": {error}" if error else "")) from None
    if len(data) > MAX_PACKAGE_BYTES:
        raise _Skip("package too large", f"{path} is {len(data)} bytes, over {MAX_PACKAGE_BYTES}")
    try:
        document = package_document(load_json(data, path), path)
    except (RecordingError, PackageError) as exc:
        raise _Skip("package broken", str(exc)) from None
    recorded, made_from = candidate.get("source_sha256"), document["metadata"].get("sourceSha256")
    if recorded and made_from and recorded != made_from:
        raise _Skip("package mismatch", f"{path} was made from {str(made_from)[:16]}…, the item from {recorded[:16]}…")
    judged = _read_judgement(storage, job, item)
    if judged is not None:  # the best iteration's scores: the package file itself holds no judge history
        document["validation"]["judge"] = [{"iteration": candidate.get("best_iteration"), "result": judged}]
    return document, len(data)


def _read_judgement(storage: Storage, job: str, item: str) -> dict[str, Any] | None:
    path = layout.best_path(job, item, "judge-result")
    try:
        data = storage.read_bytes(path)
    except FileNotFoundError:
        return None  # scores from the package's own judge history, if it has one
    try:
        result = JudgeResult.model_validate(load_json(data, path))
    except RecordingError as exc:
        raise _Skip("package broken", str(exc)) from None
    except ValidationError as exc:
        raise _Skip("package broken", f"{path}: not a judge result ({_one_line(exc)})") from None
    return redact_json(result.model_dump(mode="json"))  # type: ignore[no-any-return]


def _rows(
    storage: Storage, candidates: list[sel.Candidate], summary: ExportSummary
) -> Iterator[tuple[dict[str, Any], int]]:
    """(row, size of its package file) for every candidate with a usable package, in order."""

    def one(candidate: sel.Candidate) -> tuple[sel.Candidate, dict[str, Any] | _Skip, int, bool]:
        try:
            document, size = _read_package(storage, candidate)
        except _Skip as skip:
            return candidate, skip, 0, False
        row, fixed = repaired(dataset_row(candidate, document))
        return candidate, row, size, fixed

    with ThreadPoolExecutor(max_workers=READERS) as pool:
        # a bounded window of reads in flight: memory holds it and the pending batch, no more
        for start in range(0, len(candidates), READERS * 2):
            for candidate, result, size, fixed in pool.map(one, candidates[start : start + READERS * 2]):
                if isinstance(result, _Skip):
                    _skip(summary, candidate, result.reason, result.detail)
                else:
                    summary.repaired_rows += fixed
                    yield result, size


def _skip(summary: ExportSummary, candidate: sel.Candidate, reason: SkipReason, detail: str) -> None:
    job, item = candidate.key
    summary.skipped.append(
        SkippedItem(
            job_id=redact_text(job), item_id=redact_text(item),
            source_name=redact_text(str(candidate.get("source_name") or "")), reason=reason,
            detail=redact_text(detail)[:2000],  # an item's error may quote what it was given
        )
    )  # fmt: skip


def _flush(sink: RowSink, rows: list[dict[str, Any]], summary: ExportSummary) -> None:
    if not rows:
        return
    try:
        batch = to_batch(rows)
    except Exception:  # one value outside the types: find which rows, write the others
        kept = []
        for row in rows:
            problem = fits(row)
            if problem is None:
                kept.append(row)
            else:
                summary.skipped.append(
                    SkippedItem(
                        job_id=str(row["job_id"]),
                        item_id=str(row["item_id"]),
                        source_name=str(row.get("source_name") or ""),
                        reason="values do not fit",
                        detail=problem,
                    )
                )
        batch = to_batch(kept)
    sink.write(batch)
    summary.rows += batch.num_rows


def export_dataset(storage: Storage, out: str, options: ExportOptions | None = None) -> ExportSummary:
    """Write `tasks.parquet` (or `tasks.jsonl`) and `README.md` into `out` (a path or fsspec URL)."""
    options = options or ExportOptions()
    _check_options(options)
    selection = _select(storage, options)
    folder = OutputFolder(out)
    folder.prepare()
    data_name = DATA_NAMES[options.format]
    summary = ExportSummary(
        storage_url=redact_url(storage.url), out=out, options=options, data_file=folder.uri(data_name),
        card_file=folder.uri(CARD_NAME), items_in_index=selection.items_in_index, jobs=selection.jobs,
        filtered=selection.filtered, unreadable_index_files=selection.unreadable_index_files,
    )  # fmt: skip
    try:
        with folder.open(data_name) as handle:
            sink = open_sink(options.format, handle)
            pending: list[dict[str, Any]] = []
            size = 0
            for row, row_size in _rows(storage, selection.candidates, summary):
                pending.append(row)
                size += row_size
                if len(pending) >= options.batch_rows or size >= options.batch_bytes:
                    _flush(sink, pending, summary)
                    pending, size = [], 0
            _flush(sink, pending, summary)
            sink.close()
            summary.row_groups = sink.row_groups
        with folder.open(CARD_NAME) as handle:
            handle.write(render_card(summary).encode("utf-8"))
        folder.commit([data_name, CARD_NAME])  # the card last: it says the export is complete
    except DatasetError:
        folder.discard()
        raise
    except Exception as exc:
        folder.discard()
        if isinstance(exc, OSError) or type(exc).__module__.startswith(("botocore", "aiohttp", "s3fs", "fsspec")):
            raise DatasetError(f"the export failed ({type(exc).__name__}: {_one_line(exc)}); "
                               f"{out} was left as it was") from None  # fmt: skip
        raise
    return summary
