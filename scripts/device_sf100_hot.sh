#!/usr/bin/env bash
# On the GPU machine: TPC-H SF100 generated into /tmp/tpch-sf100 (if missing), then one
# `tandem sql` session that caches every table with device=gpu (lineitem last, so that the
# tables moved to host memory when the GPU is full are the small ones) and runs the 22 queries
# once each with --timing. Writes $OUT/sf100_hot.{out,err}. LIMIT_S bounds the session.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
data=/tmp/tpch-sf100
[ -d $data/lineitem ] || SF=100 scripts/device_run.sh datagen >/dev/null 2>&1
du -sh $data
tables=()
for t in region nation part supplier partsupp customer orders lineitem; do
  tables+=(--table "$t=$data/$t")
done
{
  echo "SET tandem.sql.device = ${MODE:-gpu};"
  for t in region nation supplier customer part partsupp orders lineitem; do
    echo "CACHE TABLE $t;"
  done
  for q in $(seq -w 1 22); do
    echo "SELECT 'q$q' AS query;"
    cat "tests/tpch/queries/q$q.sql"
    echo
  done
} >/tmp/sf100_hot.sql
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
timeout -s INT "${LIMIT_S:-420}" .device/bin/tandem sql -f /tmp/sf100_hot.sql "${tables[@]}" \
  --timing >"$OUT/sf100_hot.out" 2>"$OUT/sf100_hot.err"
echo "exit $?"
grep -E "^cached table|^ q[0-9][0-9]" "$OUT/sf100_hot.out"
tail -40 "$OUT/sf100_hot.err"
