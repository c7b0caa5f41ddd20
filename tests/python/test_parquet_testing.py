"""Every file of apache/parquet-testing's data/ folder, read by Tandem and by pyarrow.

For each .parquet file (one test case per file) Tandem's table must equal pyarrow.parquet's value
by value: NaN-aware floats (sign of zero included), timestamps as microseconds since the epoch
(pyarrow's nanoseconds floor-divided, as Tandem converts them), decimals compared exactly by
value (Tandem's 64-bit decimals against pyarrow's decimal128), half floats by value, fixed-size
binary as bytes. Files Tandem cannot read yet must fail with "not supported yet: ..." naming the
file and a column, and their flat columns must still read correctly. A few files must fail with a
specific error. Any other outcome fails the test.
"""
import decimal
import math
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import tandem_ffi  # noqa: E402

DATA_DIR = os.path.join(os.environ.get("TANDEM_TESTDATA_DIR", "/work/shared/testdata"),
                        "parquet-testing", "data")

# Files with nested columns (LIST, MAP, STRUCT, repeated fields): Tandem's columns are flat, so it
# reports these as "not supported yet". The reason is given for each so that the list stays honest.
UNSUPPORTED = {
    "datapage_v2.snappy.parquet": "column e is LIST<int32>",
    "incorrect_map_schema.parquet": "MAP column (pyarrow rejects it too: keys not required)",
    "large_string_map.brotli.parquet": "MAP<string,int32> column (pyarrow fails too)",
    "list_columns.parquet": "LIST<int64> and LIST<string> columns",
    "map_no_value.parquet": "MAP and LIST columns",
    "nested_lists.snappy.parquet": "LIST<LIST<LIST<string>>> column",
    "nested_maps.snappy.parquet": "MAP<string, MAP<int32,bool>> column",
    "nested_structs.rust.parquet": "STRUCT columns only",
    "nonnullable.impala.parquet": "LIST, MAP and STRUCT columns",
    "null_list.parquet": "LIST<null> column",
    "nullable.impala.parquet": "LIST, MAP and STRUCT columns",
    "nulls.snappy.parquet": "STRUCT column",
    "old_list_structure.parquet": "legacy 2-level LIST column",
    "repeated_no_annotation.parquet": "repeated group without LIST annotation",
    "repeated_primitive_no_list.parquet": "repeated primitive fields without LIST annotation",
}

# Files Tandem must refuse with a specific error (pyarrow reads them: it does not verify CRCs and
# wraps INT96 overflow silently).
EXPECTED_ERRORS = {
    "datapage_v1-corrupt-checksum.parquet": "checksum",
    "rle-dict-uncompressed-corrupt-checksum.parquet": "checksum",
    # Row 5 is 361746257437964 s after the epoch (year ~11.5 million): it does not fit in int64
    # microseconds. pyarrow returns a wrapped value (-7188624036226874385 us); Tandem refuses.
    "int96_from_spark.parquet": "INT96 timestamp out of range",
}


def _files():
    return sorted(f for f in os.listdir(DATA_DIR) if f.endswith(".parquet"))


def _is_nested(t):
    return pa.types.is_nested(t)


def _micros(col):
    """Timestamps as int64 microseconds (floor division for nanoseconds)."""
    unit = col.type.unit
    ints = col.cast(pa.int64()).to_pylist()
    scale = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": None}[unit]
    if scale is None:
        return [None if v is None else v // 1000 for v in ints]
    return [None if v is None else v * scale for v in ints]


def _values(col):
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    if pa.types.is_timestamp(col.type):
        return _micros(col), "timestamp"
    if pa.types.is_float16(col.type):
        return [None if v is None else float(v) for v in col.to_pylist()], "float"
    values = col.to_pylist()
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        return [None if v is None else v.encode() for v in values], "bytes"
    if (pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type)
            or pa.types.is_fixed_size_binary(col.type)):
        return [None if v is None else bytes(v) for v in values], "bytes"
    return values, str(col.type)


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, decimal.Decimal) or isinstance(b, decimal.Decimal):
        return decimal.Decimal(a) == decimal.Decimal(b)
    return a == b


def _assert_equal(actual, expected, name):
    assert actual.num_rows == expected.num_rows, (
        f"{name}: Tandem has {actual.num_rows} rows, pyarrow {expected.num_rows}")
    assert actual.column_names == expected.column_names, (
        f"{name}: Tandem columns {actual.column_names}, pyarrow {expected.column_names}")
    for col in expected.column_names:
        got, got_kind = _values(actual.column(col))
        want, want_kind = _values(expected.column(col))
        for i, (x, y) in enumerate(zip(got, want)):
            assert _same(x, y), (f"{name}, column {col} ({got_kind} vs pyarrow {want_kind}), "
                                 f"row {i}: Tandem {x!r}, pyarrow {y!r}")


def _pyarrow_read(path, columns=None):
    return pq.read_table(path, columns=columns, coerce_int96_timestamp_unit="us")


def test_lists_are_current():
    """The exception lists name only files that exist (so a rename cannot hide a failure)."""
    files = set(_files())
    assert len(files) >= 50, f"parquet-testing data not found in {DATA_DIR}"
    for name in list(UNSUPPORTED) + list(EXPECTED_ERRORS):
        assert name in files, f"{name} is listed but not in {DATA_DIR}"


@pytest.mark.parametrize("name", _files())
def test_file(name):
    path = os.path.join(DATA_DIR, name)
    if name in UNSUPPORTED or name in EXPECTED_ERRORS:
        with pytest.raises(tandem_ffi.TandemError) as err:
            tandem_ffi.read_parquet(path)
        message = str(err.value)
        assert path in message, f"error does not name the file: {message}"
        if name in EXPECTED_ERRORS:
            assert EXPECTED_ERRORS[name] in message, message
            return
        assert message.startswith("not supported yet:"), message
        assert "column " in message, f"error does not name a column: {message}"
        # The flat columns of a file with nested ones still read correctly on their own.
        try:
            flat = [f.name for f in pq.read_schema(path) if not _is_nested(f.type)]
            expected = _pyarrow_read(path, columns=flat) if flat else None
        except pa.ArrowException:
            return  # pyarrow cannot read this file at all: no oracle for its flat columns
        if flat:
            actual = tandem_ffi.read_parquet(path, columns=flat)
            _assert_equal(actual, expected, name)
        return
    expected = _pyarrow_read(path)
    actual = tandem_ffi.read_parquet(path)
    _assert_equal(actual, expected, name)


@pytest.mark.parametrize("name", ["alltypes_tiny_pages.parquet", "delta_byte_array.parquet"])
def test_single_thread_and_projection(name):
    """One thread, and a reversed projection, give the same values."""
    path = os.path.join(DATA_DIR, name)
    expected = _pyarrow_read(path)
    columns = list(reversed(expected.column_names))
    actual = tandem_ffi.read_parquet(path, columns=columns, num_threads=1)
    _assert_equal(actual, expected.select(columns), name)


# ---- statistics: `tandem meta --json` against pyarrow's footer reading ----------------------

def _tandem_bin():
    path = os.environ.get("TANDEM_BIN")
    if path:
        return path
    return os.path.join(os.environ.get("TANDEM_BUILD_DIR", "build/default"), "tandem")


def _unescape_text(text):
    """Undoes FormatStatValue's string quoting: "..." with \\" \\\\ \\xNN escapes."""
    assert text.startswith('"'), text
    end = text.rindex('"')
    body, out, i = text[1:end], bytearray(), 0
    while i < len(body):
        if body[i] == "\\" and body[i + 1] == "x":
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        elif body[i] == "\\":
            out += body[i + 1].encode()
            i += 2
        else:
            out += body[i].encode()
            i += 1
    return bytes(out), text[end + 1:].startswith("...")


def _same_bound(mine, theirs, tandem_type, logical):
    """Whether Tandem's printed bound equals pyarrow's typed one."""
    import datetime
    import struct
    if tandem_type == "bool":
        return mine == ("true" if theirs else "false")
    if tandem_type.startswith(("int", "uint")):
        return int(mine) == int(theirs)
    if tandem_type.startswith("float"):
        if isinstance(theirs, bytes):  # pyarrow leaves float16 bounds as raw bytes
            theirs = struct.unpack("<e", theirs)[0]
        return float(mine) == float(theirs)
    if tandem_type.startswith("decimal"):
        return decimal.Decimal(mine) == decimal.Decimal(theirs)
    if tandem_type == "date32":
        return mine == str(theirs)
    if tandem_type.startswith("timestamp"):
        got = datetime.datetime.fromisoformat(mine.rstrip("Z")).replace(tzinfo=None)
        return got == theirs.replace(tzinfo=None)
    if tandem_type in ("string", "binary"):
        if tandem_type == "string":
            got, truncated = _unescape_text(mine)
        else:
            hex_part = mine.split("...")[0]
            got, truncated = bytes.fromhex(hex_part[2:]), "..." in mine
        want = theirs.encode() if isinstance(theirs, str) else bytes(theirs)
        return want.startswith(got) if truncated else got == want
    raise AssertionError(f"no comparison for {tandem_type} ({logical})")


@pytest.mark.parametrize("name", _files())
def test_statistics_match_pyarrow(name):
    """Every min/max Tandem decodes equals pyarrow's; null counts agree."""
    import json
    import subprocess
    path = os.path.join(DATA_DIR, name)
    try:
        md = pq.ParquetFile(path).metadata
    except pa.ArrowException:
        pytest.skip("pyarrow cannot read this footer: no oracle")
    run = subprocess.run([_tandem_bin(), "meta", "--json", path], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    meta = json.loads(run.stdout)
    assert meta["num_rows"] == md.num_rows
    assert len(meta["row_groups"]) == md.num_row_groups
    columns = meta["columns"]
    assert len(columns) == md.num_columns
    for g, rg in enumerate(meta["row_groups"]):
        for c, chunk in enumerate(rg["columns"]):
            theirs = md.row_group(g).column(c)
            assert chunk["total_compressed_size"] == theirs.total_compressed_size
            assert chunk["num_values"] == theirs.num_values
            mine = chunk.get("statistics")
            stats = theirs.statistics
            if not mine or stats is None:
                continue
            where = f"{name}, row group {g}, column {columns[c]['path']}"
            if "nulls" in mine and stats.has_null_count:
                assert mine["nulls"] == stats.null_count, where
            tandem_type = columns[c]["tandem_type"]
            if "min" not in mine or not stats.has_min_max or tandem_type.startswith("not "):
                continue
            for key, value in (("min", stats.min), ("max", stats.max)):
                assert _same_bound(mine[key], value, tandem_type, stats.logical_type), (
                    f"{where}: {key} {mine[key]!r}, pyarrow {value!r}")
