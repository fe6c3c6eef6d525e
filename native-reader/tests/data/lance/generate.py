"""Writes the Lance fixtures of native-reader/src/decode/lance/tests.rs with pylance 0.39.0 (the Lance of
Paimon 2.0.0's lance-core 0.39.0) and its default file version, 2.0:

    python3 -m venv /tmp/lv && /tmp/lv/bin/pip install pylance==0.39.0
    /tmp/lv/bin/python native-reader/tests/data/lance/generate.py native-reader/tests/data/lance

The values are the tests' expected values; change both together.
"""
import os
import sys
from decimal import Decimal

import pyarrow as pa
from lance.file import LanceFileWriter

out = os.path.abspath(sys.argv[1])

# Every encoding the 2.0 writer picks for Paimon's Arrow types: flat values with and without NULLs, booleans,
# binary and (>= 100 values of < 100 distinct) dictionary strings, lists with NULL and empty lists, structs,
# fixed-size lists, fixed-size binary, and an all-NULL column.
n = 120
table = pa.table(
    {
        "i": pa.array([None if r % 7 == 3 else r * 3 - 50 for r in range(n)], pa.int32()),
        "l": pa.array([r * 1_000_000_007 for r in range(n)], pa.int64()),
        "b": pa.array([None if r % 5 == 0 else r % 3 == 0 for r in range(n)], pa.bool_()),
        "d": pa.array([r / 4 for r in range(n)], pa.float64()),
        "s": pa.array([None if r % 11 == 0 else "v" * (r % 4) + str(r) for r in range(n)], pa.string()),
        "k": pa.array([None if r % 9 == 0 else "key-" + str(r % 5) for r in range(n)], pa.string()),
        "dec": pa.array(
            [None if r == 1 else Decimal(r * 1234 - 5000).scaleb(-2) for r in range(n)], pa.decimal128(10, 2)
        ),
        "ts": pa.array([r * 86_400_000_123 for r in range(n)], pa.timestamp("us")),
        "dt": pa.array([r * 3 for r in range(n)], pa.int32()).cast(pa.date32()),
        "bin": pa.array([bytes([r % 256, 0, 255]) if r % 6 else None for r in range(n)], pa.binary()),
        "list": pa.array(
            [None if r % 10 == 4 else list(range(r % 4)) for r in range(n)], pa.list_(pa.int32())
        ),
        "row": pa.array(
            [{"x": r, "y": None if r % 2 else "y" + str(r)} for r in range(n)],
            pa.struct([("x", pa.int32()), ("y", pa.string())]),
        ),
        "vec": pa.array([[r, r + 0.5, -r] for r in range(n)], pa.list_(pa.float32(), 3)),
        "fixed": pa.array([bytes([r, r, r, r]) for r in range(n)], pa.binary(4)),
        "none": pa.array([None] * n, pa.int64()),
    }
)
w = LanceFileWriter(f"{out}/types.lance")
w.write_batch(table)
w.close()
