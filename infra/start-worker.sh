#!/usr/bin/env bash
# One process worker on pool `rlauto`. Needs PREFECT_API_URL; storage and model settings come
# from the environment / .env (RLAUTO_STORAGE_URL, DEFAULT_API_KEY, ...). Foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PREFECT_API_URL:?set PREFECT_API_URL (e.g. http://127.0.0.1:4200/api)}"
if [ -z "${RLAUTO_PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then RLAUTO_PYTHON=.venv/bin/python; else RLAUTO_PYTHON=python3; fi
fi
exec "$RLAUTO_PYTHON" -m prefect worker start --pool rlauto --name "${WORKER_NAME:-$(hostname)-$$}"
