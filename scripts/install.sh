#!/usr/bin/env bash
# Brings every dependency Tandem needs from Debian packages and PyPI, and nothing from anywhere else.
# Idempotent: a stamp file per step makes the second run take a second. Run as root on Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git clang-format clang libclang-rt-14-dev
  libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libbrotli-dev   # Parquet codecs
  libgtest-dev libgmock-dev libbenchmark-dev                      # tests and benchmarks
  libpg-query-dev nlohmann-json3-dev                              # SQL parser and its JSON parse tree
  libprotobuf-c-dev                         # header to read libpg_query's protobuf tree (parse_tree_integers.cc)
  python3 python3-venv python3-pip                                # test oracles (pyarrow, duckdb)
  openjdk-17-jdk-headless                   # the Spark plugin: javac for the jar, a JVM for Spark
  chromium-headless-shell                   # opens `tandem qualify`'s HTML report in its test
)
PY_PACKAGES=(pyarrow==26.0.1 duckdb==1.4.4 duckdb-extension-tpch==1.4.4 numpy==2.3.5 pytest==8.4.2
             pyspark==4.0.1 pandas==2.3.3 nvidia-libnvcomp-cu13==6.0.0.12)
             # pyspark: Spark 4 with its jars, for the plugin (spark/) and its tests; pandas: the
             # pandas UDFs of the Spark fallback benchmark; nvidia-libnvcomp-cu13: nvCOMP's headers
             # and library, Parquet pages decompressed on the GPU (io/parquet/gpu/page_decompress.h)

stamp_dir=.deps
mkdir -p "$stamp_dir"

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install: apt packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

want="${PY_PACKAGES[*]}"
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp_dir/pip" 2>/dev/null)" != "$want" ]; then
  echo "install: python venv (.venv): $want"
  PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q "${PY_PACKAGES[@]}"
  echo "$want" > "$stamp_dir/pip"
fi
echo "install: ok"
