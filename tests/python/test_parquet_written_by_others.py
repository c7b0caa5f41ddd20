"""Parquet files written by pyarrow and DuckDB, over random schemas and data with every encoding
and codec they offer, are read by Tandem and compared value by value with the writer's own
reading of the same file."""
import datetime
import decimal
import os
import random

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tandem_ffi
from compare import assert_tables_equal

ROWS = 3000


def _random_column(rng, kind, n, null_fraction):
    def maybe_null(gen):
        return [None if rng.random() < null_fraction else gen() for _ in range(n)]

    if kind == "bool":
        return pa.array(maybe_null(lambda: rng.random() < 0.5), pa.bool_())
    if kind in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        t = getattr(pa, kind)()
        bits = t.bit_width
        lo, hi = (0, 2**bits - 1) if kind.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        extremes = [lo, hi, 0]
        return pa.array(maybe_null(lambda: rng.choice(extremes) if rng.random() < 0.1
                                   else rng.randint(lo, hi)), t)
    if kind in ("float32", "float64"):
        specials = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]
        return pa.array(maybe_null(lambda: rng.choice(specials) if rng.random() < 0.1
                                   else rng.uniform(-1e6, 1e6)), getattr(pa, kind)())
    if kind.startswith("decimal"):
        p, s = map(int, kind[len("decimal"):].split("_"))
        t = pa.decimal128(p, s)

        def gen():
            digits = rng.randint(1, p)
            v = rng.randint(-(10**digits - 1), 10**digits - 1)
            return decimal.Decimal(v).scaleb(-s)
        return pa.array(maybe_null(gen), t)
    if kind == "date32":
        return pa.array(maybe_null(lambda: datetime.date(1970, 1, 1) + datetime.timedelta(
            days=rng.randint(-200000, 200000))), pa.date32())
    if kind.startswith("ts_"):
        unit, tz = kind.split("_")[1], (None if kind.endswith("naive") else "UTC")

        def gen():
            us = rng.randint(-2**50, 2**50)
            # Nanosecond values are whole microseconds: Tandem keeps microseconds.
            return {"ms": us // 1000, "us": us, "ns": us * 1000}[unit]
        return pa.array(maybe_null(gen), pa.timestamp(unit, tz=tz))
    if kind == "string":
        words = ["", "a", "hello", "wörld", "x" * 300, "tab\tnew\nline", "\"quoted\""]
        return pa.array(maybe_null(lambda: rng.choice(words) + str(rng.randint(0, 50))
                                   if rng.random() < 0.8 else rng.choice(words)), pa.string())
    if kind == "binary":
        return pa.array(maybe_null(lambda: bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 20)))),
                        pa.binary())
    raise ValueError(kind)


KINDS = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "decimal9_2", "decimal18_4", "decimal38_10", "decimal25_0",
         "date32", "ts_ms_utc", "ts_us_naive", "ts_ns_utc", "string", "binary"]


def _random_table(seed):
    rng = random.Random(seed)
    kinds = rng.sample(KINDS, rng.randint(3, 10))
    n = rng.choice([0, 1, 17, ROWS])
    null_fraction = rng.choice([0.0, 0.1, 0.9])
    cols = {f"c{i}_{k}": _random_column(rng, k, n, null_fraction) for i, k in enumerate(kinds)}
    return pa.table(cols)


def _encodings_for(table, rng):
    enc = {}
    for field in table.schema:
        t = field.type
        if pa.types.is_integer(t) and t.bit_width >= 32 and rng.random() < 0.5:
            enc[field.name] = "DELTA_BINARY_PACKED"
        elif (pa.types.is_string(t) or pa.types.is_binary(t)) and rng.random() < 0.6:
            enc[field.name] = rng.choice(["DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"])
        elif pa.types.is_floating(t) and rng.random() < 0.5:
            enc[field.name] = "BYTE_STREAM_SPLIT"
    return enc


@pytest.mark.parametrize("seed", range(40))
def test_pyarrow_written_files(tmp_path, seed):
    rng = random.Random(1000 + seed)
    table = _random_table(seed)
    path = str(tmp_path / f"pa_{seed}.parquet")
    codec = rng.choice(["none", "snappy", "gzip", "zstd", "lz4", "brotli"])
    encodings = (_encodings_for(table, rng) if rng.random() < 0.6 else None) or None
    pq.write_table(
        table, path,
        compression=codec,
        use_dictionary=False if encodings else rng.random() < 0.7,
        column_encoding=encodings,
        data_page_version=rng.choice(["1.0", "2.0"]),
        write_page_checksum=rng.random() < 0.5,
        row_group_size=rng.choice([100, 1000, 1 << 20]),
        data_page_size=rng.choice([512, 1 << 20]),
    )
    expected = pq.read_table(path)
    actual = tandem_ffi.read_parquet(path)
    assert_tables_equal(actual, expected,
                        f"seed {seed} codec {codec} encodings {encodings}")


@pytest.mark.parametrize("codec", ["uncompressed", "snappy", "zstd", "gzip"])
def test_duckdb_written_files(tmp_path, codec):
    path = str(tmp_path / f"duck_{codec}.parquet")
    con = duckdb.connect()
    con.execute(f"""
        COPY (
          SELECT i AS id,
                 CASE WHEN i % 7 = 0 THEN NULL ELSE i * 3 - 5000 END AS maybe_int,
                 (i % 100)::TINYINT AS tiny,
                 (i * 1.25)::DOUBLE AS dbl,
                 (i / 7.0)::DECIMAL(15, 2) AS dec15,
                 (i * 123456789.123)::DECIMAL(38, 3) AS dec38,
                 DATE '1992-01-01' + (i % 2557)::INTEGER AS d,
                 TIMESTAMP '2020-02-29 12:34:56.789012' + INTERVAL (i) SECOND AS ts,
                 CASE WHEN i % 5 = 0 THEN NULL ELSE 'str_' || (i % 37) END AS s,
                 i % 3 = 0 AS b
          FROM range(20000) t(i)
        ) TO '{path}' (FORMAT parquet, COMPRESSION {codec}, ROW_GROUP_SIZE 4096)
    """)
    expected = pq.read_table(path)
    actual = tandem_ffi.read_parquet(path)
    assert_tables_equal(actual, expected, f"duckdb {codec}")
    # DuckDB's own reading agrees too (guards against pyarrow and Tandem sharing a mistake).
    duck = con.execute(f"SELECT * FROM read_parquet('{path}')").arrow()
    if isinstance(duck, pa.RecordBatchReader):
        duck = duck.read_all()
    assert_tables_equal(actual, duck, f"duckdb {codec} vs duckdb reader")
