#!/usr/bin/env bash
# A local Prefect server on 127.0.0.1 (SQLite under .data/prefect unless
# PREFECT_API_DATABASE_CONNECTION_URL names a PostgreSQL database). Foreground; Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-4200}"
export PREFECT_HOME="${PREFECT_HOME:-$PWD/.data/prefect}"
export PREFECT_SERVER_ANALYTICS_ENABLED=false
mkdir -p "$PREFECT_HOME"
export PREFECT_API_DATABASE_CONNECTION_URL="${PREFECT_API_DATABASE_CONNECTION_URL:-sqlite+aiosqlite:///$PREFECT_HOME/prefect.db}"
unset PREFECT_API_URL
exec python -m prefect server start --host 127.0.0.1 --port "$PORT"
