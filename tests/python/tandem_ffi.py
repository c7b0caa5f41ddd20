"""Bridge from Python tests to libtandem_c.so: tables cross as Arrow C streams (zero copy).

The library is found through TANDEM_C_LIB (set by ctest), else TANDEM_BUILD_DIR/libtandem_c.so.
Every call raises TandemError(message) when Tandem reports an error.

Tandem keeps decimals of up to 18 digits in 64 bits and exports them as Arrow decimal64; the
readers here widen them to decimal128 by default (widen_decimals=True) so that results compare
equal to what pyarrow's own readers return. roundtrip() returns exactly what Tandem exported.
"""
import ctypes
import os

import pyarrow as pa

__all__ = ["TandemError", "library", "read_parquet", "write_parquet", "read_csv", "write_csv",
           "roundtrip", "widen_decimals"]

_ERR_LEN = 4096


class TandemError(Exception):
    """An error reported by Tandem; .code is the Tandem status code (1 invalid, 2 unsupported,
    3 out of memory, 4 I/O, 5 internal)."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


class ArrowArrayStream(ctypes.Structure):
    """struct ArrowArrayStream: four callbacks and private data, all pointer sized."""
    _fields_ = [("get_schema", ctypes.c_void_p), ("get_next", ctypes.c_void_p),
                ("get_last_error", ctypes.c_void_p), ("release", ctypes.c_void_p),
                ("private_data", ctypes.c_void_p)]


_STREAM_P = ctypes.POINTER(ArrowArrayStream)
_lib = None


def _library_path():
    path = os.environ.get("TANDEM_C_LIB")
    if path:
        return path
    build = os.environ.get("TANDEM_BUILD_DIR")
    if build:
        return os.path.join(build, "libtandem_c.so")
    raise TandemError("set TANDEM_C_LIB (or TANDEM_BUILD_DIR) to find libtandem_c.so")


def library():
    """The loaded libtandem_c.so, with argument types declared."""
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(_library_path())
    err = [ctypes.c_char_p, ctypes.c_size_t]
    lib.tandem_roundtrip.argtypes = [_STREAM_P, _STREAM_P] + err
    lib.tandem_read_parquet.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                        _STREAM_P] + err
    lib.tandem_write_parquet.argtypes = [_STREAM_P, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.c_int, ctypes.c_int64] + err
    lib.tandem_read_csv.argtypes = [ctypes.c_char_p, ctypes.c_char, ctypes.c_int,
                                    _STREAM_P] + err
    lib.tandem_write_csv.argtypes = [_STREAM_P, ctypes.c_char_p] + err
    for fn in (lib.tandem_roundtrip, lib.tandem_read_parquet, lib.tandem_write_parquet,
               lib.tandem_read_csv, lib.tandem_write_csv):
        fn.restype = ctypes.c_int
    _lib = lib
    return lib


def _call(fn, *args):
    err = ctypes.create_string_buffer(_ERR_LEN)
    rc = fn(*args, err, _ERR_LEN)
    if rc != 0:
        raise TandemError(err.value.decode("utf-8", "replace"), rc)


def _stream_from(table):
    """A C stream exported from a RecordBatchReader over the table (the callee consumes it)."""
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    stream = ArrowArrayStream()
    reader._export_to_c(ctypes.addressof(stream))
    return stream


def _table_from(stream):
    """Reads a C stream Tandem exported; pyarrow takes ownership of it."""
    reader = pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))
    return reader.read_all()


def _release_if_live(stream):
    """Releases a stream the callee did not consume (defensive; Tandem always consumes)."""
    if stream.release:
        ctypes.CFUNCTYPE(None, _STREAM_P)(stream.release)(ctypes.byref(stream))


def widen_decimals(table):
    """Casts decimal32/decimal64 columns to decimal128 of the same precision and scale."""
    fields = []
    for f in table.schema:
        if pa.types.is_decimal(f.type) and f.type.bit_width < 128:
            f = f.with_type(pa.decimal128(f.type.precision, f.type.scale))
        fields.append(f)
    schema = pa.schema(fields, metadata=table.schema.metadata)
    return table if schema == table.schema else table.cast(schema)


def roundtrip(table):
    """Imports the table into Tandem and exports it back, unchanged in type and value."""
    lib = library()
    src = _stream_from(table)
    out = ArrowArrayStream()
    try:
        _call(lib.tandem_roundtrip, ctypes.byref(src), ctypes.byref(out))
    finally:
        _release_if_live(src)
    return _table_from(out)


def read_parquet(path, columns=None, num_threads=0, widen=True):
    lib = library()
    cols = ",".join(columns).encode() if columns else None
    out = ArrowArrayStream()
    _call(lib.tandem_read_parquet, os.fsencode(path), cols, num_threads, ctypes.byref(out))
    table = _table_from(out)
    return widen_decimals(table) if widen else table


def write_parquet(table, path, codec="snappy", dictionary=True, row_group_rows=0):
    lib = library()
    src = _stream_from(table)
    try:
        _call(lib.tandem_write_parquet, ctypes.byref(src), os.fsencode(path), codec.encode(),
              1 if dictionary else 0, int(row_group_rows))
    finally:
        _release_if_live(src)


def read_csv(path, delimiter=",", header=True, widen=True):
    lib = library()
    out = ArrowArrayStream()
    _call(lib.tandem_read_csv, os.fsencode(path), delimiter.encode(), 1 if header else 0,
          ctypes.byref(out))
    table = _table_from(out)
    return widen_decimals(table) if widen else table


def write_csv(table, path):
    lib = library()
    src = _stream_from(table)
    try:
        _call(lib.tandem_write_csv, ctypes.byref(src), os.fsencode(path))
    finally:
        _release_if_live(src)
