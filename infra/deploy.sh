#!/usr/bin/env bash
# Create the work pool `rlauto` (process) when missing and deploy the packaging flows.
# Needs PREFECT_API_URL. Run from anywhere; deploys from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PREFECT_API_URL:?set PREFECT_API_URL (e.g. http://127.0.0.1:4200/api)}"
python -m prefect work-pool inspect rlauto >/dev/null 2>&1 \
  || python -m prefect work-pool create rlauto --type process >/dev/null
python -m prefect --no-prompt deploy -n package-recording -n package-batch -n scan-inbox -n export-dataset
python -m flows.automations "${RLAUTO_CRASH_AFTER_SECONDS:-90}"
