#!/usr/bin/env bash
# Runs every test: the release build's ctest suite (unit, python oracles, gpu — skipped without a
# device), then the I/O, parser and sqllogictest tests and the CLI depth sweep under
# AddressSanitizer + UBSan, then each libFuzzer target briefly.
# `scripts/test.sh asan` or `scripts/test.sh fuzz` runs one part.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)
part=${1:-all}

run_release() {
  echo "== tests (release build)"
  # The TPC-H oracle test runs SF0.01 and SF0.1 always, SF1 here (a few minutes on 2 cores).
  (cd build/default && TANDEM_TPCH_SF1=1 ctest --output-on-failure -j "$JOBS")
}

run_asan() {
  echo "== I/O, parser and SQL tests under AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$JOBS" --target tandem_tests tandem
  # intercept_tls_get_addr=0: GCC 12's runtime takes a dynamic TLS block that happens to start 16
  # bytes into a page for a pre-2.25 glibc header and reads garbage; LeakSanitizer's tracer then
  # crashes at exit ("Tracer caught signal 11") after a passing test. NVRTC, loaded with dlopen,
  # has such blocks; one CI run hit it in KernelCacheTest.
  export ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1
  (cd build/asan &&
     ctest --output-on-failure -j "$JOBS" -L unit \
       -R 'Parquet|Csv|Thrift|Codec|Encoding|Column|Arrow|FileListing|ThreadPool|ValueFormat|SqlLogicTest|SqlParser|AtomicFile|Text\.|GpuAdmission|GpuPeakEstimate|Admission\.|HostPeakEstimate|HostAdmission|PageFraming|Decimal|SharedSubexpressions|ExternalSort|ExecStringSort\.|Buffer\.|GrowArray\.|ExecJoin\.|WindowSpill\.|WindowLargePartitions\.|HashPartitionPlan|KeyChanges\.|SortedRowRefs\.|OrderedWindow\.|ExecDirectAggregate\.|ExecHashAggregate\.|PlanCardinality\.|SnappyDecode\.|ExecSlicing\.|KeyBitmap\.|JoinGraph\.|JoinOrder|CachedTableMoves\.|DeviceSize\.|PhysicalPlanText\.|PhysicalPlanGpu\.|KernelCache|GpuKernelGen\.|GpuInterpreterOnHost\.|FusedAggregateGen\.|NvrtcLoad\.')
  echo "== the depth sweep and hostile CLI inputs under AddressSanitizer + UBSan"
  TANDEM_BIN="$PWD/build/asan/tandem" .venv/bin/python -m pytest -q -p no:cacheprovider \
    tests/python/test_hostile_inputs.py -k 'depth or megabyte or pipe or fifo or device or utf8'
}

run_fuzz() {
  echo "== fuzzers (brief)"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$JOBS"
  shopt -s nullglob
  for f in build/fuzz/fuzz/*_fuzz; do
    name=$(basename "$f")
    corpus=build/fuzz/corpus/$name
    mkdir -p "$corpus"
    echo "-- $name (30 s)"
    "$f" -max_total_time=30 -rss_limit_mb=2048 -timeout=10 "$corpus" fuzz/seeds/"$name" 2>&1 | tail -3
  done
}

case "$part" in
  all) run_release; run_asan; run_fuzz ;;
  asan) run_asan ;;
  fuzz) run_fuzz ;;
  release) run_release ;;
  *) echo "usage: scripts/test.sh [all|release|asan|fuzz]" >&2; exit 2 ;;
esac
