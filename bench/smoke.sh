#!/usr/bin/env bash
# Tiny benchmark smoke run for CI: both servers on PostgreSQL, a few viewers and rolls;
# fails (non-zero) if any delivery is lost, duplicated or out of order, or the harness breaks.
# Needs a PostgreSQL server (BENCH_PG, default postgresql://postgres@127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
exec timeout 120 "$PY" bench/run.py --smoke "$@"
