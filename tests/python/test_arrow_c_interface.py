"""Arrow C Data Interface: pyarrow tables of every supported type go through Tandem (import, then
export) and must come back equal, sharing buffers where the layouts match; unsupported types fail
with a clear message. The oracle is pyarrow itself: the input table, cast where Tandem documents a
conversion (decimal128 of <= 18 digits -> decimal64, timestamps -> microseconds)."""
import datetime
import decimal
import gc
import os
import sys

import pyarrow as pa
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import tandem_ffi  # noqa: E402

pytestmark = pytest.mark.skipif(
    not os.environ.get("TANDEM_C_LIB") and not os.environ.get("TANDEM_BUILD_DIR"),
    reason="skipped: TANDEM_C_LIB not set")

I64 = (-(2**63), 2**63 - 1)


def d(s):
    return decimal.Decimal(s)


def every_type_table():
    """Columns of every type Tandem supports, with nulls, empty strings and extremes."""
    return pa.table({
        "b": pa.array([True, False, None, True, False], pa.bool_()),
        "i8": pa.array([-128, 127, None, 0, 1], pa.int8()),
        "i16": pa.array([-32768, 32767, None, 0, -1], pa.int16()),
        "i32": pa.array([-(2**31), 2**31 - 1, None, 0, 7], pa.int32()),
        "i64": pa.array([I64[0], I64[1], None, 0, 42], pa.int64()),
        "u8": pa.array([0, 255, None, 1, 2], pa.uint8()),
        "u16": pa.array([0, 65535, None, 1, 2], pa.uint16()),
        "u32": pa.array([0, 2**32 - 1, None, 1, 2], pa.uint32()),
        "u64": pa.array([0, 2**64 - 1, None, 1, 2], pa.uint64()),
        "f32": pa.array([-1.5, float("inf"), None, -0.0, 3.25], pa.float32()),
        "f64": pa.array([float("-inf"), 1e308, None, 5e-324, -0.0], pa.float64()),
        "dec64": pa.array([d("-99999999999999.9999"), d("99999999999999.9999"), None, d("0"),
                           d("0.0001")], pa.decimal64(18, 4)),
        "dec128": pa.array([d("-" + "9" * 36 + ".99"), d("9" * 36 + ".99"), None, d("0"),
                            d("1.5")], pa.decimal128(38, 2)),
        "date": pa.array([datetime.date(1, 1, 1), datetime.date(9999, 12, 31), None,
                          datetime.date(1970, 1, 1), datetime.date(1969, 12, 31)], pa.date32()),
        "ts": pa.array([-(2**62), 2**62, None, 0, -1], pa.timestamp("us")),
        "ts_utc": pa.array([-(2**62), 2**62, None, 0, 1], pa.timestamp("us", tz="UTC")),
        "s": pa.array(["", "héllo wörld", None, "x" * 1000, "\x00nul"], pa.string()),
        "ls": pa.array(["a", "", None, "ccc", ""], pa.large_string()),
        "bin": pa.array([b"", b"\x00\xff", None, b"abc", b"\x80"], pa.binary()),
        "lbin": pa.array([b"\x01", None, b"", b"zz", b"\xfe"], pa.large_binary()),
    })


def assert_same(expected, actual):
    assert actual.schema == expected.schema, f"\n{actual.schema}\n!=\n{expected.schema}"
    assert actual.equals(expected), f"\n{actual.to_pydict()}\n!=\n{expected.to_pydict()}"


def test_every_type_roundtrips_unchanged():
    table = every_type_table()
    assert_same(table, tandem_ffi.roundtrip(table))


def test_all_null_and_no_null_columns():
    table = pa.table({
        "all_null": pa.array([None] * 70, pa.int32()),
        "no_null": pa.array(range(70), pa.int64()),
        "all_null_s": pa.array([None] * 70, pa.string()),
        "all_empty_s": pa.array([""] * 70, pa.string()),
        "bools": pa.array([i % 3 == 0 for i in range(70)], pa.bool_()),
    })
    assert_same(table, tandem_ffi.roundtrip(table))


def test_empty_table_and_zero_batches():
    table = every_type_table().slice(0, 0)
    assert_same(table, tandem_ffi.roundtrip(table))
    no_batches = pa.Table.from_batches([], schema=table.schema)
    out = tandem_ffi.roundtrip(no_batches)
    assert out.schema == table.schema and out.num_rows == 0


def test_many_batches_and_slices_at_odd_offsets():
    base = every_type_table()
    big = pa.concat_tables([base] * 40).combine_chunks()
    # Slices at bit offsets that are not multiples of 8 force the copy paths for bitmaps,
    # and offsets that do not start at 0 force rebased string offsets.
    pieces = [big.slice(3, 17), big.slice(21, 1), big.slice(64, 50), big.slice(117, 0),
              big.slice(130, 70)]
    table = pa.concat_tables(pieces)
    out = tandem_ffi.roundtrip(table)
    assert_same(table.combine_chunks(), out.combine_chunks())


def test_nullability_is_kept():
    schema = pa.schema([pa.field("req", pa.int64(), nullable=False),
                        pa.field("opt", pa.string(), nullable=True)])
    table = pa.table({"req": [1, 2, 3], "opt": ["a", None, "c"]}, schema=schema)
    out = tandem_ffi.roundtrip(table)
    assert out.schema.field("req").nullable is False
    assert out.schema.field("opt").nullable is True
    assert_same(table, out)


def test_nulls_in_not_null_column_are_rejected():
    schema = pa.schema([pa.field("req", pa.int64(), nullable=False)])
    batch = pa.RecordBatch.from_arrays([pa.array([1, None])], schema=schema)
    with pytest.raises(tandem_ffi.TandemError, match="column req.*not null"):
        tandem_ffi.roundtrip(pa.Table.from_batches([batch]))


def test_conversions_documented_in_arrow_import_h():
    table = pa.table({
        "dec128_small": pa.array([d("-999999999999999999"), d("999999999999999999"), None],
                                 pa.decimal128(18, 0)),
        "dec32": pa.array([d("-9.9999"), d("9.9999"), None], pa.decimal32(5, 4)),
        "ts_s": pa.array([-(2**40), 2**40, None], pa.timestamp("s")),
        "ts_ms": pa.array([-(2**50), 2**50, None], pa.timestamp("ms", tz="UTC")),
        "ts_ns": pa.array([-(2**62) // 1000 * 1000, 123456789000, None], pa.timestamp("ns")),
    })
    out = tandem_ffi.roundtrip(table)
    expected = pa.table({
        "dec128_small": table["dec128_small"].cast(pa.decimal64(18, 0)),
        "dec32": table["dec32"].cast(pa.decimal64(5, 4)),
        "ts_s": table["ts_s"].cast(pa.timestamp("us")),
        "ts_ms": table["ts_ms"].cast(pa.timestamp("us", tz="UTC")),
        "ts_ns": table["ts_ns"].cast(pa.timestamp("us")),
    })
    assert_same(expected, out)
    # widen_decimals brings Tandem's decimal64 back to the decimal128 pyarrow started with.
    assert tandem_ffi.widen_decimals(out)["dec128_small"].equals(table["dec128_small"])


def test_bad_values_are_rejected_not_truncated():
    sub_us = pa.table({"t": pa.array([1, 1001], pa.timestamp("ns"))})
    with pytest.raises(tandem_ffi.TandemError,
                       match=r"sub-microsecond precision at row 0 \(column t\)"):
        tandem_ffi.roundtrip(sub_us)
    overflow = pa.table({"t": pa.array([2**62], pa.timestamp("s"))})
    with pytest.raises(tandem_ffi.TandemError, match="column t.*overflow"):
        tandem_ffi.roundtrip(overflow)
    # A decimal128(5,0) whose stored value needs more than 64 bits (pyarrow does not check).
    raw = (2**70).to_bytes(16, "little", signed=True)
    bad = pa.Array.from_buffers(pa.decimal128(5, 0), 1, [None, pa.py_buffer(raw)])
    with pytest.raises(tandem_ffi.TandemError, match="column x.*decimal value"):
        tandem_ffi.roundtrip(pa.table({"x": bad}))


@pytest.mark.parametrize("array,fmt", [
    (pa.array(["a", "b"], pa.string_view()), "vu"),
    (pa.array([b"a"], pa.binary_view()), "vz"),
    (pa.array([[1], [2, 3]], pa.list_(pa.int64())), "+l"),
    (pa.array([{"a": 1}], pa.struct([("a", pa.int64())])), "+s"),
    (pa.array([1, 2], pa.time32("s")), "tts"),
    (pa.array([1, 2], pa.date64()), "tdm"),
    (pa.array([1.5], pa.float16()), "e"),
    (pa.array([None, None], pa.null()), "n"),
    (pa.array([1], pa.timestamp("us", tz="America/New_York")), "tsu:America/New_York"),
    (pa.array([d("1")], pa.decimal256(40, 0)), "d:40,0,256"),
    (pa.array([1], pa.duration("s")), "tDs"),
    (pa.array([b"ab"], pa.binary(2)), "w:2"),
])
def test_unsupported_formats_name_format_and_column(array, fmt):
    table = pa.table({"ok": pa.array([1] * len(array), pa.int64()), "bad_col": array})
    with pytest.raises(tandem_ffi.TandemError) as info:
        tandem_ffi.roundtrip(table)
    assert str(info.value) == f"not supported yet: Arrow format '{fmt}' (column bad_col)"
    assert info.value.code == 2


def test_dictionary_is_unsupported():
    table = pa.table({"dict_col": pa.array(["a", "b", "a"]).dictionary_encode()})
    with pytest.raises(tandem_ffi.TandemError, match=r"not supported yet: Arrow format 'i' with "
                                                     r"a dictionary of 'u' \(column dict_col\)"):
        tandem_ffi.roundtrip(table)


def buffer_addresses(table):
    """(column, buffer index) -> address of every non-null buffer of every chunk."""
    out = {}
    for name in table.column_names:
        for c, chunk in enumerate(table[name].chunks):
            for i, buf in enumerate(chunk.buffers()):
                if buf is not None and buf.size > 0:
                    out[(name, c, i)] = buf.address
    return out


def test_zero_copy_both_ways():
    # Import wraps pyarrow's buffers and export hands the same buffers back: if either side
    # copied, the addresses pyarrow sees after the round trip would differ.
    table = every_type_table().select(["b", "i64", "f64", "dec64", "dec128", "date", "ts_utc",
                                       "s", "ls", "bin"])
    before = buffer_addresses(table)
    out = tandem_ffi.roundtrip(table)
    after = buffer_addresses(out)
    assert before and before == after


def test_exported_data_outlives_the_input():
    table = pa.table({"s": pa.array(["abc", None, "defg"] * 1000), "x": list(range(3000))})
    expected = table.to_pydict()
    out = tandem_ffi.roundtrip(table)
    del table
    gc.collect()
    assert out.to_pydict() == expected
