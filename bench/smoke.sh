#!/usr/bin/env bash
# Tiny benchmark smoke run for CI: the servers on PostgreSQL, a few viewers and rolls;
# fails (non-zero) if any delivery is lost, duplicated or out of order, or the harness breaks.
# Needs a PostgreSQL server (BENCH_PG, default postgresql://postgres@127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
timeout 120 "$PY" bench/run.py --smoke "$@"
# Finding a route, with the routers' quick check and without.
timeout 60 "$PY" -m bench.routing --rounds 1 --repeat 20 > /dev/null
# The collector's passes with the interpreter's thresholds and the served app's.
PG_URL="${BENCH_PG:-postgresql://postgres@127.0.0.1}"
timeout 120 "$PY" -m bench.collector --pg "postgresql+asyncpg://${PG_URL#*://}" --moves 5 --rounds 1 > /dev/null
# A roll and a chat line with the campaign page's push to 8 viewers.
timeout 120 "$PY" -m bench.campaign_push --db "postgresql+asyncpg://${PG_URL#*://}/bench_push_smoke" --rounds 2 > /dev/null
# The Node + socket.io stand-in (its own `npm ci`): the three servers under a tiny load.
exec timeout 120 "$PY" -m bench.node_standin --pg "${BENCH_PG:-postgresql://postgres@127.0.0.1}" --rounds 1 --campaigns 2 --viewers 3 --rate 10 --duration 2
