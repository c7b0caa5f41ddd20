#!/usr/bin/env bash
# Runs on the GPU machine (see scripts/device_stage.sh): GPU tests, the whole unit suite, the
# Python oracle tests and the Parquet read benchmark, writing logs under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
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

echo "== GPU tests"; .device/bin/tandem_gpu_tests 2>&1 | tee "$OUT/gpu_tests.log" | tail -5
echo "== unit tests"; .device/bin/tandem_tests 2>&1 | tee "$OUT/unit_tests.log" | tail -4
echo "== python tests"
TANDEM_BIN=$PWD/.device/bin/tandem TANDEM_C_LIB=$PWD/.device/bin/libtandem_c.so \
TANDEM_TESTDATA_DIR=$PWD/.device/testdata TANDEM_BUILD_DIR=$PWD/.device/bin \
  python3 -m pytest -q -p no:cacheprovider tests/python 2>&1 | tee "$OUT/python_tests.log" | tail -5
echo "== Parquet read benchmark (TPC-H lineitem), $(nproc) cores"
for sf in 1 10; do
  BUILD_DIR=.device/bin PYTHON=python3 scripts/bench.sh --sf $sf --data /tmp/tpch-sf$sf 2>&1 |
    tee "$OUT/bench_sf$sf.log" | tail -5
done
