"""dynamic_partition / dynamic_stitch in graphs (their lengths depend on values), gradients
through them in a tw.function, and the errors of the batch/space ops in both modes."""
import numpy as np
import pytest

import twinflow as tw

from .cases_batch_space import D, P


def test_partition_and_stitch_in_a_function_with_gradients():
    @tw.function
    def f(d, p):
        parts = tw.dynamic_partition(d, p, 3)
        idx = tw.dynamic_partition(tw.range(tw.size(p)), p, 3)
        back = tw.dynamic_stitch(idx, [x * float(i + 1) for i, x in enumerate(parts)])
        return back, tw.gradients(tw.reduce_sum(back), d)[0], [x.shape.rank for x in parts]

    back, grad, ranks = f(tw.constant(D), tw.constant(P))
    scale = (P + 1).astype(np.float64)[:, None]
    np.testing.assert_allclose(back.numpy(), D * scale)
    np.testing.assert_allclose(grad.numpy(), np.broadcast_to(scale, D.shape))
    assert ranks == [2, 2, 2]


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_errors(mode):
    run = (lambda f: f()) if mode == "eager" else (lambda f: tw.function(f)())
    err = tw.errors.InvalidArgumentError
    with pytest.raises(err, match="divisible by block_shape"):
        run(lambda: tw.space_to_batch_nd(tw.zeros([1, 5, 4, 1]), [2, 2], [[0, 0], [0, 0]]))
    with pytest.raises(err, match="not divisible by the product"):
        run(lambda: tw.batch_to_space(tw.zeros([3, 2, 2, 1]), [2, 1], [[0, 0], [0, 0]]))
    with pytest.raises(err, match="shape \\[2, 2\\]"):
        run(lambda: tw.space_to_batch_nd(tw.zeros([1, 4, 4, 1]), [2, 2], [[0, 0]]))
    with pytest.raises(err, match="outside \\[0, 2\\)"):
        run(lambda: tw.dynamic_partition(tw.constant([1.0, 2.0]), tw.constant([0, 2]), 2))
    with pytest.raises(err, match="start with partitions.shape"):
        run(lambda: tw.dynamic_partition(tw.zeros([2, 3]), tw.constant([0, 1, 0]), 2))


def test_required_paddings_and_the_dilated_convolution_identity():
    paddings, crops = tw.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 1]])
    assert paddings.numpy().tolist() == [[1, 0], [0, 2]]
    assert crops.numpy().tolist() == [[0, 0], [0, 1]]
    # atrous convolution = space_to_batch, plain convolution, batch_to_space.
    x = tw.constant(np.random.default_rng(0).normal(size=(1, 8, 8, 1)), tw.float32)
    w = tw.constant(np.random.default_rng(1).normal(size=(3, 3, 1, 1)), tw.float32)
    want = tw.nn.conv2d(x, w, 1, "VALID", dilations=2)
    pad, crop = tw.required_space_to_batch_paddings([8, 8], [2, 2])
    y = tw.nn.conv2d(tw.space_to_batch_nd(x, [2, 2], pad), w, 1, "VALID")
    got = tw.batch_to_space(y, [2, 2], crop)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
