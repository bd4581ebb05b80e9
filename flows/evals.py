"""The `eval-agent` flow: a model acts in each package's environment, N attempts per package,
each attempt stored with its reward; the summary (success rate, mean score, per package and per
rubric) as a Prefect artifact and in the parquet index (`index/env_evals/`), for the Evals page."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from prefect import flow
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.task_runners import ThreadPoolTaskRunner
from pydantic import BaseModel, Field

from rlauto_core.config import Settings
from rlauto_core.errors import PackageError
from rlauto_core.replay import SCRIPTED_MODEL
from rlauto_core.store import EnvEvalRow, append_env_evals, eval_summary
from tasks.eval_tasks import EvalModel, run_attempt
from tasks.model_calls import ensure_llm_limit
from tasks.storage_io import get_storage


class EvalOutcome(BaseModel):
    eval_id: str
    model: str
    storage_url: str
    rows: list[EnvEvalRow]
    summary: dict[str, Any]
    index_file: str | None = None


def _eval_id(packages: list[str], model: str) -> str:
    digest = hashlib.sha256("|".join([model, *packages]).encode()).hexdigest()[:8]
    return f"ev-{datetime.now(UTC):%Y%m%d-%H%M%S}-{digest}"


def _markdown(outcome: EvalOutcome) -> str:
    s = outcome.summary
    lines = [
        f"# Eval {outcome.eval_id}: {outcome.model}",
        "",
        f"**Success rate {s['success_rate']:.0%}** ({sum(r.passed for r in outcome.rows)}/{len(outcome.rows)} attempts "
        f"passed), mean score {s['mean_score']:.0%}.",
        "",
        "| package | attempts | success rate | mean score |",
        "|---|---|---|---|",
    ]
    for name, figures in s["packages"].items():
        lines.append(
            f"| {name} | {figures['attempts']} | {figures['success_rate']:.0%} | {figures['mean_score']:.0%} |"
        )
    # Per rubric: which parts of a task the model gets wrong, not only which tasks.
    lines += ["", "| package: rubric | attempts passing it |", "|---|---|"]
    lines += [f"| {name} | {rate:.0%} |" for name, rate in s["rubrics"].items()]
    return "\n".join(lines)


@flow(name="eval-agent", task_runner=ThreadPoolTaskRunner(max_workers=4))  # type: ignore[arg-type]
def eval_agent(
    packages: list[str],
    model: str = SCRIPTED_MODEL,
    base_url: str | None = None,
    api_mode: Literal["chat", "responses"] | None = None,
    key_secret: Annotated[str | None, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,99}$")] = None,
    attempts: Annotated[int, Field(ge=1, le=20)] = 1,
    max_turns: Annotated[int, Field(ge=1, le=200)] = 30,
    storage_url: str | None = None,
    eval_id: str | None = None,
) -> EvalOutcome:
    """PACKAGES (task package ZIPs or task.json files the workers can read) each played `attempts`
    times by `model` (`scripted`: the golden trajectory, no key; else an OpenAI-compatible endpoint:
    AGENT_* settings, `base_url`, the key by Secret block `key_secret`)."""
    missing = [p for p in packages if not Path(p).is_file()]
    if missing or not packages:
        raise PackageError(", ".join(missing) or "packages", "no such package file" if missing else "name a package")
    settings = Settings()
    url = storage_url or settings.rlauto_storage_url
    if model != SCRIPTED_MODEL:
        ensure_llm_limit(settings.global_llm_concurrency)
    eval_id = eval_id or _eval_id(packages, model)
    choice = EvalModel(model=model, base_url=base_url, api_mode=api_mode, key_secret=key_secret)
    futures = [
        run_attempt.submit(package, n, eval_id, choice, max_turns, url)
        for package in packages
        for n in range(1, attempts + 1)
    ]
    rows: list[EnvEvalRow] = [f.result() for f in futures]
    index_file = append_env_evals(get_storage(url), rows)
    outcome = EvalOutcome(eval_id=eval_id, model=model, storage_url=url, rows=rows, summary=eval_summary(rows),
                          index_file=index_file)  # fmt: skip
    create_markdown_artifact(_markdown(outcome), key="eval-summary", description=f"eval {eval_id}")
    create_table_artifact(
        [{"package": r.package, "attempt": r.attempt, "score": f"{r.score}/{r.max_score}", "passed": r.passed,
          "turns": r.turns, "stopped": r.stopped} for r in rows],
        key="eval-attempts", description=f"eval {eval_id}: every attempt",
    )  # fmt: skip
    return outcome
