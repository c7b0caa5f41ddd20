#!/usr/bin/env bash
# Runs on the GPU machine (see scripts/device_stage.sh), writing logs and results under $OUT.
#   scripts/device_run.sh tests   GPU tests, the unit suite (if staged), the Python oracle tests
#                                 (PYTESTS: files to run, default all; the GPU TPC-H test runs at
#                                 SF0.01, SF0.1 and SF1)
#   scripts/device_run.sh bench   TPC-H SF10 (and more with SFS="10 100") on cpu/gpu/auto, files
#                                 and hot, against DuckDB: bench/tpch_gpu_bench.py
#   scripts/device_run.sh parquet the Parquet read benchmark (lineitem SF1 and SF10)
#   scripts/device_run.sh fallback  `tandem bench fallback` (ROWS, REPS) into $OUT/fallback
#   scripts/device_run.sh tpch      `tandem bench tpch` (SF, SOURCES, REPS) into $OUT/tpch_sfN
#   scripts/device_run.sh calibrate `tandem calibrate` into $OUT/calibration.json; the later steps
#                                 of the same call plan auto with it (TANDEM_CALIBRATION)
set -uo pipefail
cd "$(dirname "$0")/.."
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
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/machine.txt"
nproc >> "$OUT/machine.txt"
.device/bin/tandem version | tee -a "$OUT/machine.txt"
export TANDEM_BIN=$PWD/.device/bin/tandem TANDEM_C_LIB=$PWD/.device/bin/libtandem_c.so \
  TANDEM_TESTDATA_DIR=$PWD/.device/testdata TANDEM_BUILD_DIR=/tmp/tandem-build \
  TANDEM_UDF_EXAMPLE_LIB=$PWD/.device/bin/examples/udf/libtandem_example_udf.so

for what in "${@:-tests}"; do
  case "$what" in
    tests)
      echo "== GPU tests"
      .device/bin/tandem_gpu_tests --gtest_filter="${GTEST_FILTER:-*}" 2>&1 |
        tee "$OUT/gpu_tests.log" | grep -E "FAILED|PASSED|SKIPPED" | head -40
      if [ -x .device/bin/tandem_tests ]; then
        echo "== unit tests"; .device/bin/tandem_tests 2>&1 | tee "$OUT/unit_tests.log" | tail -3
      fi
      echo "== python tests (${PYTESTS:-all}; GPU TPC-H at SF1 included)"
      # shellcheck disable=SC2086
      TANDEM_TPCH_SF1=1 python3 -m pytest -q -rs -p no:cacheprovider ${PYTESTS:-tests/python} 2>&1 |
        tee "$OUT/python_tests.log" | tail -15
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
        --reps "${REPS:-5}" --data /tmp/fallback --out "$OUT/fallback" 2>&1 |
        tee "$OUT/fallback.log" | tail -40
      ;;
    tpch)
      # TPC-H through `tandem bench tpch` (SF, SOURCES), DuckDB beside it.
      .device/bin/tandem bench tpch --sf "${SF:-10}" --modes cpu,gpu,auto \
        --sources "${SOURCES:-files,hot}" --reps "${REPS:-3}" --duckdb on --data /tmp/tpch \
        --out "$OUT/tpch_sf${SF:-10}" 2>&1 | tee "$OUT/tpch.log" | tail -45
      ;;
    calibrate)
      .device/bin/tandem calibrate --output "$OUT/calibration.json" 2>&1 | tee "$OUT/calibrate.log"
      export TANDEM_CALIBRATION=$OUT/calibration.json
      ;;
    *) echo "unknown step $what (tests, bench, parquet, fallback, tpch, calibrate)"; exit 2 ;;
  esac
done
