"""Decimal + and - where Spark's result type keeps fewer fractional digits than the operands
(decimal(38, 10) + decimal(38, 10) is decimal(38, 9)): Tandem's answer must be the exact sum
rounded HALF_UP to the result's scale, as Spark computes it with java.math.BigDecimal. The
oracle is Python's decimal module; the cases include ties at the rounding digit, sums whose
full-scale form needs more than 128 bits, mixed signs and cancellation.
"""
import random
from decimal import ROUND_HALF_UP, Decimal, localcontext

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from random_queries import run_tandem, tandem_command

MAX_PRECISION = 38


def result_type(p1, s1, p2, s2):
    """Spark's add/subtract result type (DecimalPrecision with allowPrecisionLoss)."""
    scale = max(s1, s2)
    precision = max(p1 - s1, p2 - s2) + scale + 1
    if precision <= MAX_PRECISION:
        return precision, scale
    int_digits = precision - scale
    return MAX_PRECISION, max(MAX_PRECISION - int_digits, min(scale, 6))


def random_value(rng, precision, scale, int_digits):
    """A decimal(precision, scale) value with at most int_digits digits before the point."""
    top = min(precision, int_digits + scale)
    digits = rng.choice([1, 5, top // 2, top - 1, top])
    unscaled = rng.randrange(10 ** digits)
    if rng.random() < 0.2:  # a tie at the rounding digit of a lower scale
        unscaled = unscaled // 10 * 10 + 5
    return Decimal(unscaled * (-1 if rng.random() < 0.5 else 1)).scaleb(-scale)


TYPES = [((38, 10), (38, 10)), ((38, 10), (38, 12)), ((38, 0), (38, 30)), ((38, 20), (20, 2)),
         ((38, 37), (38, 1))]


@pytest.mark.parametrize("left,right", TYPES)
def test_sum_is_rounded_from_the_exact_value(tmp_path, left, right):
    if not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    rng = random.Random(left[0] * 1000 + left[1] * 100 + right[0] * 10 + right[1])
    p, s = result_type(*left, *right)
    room = p - s - 1  # integer digits that cannot overflow the result type
    a = [random_value(rng, *left, room) for _ in range(400)]
    b = [random_value(rng, *right, room) for _ in range(400)]
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": pa.array(a, pa.decimal128(*left)),
                             "b": pa.array(b, pa.decimal128(*right))}), path)
    _, rows, _ = run_tandem("select a + b, a - b from t", {"t": str(path)})
    quantum = Decimal(1).scaleb(-s)
    bad = []
    with localcontext() as ctx:
        ctx.prec = 100
        for x, y, (got_sum, got_diff) in zip(a, b, rows):
            for exact, got in ((x + y, got_sum), (x - y, got_diff)):
                want = exact.quantize(quantum, rounding=ROUND_HALF_UP)
                if got is None or Decimal(got) != want:
                    bad.append(f"{x} , {y}: {got} (want {want})")
    assert not bad, f"decimal{left} +- decimal{right} -> decimal({p},{s}):\n" + "\n".join(bad[:10])


def multiply_type(p1, s1, p2, s2):
    """Spark's multiply result type (with allowPrecisionLoss)."""
    precision, scale = p1 + p2 + 1, s1 + s2
    if precision <= MAX_PRECISION:
        return precision, scale
    return MAX_PRECISION, max(MAX_PRECISION - (precision - scale), min(scale, 6))


@pytest.mark.parametrize("left,right", [((38, 10), (38, 10)), ((38, 18), (20, 4)),
                                        ((30, 4), (15, 2))])
def test_product_is_rounded_from_the_exact_value(tmp_path, left, right):
    """Products past 128 bits before rounding (both signs): the exact product, rounded."""
    if not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    rng = random.Random(left[0] * 1000 + left[1] * 100 + right[0] * 10 + right[1])
    p, s = multiply_type(*left, *right)
    room = (p - s) // 2  # integer digits per operand that cannot overflow the product
    a = [random_value(rng, *left, room) for _ in range(400)]
    b = [random_value(rng, *right, room) for _ in range(400)]
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": pa.array(a, pa.decimal128(*left)),
                             "b": pa.array(b, pa.decimal128(*right))}), path)
    _, rows, _ = run_tandem("select a * b from t", {"t": str(path)})
    quantum = Decimal(1).scaleb(-s)
    with localcontext() as ctx:
        ctx.prec = 100
        bad = [f"{x} * {y}: {got} (want {(x * y).quantize(quantum, rounding=ROUND_HALF_UP)})"
               for x, y, (got,) in zip(a, b, rows)
               if got is None or Decimal(got) != (x * y).quantize(quantum, rounding=ROUND_HALF_UP)]
    assert not bad, f"decimal{left} * decimal{right} -> decimal({p},{s}):\n" + "\n".join(bad[:10])
