#!/usr/bin/env bash
# Create the work pool `rlauto` (process) when missing and deploy the packaging flows.
# Needs PREFECT_API_URL. Run from anywhere; deploys from the repository root.
# RLAUTO_PYTHON: the interpreter that has RL-Auto installed (`rlauto up` passes its own; by hand,
# .venv/bin/python when it exists, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PREFECT_API_URL:?set PREFECT_API_URL (e.g. http://127.0.0.1:4200/api)}"
if [ -z "${RLAUTO_PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then RLAUTO_PYTHON=.venv/bin/python; else RLAUTO_PYTHON=python3; fi
fi
"$RLAUTO_PYTHON" -m prefect work-pool inspect rlauto >/dev/null 2>&1 \
  || "$RLAUTO_PYTHON" -m prefect work-pool create rlauto --type process >/dev/null
"$RLAUTO_PYTHON" -m prefect --no-prompt deploy -n package-recording -n package-batch -n scan-inbox -n export-dataset -n eval-agent -n audit-experience
"$RLAUTO_PYTHON" -m flows.automations "${RLAUTO_CRASH_AFTER_SECONDS:-90}" "${RLAUTO_CRASH_PENDING_AFTER_SECONDS:-$(( 3 * ${RLAUTO_CRASH_AFTER_SECONDS:-90} ))}"
