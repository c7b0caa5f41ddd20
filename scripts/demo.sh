#!/usr/bin/env bash
# The main job on the embedded default: generate TPC-H SF1 as Parquet, then run a handful of the
# 22 queries with tandem.sql.device=auto, printing for each what runs where and why (the
# placement planner's explain) and the time, then the same query on the CPU path. Without a
# usable GPU it says so, shows the plan Tandem would pick on an H200 (explain --target h200),
# and runs the CPU path.
set -euo pipefail
cd "$(dirname "$0")/.."
TANDEM=build/default/tandem
SF=${SF:-1}
OUT=demo-data/tpch-sf$SF

$TANDEM version
echo
if [ ! -d "$OUT/lineitem" ]; then
  echo "== generating TPC-H SF$SF into $OUT"
  $TANDEM datagen tpch --sf "$SF" --out "$OUT"
  echo
fi
TABLES=()
for table in region nation supplier customer part partsupp orders lineitem; do
  TABLES+=(--table "$table=$OUT/$table")
done
$TANDEM describe "$OUT/lineitem"
echo

gpu=yes
H200_FIGURES=bench/results/h200_calibration.json
if $TANDEM version | grep -q "GPU: none usable"; then
  gpu=no
  echo "No usable GPU on this machine: for each query, the plan Tandem would run on an NVIDIA"
  echo "H200 (tandem explain --target h200, with the figures measured on one:"
  echo "$H200_FIGURES), then the query on the CPU path."
fi

# Milliseconds of the statement lines `tandem sql --timing` prints (stderr), summed.
millis() { awk '/^Time: / { t += $2 } END { printf "%.1f", t }'; }

for q in 01 03 06 13 18; do
  file=tests/tpch/queries/q$q.sql
  echo
  echo "== $(sed -n '1s/^-- //p' "$file")"
  if [ "$gpu" = yes ]; then
    # The placement report (stderr) and the timing, from one run with device=auto.
    $TANDEM sql -f "$file" "${TABLES[@]}" --conf tandem.sql.device=auto \
      --conf tandem.sql.explain=ALL --timing --format csv 2>&1 >/dev/null |
      grep -v '^Time: ' | sed 's/^tandem: //'
    auto_ms=$($TANDEM sql -f "$file" "${TABLES[@]}" --conf tandem.sql.device=auto --timing \
      --format csv 2>&1 >/dev/null | millis)
  else
    # Planned with the figures `tandem calibrate` measured on an H200 (its 16-core host's too).
    $TANDEM explain --target h200 --conf tandem.placement.calibrationFile="$H200_FIGURES" \
      "$(grep -v '^--' "$file")" "${TABLES[@]}"
  fi
  cpu_ms=$($TANDEM sql -f "$file" "${TABLES[@]}" --conf tandem.sql.device=cpu --timing \
    --format csv 2>&1 >/dev/null | millis)
  if [ "$gpu" = yes ]; then
    echo "time: device=auto ${auto_ms} ms, device=cpu ${cpu_ms} ms"
  else
    echo "time on this machine's CPU path: ${cpu_ms} ms"
  fi
done
echo
echo "== Q6's answer"
$TANDEM sql -f tests/tpch/queries/q06.sql "${TABLES[@]}" --conf tandem.sql.device=cpu
