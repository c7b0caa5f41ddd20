#!/usr/bin/env bash
# The TPC-H benchmark: the 22 queries at SF1 on Tandem's CPU path (`tandem sql --threads nproc`)
# against DuckDB with the same threads on the same Parquet files (made by `tandem datagen` into
# data/tpch-sf1 if missing), alternating in one run; writes bench/results/tpch_sf1_cpu.md.
# Arguments pass through to bench/tpch_bench.py (--reps N, --queries 1,6, --sf N, --data DIR).
#   scripts/bench_tpch.sh [--reps 3]        env: BUILD_DIR (build/default), PYTHON (.venv)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build/default}
PYTHON=${PYTHON:-.venv/bin/python}
TANDEM=$BUILD_DIR/tandem
if [ ! -x "$TANDEM" ]; then
  echo "== building $TANDEM"
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD_DIR" --target tandem
fi
exec "$PYTHON" bench/tpch_bench.py --tandem "$TANDEM" --threads "$(nproc)" "$@"
