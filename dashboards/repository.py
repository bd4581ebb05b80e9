"""The dashboard's repository: typed queries over the parquet index, and the files it points at.

Read-only: reviews and uploads are written through the core (`rlauto_core.store`), batches are
started by the launcher handed to the app. Pattern from opensafely's ethelred:
`Repository(root_uri)`, one short-lived DuckDB connection per call (over the in-memory index
snapshot), the core's typed rows as results. Values are always bound parameters; the only SQL
text chosen at run time is a sort column picked from a fixed list. No Streamlit here.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, get_args

import duckdb
from pydantic import ValidationError

from dashboards.index_snapshot import IndexSnapshot
from dashboards.models import (
    UNREVIEWED,
    ActivityPoint,
    Bucket,
    FilterChoices,
    IndexHealth,
    ItemPage,
    ItemQuery,
    JobSummary,
    ScoreCount,
    SortKey,
    StoredFileError,
)
from rlauto_core.package import JudgeResult
from rlauto_core.store import (
    Bundle,
    BundleMember,
    IndexedItem,
    IterationRow,
    Review,
    Storage,
    bundle_packages,
    open_storage,
)

SORT_COLUMNS: frozenset[str] = frozenset(get_args(SortKey))
BUCKETS: frozenset[str] = frozenset(get_args(Bucket))
MAX_JSON_BYTES = 64 * 1024 * 1024  # a package beyond this is broken, not big

ITEM_COLUMNS = ", ".join(name for name in IndexedItem.model_fields)


def storage_url_from_environment() -> str:
    """`RLAUTO_STORAGE_URL`, else the project's default storage (through Settings)."""
    url = os.environ.get("RLAUTO_STORAGE_URL", "").strip()
    if url:
        return url
    from rlauto_core.config import default_storage_url

    return default_storage_url()


def cache_dir_from_environment() -> Path | None:
    """`RLAUTO_DASHBOARD_CACHE` (`off` disables), else `.data/dashboard-cache` beside the default storage."""
    value = os.environ.get("RLAUTO_DASHBOARD_CACHE", "").strip()
    if value.lower() in ("off", "none", "0"):
        return None
    if value:
        return Path(value)
    from rlauto_core.config import default_storage_url

    return Path(default_storage_url().removeprefix("file://")).parent / "dashboard-cache"


class Repository:
    """Read the index and the stored files under one storage root."""

    def __init__(
        self,
        root_uri: str,
        *,
        refresh_seconds: float = 5.0,
        cache_dir: Path | None = None,
        **storage_options: Any,
    ) -> None:
        self.storage: Storage = open_storage(root_uri, **storage_options)
        self._snapshot = IndexSnapshot(self.storage, refresh_seconds=refresh_seconds, cache_dir=cache_dir)
        # One in-memory database per repository; each call gets its own connection to it
        # (`cursor()`, about 2 ms) because opening a fresh database costs 20-50 ms here.
        self._database = duckdb.connect(":memory:")
        self._database.execute("SET TimeZone = 'UTC'")
        self._database_lock = threading.Lock()

    @classmethod
    def from_environment(cls) -> Repository:
        return cls(storage_url_from_environment(), cache_dir=cache_dir_from_environment())

    @property
    def root_uri(self) -> str:
        return self.storage.url

    def refresh(self) -> None:
        """Look for new index files on the next query, whatever the refresh interval."""
        self._snapshot.invalidate()

    @contextmanager
    def _connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        tables = self._snapshot.tables()
        with self._database_lock:
            con = self._database.cursor()
        try:
            for name, table in tables.as_views().items():
                con.register(name, table)
            yield con
        finally:
            con.close()

    @staticmethod
    def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        relation = con.sql(sql, params=list(params)) if params else con.sql(sql)
        columns = relation.columns
        return [dict(zip(columns, row, strict=True)) for row in relation.fetchall()]

    # ---- index queries -------------------------------------------------------------------

    def count_items(self) -> int:
        with self._connect() as con:
            return int(self._rows(con, "SELECT count(*) AS n FROM items")[0]["n"])

    def health(self) -> IndexHealth:
        tables = self._snapshot.tables()
        return IndexHealth(files=tables.files, unreadable=tables.unreadable)

    def list_jobs(self) -> list[JobSummary]:
        with self._connect() as con:
            counts: dict[str, dict[str, int]] = {}
            for row in self._rows(
                con,
                "SELECT job_id, coalesce(status, 'unknown') AS status, count(*) AS n"
                " FROM items GROUP BY ALL ORDER BY ALL",
            ):
                counts.setdefault(row["job_id"], {})[row["status"]] = int(row["n"])
            rows = self._rows(
                con,
                """
                SELECT job_id, count(*) AS items,
                       count(*) FILTER (WHERE verdict = 'PASS') AS passed,
                       avg(total_score) AS mean_score,
                       coalesce(sum(tokens_total), 0) AS tokens_total,
                       count(decision) AS reviewed,
                       min(started_at) AS first_started_at,
                       max(finished_at) AS last_finished_at
                FROM items GROUP BY job_id
                ORDER BY last_finished_at DESC NULLS LAST, job_id
                """,
            )
        return [
            JobSummary(
                **{**row, "mean_score": None if row["mean_score"] is None else float(row["mean_score"])},
                status_counts=counts.get(row["job_id"], {}),
                pass_rate=row["passed"] / row["items"] if row["items"] else 0.0,
            )
            for row in rows
        ]

    def score_distribution(self, job_ids: Sequence[str] = ()) -> list[ScoreCount]:
        """Per job (all, or these), how many items ended at each best total score (never judged: left out)."""
        with self._connect() as con:
            rows = self._rows(
                con,
                "SELECT job_id, CAST(total_score AS INTEGER) AS score, count(*) AS items FROM items"
                " WHERE total_score IS NOT NULL AND (len(?::VARCHAR[]) = 0 OR list_contains(?::VARCHAR[], job_id))"
                " GROUP BY ALL ORDER BY job_id, score",
                [list(job_ids), list(job_ids)],
            )
        return [ScoreCount(**row) for row in rows]

    def activity(self, bucket: Bucket = "day", job_ids: Sequence[str] = ()) -> list[ActivityPoint]:
        """Finished items (of all jobs, or these) per period, oldest first: count, passed, pass rate, tokens."""
        if bucket not in BUCKETS:
            raise ValueError(f"unknown bucket {bucket!r}")
        with self._connect() as con:
            rows = self._rows(
                con,
                """
                SELECT date_trunc(?, finished_at) AS period, count(*) AS items,
                       count(*) FILTER (WHERE verdict = 'PASS') AS passed,
                       coalesce(sum(tokens_total), 0) AS tokens_total
                FROM items
                WHERE finished_at IS NOT NULL AND (len(?::VARCHAR[]) = 0 OR list_contains(?::VARCHAR[], job_id))
                GROUP BY 1 ORDER BY 1
                """,
                [bucket, list(job_ids), list(job_ids)],
            )
        return [ActivityPoint(**row, pass_rate=row["passed"] / row["items"]) for row in rows]

    def filter_choices(self) -> FilterChoices:
        with self._connect() as con:
            # one round trip: on a busy machine each query costs milliseconds of overhead
            row = self._rows(
                con,
                """
                SELECT list(DISTINCT job_id) AS job_ids, list(DISTINCT status) AS statuses,
                       list(DISTINCT verdict) AS verdicts, list(DISTINCT mode) AS modes,
                       list(DISTINCT rule_profile) AS rule_profiles,
                       (SELECT list(DISTINCT f) FROM (SELECT unnest(flag_codes) AS f FROM items)) AS flag_codes
                FROM items
                """,
            )[0]
        return FilterChoices(**{key: sorted(v for v in (values or []) if v is not None) for key, values in row.items()})

    @staticmethod
    def _where(query: ItemQuery) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for column, values in (
            ("job_id", query.job_ids),
            ("status", query.statuses),
            ("verdict", query.verdicts),
            ("mode", query.modes),
            ("rule_profile", query.rule_profiles),
        ):
            if values:
                clauses.append(f"list_contains(?::VARCHAR[], {column})")
                params.append(list(values))
        if query.flag_codes:
            clauses.append("list_has_any(flag_codes, ?::VARCHAR[])")
            params.append(list(query.flag_codes))
        if query.decisions:
            decisions = [d for d in query.decisions if d != UNREVIEWED]
            clauses.append("(list_contains(?::VARCHAR[], decision) OR (? AND decision IS NULL))")
            params.extend([decisions, UNREVIEWED in query.decisions])
        if query.score_min is not None:
            clauses.append("total_score >= ?")
            params.append(query.score_min)
        if query.score_max is not None:
            clauses.append("total_score <= ?")
            params.append(query.score_max)
        if query.text.strip():
            escaped = re.sub(r"([\\%_])", r"\\\1", query.text.strip())
            clauses.append("instruction ILIKE ? ESCAPE '\\'")
            params.append(f"%{escaped}%")
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params

    def find_items(self, query: ItemQuery) -> ItemPage:
        where, params = self._where(query)
        if query.sort not in SORT_COLUMNS:  # pydantic already refused it; this guards the f-string
            raise ValueError(f"unknown sort column {query.sort!r}")
        direction = "DESC" if query.descending else "ASC"
        offset = (query.page - 1) * query.page_size
        with self._connect() as con:
            total = int(self._rows(con, f"SELECT count(*) AS n FROM items{where}", params)[0]["n"])
            rows = self._rows(
                con,
                f"SELECT {ITEM_COLUMNS} FROM items{where}"
                f" ORDER BY {query.sort} {direction} NULLS LAST, job_id, item_id LIMIT ? OFFSET ?",
                [*params, query.page_size, offset],
            )
        return ItemPage(
            rows=[IndexedItem(**_present(row)) for row in rows], total=total, page=query.page, page_size=query.page_size
        )

    def get_item(self, job_id: str, item_id: str) -> IndexedItem | None:
        with self._connect() as con:
            rows = self._rows(
                con, f"SELECT {ITEM_COLUMNS} FROM items WHERE job_id = ? AND item_id = ?", [job_id, item_id]
            )
        return IndexedItem(**_present(rows[0])) if rows else None

    def get_iterations(self, job_id: str, item_id: str) -> list[IterationRow]:
        with self._connect() as con:
            rows = self._rows(
                con,
                "SELECT * FROM iterations WHERE job_id = ? AND item_id = ? ORDER BY iteration",
                [job_id, item_id],
            )
        return [IterationRow(**_present(row)) for row in rows]

    def get_reviews(self, job_id: str, item_id: str) -> list[Review]:
        """Every decision on the item, newest first (the first one is the one that counts)."""
        with self._connect() as con:
            rows = self._rows(
                con,
                "SELECT job_id, item_id, decision, comment, reviewer, created_at FROM reviews"
                " WHERE job_id = ? AND item_id = ? ORDER BY created_at DESC, written DESC",
                [job_id, item_id],
            )
        return [Review(**{**row, "comment": row["comment"] or ""}) for row in rows]

    # ---- stored files --------------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        try:
            return self.storage.read_bytes(path)
        except FileNotFoundError:
            raise StoredFileError(path, "not found in storage") from None
        except (OSError, ValueError) as exc:
            raise StoredFileError(path, f"cannot be read ({type(exc).__name__}: {exc})") from None

    def read_json(self, path: str) -> Any:
        data = self.read_bytes(path)
        if len(data) > MAX_JSON_BYTES:
            raise StoredFileError(path, f"is {len(data)} bytes, more than {MAX_JSON_BYTES} allowed")
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StoredFileError(path, f"is not valid JSON ({exc})") from None

    def read_judge_result(self, path: str) -> JudgeResult:
        try:
            return JudgeResult.model_validate(self.read_json(path))
        except ValidationError as exc:
            raise StoredFileError(path, f"is not a judge result ({exc.error_count()} problems)") from None

    def job_bundle(self, job_id: str) -> Bundle:
        """Every passing package ZIP of a job, zipped together (the batch's own bundle rules)."""
        with self._connect() as con:
            rows = self._rows(
                con,
                "SELECT item_id, source_name, output_zip_path FROM items WHERE job_id = ? AND verdict = 'PASS'",
                [job_id],
            )
        members = [BundleMember(r["item_id"], r["source_name"] or "", r["output_zip_path"]) for r in rows]
        return bundle_packages(self.storage, members)


def _present(row: dict[str, Any]) -> dict[str, Any]:
    """A row as the core's models read it: a null column takes the model's default."""
    return {key: value for key, value in row.items() if value is not None}
