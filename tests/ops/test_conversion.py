"""Conversion of Python values to tensors: auto-packing lists that hold tensors, and bytes."""
import numpy as np
import pytest

import twinflow as tw


def _shape_lists(x):
    s = tw.shape(x)
    return (tw.concat([s, [tw.reduce_sum(s)]], 0), tw.convert_to_tensor([s[0], 2]),
            tw.convert_to_tensor([[s[0]], [2]], dtype=tw.int32), tw.reshape(x, [s[0] * s[1]]))


@pytest.mark.parametrize("graph", [False, True])
def test_lists_holding_tensors_are_packed(graph):
    fn = tw.function(_shape_lists) if graph else _shape_lists
    cat, pair, col, flat = fn(tw.zeros([2, 3]))
    np.testing.assert_array_equal(cat.numpy(), [2, 3, 5])
    np.testing.assert_array_equal(pair.numpy(), [2, 2])
    np.testing.assert_array_equal(col.numpy(), [[2], [2]])
    assert flat.shape == (6,)


def test_packing_a_list_of_mixed_dtypes_is_an_error_in_both_modes():
    def mixed():
        return tw.convert_to_tensor([tw.constant(1.0), tw.constant(2)])
    for fn in (mixed, tw.function(mixed)):
        with pytest.raises(TypeError, match="tensor of dtype int32 to float32"):
            fn()


def test_trailing_nul_bytes_are_kept():
    assert tw.convert_to_tensor(b"ab\x00\x00", dtype=tw.string).numpy() == b"ab\x00\x00"
    got = tw.constant([b"ab\x00", "c"], dtype=tw.string).numpy()
    assert list(got) == [b"ab\x00", b"c"]
    assert tw.constant(b"a\x00").numpy() == b"a\x00"
