#!/usr/bin/env bash
# Stages what a run on the GPU machine needs into .device/ (git-ignored, carried by the device
# tool): binaries from build/default, the shared libraries they need that the GPU image may lack,
# and the parquet-testing files. Run after `make build` (CMAKE_CUDA_ARCHITECTURES=90).
# The binaries are stripped, and .device.tar.xz packs the folder (35 MiB -> 9 MiB): carry that
# instead of .device when the two DuckDB wheels (duckdb, duckdb_extension_tpch: 32 MiB) must
# travel too; scripts/device_run.sh unpacks it.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .device && mkdir -p .device/bin/bench .device/lib .device/testdata
B=build/default
cp $B/tandem $B/libtandem_c.so $B/tests/tandem_gpu_tests .device/bin/
# The example UDF library where `tandem bench fallback` looks for it (next to the binary).
mkdir -p .device/bin/examples/udf
cp $B/examples/udf/libtandem_example_udf.so .device/bin/examples/udf/
# The whole tree that travels is capped at 64 MiB (with .whl/): the CPU unit tests and the
# benchmark binaries come along only when asked for (they run in CI and here anyway).
if [ -n "${STAGE_ALL:-}" ]; then
  cp $B/tests/tandem_tests .device/bin/
  cp $B/bench/*_bench .device/bin/bench/
fi
for lib in $(ldd $B/tandem $B/libtandem_c.so | awk '/=> \//{print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*) ;;
    *) cp -L "$lib" .device/lib/ ;;
  esac
done
# nvCOMP's library, opened at first use (io/parquet/gpu/page_decompress.cu), so ldd does not list
# it. It packs to about 21 MiB, which with the DuckDB wheels nearly fills the 64 MiB that travel:
# NVCOMP=0 leaves it out (GPU pages then decompress on the host), as STAGE_ALL=1 must.
if [ "${NVCOMP:-1}" = 1 ] && [ -z "${STAGE_ALL:-}" ]; then
  for lib in .venv/lib/python3*/site-packages/nvidia/libnvcomp/lib64/libnvcomp.so.6; do
    [ -f "$lib" ] && cp -L "$lib" .device/lib/
  done
fi
# OLD_BINARY=path: an older tandem to compare with (device_run.sh binary_ab), as bin/tandem_old.
if [ -n "${OLD_BINARY:-}" ]; then
  cp "$OLD_BINARY" .device/bin/tandem_old
  strip .device/bin/tandem_old
fi
# ALLOC_LIBS="lib ...": other memory allocators' libraries for LD_PRELOAD comparisons
# (bench/thread_scaling.py --variant label:LD_PRELOAD=...), into .device/alloc.
if [ -n "${ALLOC_LIBS:-}" ]; then
  mkdir -p .device/alloc
  for lib in $ALLOC_LIBS; do cp -L "$lib" .device/alloc/; done
fi
cp -r ../shared/testdata/parquet-testing .device/testdata/
strip .device/bin/tandem .device/bin/libtandem_c.so .device/bin/tandem_gpu_tests \
  .device/bin/examples/udf/*.so
[ -z "$(ls .device/bin/bench)" ] || strip .device/bin/tandem_tests .device/bin/bench/*
tar -cJf .device.tar.xz .device
du -sh .device .device.tar.xz
