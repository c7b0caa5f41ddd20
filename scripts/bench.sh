#!/usr/bin/env bash
# The Parquet read benchmark: TPC-H lineitem at SF1 (snappy Parquet from `tandem datagen`, made
# if missing) read into Tandem batches on all cores by bench/parquet_read_bench, against
# pyarrow.parquet.read_table(use_threads=True) of the same files. The two alternate in one run:
# after a warm-up of each, N rounds of (Tandem, pyarrow); each process warms up once (page cache,
# thread pool) and then times one read. Prints both medians and the ratio pyarrow / Tandem.
#   scripts/bench.sh [--sf 1] [--reps 5] [--data DIR]       env: BUILD_DIR (build/default)
set -euo pipefail
cd "$(dirname "$0")/.."

SF=1
REPS=5
DATA=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sf) SF=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    *) echo "usage: scripts/bench.sh [--sf N] [--reps N] [--data DIR]" >&2; exit 2 ;;
  esac
done
DATA=${DATA:-data/tpch-sf$SF}
BUILD_DIR=${BUILD_DIR:-build/default}
PYTHON=${PYTHON:-.venv/bin/python}
BENCH=$BUILD_DIR/bench/parquet_read_bench
TANDEM=$BUILD_DIR/tandem

if [ ! -x "$BENCH" ] || [ ! -x "$TANDEM" ]; then
  echo "== building $BENCH and $TANDEM"
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTANDEM_BUILD_BENCH=ON >/dev/null
  cmake --build "$BUILD_DIR" --target parquet_read_bench tandem
fi

LINEITEM=$DATA/lineitem
if [ ! -d "$LINEITEM" ]; then
  echo "== generating TPC-H SF$SF into $DATA"
  "$TANDEM" datagen tpch --sf "$SF" --out "$DATA"
fi
echo "== reading $LINEITEM ($(du -sh "$LINEITEM" | cut -f1), $(ls "$LINEITEM" | wc -l) files) on $(nproc) cores"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" | tail -1; }

tandem_times=()
pyarrow_times=()
tandem_rows=""
pyarrow_rows=""
for round in $(seq 1 "$REPS"); do
  out=$("$BENCH" "$LINEITEM" --reps 1 --warmup 1)
  tandem_times+=("$(echo "$out" | field median_ms)")
  tandem_rows=$(echo "$out" | field rows)
  out=$("$PYTHON" bench/parquet_read_pyarrow.py "$LINEITEM" --reps 1 --warmup 1)
  pyarrow_times+=("$(echo "$out" | field median_ms)")
  pyarrow_rows=$(echo "$out" | field rows)
  echo "round $round: tandem ${tandem_times[-1]} ms, pyarrow ${pyarrow_times[-1]} ms"
done

if [ "$tandem_rows" != "$pyarrow_rows" ]; then
  echo "row counts differ: tandem $tandem_rows, pyarrow $pyarrow_rows" >&2
  exit 1
fi
tandem_median=$(printf '%s\n' "${tandem_times[@]}" | median)
pyarrow_median=$(printf '%s\n' "${pyarrow_times[@]}" | median)
ratio=$(awk -v p="$pyarrow_median" -v t="$tandem_median" 'BEGIN {printf "%.2f", p / t}')
echo
printf '%-28s %12s %12s\n' "TPC-H SF$SF lineitem" "median (ms)" "rows"
printf '%-28s %12s %12s\n' "tandem (C++ batches)" "$tandem_median" "$tandem_rows"
printf '%-28s %12s %12s\n' "pyarrow.parquet.read_table" "$pyarrow_median" "$pyarrow_rows"
printf '%-28s %12s\n' "ratio pyarrow / tandem" "${ratio}x"
