"""Value-by-value comparison of two pyarrow tables, NaN-aware, for the oracle tests.

Tandem normalises some types (timestamps to microseconds, 64-bit decimals for precision <= 18,
strings with 32- or 64-bit offsets), so columns are compared by value, not by Arrow type.
"""
import math

import pyarrow as pa


def _norm_type(t):
    if pa.types.is_timestamp(t):
        return pa.timestamp("us", tz=t.tz)
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return pa.binary()
    if pa.types.is_decimal(t):
        return pa.decimal128(t.precision, t.scale)
    if pa.types.is_dictionary(t):
        return _norm_type(t.value_type)
    return t


def normalise_column(col):
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    target = _norm_type(col.type)
    if target != col.type:
        col = col.cast(target, safe=False)
    return col


def same_value(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def assert_tables_equal(actual, expected, context=""):
    """Fails with the first differing column and row."""
    assert actual.num_rows == expected.num_rows, (
        f"{context}: {actual.num_rows} rows, expected {expected.num_rows}")
    assert actual.column_names == expected.column_names, (
        f"{context}: columns {actual.column_names}, expected {expected.column_names}")
    for name in expected.column_names:
        a = normalise_column(actual.column(name))
        e = normalise_column(expected.column(name))
        assert _norm_type(a.type) == _norm_type(e.type), (
            f"{context}: column {name}: type {a.type}, expected {e.type}")
        av, ev = a.to_pylist(), e.to_pylist()
        for i, (x, y) in enumerate(zip(av, ev)):
            assert same_value(x, y), f"{context}: column {name}, row {i}: {x!r} != {y!r}"
