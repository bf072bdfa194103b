"""tw.experimental.RowPartition: every encoding from every factory (values as TensorFlow 2.21
gives them), eagerly and in a function."""
import numpy as np
import pytest

import twinflow as tw

RP = tw.experimental.RowPartition


def test_encodings_and_factories():
    p = RP.from_row_lengths([2, 0, 3])
    np.testing.assert_array_equal(p.row_splits(), [0, 2, 2, 5])
    np.testing.assert_array_equal(p.value_rowids(), [0, 0, 2, 2, 2])
    np.testing.assert_array_equal(p.offsets_in_rows(), [0, 1, 0, 1, 2])
    np.testing.assert_array_equal(p.row_starts(), [0, 2, 2])
    np.testing.assert_array_equal(p.row_limits(), [2, 2, 5])
    assert (int(p.nrows()), int(p.nvals()), p.static_nrows, p.static_nvals) == (3, 5, 3, 5)
    np.testing.assert_array_equal(RP.from_value_rowids([0, 0, 2, 2, 2], nrows=4).row_splits(),
                                  [0, 2, 2, 5, 5])
    np.testing.assert_array_equal(RP.from_row_starts([0, 2, 2], 5).row_lengths(), [2, 0, 3])
    np.testing.assert_array_equal(RP.from_row_limits([2, 2, 5]).row_splits(), [0, 2, 2, 5])
    u = RP.from_uniform_row_length(2, 6)
    assert u.is_uniform() and not p.is_uniform() and int(u.uniform_row_length()) == 2
    assert u.with_dtype(tw.int32).row_splits().dtype == tw.int32
    np.testing.assert_array_equal(u.row_splits(), [0, 2, 4, 6])
    with pytest.raises(ValueError, match="start at 0"):
        RP.from_row_splits([1, 2])
    with pytest.raises(ValueError, match="nvals"):
        RP.from_uniform_row_length(4, 6, nrows=2)
    with pytest.raises(ValueError, match="private"):
        RP(tw.constant([0]))


def test_in_a_function():
    @tw.function
    def f(lengths):
        return RP.from_row_lengths(lengths).value_rowids()
    np.testing.assert_array_equal(f(tw.constant([1, 2], tw.int64)), [0, 1, 1])
