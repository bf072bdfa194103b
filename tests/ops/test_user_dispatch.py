"""tw.experimental.dispatch_for_*: user types reach twinflow's APIs (eager and in functions)."""
import numpy as np
import pytest

import twinflow as tw


class Masked:
    def __init__(self, values, mask):
        self.values, self.mask = values, mask


class MaskedET(tw.experimental.ExtensionType):
    values: tw.Tensor
    mask: tw.Tensor


def test_dispatch_for_api_and_elementwise_handlers():
    a = Masked(tw.constant([1.0, 2.0]), np.array([True, False]))

    @tw.experimental.dispatch_for_api(tw.math.add)
    def masked_add(x: Masked, y: Masked, name=None):
        return Masked(tw.math.add(x.values, y.values), x.mask & y.mask)

    @tw.experimental.dispatch_for_unary_elementwise_apis(Masked)
    def unary(api, x, name=None):
        return Masked(api(x.values), x.mask)

    @tw.experimental.dispatch_for_binary_elementwise_apis(Masked, Masked)
    def binary(api, x, y, name=None):
        return Masked(api(x.values, y.values), x.mask & y.mask)

    @tw.experimental.dispatch_for_binary_elementwise_assert_apis(Masked, Masked)
    def asserts(api, x, y, message=None, summarize=None, name=None):
        return api(x.values, y.values, message=message)
    try:
        np.testing.assert_allclose(tw.math.add(a, a).values, [2.0, 4.0])
        np.testing.assert_allclose(tw.math.exp(a).values, np.exp([1.0, 2.0]), rtol=1e-6)
        np.testing.assert_allclose(tw.math.multiply(a, a).values, [1.0, 4.0])
        assert tw.debugging.assert_equal(a, a) is None
        with pytest.raises(tw.errors.InvalidArgumentError):
            tw.debugging.assert_equal(a, Masked(tw.constant([0.0, 0.0]), a.mask))

        @tw.function
        def f(x):
            return tw.math.sqrt(Masked(x, None)).values
        np.testing.assert_allclose(f(tw.constant([4.0])), [2.0])
    finally:
        for target in (masked_add, unary, binary, asserts):
            tw.experimental.unregister_dispatch_for(target)
    with pytest.raises(ValueError):
        tw.math.add(a, a)  # nothing registered any more: the usual conversion error
    with pytest.raises(ValueError, match="not registered"):
        tw.experimental.unregister_dispatch_for(masked_add)


def test_dispatch_for_composite_values_and_bad_registrations():
    @tw.experimental.dispatch_for_api(tw.math.reduce_sum, {"input_tensor": MaskedET})
    def masked_sum(input_tensor, axis=None, keepdims=False, name=None):
        return tw.math.reduce_sum(tw.where(input_tensor.mask, input_tensor.values, 0.0), axis,
                                  keepdims, name)
    try:
        m = MaskedET(values=tw.constant([1.0, 2.0, 3.0]), mask=tw.constant([True, False, True]))
        assert float(tw.math.reduce_sum(m)) == 4.0
    finally:
        tw.experimental.unregister_dispatch_for(masked_sum)
    with pytest.raises(ValueError, match="supports dispatch"):
        tw.experimental.dispatch_for_api(tw.print)
    with pytest.raises(ValueError, match="does not match"):
        @tw.experimental.dispatch_for_api(tw.math.add)
        def bad(a: Masked, b: Masked):
            return a
