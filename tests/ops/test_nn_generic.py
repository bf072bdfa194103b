"""tw.nn's rank-generic functions route to the 1-D/2-D/3-D op and reject other ranks the same
way eagerly and in tw.function (values and gradients against NumPy: cases_nn_generic.py)."""
import numpy as np
import pytest

import twinflow as tw

rng = np.random.default_rng(5)
X = {3: rng.normal(size=(2, 8, 3)), 4: rng.normal(size=(2, 6, 5, 3)),
     5: rng.normal(size=(2, 4, 5, 4, 3))}
F = {3: rng.normal(size=(3, 3, 2)), 4: rng.normal(size=(3, 2, 3, 2)),
     5: rng.normal(size=(2, 3, 2, 3, 2))}
FIRST = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
DIRECT_POOL = {3: (tw.nn.max_pool1d, tw.nn.avg_pool1d), 4: (tw.nn.max_pool2d, tw.nn.avg_pool2d),
               5: (tw.nn.max_pool3d, tw.nn.avg_pool3d)}
DIRECT_CONV = {3: tw.nn.conv1d, 4: tw.nn.conv2d, 5: tw.nn.conv3d}
DIRECT_CONV_T = {3: tw.nn.conv1d_transpose, 4: tw.nn.conv2d_transpose,
                 5: tw.nn.conv3d_transpose}


def _both(fn, *args):
    """fn(*args) eagerly and inside tw.function, as NumPy."""
    return fn(*args).numpy(), tw.function(fn)(*args).numpy()


@pytest.mark.parametrize("rank", [3, 4, 5])
@pytest.mark.parametrize("first", [False, True])
def test_pools_route_by_rank(rank, first):
    x = np.moveaxis(X[rank], -1, 1) if first else X[rank]
    fmt = FIRST[rank] if first else None
    for generic, direct, kind in [(tw.nn.max_pool, DIRECT_POOL[rank][0], "MAX"),
                                  (tw.nn.avg_pool, DIRECT_POOL[rank][1], "AVG")]:
        want = direct(x, 2, 2, "SAME", **({"data_format": fmt} if fmt else {})).numpy()
        for got in _both(lambda t, g=generic: g(t, 2, 2, "SAME", data_format=fmt), x):
            np.testing.assert_array_equal(got, want)
        for got in _both(lambda t, k=kind: tw.nn.pool(t, [2] * (rank - 2), k,
                                                     [2] * (rank - 2), "SAME", fmt), x):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("rank", [3, 4, 5])
def test_convolution_and_conv_transpose_route_by_rank(rank):
    x, f = X[rank], F[rank]
    want = DIRECT_CONV[rank](x, f, 2, "SAME").numpy()
    for got in _both(lambda t: tw.nn.convolution(t, f, 2, "SAME"), x):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    fmt = FIRST[rank]
    want_first = DIRECT_CONV[rank](np.moveaxis(x, -1, 1), f, 1, "VALID", fmt).numpy()
    for got in _both(lambda t: tw.nn.convolution(t, f, data_format=fmt), np.moveaxis(x, -1, 1)):
        np.testing.assert_allclose(got, want_first, rtol=1e-12)
    dy = rng.normal(size=want.shape)
    out_shape = list(x.shape)
    want_t = DIRECT_CONV_T[rank](dy, f, out_shape, 2).numpy()
    for got in _both(lambda t: tw.nn.conv_transpose(t, f, out_shape, 2), dy):
        np.testing.assert_allclose(got, want_t, rtol=1e-12)
    # the transposed convolution is the input gradient of the forward one
    xv = tw.constant(x)
    with tw.GradientTape() as tape:
        tape.watch(xv)
        y = tw.nn.convolution(xv, f, 2, "SAME")
    np.testing.assert_allclose(tape.gradient(y, xv, output_gradients=tw.constant(dy)).numpy(),
                               want_t, rtol=1e-10)


BAD = [
    (lambda t: tw.nn.max_pool(t, 2, 1, "VALID"), r"tw\.nn\.max_pool: .*got rank (2|6)"),
    (lambda t: tw.nn.avg_pool(t, 2, 1, "VALID"), r"tw\.nn\.avg_pool: .*got rank (2|6)"),
    (lambda t: tw.nn.convolution(t, tw.zeros([1, 1]), padding="SAME"),
     r"tw\.nn\.convolution: .*got rank (2|6)"),
    (lambda t: tw.nn.pool(t, [1, 1], "MAX"), r"tw\.nn\.pool: a 2-D window .*got rank (2|6)"),
]


@pytest.mark.parametrize("rank", [2, 6])
@pytest.mark.parametrize("fn,msg", BAD)
def test_bad_ranks_are_named_eagerly_and_in_function(rank, fn, msg):
    x = np.zeros([2] * rank)
    with pytest.raises(ValueError, match=msg):
        fn(x)
    with pytest.raises(ValueError, match=msg):
        tw.function(fn)(x)


@pytest.mark.parametrize("eager", [True, False])
def test_other_bad_calls(eager):
    def run(fn, *args):
        return fn(*args) if eager else tw.function(fn)(*args)
    with pytest.raises(ValueError, match="conv_transpose: output_shape must have 3, 4 or 5"):
        run(lambda t: tw.nn.conv_transpose(t, tw.zeros([1, 1]), [2, 2], 1), np.zeros([2, 2]))
    with pytest.raises(ValueError, match="must be 'NWC' or 'NCW', got 'NHWC'"):
        run(lambda t: tw.nn.max_pool(t, 2, 1, "VALID", data_format="NHWC"), X[3])
    with pytest.raises(ValueError, match="len\\(window_shape\\) must be 1, 2 or 3"):
        run(lambda t: tw.nn.pool(t, [1, 1, 1, 1], "MAX"), np.zeros([2] * 6))
    with pytest.raises(ValueError, match="2-D MIN pooling is not supported"):
        run(lambda t: tw.nn.pool(t, [1, 1], "MIN"), X[4])
    with pytest.raises(ValueError, match="strides > 1 are not supported together"):
        run(lambda t: tw.nn.pool(t, [2], "MAX", [2], dilations=[2]), X[3])
    with pytest.raises(ValueError, match="padding 'SAME' is not supported with dilations"):
        run(lambda t: tw.nn.pool(t, [2], "MAX", padding="SAME", dilations=[2]), X[3])


def test_unknown_rank_uses_data_format():
    spec = tw.TensorSpec(None, tw.float64)
    pooled = tw.function(lambda t: tw.nn.max_pool(t, 2, 2, "VALID", data_format="NCDHW"),
                         input_signature=[spec])
    x = np.moveaxis(X[5], -1, 1)
    np.testing.assert_array_equal(pooled(x).numpy(),
                                  tw.nn.max_pool3d(x, 2, 2, "VALID", "NCDHW").numpy())
    with pytest.raises(ValueError, match="max_pool: the input needs a known rank or a "
                                         "data_format"):
        tw.function(lambda t: tw.nn.max_pool(t, 2, 2, "VALID"),
                    input_signature=[spec]).get_concrete_function()
