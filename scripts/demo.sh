#!/usr/bin/env bash
# The main job on the embedded default: generate TPC-H at SF0.1 as Parquet and show what was
# made (each table's schema and row count).
set -euo pipefail
cd "$(dirname "$0")/.."
TANDEM=build/default/tandem
OUT=demo-data/tpch-sf0.1
SF=0.1

$TANDEM version
echo
echo "== generating TPC-H SF$SF into $OUT"
start=$(date +%s%N)
$TANDEM datagen tpch --sf "$SF" --out "$OUT"
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
printf "generated in %d.%03d s\n\n" $((ms / 1000)) $((ms % 1000))

for table in region nation supplier customer part partsupp orders lineitem; do
  $TANDEM describe "$OUT/$table"
  echo
done
echo "== a peek at lineitem"
$TANDEM cat "$OUT/lineitem" --limit 5

echo
echo "== TPC-H Q1 and Q6 (tests/tpch/queries) on the generated data, CPU path"
TABLES=()
for table in region nation supplier customer part partsupp orders lineitem; do
  TABLES+=(--table "$table=$OUT/$table")
done
for q in q01 q06; do
  $TANDEM sql -f tests/tpch/queries/$q.sql "${TABLES[@]}" --timing
done
