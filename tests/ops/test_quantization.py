"""tw.quantization: values and straight-through gradients against numbers TensorFlow 2.21
gives for the same inputs (checked with it when written), errors in both modes."""
import numpy as np
import pytest

import twinflow as tw
from twinflow.ops.quantization import _nudge_np

from .cases_quantization import MN, MX, X

q = tw.quantization


def test_values_at_the_nudged_levels():
    # [-2.5, 3.7] with 15 narrow levels nudges so that 0.0 is a level.
    got = q.fake_quant_with_min_max_args([-9.0, 0.0, 0.2, 9.0], -2.5, 3.7, 4, True).numpy()
    np.testing.assert_allclose(got, [-2.6571426, 0.0, 0.0, 3.542857], rtol=1e-6)
    np.testing.assert_allclose(q.fake_quant_with_min_max_args([0.0, 6.0, -6.0]).numpy(),
                               [0.0, 5.9764705, -5.9764705], rtol=1e-6)


def test_straight_through_gradients():
    lo, hi = tw.Variable(-0.7), tw.Variable(4.9)
    x = tw.constant(X)
    dy = np.arange(12, dtype=np.float32).reshape(3, 4)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = q.fake_quant_with_min_max_vars(x, lo, hi, 5) * dy
    gx, glo, ghi = tape.gradient(y, [x, lo, hi])
    ref = q.fake_quant_with_min_max_vars_gradient(dy, X, lo, hi, 5)
    inside = (X >= -0.7 - 0.1) & (X <= 4.9 + 0.1)
    np.testing.assert_array_equal(gx.numpy(), ref[0].numpy())
    assert np.all(gx.numpy()[~inside] == 0)
    np.testing.assert_allclose([glo.numpy(), ghi.numpy()], [ref[1].numpy(), ref[2].numpy()])
    # Per channel: min/max get one sum per channel (TensorFlow: [0, 4, 11, 21]-style sums).
    lo_c, hi_c = tw.Variable(MN), tw.Variable(MX)
    with tw.GradientTape() as tape:
        y = q.fake_quant_with_min_max_vars_per_channel(X, lo_c, hi_c, 3) * dy
    g_lo, g_hi = tape.gradient(y, [lo_c, hi_c])
    nmin, nmax, _ = _nudge_np(MN, MX, 3, False)  # channel 2's [0.2, 3] nudges to [0, 2.8]
    below, above = X < nmin, X > nmax
    np.testing.assert_allclose(g_lo.numpy(), (dy * below).sum(0))
    np.testing.assert_allclose(g_hi.numpy(), (dy * above).sum(0))


def test_gradient_in_a_function_matches_eager():
    f = tw.function(lambda x: tw.gradients(
        tw.reduce_sum(q.fake_quant_with_min_max_args(x, -1.0, 1.0) * 3.0), x)[0])
    np.testing.assert_array_equal(f(tw.constant([-2.0, 0.3, 0.9, 1.5])).numpy(),
                                  [0.0, 3.0, 3.0, 0.0])


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_errors(mode):
    run = (lambda f: f()) if mode == "eager" else (lambda f: tw.function(f)())
    with pytest.raises(tw.errors.InvalidArgumentError, match="smaller than max"):
        run(lambda: q.fake_quant_with_min_max_args(tw.constant([1.0]), 2.0, 1.0))
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_bits"):
        run(lambda: q.fake_quant_with_min_max_args(tw.constant([1.0]), num_bits=1))
    with pytest.raises(tw.errors.InvalidArgumentError, match="min must have shape"):
        run(lambda: q.fake_quant_with_min_max_vars_per_channel(
            tw.constant(X), tw.constant([0.0]), tw.constant([1.0])))
    with pytest.raises(TypeError, match="float32"):
        run(lambda: q.fake_quant_with_min_max_args(tw.constant([1.0], tw.float64)))
