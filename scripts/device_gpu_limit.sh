#!/usr/bin/env bash
# On the GPU machine: the 22 TPC-H queries at SF (default 10, data in /tmp/tpch-sfN, generated
# if missing) from files with device=gpu under tandem.memory.gpu.limit=LIMIT (default 2g, a
# fraction of the working set) against device=cpu: answers compared as text, times and the
# parts of each plan that ran again on the CPU (--timing) in $OUT/gpu_limit_sfN.log.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
SF=${SF:-10}
data=/tmp/tpch-sf$SF
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
[ -d $data/lineitem ] || .device/bin/tandem datagen tpch --sf "$SF" --out $data >/dev/null
tables=()
for t in region nation part supplier partsupp customer orders lineitem; do
  tables+=(--table "$t=$data/$t")
done
log=$OUT/gpu_limit_sf$SF.log
: >"$log"
same=0
for q in $(seq -w 1 22); do
  f=tests/tpch/queries/q$q.sql
  .device/bin/tandem sql -f $f "${tables[@]}" --format csv --conf tandem.sql.device=cpu \
    >/tmp/cpu.csv 2>/tmp/cpu.err
  .device/bin/tandem sql -f $f "${tables[@]}" --format csv --timing \
    --conf tandem.sql.device=gpu --conf "tandem.memory.gpu.limit=${LIMIT:-2g}" \
    >/tmp/gpu.csv 2>/tmp/gpu.err
  rc=$?
  if [ $rc -eq 0 ] && [ -s /tmp/cpu.csv ] && cmp -s /tmp/cpu.csv /tmp/gpu.csv; then
    verdict=equal; same=$((same + 1))
  else
    verdict=DIFFERENT
  fi
  echo "q$q exit $rc $verdict: $(grep -E '^(Devices|Time)' /tmp/gpu.err | tr '\n' ' ')" | tee -a "$log"
  [ $rc -eq 0 ] || tail -2 /tmp/gpu.err | tee -a "$log"
done
echo "equal answers: $same of 22 (limit ${LIMIT:-2g}, SF$SF)" | tee -a "$log"
