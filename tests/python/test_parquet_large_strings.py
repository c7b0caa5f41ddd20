"""A string column chunk past 2 GiB: Tandem must switch it to 64-bit offsets and export it as an
Arrow large_string. pyarrow writes one row group of 1100 strings of 2 MiB (~2.2 GiB, uncompressed,
PLAIN), built zero-copy from a numpy buffer; the expected values are regenerated from the same
formula, so the oracle does not depend on Tandem. Measured: 8 s and 4.7 GB peak RSS."""
import gc
import os
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import tandem_ffi

ROWS = 1100
VALUE_BYTES = 2 << 20  # 2 MiB per string: 2.2 GiB in all, past INT32_MAX bytes


def expected_value(i):
    """Row i: a 12-byte decimal header then one repeated letter, per row."""
    head = b"%011d:" % i
    return head + bytes([ord("a") + i % 26]) * (VALUE_BYTES - len(head))


def build_table():
    data = np.empty(ROWS * VALUE_BYTES, dtype=np.uint8)
    for i in range(ROWS):
        row = data[i * VALUE_BYTES:(i + 1) * VALUE_BYTES]
        row.fill(ord("a") + i % 26)
        head = b"%011d:" % i
        row[:len(head)] = np.frombuffer(head, dtype=np.uint8)
    offsets = np.arange(ROWS + 1, dtype=np.int64) * VALUE_BYTES
    array = pa.LargeStringArray.from_buffers(ROWS, pa.py_buffer(offsets), pa.py_buffer(data))
    return pa.table({"id": pa.array(np.arange(ROWS, dtype=np.int64)), "s": array})


@pytest.mark.large_data
def test_string_chunk_past_2gib_reads_as_large_string(tmp_path):
    path = str(tmp_path / "large_strings.parquet")
    start = time.monotonic()
    table = build_table()
    pq.write_table(table, path, compression="none", use_dictionary=False, write_statistics=False,
                   row_group_size=ROWS, data_page_size=VALUE_BYTES, write_batch_size=16)
    del table
    gc.collect()
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 1
    assert meta.row_group(0).column(1).total_uncompressed_size > 2**31

    try:
        result = tandem_ffi.read_parquet(path)
    finally:
        os.remove(path)
    assert result.num_rows == ROWS
    assert result.schema.field("s").type == pa.large_string()
    ids = result.column("id").to_numpy()
    assert (ids == np.arange(ROWS)).all()
    strings = result.column("s")
    lengths = pc.binary_length(strings).to_numpy()
    assert (lengths == VALUE_BYTES).all()
    for i in (0, 1, 25, 26, 547, 1023, 1024, 1025, ROWS - 2, ROWS - 1):
        assert strings[i].as_py().encode() == expected_value(i), f"row {i}"
    # A guard against a hang or a quadratic copy, not a performance figure: alone it takes 8-17 s,
    # but beside the rest of the suite on two cores it has taken over 60.
    assert time.monotonic() - start < 300
