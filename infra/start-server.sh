#!/usr/bin/env bash
# A local Prefect server on 127.0.0.1 (SQLite under .data/prefect unless
# PREFECT_API_DATABASE_CONNECTION_URL names a PostgreSQL database). Foreground; Ctrl-C stops it.
# PORT (default 4200); RLAUTO_PYTHON: the interpreter with RL-Auto installed (default .venv/bin/python, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-4200}"
export PREFECT_HOME="${PREFECT_HOME:-$PWD/.data/prefect}"
export PREFECT_SERVER_ANALYTICS_ENABLED=false
mkdir -p "$PREFECT_HOME"
export PREFECT_API_DATABASE_CONNECTION_URL="${PREFECT_API_DATABASE_CONNECTION_URL:-sqlite+aiosqlite:///$PREFECT_HOME/prefect.db}"
unset PREFECT_API_URL
export PREFECT_UI_API_URL="${PREFECT_UI_API_URL:-http://127.0.0.1:$PORT/api}"  # the UI asks here, whatever the port
if [ -z "${RLAUTO_PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then RLAUTO_PYTHON=.venv/bin/python; else RLAUTO_PYTHON=python3; fi
fi
exec "$RLAUTO_PYTHON" -m prefect server start --host 127.0.0.1 --port "$PORT"
