#!/usr/bin/env bash
# Does the GPU runtime's background start-up slow CPU work down? An A/A probe for the GPU machine:
# the same all-CPU plans run in processes with tandem.sql.device=cpu (CUDA never starts) and with
# device=auto and tandem.placement.target=cpu-only (CUDA starts in the background at process start,
# as every auto run does, but every plan stays on the CPU). Each process runs the query RUNS times;
# the table gives, per position in the process, the median over ROUNDS processes of each kind
# (interleaved). Positions that overlap the start-up show the interference; later ones show noise.
#   scripts/startup_interference.sh TANDEM DATA_DIR "2 11 6" [RUNS] [ROUNDS]
set -euo pipefail
TANDEM=$1 DATA=$2 QUERIES=$3 RUNS=${4:-10} ROUNDS=${5:-5}
cd "$(dirname "$0")/.."
tables=()
for t in region nation part supplier partsupp customer orders lineitem; do
  tables+=(--table "$t=$DATA/$t")
done
work=$(mktemp -d)
for q in $QUERIES; do
  qfile=tests/tpch/queries/q$(printf %02d "$q").sql
  script=$work/q$q.sql
  : >"$script"
  for ((i = 0; i < RUNS; i++)); do cat "$qfile" >>"$script"; echo >>"$script"; done
  for ((r = 0; r < ROUNDS; r++)); do
    for kind in cpu auto; do
      conf=(--conf tandem.sql.device=cpu)
      [ "$kind" = auto ] && conf=(--conf tandem.sql.device=auto --conf tandem.placement.target=cpu-only)
      "$TANDEM" sql --timing -f "$script" "${tables[@]}" "${conf[@]}" 2>"$work/err" >/dev/null ||
        { echo "startup_interference: Q$q $kind: $(tail -1 "$work/err")" >&2; exit 1; }
      grep -o 'Time: [0-9.]* ms' "$work/err" | awk '{print $2}' >"$work/q$q.$kind.$r"
    done
  done
  python3 - "$work" "$q" "$RUNS" "$ROUNDS" <<'EOF'
import statistics, sys
work, q, runs, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def load(kind):
    return [[float(x) for x in open(f"{work}/q{q}.{kind}.{r}").read().split()] for r in range(rounds)]
cpu, auto = load("cpu"), load("auto")
print(f"Q{q}: run position, median over {rounds} processes (ms): cpu | auto (target=cpu-only) | cpu/auto")
for i in range(runs):
    c = statistics.median(p[i] for p in cpu); a = statistics.median(p[i] for p in auto)
    print(f"  run {i + 1:2d}: {c:9.1f} | {a:9.1f} | {c / a:5.2f}")
EOF
done
rm -rf "$work"
