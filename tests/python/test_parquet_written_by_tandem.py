"""Parquet files written by Tandem, over random schemas and data (nulls, empty and long strings,
extreme integers, NaN/inf/-0.0, decimals up to 38 digits, dates, timestamps with and without UTC)
with every codec, dictionary on and off and many small row groups, are read back by pyarrow and
DuckDB and compared value by value with the table Tandem was given."""
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

ROWS = 2500
KINDS = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "decimal5_2", "decimal9_0", "decimal18_4", "decimal19_3",
         "decimal28_10", "decimal38_0", "decimal38_38", "date32", "ts_naive", "ts_utc", "string",
         "binary"]


_EXACT = decimal.Context(prec=100)  # decimal's default 28 digits would round 38-digit values


def _random_column(rng, kind, n, null_fraction, cardinality):
    """A column of `kind`; values come from a pool of `cardinality` (None: unbounded) so that
    dictionary encoding has something to do."""
    def gen_for(gen):
        if cardinality is None:
            return gen
        pool = [gen() for _ in range(cardinality)]
        return lambda: rng.choice(pool)

    def column(gen, t):
        g = gen_for(gen)
        return pa.array([None if rng.random() < null_fraction else g() for _ in range(n)], t)

    if kind == "bool":
        return column(lambda: rng.random() < 0.5, pa.bool_())
    if kind.startswith("int") or kind.startswith("uint"):
        t = getattr(pa, kind)()
        bits = t.bit_width
        lo, hi = ((0, 2**bits - 1) if kind.startswith("u")
                  else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1))
        extremes = [lo, hi, 0, lo + 1, hi - 1]
        return column(lambda: rng.choice(extremes) if rng.random() < 0.15
                      else rng.randint(lo, hi), t)
    if kind in ("float32", "float64"):
        specials = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]
        if kind == "float32":
            specials += [3.4028234663852886e38, -1.401298464324817e-45]
        else:
            specials += [1.7976931348623157e308, -5e-324]
        return column(lambda: rng.choice(specials) if rng.random() < 0.15
                      else rng.uniform(-1e6, 1e6), getattr(pa, kind)())
    if kind.startswith("decimal"):
        p, s = map(int, kind[len("decimal"):].split("_"))

        def gen():
            if rng.random() < 0.1:
                v = rng.choice([10**p - 1, -(10**p - 1), 0])
            else:
                digits = rng.randint(1, p)
                v = rng.randint(-(10**digits - 1), 10**digits - 1)
            return decimal.Decimal(v).scaleb(-s, context=_EXACT)
        return column(gen, pa.decimal128(p, s))
    if kind == "date32":
        return column(lambda: datetime.date(1970, 1, 1) + datetime.timedelta(
            days=rng.randint(-700000, 2900000)), pa.date32())
    if kind.startswith("ts_"):
        tz = "UTC" if kind == "ts_utc" else None
        return column(lambda: rng.randint(-2**55, 2**55), pa.timestamp("us", tz=tz))
    if kind == "string":
        words = ["", "a", "hello", "wörld", "x" * 5000, "\u00ff\u0100", "\U0001F600", "A", "zz"]
        return column(lambda: rng.choice(words) + (str(rng.randint(0, 10**6))
                                                   if rng.random() < 0.7 else ""), pa.string())
    if kind == "binary":
        return column(lambda: bytes(rng.randrange(256) for _ in range(rng.randint(0, 40))),
                      pa.binary())
    raise AssertionError(kind)


def _random_table(seed):
    rng = random.Random(seed)
    kinds = rng.sample(KINDS, rng.randint(4, 10))
    cols, fields = [], []
    for i, kind in enumerate(kinds):
        null_fraction = rng.choice([0.0, 0.0, 0.05, 0.5, 1.0])
        cardinality = rng.choice([None, 1, 7, 300])
        col = _random_column(rng, kind, ROWS, null_fraction, cardinality)
        nullable = null_fraction > 0 or rng.random() < 0.5
        fields.append(pa.field(f"c{i}_{kind}", col.type, nullable=nullable))
        cols.append(col)
    return pa.Table.from_arrays(cols, schema=pa.schema(fields))


def _duckdb_read(path):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    return con.execute(f"SELECT * FROM read_parquet('{path}')").fetch_arrow_table()


def _check_file(path, expected, context):
    assert_tables_equal(pq.read_table(path), expected, f"{context} (pyarrow)")
    got = _duckdb_read(path)
    assert_tables_equal(got, expected, f"{context} (duckdb)")


@pytest.mark.parametrize("codec", ["none", "snappy", "zstd", "gzip", "lz4_raw", "brotli"])
@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_random_tables_read_back_by_pyarrow_and_duckdb(tmp_path, codec, dictionary, seed):
    table = _random_table(seed * 31 + (7 if dictionary else 0))
    rng = random.Random(seed)
    row_group_rows = rng.choice([1, 97, 1000, 0])
    if row_group_rows == 1:
        table = table.slice(0, 60)  # one row per row group: keep it small
    path = str(tmp_path / "t.parquet")
    tandem_ffi.write_parquet(table, path, codec=codec, dictionary=dictionary,
                             row_group_rows=row_group_rows)
    context = f"seed {seed}, codec {codec}, dictionary {dictionary}, rows/group {row_group_rows}"
    _check_file(path, table, context)
    meta = pq.ParquetFile(path).metadata
    expect_groups = 1 if row_group_rows == 0 else -(-table.num_rows // row_group_rows)
    assert meta.num_row_groups == expect_groups, context
    assert meta.created_by == "tandem 0.1.0"
    # pyarrow names Parquet's LZ4_RAW "LZ4" (Arrow's raw LZ4 block codec).
    expected_codec = {"none": "UNCOMPRESSED", "snappy": "SNAPPY", "zstd": "ZSTD", "gzip": "GZIP",
                      "lz4_raw": "LZ4", "brotli": "BROTLI"}[codec]
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            col = meta.row_group(g).column(c)
            assert col.compression == expected_codec, context
            if not dictionary:
                assert "RLE_DICTIONARY" not in col.encodings, context
    # Tandem's files are not left behind half written.
    assert os.listdir(tmp_path) == ["t.parquet"]


def test_statistics_match_pyarrow_computed_values(tmp_path):
    """Column chunk min/max/null_count follow Parquet's sort order per logical type."""
    table = _random_table(1234)
    table = pa.table({
        "i32": pa.array([5, -7, None, 2**31 - 1], pa.int32()),
        "u32": pa.array([1, 2**32 - 1, 0, None], pa.uint32()),
        "u64": pa.array([2**64 - 1, 3, None, 0], pa.uint64()),
        "f64": pa.array([float("nan"), -0.0, 0.0, None], pa.float64()),
        "s": pa.array(["b", "\u00e9", "", None], pa.string()),
        "d": pa.array([decimal.Decimal("-12.5"), decimal.Decimal("3.0"), None, None],
                      pa.decimal128(30, 1)),
    })
    path = str(tmp_path / "s.parquet")
    tandem_ffi.write_parquet(table, path, codec="snappy", dictionary=True)
    rg = pq.ParquetFile(path).metadata.row_group(0)
    stats = {rg.column(i).path_in_schema: rg.column(i).statistics for i in range(rg.num_columns)}
    assert (stats["i32"].min, stats["i32"].max, stats["i32"].null_count) == (-7, 2**31 - 1, 1)
    assert (stats["u32"].min, stats["u32"].max) == (0, 2**32 - 1)
    assert (stats["u64"].min, stats["u64"].max) == (0, 2**64 - 1)
    assert str(stats["f64"].min) == "-0.0" and str(stats["f64"].max) == "0.0"
    assert (stats["s"].min, stats["s"].max) == ("", "\u00e9")
    assert (stats["d"].min, stats["d"].max) == (decimal.Decimal("-12.5"), decimal.Decimal("3.0"))
    # DuckDB prunes with these statistics: the answers must not change.
    con = duckdb.connect()
    assert con.execute(f"SELECT count(*) FROM '{path}' WHERE u64 > 5").fetchone()[0] == 1
    assert con.execute(f"SELECT count(*) FROM '{path}' WHERE s > 'c'").fetchone()[0] == 1


def test_dictionary_snappy_large_file_with_fallback(tmp_path):
    """The TPC-H generator's settings (dictionary + snappy): low-cardinality columns stay
    dictionary-encoded; columns of many distinct strings overflow the dictionary, at once or
    after some pages (then the rest of the chunk is PLAIN); pyarrow and DuckDB read it all back."""
    n = 300_000
    rng = random.Random(5)
    flags = ["A", "N", "R"]
    table = pa.table({
        "key": pa.array(range(n), pa.int64()),
        "flag": pa.array([flags[i % 3] for i in range(n)], pa.string()),
        "comment": pa.array([f"unique comment {i} {rng.random()}" for i in range(n)], pa.string()),
        "customer": pa.array([f"Customer#{i // 3:09d}" for i in range(n)], pa.string()),
        "price": pa.array([decimal.Decimal(rng.randint(0, 10**8)).scaleb(-2) for _ in range(n)],
                          pa.decimal128(15, 2)),
        "ship": pa.array([datetime.date(1992, 1, 1) + datetime.timedelta(days=i % 2500)
                          for i in range(n)], pa.date32()),
    })
    path = str(tmp_path / "lineitem.parquet")
    tandem_ffi.write_parquet(table, path, codec="snappy", dictionary=True, row_group_rows=250_000)
    _check_file(path, table, "large dictionary+snappy")
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 2
    cols = {meta.row_group(0).column(i).path_in_schema: meta.row_group(0).column(i)
            for i in range(meta.num_columns)}
    assert cols["flag"].has_dictionary_page and "RLE_DICTIONARY" in cols["flag"].encodings
    # Unique comments overflow the dictionary within the first page: no dictionary at all.
    assert not cols["comment"].has_dictionary_page
    assert "RLE_DICTIONARY" not in cols["comment"].encodings
    # Customers overflow it after a few pages: dictionary pages first, then PLAIN pages (the
    # page counts are checked in ParquetWriterFile.DictionaryFallsBackToPlainWhenItGrowsTooLarge).
    assert cols["customer"].has_dictionary_page
    assert {"RLE_DICTIONARY", "PLAIN"} <= set(cols["customer"].encodings)
    # pyarrow can keep dictionary-encoded columns as dictionaries.
    t = pq.read_table(path, read_dictionary=["flag"])
    assert pa.types.is_dictionary(t.schema.field("flag").type)
    assert t.column("flag").to_pylist() == table.column("flag").to_pylist()


def test_empty_table(tmp_path):
    table = _random_table(99).slice(0, 0)
    path = str(tmp_path / "empty.parquet")
    tandem_ffi.write_parquet(table, path)
    _check_file(path, table, "empty table")
    assert pq.ParquetFile(path).metadata.num_rows == 0


def test_write_error_names_the_file(tmp_path):
    path = str(tmp_path / "missing" / "x.parquet")
    with pytest.raises(tandem_ffi.TandemError) as err:
        tandem_ffi.write_parquet(pa.table({"a": [1, 2]}), path)
    assert path in str(err.value)
    assert not os.path.exists(tmp_path / "missing")
