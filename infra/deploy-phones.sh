#!/usr/bin/env bash
# Create the work pool `phones` (process) when missing and deploy the device flows to it:
# record-gesture, replay-gesture, run-steps, run-agent, design-task, eval-agent-suite (prefect.yaml puts them on
# `phones`). Needs PREFECT_API_URL. `rlauto up --phones` runs it; a phone host's operator too.
# RLAUTO_PYTHON: the interpreter that has RL-Auto installed with its device extra.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PREFECT_API_URL:?set PREFECT_API_URL (e.g. http://127.0.0.1:4200/api)}"
if [ -z "${RLAUTO_PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then RLAUTO_PYTHON=.venv/bin/python; else RLAUTO_PYTHON=python3; fi
fi
"$RLAUTO_PYTHON" -m prefect work-pool inspect phones >/dev/null 2>&1 \
  || "$RLAUTO_PYTHON" -m prefect work-pool create phones --type process >/dev/null
"$RLAUTO_PYTHON" -m prefect --no-prompt deploy -n record-gesture -n replay-gesture -n run-steps -n run-agent -n design-task -n eval-agent-suite
