"""The agent suite evals for the Evals page: the rows of `index/agent_evals/` (one per task run,
written by the `eval-agent-suite` flow), read a new file at a time, and the comparisons the page
shows (per eval, per model and memory setting, per tag). No Streamlit here.

Why its own reader and not the index snapshot: the table is the eval's own (one file per task
run, a few thousand at most), read through the same `Storage` protocol; an unreadable file is
skipped and named, never a crash.
"""

from __future__ import annotations

import io
import threading

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rlauto_core.agent.suite import AGENT_EVALS_DIR, AGENT_EVALS_SCHEMA
from rlauto_core.store import Storage

EVAL_COLUMNS = ["started", "model", "memory", "tasks", "runs", "passed", "success rate", "tokens", "agent s",
                "wall s", "suite", "eval"]  # fmt: skip


class AgentEvalRows:
    """Every task run row, growing by the files added since the last look (thread-safe)."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._lock = threading.Lock()
        self._seen: set[str] = set()
        self._chunks: list[pa.Table] = []
        self.unreadable: list[str] = []

    def table(self) -> pd.DataFrame:
        with self._lock:
            paths = [p for p in self._storage.list(AGENT_EVALS_DIR) if p.endswith(".parquet")]
            for path in paths:
                if path in self._seen:
                    continue
                self._seen.add(path)
                try:
                    chunk = pq.read_table(io.BytesIO(self._storage.read_bytes(path)))
                    self._chunks.append(chunk.select(AGENT_EVALS_SCHEMA.names).cast(AGENT_EVALS_SCHEMA))
                except (OSError, ValueError, KeyError, pa.ArrowException):
                    self.unreadable.append(path)
            whole = pa.concat_tables(self._chunks) if self._chunks else AGENT_EVALS_SCHEMA.empty_table()
        frame: pd.DataFrame = whole.to_pandas()
        # a task run written twice (a retried write) counts once: the newest row
        return frame.sort_values("finished_at").drop_duplicates(["eval_id", "task_id", "run"], keep="last")


def suite_label(frame: pd.DataFrame) -> pd.Series:
    """`demo (1a4180c55740)`: a suite is compared only with itself, the same content."""
    return frame["suite"] + " (" + frame["suite_digest"] + ")"


def evals(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per eval, newest first."""
    if frame.empty:
        return pd.DataFrame(columns=EVAL_COLUMNS)
    grouped = frame.groupby("eval_id", sort=False).agg(
        started=("eval_started_at", "first"), model=("model", "first"), memory=("memory", "first"),
        tasks=("task_id", "nunique"), runs=("run", "size"), passed=("success", "sum"),
        tokens=("tokens_total", "sum"), agent_s=("agent_s", "sum"), wall_s=("wall_s", "sum"),
        suite=("suite", "first"),
    )  # fmt: skip
    grouped["success rate"] = grouped["passed"] / grouped["runs"]
    grouped["memory"] = grouped["memory"].map({True: "on", False: "off"})
    grouped[["agent_s", "wall_s"]] = grouped[["agent_s", "wall_s"]].round(1)
    grouped = grouped.rename(columns={"agent_s": "agent s", "wall_s": "wall s"}).reset_index(names="eval")
    return grouped.sort_values("started", ascending=False)[EVAL_COLUMNS].reset_index(drop=True)


def by_model(frame: pd.DataFrame) -> pd.DataFrame:
    """Success rate per model and memory setting, over every task run of every eval."""
    if frame.empty:
        return pd.DataFrame(columns=["model", "memory", "success rate", "runs", "evals"])
    grouped = frame.groupby(["model", "memory"]).agg(
        passed=("success", "sum"), runs=("success", "size"), evals=("eval_id", "nunique")
    )
    grouped["success rate"] = grouped["passed"] / grouped["runs"]
    out = grouped.reset_index()
    out["memory"] = out["memory"].map({True: "on", False: "off"})
    return out[["model", "memory", "success rate", "runs", "evals"]]


def by_tag(frame: pd.DataFrame) -> pd.DataFrame:
    """Success rate per tag (rows) and model · memory (columns)."""
    if frame.empty:
        return pd.DataFrame()
    tagged = frame.explode("tags").dropna(subset=["tags"])
    tagged = tagged.assign(setting=tagged["model"] + " · memory " + tagged["memory"].map({True: "on", False: "off"}))
    rates = tagged.groupby(["tags", "setting"])["success"].mean().unstack("setting")
    return rates.rename_axis(index="tag", columns=None)


def task_runs(frame: pd.DataFrame, eval_id: str) -> pd.DataFrame:
    """The task runs of one eval, in the suite's order of first appearance, then by run."""
    rows = frame[frame["eval_id"] == eval_id].sort_values(["finished_at"])
    return rows[["task_id", "run", "tags", "success", "outcome", "reason", "steps", "tokens_total", "wall_s",
                 "agent_run_id"]].reset_index(drop=True)  # fmt: skip
