"""The strided-view convolution/pooling kernels (``ops/nn/conv_kernels.py``) against reference
loops over output positions (``cases_conv_nd``, ``cases_nn``)."""
from __future__ import annotations

import numpy as np
import pytest

from twinflow.ops.nn import conv_kernels as ck

from .cases_conv_nd import np_conv, np_conv_input_grad, np_pool
from .cases_nn import np_avg_pool_grad, np_max_pool_grad, np_max_pool_grad_grad

rng = np.random.default_rng(3)

GEOMS = [  # (input shape, filter spatial, strides, padding)
    ((2, 9), (3,), (2,), "SAME"),
    ((2, 7, 6), (3, 2), (1, 1), "VALID"),
    ((1, 8, 7), (3, 3), (2, 3), "SAME"),
    ((2, 5, 4, 6), (2, 3, 2), (2, 1, 2), "SAME"),
]


@pytest.mark.parametrize("spatial,k,strides,padding", GEOMS)
def test_conv_and_gradients_match_loops(spatial, k, strides, padding):
    x = rng.normal(size=(*spatial, 3))
    w = rng.normal(size=(*k, 3, 4))
    r = len(k)
    out_sp, pads = ck.geometry(x.shape[1:-1], k, strides, (1,) * r, padding)
    y = ck.conv(x, w, strides, (1,) * r, pads)
    np.testing.assert_allclose(y, np_conv(x, w, strides, padding), rtol=1e-10, atol=1e-12)
    dy = rng.normal(size=y.shape)
    np.testing.assert_allclose(ck.conv_backprop_input(x.shape, w, dy, strides, (1,) * r, pads),
                               np_conv_input_grad(dy, w, x.shape, strides, padding),
                               rtol=1e-10, atol=1e-12)
    # the filter gradient is the adjoint of the convolution in w: <dy, conv(x, w')> = <dw, w'>
    dw = ck.conv_backprop_filter(x, w.shape, dy, strides, (1,) * r, pads)
    w2 = rng.normal(size=w.shape)
    np.testing.assert_allclose(np.sum(dw * w2), np.sum(dy * ck.conv(x, w2, strides, (1,) * r,
                                                                    pads)), rtol=1e-10)


def test_backprop_input_paths_agree():
    # few input channels take the scatter path; many the full-correlation path
    for c, o in ((1, 8), (8, 8)):
        x = rng.normal(size=(2, 7, 7, c))
        w = rng.normal(size=(3, 3, c, o))
        _, pads = ck.geometry((7, 7), (3, 3), (2, 2), (1, 1), "SAME")
        dy = rng.normal(size=(2, 4, 4, o))
        a = ck.conv_backprop_input(x.shape, w, dy, (2, 2), (1, 1), pads)
        b = ck._backprop_input_scatter(x.shape, w, dy, (2, 2), (1, 1), pads)
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k,s,padding", [((2, 2), (2, 2), "SAME"), ((3, 3), (1, 2), "SAME"),
                                         ((3, 2), (2, 1), "VALID")])
def test_pools_match_loops(k, s, padding):
    x = rng.permutation(2 * 7 * 6 * 3).reshape(2, 7, 6, 3) / 3.0
    _, pads = ck.geometry((7, 6), k, s, (1, 1), padding)
    y = ck.max_pool(x, k, s, pads)
    np.testing.assert_array_equal(y, np_pool(x, k, s, padding, np.max))
    dy = rng.normal(size=y.shape)
    np.testing.assert_allclose(ck.max_pool_grad(x, dy, k, s, pads),
                               np_max_pool_grad(x, dy, k, s, padding), rtol=1e-12)
    g = rng.normal(size=x.shape)
    np.testing.assert_array_equal(ck.max_pool_grad_grad(x, g, k, s, pads),
                                  np_max_pool_grad_grad(x, g, k, s, padding))
    a = ck.avg_pool(x, k, s, pads)
    np.testing.assert_allclose(a, np_pool(x, k, s, padding, np.mean), rtol=1e-12)
    np.testing.assert_allclose(ck.avg_pool_grad(x.shape, a, k, s, pads),
                               np_avg_pool_grad(x.shape, a, k, s, padding), rtol=1e-12)


def test_conv_float32_stays_float32():
    x = rng.normal(size=(4, 10, 9, 5)).astype(np.float32)
    w = rng.normal(size=(3, 3, 5, 6)).astype(np.float32)
    _, pads = ck.geometry((10, 9), (3, 3), (2, 2), (1, 1), "SAME")
    y = ck.conv(x, w, (2, 2), (1, 1), pads)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, np_conv(x, w, (2, 2), "SAME"), rtol=1e-4, atol=1e-4)


def test_blocks_cover_the_batch(monkeypatch):
    # a tiny block size forces one column matrix per batch item; results must not change
    x = rng.normal(size=(5, 6, 6, 2))
    w = rng.normal(size=(3, 3, 2, 3))
    _, pads = ck.geometry((6, 6), (3, 3), (1, 1), (1, 1), "SAME")
    whole = ck.conv(x, w, (1, 1), (1, 1), pads)
    dw = ck.conv_backprop_filter(x, w.shape, whole, (1, 1), (1, 1), pads)
    monkeypatch.setattr(ck, "BLOCK_BYTES", 1)
    np.testing.assert_allclose(ck.conv(x, w, (1, 1), (1, 1), pads), whole, rtol=1e-12)
    np.testing.assert_allclose(ck.conv_backprop_filter(x, w.shape, whole, (1, 1), (1, 1), pads),
                               dw, rtol=1e-10)


@pytest.mark.parametrize("threads,gemm", [(1, True), (2, True), (1, False)])
@pytest.mark.parametrize("spatial,k,dil,padding", [
    ((3, 7, 6), (3, 3), (1, 1), "VALID"), ((2, 6, 7), (3, 2), (2, 1), "SAME"),
    ((2, 9), (4,), (1,), "SAME"), ((2, 4, 5, 4), (2, 3, 2), (1, 1, 1), "SAME")])
def test_stride1_shifted_products_match_loops(spatial, k, dil, padding, threads, gemm,
                                              monkeypatch):
    # >= SHIFT_MIN_CHANNELS input channels: conv_shift's path, batch split over the pool; the
    # products accumulate through core.blas.shifted_gemms, or (gemm=False) NumPy's matmul and add
    import twinflow as tw
    from twinflow.core import blas
    from twinflow.ops.nn import conv_shift

    monkeypatch.setattr(conv_shift, "PARALLEL_MIN_FLOPS", 1)
    monkeypatch.setattr(conv_shift, "busy", lambda: False)   # (split even on a busy machine)
    if not gemm:
        monkeypatch.setattr(blas, "shifted_gemms", lambda *a, **k: False)
    old = tw.config.threading.get_intra_op_parallelism_threads()
    tw.config.threading.set_intra_op_parallelism_threads(threads)
    try:
        x = rng.normal(size=(*spatial, 8))
        w = rng.normal(size=(*k, 8, 5))
        r = len(k)
        _, pads = ck.geometry(x.shape[1:-1], k, (1,) * r, dil, padding)
        y = ck.conv(x, w, (1,) * r, dil, pads)
        np.testing.assert_allclose(y, np_conv(x, w, (1,) * r, padding, dil), rtol=1e-10,
                                   atol=1e-12)
        dy = rng.normal(size=y.shape)
        dw = ck.conv_backprop_filter(x, w.shape, dy, (1,) * r, dil, pads)
        w2 = rng.normal(size=w.shape)
        np.testing.assert_allclose(np.sum(dw * w2),
                                   np.sum(dy * ck.conv(x, w2, (1,) * r, dil, pads)), rtol=1e-10)
        dx = ck.conv_backprop_input(x.shape, w, dy, (1,) * r, dil, pads)
        x2 = rng.normal(size=x.shape)
        np.testing.assert_allclose(np.sum(dx * x2),
                                   np.sum(dy * ck.conv(x2, w, (1,) * r, dil, pads)), rtol=1e-10)
    finally:
        tw.config.threading.set_intra_op_parallelism_threads(old)


@pytest.mark.parametrize("c", [1, 2])
@pytest.mark.parametrize("spatial,k,strides,dil,padding", [
    ((3, 8, 7), (3, 3), (1, 1), (1, 1), "VALID"), ((2, 9, 8), (3, 2), (2, 1), (1, 1), "SAME"),
    ((2, 9, 9), (3, 3), (1, 1), (2, 2), "SAME"), ((2, 11), (4,), (3,), (1,), "VALID"),
    ((2, 5, 4, 6), (2, 3, 2), (1, 2, 1), (1, 1, 1), "SAME")])
def test_few_channel_transposed_columns_match_loops(c, spatial, k, strides, dil, padding):
    # <= COLUMNS_T_MAX_CHANNELS input channels: the column matrix is built transposed
    assert c <= ck.COLUMNS_T_MAX_CHANNELS
    x = rng.normal(size=(*spatial, c))
    w = rng.normal(size=(*k, c, 5))
    _, pads = ck.geometry(x.shape[1:-1], k, strides, dil, padding)
    y = ck.conv(x, w, strides, dil, pads)
    np.testing.assert_allclose(y, np_conv(x, w, strides, padding, dil), rtol=1e-10, atol=1e-12)
    dy = rng.normal(size=y.shape)
    dw = ck.conv_backprop_filter(x, w.shape, dy, strides, dil, pads)
    w2 = rng.normal(size=w.shape)
    np.testing.assert_allclose(np.sum(dw * w2), np.sum(dy * ck.conv(x, w2, strides, dil, pads)),
                               rtol=1e-10)


@pytest.mark.parametrize("c", [1, 16])
def test_split_convolutions_do_not_depend_on_the_thread_count(c, monkeypatch):
    # a batch cut into conv_shift.pieces gives the same pieces, hence the same bits, whichever
    # thread runs them and however many threads there are (up to conv_shift.PIECES)
    import twinflow as tw
    from twinflow.ops.nn import conv_shift

    monkeypatch.setattr(conv_shift, "PARALLEL_MIN_FLOPS", 1)
    monkeypatch.setattr(conv_shift, "busy", lambda: False)
    x = rng.normal(size=(6, 9, 8, c)).astype(np.float32)
    w = rng.normal(size=(3, 3, c, 4)).astype(np.float32)
    dy = rng.normal(size=(6, 7, 6, 4)).astype(np.float32)
    old = tw.config.threading.get_intra_op_parallelism_threads()
    got = []
    try:
        for threads in (1, 2):
            tw.config.threading.set_intra_op_parallelism_threads(threads)
            pads = ((0, 0), (0, 0))
            got.append((ck.conv(x, w, (1, 1), (1, 1), pads),
                        ck.conv_backprop_input(x.shape, w, dy, (1, 1), (1, 1), pads),
                        ck.conv_backprop_filter(x, w.shape, dy, (1, 1), (1, 1), pads)))
    finally:
        tw.config.threading.set_intra_op_parallelism_threads(old)
    assert len(conv_shift.pieces(6, 10)) == conv_shift.PIECES == 2
    for other in got[1:]:
        for a, b in zip(got[0], other):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(got[0][0], np_conv(x, w, (1, 1), "VALID"), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c", [1, 16])
def test_empty_batch(c):
    # an empty batch gives empty results and a zero filter gradient (as TensorFlow), on every path
    x = np.zeros((0, 6, 6, c), np.float32)
    w = np.ones((3, 3, c, 4), np.float32)
    for strides in ((1, 1), (2, 2)):
        _, pads = ck.geometry((6, 6), (3, 3), strides, (1, 1), "SAME")
        y = ck.conv(x, w, strides, (1, 1), pads)
        assert y.shape[0] == 0
        assert ck.conv_backprop_input(x.shape, w, y, strides, (1, 1), pads).shape == x.shape
        np.testing.assert_array_equal(
            ck.conv_backprop_filter(x, w.shape, y, strides, (1, 1), pads), np.zeros(w.shape))


@pytest.mark.parametrize("c,padding,dil", [(1, "VALID", 1), (3, "SAME", 1), (8, "SAME", 2),
                                           (16, "VALID", 1)])
def test_split_conv2d_nhwc_nchw_eager_and_graph_agree(c, padding, dil, monkeypatch):
    # every path (transposed columns, shifted products) cut into pieces: NCHW equals NHWC
    # transposed, graph equals eager, both gradients equal the loops' adjoints
    import twinflow as tw
    from twinflow.ops.nn import conv_shift

    monkeypatch.setattr(conv_shift, "PARALLEL_MIN_FLOPS", 1)
    monkeypatch.setattr(conv_shift, "busy", lambda: False)
    x = rng.normal(size=(5, 9, 8, c)).astype(np.float32)
    w = rng.normal(size=(3, 3, c, 4)).astype(np.float32)

    def run(x, w, fmt):
        with tw.GradientTape() as tape:
            tape.watch([x, w])
            xin = tw.transpose(x, [0, 3, 1, 2]) if fmt == "NCHW" else x
            y = tw.nn.conv2d(xin, w, 1, padding, data_format=fmt, dilations=dil)
            y = tw.transpose(y, [0, 2, 3, 1]) if fmt == "NCHW" else y
            loss = tw.reduce_sum(y * y)
        return (y, *tape.gradient(loss, [x, w]))

    xt, wt = tw.constant(x), tw.constant(w)
    want = [v.numpy() for v in run(xt, wt, "NHWC")]
    np.testing.assert_allclose(want[0], np_conv(x, w, (1, 1), padding, (dil, dil)), rtol=1e-4,
                               atol=1e-4)
    for fmt in ("NHWC", "NCHW"):
        for got in (run(xt, wt, fmt), tw.function(lambda a, b, f=fmt: run(a, b, f))(xt, wt)):
            for g, v in zip(got, want):
                np.testing.assert_allclose(g.numpy(), v, rtol=1e-5, atol=1e-4)


def test_pieces_stay_on_the_caller_while_the_machine_is_busy(monkeypatch):
    import threading

    import twinflow as tw
    from twinflow.core import workers
    from twinflow.ops.nn import conv_shift

    monkeypatch.setattr(workers, "machine_busy", lambda: True)    # (one rule: the workers')
    assert conv_shift.busy() is True
    old = tw.config.threading.get_intra_op_parallelism_threads()
    tw.config.threading.set_intra_op_parallelism_threads(2)
    try:
        me = threading.get_ident()
        for is_busy in (True, False):
            monkeypatch.setattr(conv_shift, "busy", lambda b=is_busy: b)
            ran = conv_shift.run(lambda p: threading.get_ident(), conv_shift.pieces(8, 1 << 30))
            assert len(ran) == conv_shift.PIECES
            if is_busy:
                assert set(ran) == {me}
    finally:
        tw.config.threading.set_intra_op_parallelism_threads(old)


@pytest.mark.parametrize("c,o,dtype", [(1, 16, np.float32), (3, 16, np.float64),
                                       (1, 64, np.float32)])
def test_thin_products_go_by_groups_of_rows(c, o, dtype, monkeypatch):
    x = rng.normal(size=(12, 30, 30, c)).astype(dtype)
    w = rng.normal(size=(3, 3, c, o)).astype(dtype)
    args = ((1, 1), (1, 1), ((0, 0), (0, 0)))
    assert 0 < ck._thin_rows(9 * c, o, x.itemsize) < 12 * 28 * 28     # (several groups)
    y = ck.conv(x, w, *args)
    dy = rng.normal(size=y.shape).astype(dtype)
    dw = ck.conv_backprop_filter(x, w.shape, dy, *args)
    monkeypatch.setattr(ck, "_thin_rows", lambda *a: 0)                  # one product each
    whole_y = ck.conv(x, w, *args)
    # the rows of the forward product are computed alike in groups: the same bits
    np.testing.assert_array_equal(y.view(f"u{y.itemsize}"), whole_y.view(f"u{y.itemsize}"))
    # the filter gradient sums the groups in order: the same values up to rounding
    tol = (1e-5 if dtype == np.float32 else 1e-12) * np.abs(dw).max()
    np.testing.assert_allclose(dw, ck.conv_backprop_filter(x, w.shape, dy, *args), atol=tol)
    np.testing.assert_allclose(y, np_conv(x, w, (1, 1), "VALID"),
                               rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-4)


def test_wide_products_stay_whole():
    assert ck._thin_rows(27, 64, 4) == 0 and ck._thin_rows(144, 32, 4) == 0
