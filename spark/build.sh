#!/bin/bash
# Builds the Spark plugin jar with plain javac against the pyspark jars (Spark 4.0.1, Scala 2.13):
#   spark/build.sh <out-dir> <path-to-libtandem_jni.so or empty> <version> <support.json>
# writes <out-dir>/tandem-spark-<version>.jar, holding the .so (when given) at
# native/linux-x86_64/libtandem_jni.so and the engine's table of what the plugin translates
# (`tandem spark support --json`) at dev/tandem/spark/support.json. Finds Java in JAVA_HOME (else the Debian OpenJDK 17) and
# the pyspark jars in PYSPARK_JARS (else the pyspark package of PYTHON, default .venv/bin/python).
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: spark/build.sh <out-dir> <path-to-libtandem_jni.so or empty> <version> <support.json>" >&2
  exit 2
fi
out_dir=$1
native_lib=$2
version=$3
support_table=$4
if [ ! -s "$support_table" ]; then
  echo "spark/build.sh: no support table at $support_table (tandem spark support --json)" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)

java_home=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
for tool in javac jar; do
  if [ ! -x "$java_home/bin/$tool" ]; then
    echo "spark/build.sh: no $tool in $java_home/bin (install openjdk-17-jdk-headless or set JAVA_HOME)" >&2
    exit 1
  fi
done

if [ -z "${PYSPARK_JARS:-}" ]; then
  python=${PYTHON:-$here/../.venv/bin/python}
  if [ ! -x "$python" ]; then
    echo "spark/build.sh: no Python at $python to find pyspark (set PYTHON or PYSPARK_JARS)" >&2
    exit 1
  fi
  pyspark_dir=$("$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))' 2>/dev/null) || {
    echo "spark/build.sh: $python has no pyspark (pip install pyspark==4.0.1, or set PYSPARK_JARS)" >&2
    exit 1
  }
  PYSPARK_JARS=$pyspark_dir/jars
fi
if ! ls "$PYSPARK_JARS"/spark-sql_2.13-*.jar > /dev/null 2>&1; then
  echo "spark/build.sh: no Spark jars (spark-sql_2.13-*.jar) in $PYSPARK_JARS" >&2
  exit 1
fi
if [ -n "$native_lib" ] && [ ! -f "$native_lib" ]; then
  echo "spark/build.sh: no native library at $native_lib" >&2
  exit 1
fi

mkdir -p "$out_dir"
work=$(mktemp -d "$out_dir/tandem-spark-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/classes"
find "$here/src/main/java" -name '*.java' > "$work/sources"
"$java_home/bin/javac" --release 17 -Xlint:all,-serial,-processing,-path -Werror -encoding UTF-8 \
  -cp "$PYSPARK_JARS/*" -d "$work/classes" @"$work/sources"
if [ -n "$native_lib" ]; then
  mkdir -p "$work/classes/native/linux-x86_64"
  cp "$native_lib" "$work/classes/native/linux-x86_64/libtandem_jni.so"
fi
mkdir -p "$work/classes/dev/tandem/spark"
cp "$support_table" "$work/classes/dev/tandem/spark/support.json"
jar_file=$out_dir/tandem-spark-$version.jar
"$java_home/bin/jar" --create --file "$jar_file" -C "$work/classes" .
echo "$jar_file"
