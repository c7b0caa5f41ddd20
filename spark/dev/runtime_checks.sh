#!/bin/bash
# Compiles spark/dev/RuntimeChecks.java against a plugin jar and runs it (no Spark session, no
# engine): spark/dev/runtime_checks.sh <tandem-spark jar>
set -euo pipefail
jar=${1:?usage: spark/dev/runtime_checks.sh <tandem-spark jar>}
here=$(cd "$(dirname "$0")" && pwd)
java_home=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
jars=${PYSPARK_JARS:-$("$here/../../.venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')/jars}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$java_home/bin/javac" --release 17 -Xlint:all,-path -Werror -cp "$jar:$jars/*" -d "$out" \
  "$here/RuntimeChecks.java"
"$java_home/bin/java" --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$out:$jar:$jars/*" dev.tandem.spark.RuntimeChecks
