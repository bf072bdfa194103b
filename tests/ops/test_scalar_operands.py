"""Python numbers mixed into eager arithmetic (``x * 2``) are converted once per dtype and
reused; the results must not depend on that (signed zeros, NaN, refused conversions)."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw


def _bits(t):
    return np.asarray(t.numpy()).tobytes()


def test_signed_zeros_are_not_confused():
    x = tw.constant([1.0, -2.0])
    for _ in range(2):
        assert _bits(x * 0.0) == np.array([0.0, -0.0], np.float32).tobytes()
        assert _bits(x * -0.0) == np.array([-0.0, 0.0], np.float32).tobytes()


def test_repeated_numbers_give_the_same_results_per_dtype():
    for dtype in (tw.float16, tw.float32, tw.float64, tw.int32, tw.int64, tw.complex64):
        x = tw.constant([3, 4], dtype=dtype)
        want = [(x * 2).numpy(), (2 + x).numpy(), (x - 1).numpy()]
        for _ in range(2):
            got = [(x * 2).numpy(), (2 + x).numpy(), (x - 1).numpy()]
            for g, w in zip(got, want):
                assert g.dtype == w.dtype == dtype.np
                np.testing.assert_array_equal(g, w)
    assert np.isnan((tw.constant(1.0) * float("nan")).numpy())
    assert (tw.constant(1.0) * 1e300).numpy() == np.inf  # float32 overflow, as TensorFlow


def test_refused_conversions_still_raise():
    x = tw.constant([1, 2])
    for _ in range(2):
        with pytest.raises((TypeError, tw.errors.InvalidArgumentError)):
            x + 1.5
    assert (tw.constant([True, False]) * 1).numpy().tolist() == [True, False]


def test_a_shared_operand_is_read_only():
    x = tw.constant([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * 3.0
    record = tape._ops[-1]
    assert not record.inputs[1]._value.flags.writeable
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])
