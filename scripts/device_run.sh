#!/usr/bin/env bash
# Runs on the GPU machine (see scripts/device_stage.sh), writing logs and results under $OUT.
#   scripts/device_run.sh tests   GPU tests, the unit suite (if staged), the Python oracle tests
#                                 (PYTESTS: files to run, default all, "none" for none; the GPU
#                                 TPC-H test runs at SF0.01, SF0.1 and SF1)
#   scripts/device_run.sh bench   TPC-H SF10 (and more with SFS="10 100") on cpu/gpu/auto, files
#                                 and hot, against DuckDB: bench/tpch_gpu_bench.py
#   scripts/device_run.sh parquet the Parquet read benchmark (lineitem SF1 and SF10)
#   scripts/device_run.sh fallback  `tandem bench fallback` (ROWS, REPS, RUNS, CONDITIONS) into
#                                 $OUT/fallback (FALLBACK_OUT names another folder)
#   scripts/device_run.sh tpch      `tandem bench tpch` (SF, MODES, SOURCES, REPS, RUNS, QUERIES,
#                                 WARMUPS, CELL_TIMEOUT, DUCKDB=on|off, CONF) into
#                                 $OUT/tpch_sfN$TAG, data in /tmp/tpch-sfN (generated if missing)
#   scripts/device_run.sh datagen   TPC-H data only, into /tmp/tpch-sfN (SF), timed
#   scripts/device_run.sh slt_gpu   the sqllogictest files with tandem.sql.device=gpu (UNIT=0
#                                 keeps `tests` from running the whole staged unit suite)
#   scripts/device_run.sh calibrate `tandem calibrate` into $OUT/calibration.json; the later steps
#                                 of the same call plan auto with it (TANDEM_CALIBRATION)
#   scripts/device_run.sh interference  scripts/startup_interference.sh on TPC-H SF1 (QUERIES)
#   scripts/device_run.sh analyze   EXPLAIN ANALYZE of fallback conditions (CONDS) at each of ROWS
#                                 under cpu, gpu and auto
#   scripts/device_run.sh aa        scripts/aa_probe.py on the fallback query with the 12-column
#                                 island (all-CPU plan) at ROWS rows, ROUNDS rounds
#   scripts/device_run.sh plan_check  EXPLAIN ANALYZE of the 22 TPC-H queries (SF, default 1;
#                                 MODES) against the physical plan: $OUT/plan_check.log
#   scripts/device_run.sh cached_check  bench/tpch_cached_check.py (SF, MODES, FILES=1) into
#                                 $OUT/tpch_sfN_cached*.md (files*.md)
#   scripts/device_run.sh binary_ab   bench/ab_cpu.py: .device/bin/tandem_old (device_stage.sh
#                                 OLD_BINARY=...) against the staged tandem (SF, ROUNDS, THREADS)
#   scripts/device_run.sh setting_ab  bench/setting_ab.py over TPC-H (SF, SETTING, A, B, QUERIES,
#                                 ROUNDS, CACHE=none|host|gpu, PRELUDE) into $OUT/setting_ab.md
#   scripts/device_run.sh chunk_sweep  bench/setting_ab.py of tandem.exec.gpu.chunkBytes at SIZES
#                                 against its default, from files and host memory (CACHES)
#   scripts/device_run.sh scaling   bench/thread_scaling.py (SF, QUERIES, THREADS, ROUNDS,
#                                 VARIANTS="label:KEY=VALUE,... ...": environment variables or
#                                 tandem.* settings) into
#                                 $OUT/scaling.md, EXPLAIN ANALYZE at the most threads beside it
#                                 (ANALYZE=0: none)
#   scripts/device_run.sh analyze_tpch  EXPLAIN ANALYZE of TPC-H queries (QUERIES, SF) under cpu,
#                                 gpu and auto (MODES), each the third run of its process, with
#                                 the extra settings ANALYZE_CONF ("key=value ..."), tables cached
#                                 first with CACHE=gpu|host; TANDEM_GPU_STEP_TIMES=1 adds the
#                                 GPU operators' step times (gpu/step_timer.h)
set -uo pipefail
cd "$(dirname "$0")/.."
# A packed stage (scripts/device_stage.sh) travels as .device.tar.xz; Python's tarfile unpacks it.
if [ ! -x .device/bin/tandem ] && [ -f .device.tar.xz ]; then
  python3 -c "
import tarfile
with tarfile.open('.device.tar.xz') as t:
    try:
        t.extractall('.', filter='data')
    except TypeError:  # a Python without extraction filters
        t.extractall('.')"
fi
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
# The C++ tests look for ../shared/testdata beside the checkout they were built in.
mkdir -p /work/main /work/shared && ln -sfn "$PWD/.device/testdata" /work/shared/testdata
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
# NVRTC for generated kernels (gpu/jit/nvrtc.h searches too; this names what was found).
if [ -z "${TANDEM_NVRTC_LIBRARY:-}" ]; then
  nvrtc=$(find /usr /opt "$(python3 -c 'import site; print(site.getsitepackages()[0])')" \
    -name 'libnvrtc.so.13*' 2>/dev/null | grep -v builtins | sort | head -1)
  [ -n "$nvrtc" ] && export TANDEM_NVRTC_LIBRARY=$nvrtc
fi
echo "NVRTC: ${TANDEM_NVRTC_LIBRARY:-not found}"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/machine.txt"
nproc >> "$OUT/machine.txt"
.device/bin/tandem version | tee -a "$OUT/machine.txt"
export TANDEM_BIN=$PWD/.device/bin/tandem TANDEM_C_LIB=$PWD/.device/bin/libtandem_c.so \
  TANDEM_TESTDATA_DIR=$PWD/.device/testdata TANDEM_BUILD_DIR=/tmp/tandem-build \
  TANDEM_UDF_EXAMPLE_LIB=$PWD/.device/bin/examples/udf/libtandem_example_udf.so \
  TANDEM_TPCH_QUERY_DIR=$PWD/tests/tpch/queries TANDEM_SQL_TEST_DIR=$PWD/tests/sql

# TPC-H at scale $1 in /tmp/tpch-sf$1 (generated if missing): sets data and tables (--table args).
tpch_tables() {
  data=/tmp/tpch-sf$1
  [ -d $data/lineitem ] || .device/bin/tandem datagen tpch --sf "$1" --out $data >/dev/null
  tables=()
  for t in region nation part supplier partsupp customer orders lineitem; do
    tables+=(--table "$t=$data/$t")
  done
}

for what in "${@:-tests}"; do
  case "$what" in
    tests)
      echo "== GPU tests"
      .device/bin/tandem_gpu_tests --gtest_filter="${GTEST_FILTER:-*}" 2>&1 |
        tee "$OUT/gpu_tests.log" | grep -E "FAILED|PASSED|SKIPPED" | head -40
      if [ -x .device/bin/tandem_tests ] && [ "${UNIT:-1}" = 1 ]; then
        echo "== unit tests"; .device/bin/tandem_tests 2>&1 | tee "$OUT/unit_tests.log" | tail -3
      fi
      if [ "${PYTESTS:-}" != none ]; then  # PYTESTS=none: no python tests
        echo "== python tests (${PYTESTS:-all}; GPU TPC-H at SF1 included)"
        # shellcheck disable=SC2086
        TANDEM_TPCH_SF1=1 python3 -m pytest -q -rs -p no:cacheprovider ${PYTESTS:-tests/python} 2>&1 |
          tee "$OUT/python_tests.log" | tail -15
      fi
      ;;
    bench)
      for sf in ${SFS:-10}; do
        python3 bench/tpch_gpu_bench.py --sf "$sf" --data "/tmp/tpch-sf$sf" --tandem "$TANDEM_BIN" \
          --out "$OUT/tpch_sf${sf}_gpu.md" 2>&1 | tee "$OUT/bench_sf$sf.log" | tail -30
      done
      ;;
    parquet)
      for sf in 1 10; do
        BUILD_DIR=.device/bin PYTHON=python3 scripts/bench.sh --sf $sf --data /tmp/tpch-sf$sf 2>&1 |
          tee "$OUT/parquet_sf$sf.log" | tail -5
      done
      ;;
    fallback)
      # The fallback matrix through `tandem bench fallback` (ROWS: sizes, REPS: measured runs).
      .device/bin/tandem bench fallback --rows "${ROWS:-1000000,10000000}" --modes cpu,gpu,auto \
        --reps "${REPS:-5}" --runs "${RUNS:-1}" ${CONDITIONS:+--conditions "$CONDITIONS"} \
        --data /tmp/fallback \
        --out "$OUT/${FALLBACK_OUT:-fallback}" 2>&1 |
        tee "$OUT/${FALLBACK_OUT:-fallback}.log" | tail -40
      ;;
    tpch)
      # TPC-H through `tandem bench tpch` (SF, SOURCES), DuckDB beside it; CONF="k=v k2=v2"
      # settings for every Tandem process.
      conf_args=()
      for kv in ${CONF:-}; do conf_args+=(--conf "$kv"); done
      .device/bin/tandem bench tpch --sf "${SF:-10}" --modes "${MODES:-cpu,gpu,auto}" \
        --sources "${SOURCES:-files,hot}" --reps "${REPS:-3}" --runs "${RUNS:-1}" \
        --duckdb "${DUCKDB:-on}" --warmups "${WARMUPS:-2}" --timeout "${CELL_TIMEOUT:-1800}" \
        ${QUERIES:+--queries "$QUERIES"} --data "/tmp/tpch-sf${SF:-10}" ${conf_args[@]+"${conf_args[@]}"} \
        --out "$OUT/tpch_sf${SF:-10}${TAG:-}" 2>&1 | tee "$OUT/tpch${TAG:-}.log" | tail -45
      ;;
    slt_gpu)
      # The sqllogictest files (tests/sql) with every operator the GPU supports on the GPU
      # (needs tandem_tests: STAGE_ALL=1 scripts/device_stage.sh).
      TANDEM_SQL_TEST_CONF="tandem.sql.device=gpu" .device/bin/tandem_tests \
        --gtest_filter='File/SqlLogicTest.*' 2>&1 | tee "$OUT/slt_gpu.log" |
        grep -E "FAILED|PASSED|Failure|failed:|expected" | head -60
      ;;
    calibrate)
      .device/bin/tandem calibrate --output "$OUT/calibration.json" 2>&1 | tee "$OUT/calibrate.log"
      export TANDEM_CALIBRATION=$OUT/calibration.json
      ;;
    interference)
      [ -d /tmp/tpch-sf1 ] || .device/bin/tandem datagen tpch --sf 1 --out /tmp/tpch-sf1 >/dev/null
      scripts/startup_interference.sh "$TANDEM_BIN" /tmp/tpch-sf1 "${QUERIES:-2 11 6 4 20}" 10 5 \
        2>&1 | tee "$OUT/interference.log"
      ;;
    analyze)
      # CONDS: fallback conditions (native, after_agg, after_filter, before_filter); ROWS: sizes.
      for rows in $(echo "${ROWS:-10000000}" | tr , " "); do
        dir=/tmp/fallback/rows-$rows
        [ -d "$dir/fact" ] || .device/bin/tandem datagen fallback --rows "$rows" --out "$dir" >/dev/null
        for cond in ${CONDS:-native before_filter}; do
          src="SELECT customer_id, amount, quantity, discount FROM fact"
          amount=amount final="*"
          case "$cond" in
            before_filter) src="SELECT customer_id, identity_double(amount) AS amount, quantity, discount FROM fact" ;;
            after_filter) amount="identity_double(amount)" ;;
            after_agg) final="region, segment, orders, identity_double(net_total), net_avg" ;;
          esac
          q="WITH src AS ($src), filtered AS (SELECT customer_id, $amount AS amount, discount
            FROM src WHERE amount >= 500 AND quantity BETWEEN 10 AND 20), joined AS (SELECT
            c.region, c.segment, f.amount * (1 - f.discount) AS net_amount FROM filtered f JOIN
            customers c ON f.customer_id = c.customer_id), agg AS (SELECT region, segment,
            count(*) AS orders, sum(net_amount) AS net_total, avg(net_amount) AS net_avg FROM
            joined GROUP BY region, segment) SELECT $final FROM agg ORDER BY region, segment"
          for mode in cpu gpu auto; do
            echo "== $cond $rows rows device=$mode (third run of one process)" | tee -a "$OUT/analyze.log"
            printf '%s;\n%s;\nEXPLAIN ANALYZE %s;\n' "$q" "$q" "$q" >/tmp/analyze.sql
            .device/bin/tandem sql -f /tmp/analyze.sql --conf tandem.sql.device=$mode \
              --udf "$TANDEM_UDF_EXAMPLE_LIB" --table fact="$dir/fact" \
              --table customers="$dir/customers" 2>&1 | sed -n '/^Placement/,$p' |
              tee -a "$OUT/analyze.log"
          done
        done
      done
      ;;
    datagen)
      # TPC-H data only (SF), for a later call on the same warm machine (SF100 takes its own).
      start=$SECONDS
      .device/bin/tandem datagen tpch --sf "${SF:-10}" --out "/tmp/tpch-sf${SF:-10}" 2>&1 | tail -2
      echo "datagen sf${SF:-10}: $((SECONDS - start)) s" | tee "$OUT/datagen.log"
      du -sh "/tmp/tpch-sf${SF:-10}" | tee -a "$OUT/datagen.log"
      df -h /tmp | tee -a "$OUT/datagen.log"
      ;;
    analyze_tpch)
      tpch_tables "${SF:-10}"
      queries=${QUERIES:-14 6} modes=${MODES:-cpu gpu auto}  # "14 6" or "14,6"
      for q in ${queries//,/ }; do
        qf=tests/tpch/queries/q$(printf %02d "$q").sql
        { if [ "${CACHE:-none}" != none ]; then
            echo "SET tandem.sql.device = $([ "$CACHE" = host ] && echo cpu || echo gpu);"
            for t in region nation part supplier partsupp customer orders lineitem; do
              echo "CACHE TABLE $t;"
            done
          fi
          cat "$qf"; echo ";"; cat "$qf"; echo ";"; echo "EXPLAIN ANALYZE"; cat "$qf"; echo ";"; } \
          >/tmp/analyze.sql
        confs=()
        for kv in ${ANALYZE_CONF:-}; do confs+=(--conf "$kv"); done
        for mode in ${modes//,/ }; do
          echo "== Q$q sf${SF:-10} device=$mode ${ANALYZE_CONF:-} (third run of one process)" |
            tee -a "$OUT/analyze_tpch.log"
          # With TANDEM_GPU_STEP_TIMES=1 the third run's GPU step times (stderr) are kept too.
          .device/bin/tandem sql -f /tmp/analyze.sql --conf tandem.sql.device=$mode \
            "${confs[@]}" "${tables[@]}" 2>/tmp/analyze.err | sed -n '/^Placement/,$p' |
            tee -a "$OUT/analyze_tpch.log"
          if grep -q '^\[gpu step\]' /tmp/analyze.err; then
            steps=$(grep -c '^\[gpu step\]' /tmp/analyze.err)
            echo "-- GPU steps of the third run:" | tee -a "$OUT/analyze_tpch.log"
            grep '^\[gpu step\]' /tmp/analyze.err | tail -n $((steps / 3)) | tee -a "$OUT/analyze_tpch.log"
          fi
          grep -v '^\[gpu step\]' /tmp/analyze.err | head -5
        done
      done
      ;;
    plan_check)
      # EXPLAIN ANALYZE of every TPC-H query (SF, MODES) listing the nodes whose run differed
      # from the physical plan built before it ("planned as ...") or that the plan lacks: a
      # node listed without an out-of-memory retry behind it is a planner bug.
      tpch_tables "${SF:-1}"
      modes=${MODES:-gpu auto}
      for mode in ${modes//,/ }; do
        for q in $(seq -w 1 22); do
          # Q15 creates a view first: EXPLAIN ANALYZE goes before the statement after it.
          { echo "SET tandem.sql.device = $mode;"; grep -v '^--' tests/tpch/queries/q$q.sql |
            awk 'NR == 1 && !/create view/ { print "EXPLAIN ANALYZE"; done = 1 } { print }
                 /;/ && !done { done = 1; print "EXPLAIN ANALYZE" }'; } >/tmp/plan_check.sql
          .device/bin/tandem sql -f /tmp/plan_check.sql "${tables[@]}" >/tmp/plan_check.out 2>&1
          echo "Q$q $mode rc=$? mismatches=$(grep -cE 'planned as|not in the physical' \
            /tmp/plan_check.out)" | tee -a "$OUT/plan_check.log"
          grep -E "planned as|not in the physical|rror" /tmp/plan_check.out | cut -c1-300 |
            tee -a "$OUT/plan_check.log"
        done
      done
      ;;
    cached_check)
      # The 22 queries over all eight tables cached in one process per mode (MODES, default
      # "gpu,auto,cpu"), each answer against the CPU's from files: bench/tpch_cached_check.py.
      data=/tmp/tpch-sf${SF:-10}
      [ -d $data/lineitem ] || .device/bin/tandem datagen tpch --sf "${SF:-10}" --out $data >/dev/null
      # The CPU's answers from the files are kept in /tmp for later calls on the same machine.
      # FILES=1 runs the modes from the files instead of caching the tables.
      what=cached; [ "${FILES:-0}" = 1 ] && what=files
      python3 bench/tpch_cached_check.py --tandem "$TANDEM_BIN" --data $data \
        --mode "${MODES:-gpu,auto,cpu}" --timeout "${CELL_TIMEOUT:-200}" \
        --reference /tmp/tpch-sf${SF:-10}-reference.json $([ $what = files ] && echo --files) \
        --out "$OUT/tpch_sf${SF:-10}_$what.md" 2>&1 | tee -a "$OUT/cached_check.log" | tail -32
      ;;
    binary_ab)
      # The staged binary against an older one (device_stage.sh with OLD_BINARY) on the 22
      # TPC-H queries from files, CPU path, all cores (THREADS), ROUNDS rounds: bench/ab_cpu.py.
      data=/tmp/tpch-sf${SF:-10}
      [ -d $data/lineitem ] || .device/bin/tandem datagen tpch --sf "${SF:-10}" --out $data >/dev/null
      python3 bench/ab_cpu.py --old .device/bin/tandem_old --new "$TANDEM_BIN" --data $data \
        --rounds "${ROUNDS:-3}" --threads "${THREADS:-$(nproc)}" --out "$OUT/binary_ab.md" 2>&1 |
        tee -a "$OUT/binary_ab.log" | tail -34
      ;;
    setting_ab)
      data=/tmp/tpch-sf${SF:-10}
      [ -d $data/lineitem ] || .device/bin/tandem datagen tpch --sf "${SF:-10}" --out $data >/dev/null
      python3 bench/setting_ab.py --tandem "$TANDEM_BIN" --data $data --setting "$SETTING" \
        --a "$A" --b "$B" --queries "${QUERIES:-1,3,6,18}" --rounds "${ROUNDS:-3}" \
        --cache "${CACHE:-none}" --prelude "${PRELUDE:-}" --out "$OUT/setting_ab.md" 2>&1 |
        tee -a "$OUT/setting_ab.log" | tail -15
      ;;
    chunk_sweep)
      # The GPU slice size (tandem.exec.gpu.chunkBytes) against its default (0: a quarter of the
      # GPU), device=gpu, for each size in SIZES and each source in CACHES (none: Parquet files;
      # host: tables cached in host memory), SF, QUERIES, ROUNDS: the measurement behind the
      # default. Into $OUT/chunk_<source>_<size>.md.
      data=/tmp/tpch-sf${SF:-10}
      [ -d $data/lineitem ] || .device/bin/tandem datagen tpch --sf "${SF:-10}" --out $data >/dev/null
      for cache in ${CACHES:-none host}; do
        for size in ${SIZES:-256m 1g 4g}; do
          python3 bench/setting_ab.py --tandem "$TANDEM_BIN" --data $data \
            --setting tandem.exec.gpu.chunkBytes --a 0 --b "'$size'" \
            --queries "${QUERIES:-1,3,6,9,18}" --rounds "${ROUNDS:-3}" --cache "$cache" \
            --prelude "SET tandem.sql.device = gpu;" --out "$OUT/chunk_${cache}_${size}.md" 2>&1 |
            tee -a "$OUT/chunk_sweep.log" | tail -8
        done
      done
      ;;
    scaling)
      data=/tmp/tpch-sf${SF:-10}
      [ -d $data/lineitem ] || .device/bin/tandem datagen tpch --sf "${SF:-10}" --out $data >/dev/null
      python3 bench/thread_scaling.py --tandem "$TANDEM_BIN" --data $data \
        --queries "${QUERIES:-1,5,6,7,10,17}" --threads "${THREADS:-8,16}" --rounds "${ROUNDS:-1}" \
        $(for v in ${VARIANTS:-}; do echo --variant "$v"; done) \
        $([ "${ANALYZE:-1}" = 1 ] && echo --analyze "$OUT/analyze") \
        --out "$OUT/scaling.md" 2>&1 | tail -40
      ;;
    aa)
      rows=${ROWS:-50000000}
      dir=/tmp/fallback/rows-$rows
      [ -d "$dir/fact" ] || .device/bin/tandem datagen fallback --rows "$rows" --out "$dir" >/dev/null
      cat >/tmp/aa_w12.sql <<'SQL'
WITH src AS (SELECT customer_id, identity_double_12(amount, m1, m2, m3, m4, m5, m6, m7, m8, m9,
  m10, m11) AS amount, quantity, discount FROM fact),
filtered AS (SELECT customer_id, amount, discount FROM src
  WHERE amount >= 500 AND quantity BETWEEN 10 AND 20),
joined AS (SELECT c.region, c.segment, f.amount * (1 - f.discount) AS net_amount
  FROM filtered f JOIN customers c ON f.customer_id = c.customer_id),
agg AS (SELECT region, segment, count(*) AS orders, sum(net_amount) AS net_total,
  avg(net_amount) AS net_avg FROM joined GROUP BY region, segment)
SELECT region, segment, orders, net_total, net_avg FROM agg ORDER BY region, segment
SQL
      echo "== A/A: fallback before_filter_w12, $rows rows" | tee -a "$OUT/aa.log"
      python3 scripts/aa_probe.py "$TANDEM_BIN" /tmp/aa_w12.sql "${ROUNDS:-6}" -- \
        --udf "$TANDEM_UDF_EXAMPLE_LIB" --table fact="$dir/fact" \
        --table customers="$dir/customers" 2>&1 | tee -a "$OUT/aa.log"
      ;;
    *) echo "unknown step $what (tests, bench, parquet, fallback, tpch, datagen, calibrate, interference, analyze, analyze_tpch, setting_ab, scaling, aa)"; exit 2 ;;
  esac
done
