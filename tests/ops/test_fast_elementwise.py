"""ops/fast_elementwise.py: the faster paths give NumPy's old expressions bit for bit (NaN, inf
and -0.0 included), fall back on what they do not handle, and share one thread-safe cache."""
import threading

import numpy as np
import pytest

import twinflow as tw
from twinflow.ops import fast_elementwise as fe

FLOATS = (np.float16, np.float32, np.float64)


def _specials(shape, dtype, seed=0):
    """Random values with -0.0, NaN of both signs, +-inf, zeros and sixes sprinkled in."""
    x = (np.random.default_rng(seed).normal(size=shape) * 5).astype(dtype)
    if np.dtype(dtype).kind == "f":
        flat = x.reshape(-1)
        flat[::7] = -0.0
        flat[1::11] = np.nan
        flat[2::13] = -np.array(np.nan, dtype)
        flat[3::17] = np.inf
        flat[4::19] = -np.inf
        flat[5::23] = 6
        flat[6::29] = 0.0
        flat[8::31] = np.finfo(dtype).tiny / 4   # a subnormal
    return x


def _same_bits(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


# sizes below and above the thresholds, and one over FLAT_BYTES for float32 (falls back)
SIZES = [(), (5,), (64, 10), (64, 128), (32, 26, 26, 16), (1100000,)]


# (one dtype is enough for the large size)
@pytest.mark.parametrize("dtype,shape", [
    (dt, sh) for sh in SIZES for dt in FLOATS + (np.int32, np.int64, np.int8)
    if not (len(sh) == 1 and sh[0] > 10 ** 6) or dt is np.float32])
def test_relu_and_relu6_bits(dtype, shape):
    x = _specials(shape, dtype)
    t = np.dtype(dtype).type
    _same_bits(fe.relu(x), np.maximum(x, t(0)))
    _same_bits(fe.relu6(x), np.minimum(np.maximum(x, t(0)), t(6)))


def test_relu_keeps_the_sign_of_minus_zero_and_nan():
    x = np.full(4096, -0.0, np.float32)
    x[1] = np.nan
    old = np.maximum(x, np.float32(0))
    new = fe.relu(x)
    assert np.signbit(new[0]) == np.signbit(old[0])
    assert np.isnan(new[1])
    _same_bits(new, old)


@pytest.mark.parametrize("make", [
    lambda x: x.T,                        # F-ordered
    lambda x: x[:, ::2],                  # strided
    lambda x: x[1:],                      # offset but contiguous
    lambda x: np.broadcast_to(x[:1], x.shape),
])
def test_non_contiguous_inputs_fall_back(make):
    x = make(_specials((300, 400), np.float32))
    t = np.float32
    _same_bits(fe.relu(x), np.maximum(x, t(0)))
    _same_bits(fe.relu6(x), np.minimum(np.maximum(x, t(0)), t(6)))
    b = _specials(x.shape[-1:], np.float32, 1)
    assert fe.short_axis_binary(np.add, x, b) is None


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("alpha", [0.2, 0.01, 1.0, 0.0, 1e-30, 3.0, -0.5, float("nan")])
@pytest.mark.parametrize("shape", [(3,), (64, 128), (32, 13, 13, 16)])
def test_leaky_relu_and_gradients_bits(dtype, alpha, shape):
    x = _specials(shape, dtype)
    dy = _specials(shape, dtype, 1)
    t = np.dtype(dtype).type
    with np.errstate(all="ignore"):
        _same_bits(fe.leaky_relu(x, alpha), np.where(x > 0, x, x * t(alpha)))
        _same_bits(fe.leaky_relu_grad(dy, x, alpha), np.where(x > 0, dy, dy * t(alpha)))
    mask = (x > 0) & (x < 6)
    _same_bits(fe.masked(dy, mask), np.where(mask, dy, t(0)))


@pytest.mark.parametrize("dtype", FLOATS + (np.int32, np.int64, np.uint8, np.bool_))
@pytest.mark.parametrize("shape", [(), (7,), (64, 128), (16, 13, 13, 16), (300, 256)])
def test_select_and_the_elu_family_bits(dtype, shape):
    from twinflow.ops.nn import activations as act
    x = _specials(shape, dtype)
    dy = _specials(shape, dtype, 1)
    t = np.dtype(dtype).type
    _same_bits(fe.select(x > 0, x, dy), np.where(x > 0, x, dy))
    if x.ndim:
        _same_bits(fe.select(x[:1] > 0, x, dy), np.where(x[:1] > 0, x, dy))   # broadcasts
    if np.dtype(dtype).kind != "f":
        return
    sa, s = act._SELU_SCALE * act._SELU_ALPHA, act._SELU_SCALE
    with np.errstate(all="ignore"):
        elu = np.where(x > 0, x, np.expm1(np.minimum(x, t(0))))
        _same_bits(act.Elu.kernel(x), elu)
        _same_bits(act.EluGrad.kernel(dy, elu), np.where(elu > 0, dy, dy * (elu + t(1))))
        selu = np.where(x > 0, t(s) * x, t(sa) * np.expm1(np.minimum(x, t(0))))
        _same_bits(act.Selu.kernel(x), selu)
        _same_bits(act.SeluGrad.kernel(dy, selu),
                   np.where(selu > 0, dy * t(s), dy * (selu + t(sa))))


BIAS_SHAPES = [((32, 26, 26, 16), (16,)), ((32, 26, 26, 16), (1, 1, 1, 16)),
               ((8, 24, 24, 3), (3,)), ((64, 13, 13, 64), (64,)), ((40, 26, 16), (26, 16)),
               ((7919, 16), (16,)),      # a prime count of rows: no row length divides
               ((4099, 8), (8,)), ((64, 128), (128,)), ((64, 10), (10,)), ((2, 3), (3,))]


@pytest.mark.parametrize("dtype", FLOATS + (np.int32, np.complex64))
@pytest.mark.parametrize("shapes", BIAS_SHAPES)
def test_short_axis_binary_bits(dtype, shapes):
    big, small = shapes
    x, b = _specials(big, dtype), _specials(small, dtype, 1)
    for ufunc in (np.add, np.subtract, np.multiply, np.maximum):
        if ufunc is np.maximum and np.dtype(dtype).kind == "c":
            continue
        with np.errstate(all="ignore"):
            for args in ((x, b), (b, x)):
                out = fe.short_axis_binary(ufunc, *args)
                if out is not None:
                    _same_bits(out, ufunc(*args))


def test_short_axis_binary_applies_where_it_should():
    x = np.ones((32, 26, 26, 16), np.float32)
    assert fe.short_axis_binary(np.add, x, np.ones(16, np.float32)) is not None
    assert fe.short_axis_binary(np.add, np.ones(16, np.float32), x) is not None
    assert fe.short_axis_binary(np.add, x, np.ones(16, np.float64)) is None   # promotes
    assert fe.short_axis_binary(np.add, x, np.ones((26, 1), np.float32)) is None
    assert fe.short_axis_binary(np.add, x[..., ::2], np.ones(8, np.float32)) is None
    assert fe.short_axis_binary(np.add, np.ones((64, 10), np.float32),
                                np.ones(10, np.float32)) is None               # small
    assert fe.short_axis_binary(np.add, np.ones((7919, 16), np.float32),
                                np.ones(16, np.float32)) is None               # prime rows


def test_row_length():
    assert fe.row_length((32, 26, 26), 16) == 16 * 26 * 26
    for outer, short in (((100000,), 16), ((1000,), 10), ((2, 3, 5, 7, 11, 13), 4)):
        n = fe.row_length(outer, short)
        count = int(np.prod(outer))
        assert n % short == 0 and count % (n // short) == 0
        assert fe.ROW_MIN <= n <= fe.ROW_MAX
    assert fe.row_length((7919,), 16) == 0
    assert fe.row_length((10,), 16) == 0
    assert fe.row_length((0, 26, 26), 16) == 0 and fe.row_length((5, 0), 16) == 0


def test_cached_full_is_read_only_shared_and_bounded(monkeypatch):
    z = fe.cached_full((3, 4), np.float32)
    assert z.dtype == np.float32 and z.shape == (3, 4) and not z.any()
    with pytest.raises(ValueError):
        z[0, 0] = 1
    assert fe.cached_full((3, 4), np.float32) is z
    sixes = fe.cached_full((5,), np.float64, 6)
    assert (sixes == 6).all() and not sixes.flags.writeable
    assert np.signbit(fe.cached_full((2, 2), np.float32, -0.0)).all()
    assert not np.signbit(fe.cached_full((2, 2), np.float32, 0.0)).any()
    big = fe.cached_full((5000,), np.float32)      # grows the buffer; old views stay valid
    assert big.shape == (5000,) and not big.any() and not z.any()
    assert fe.cached_full((fe.FLAT_BYTES // 4 + 1,), np.float32) is None
    monkeypatch.setattr(fe, "CACHE_BYTES", 2 * fe.FLAT_BYTES)
    fe.cache_clear()
    for dt in (np.float32, np.float64, np.int32, np.int64):
        fe.cached_full((4,), dt)
        assert fe.cache_bytes() <= fe.CACHE_BYTES
    fe.cache_clear()
    assert fe.cache_bytes() == 0


def test_the_cache_from_many_threads_at_once(monkeypatch):
    # a small bound makes the threads empty the cache under each other
    monkeypatch.setattr(fe, "CACHE_BYTES", 2 * fe.FLAT_BYTES)
    fe.cache_clear()
    shapes = [(64, 32), (48, 48), (40, 64, 2), (4096,), (32, 26, 26, 16)]
    dtypes = [np.float32, np.float64, np.int32, np.int64]
    inputs = [_specials(s, d, i) for i, (s, d) in
              enumerate((s, d) for s in shapes for d in dtypes)]
    errors: list = []
    start = threading.Barrier(8)

    def work(k):
        try:
            start.wait()
            for rep in range(30):
                x = inputs[(k + rep) % len(inputs)]
                t = x.dtype.type
                for new, old in ((fe.relu(x), np.maximum(x, t(0))),
                                 (fe.relu6(x), np.minimum(np.maximum(x, t(0)), t(6)))):
                    if new.tobytes() != old.tobytes():
                        errors.append((k, rep, x.shape, x.dtype))
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert fe.cache_bytes() <= fe.CACHE_BYTES
    fe.cache_clear()


# ----- the ops, eagerly and in tw.function --------------------------------------------------

def _both_modes(fn, *args):
    eager = fn(*args).numpy()
    graph = tw.function(fn)(*args).numpy()
    return eager, graph


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(64, 10), (32, 26, 26, 16)])
def test_activation_ops_eager_and_graph(dtype, shape):
    x = _specials(shape, dtype)
    t = np.dtype(dtype).type
    with np.errstate(all="ignore"):
        refs = {tw.nn.relu: np.maximum(x, t(0)),
                tw.nn.relu6: np.minimum(np.maximum(x, t(0)), t(6)),
                tw.nn.leaky_relu: np.where(x > 0, x, x * t(0.2))}
    for fn, ref in refs.items():
        for got in _both_modes(fn, tw.constant(x)):
            _same_bits(got, ref)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_bias_add_eager_and_graph(data_format, dtype):
    x = _specials((16, 26, 26, 16) if data_format == "NHWC" else (16, 16, 26, 26), dtype)
    b = _specials((16,), dtype, 1)
    with np.errstate(all="ignore"):
        ref = x + (b if data_format == "NHWC" else b.reshape(-1, 1, 1))
        got = _both_modes(lambda v, c: tw.nn.bias_add(v, c, data_format=data_format),
                          tw.constant(x), tw.constant(b))
    for g in got:
        _same_bits(g, ref)


def test_bias_add_on_a_non_contiguous_value():
    x = _specials((16, 26, 26, 32), np.float32)[..., ::2]
    b = _specials((16,), np.float32, 1)
    assert fe.short_axis_binary(np.add, x, b) is None
    with np.errstate(all="ignore"):
        _same_bits(tw.nn.bias_add(tw.constant(x), tw.constant(b)).numpy(), x + b)


def test_graph_binary_ops_with_a_short_trailing_operand(monkeypatch):
    calls = []
    real = fe.short_axis_binary

    def counting(ufunc, x, y):
        out = real(ufunc, x, y)
        calls.append(out is not None)
        return out
    monkeypatch.setattr(fe, "short_axis_binary", counting)
    x = _specials((32, 26, 26, 16), np.float32)
    b = _specials((1, 16), np.float32, 1)
    xt, bt = tw.constant(x), tw.constant(b)
    with np.errstate(all="ignore"):
        for fn, ref in ((lambda u, v: u + v, x + b), (lambda u, v: v - u, b - x),
                        (lambda u, v: tw.multiply(u, v), x * b)):
            _same_bits(tw.function(fn)(xt, bt).numpy(), ref)
            _same_bits(fn(xt, bt).numpy(), ref)
    assert calls and all(calls)
    # a transposed (non-contiguous) operand inside the graph falls back to the ufunc
    calls.clear()
    xs = np.ascontiguousarray(np.moveaxis(x, 0, -1))           # [26, 26, 16, 32]
    with np.errstate(all="ignore"):
        got = tw.function(lambda u, v: tw.transpose(u, [3, 0, 1, 2]) + v)(tw.constant(xs), bt)
        _same_bits(got.numpy(), np.transpose(xs, [3, 0, 1, 2]) + b)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_where_op_and_its_gradient_eager_and_graph(dtype):
    x, y = _specials((300, 256), dtype), _specials((300, 256), dtype, 1)
    c = _specials((300, 256), np.float32, 2) > 0
    ref = np.where(c, x, y)
    for got in _both_modes(tw.where, tw.constant(c), tw.constant(x), tw.constant(y)):
        _same_bits(got, ref)
    _same_bits(tw.where(tw.constant(c[:1]), tw.constant(x), tw.constant(y)).numpy(),
               np.where(c[:1], x, y))      # a broadcast condition: np.where
    if dtype is np.int32:
        return
    xt = tw.Variable(x)
    with tw.GradientTape() as tape:
        out = tw.reduce_sum(tw.where(tw.constant(c), xt, tw.constant(y)))
    _same_bits(tape.gradient(out, xt).numpy(), np.where(c, np.ones_like(x), np.zeros_like(x)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16])
@pytest.mark.parametrize("shape", [(5,), (64, 128)])
def test_maximum_and_minimum_against_a_zero_scalar(dtype, shape):
    x = _specials(shape, dtype)
    t = np.dtype(dtype).type
    for op, ufunc in ((tw.maximum, np.maximum), (tw.minimum, np.minimum)):
        for v in (0, -0.0, 1):
            s = t(v)
            for args, ref in (((x, s), ufunc(x, s)), ((s, x), ufunc(s, x))):
                for got in _both_modes(op, *(tw.constant(a) for a in args)):
                    _same_bits(got, ref)
    if np.dtype(dtype).kind != "f":
        return
    xt = tw.Variable(x)
    with tw.GradientTape() as tape:
        out = tw.reduce_sum(tw.maximum(xt, t(0)))
    _same_bits(tape.gradient(out, xt).numpy(), (x >= 0).astype(dtype))


# a broadcast dy along middle axes (a global pooling's gradient), lead axes or not, short and
# too-long trailing blocks, and a broadcast that is not a middle run (falls back)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,block", [
    ((32, 24, 24, 16), (32, 1, 1, 16)), ((4, 50, 50, 3), (4, 1, 1, 3)),
    ((64, 512, 8), (1, 1, 8)), ((2, 3, 100, 100, 2), (2, 3, 1, 1, 2)),
    ((8, 64, 100), (8, 1, 100)), ((8, 64, 64, 2), (1, 64, 1, 2))])
def test_relu_grad_of_a_broadcast_dy_bits(dtype, shape, block):
    y = np.maximum(_specials(shape, dtype), np.dtype(dtype).type(0))
    y.reshape(-1)[1::11] = np.nan            # (maximum hides some NaN: put them back)
    y.reshape(-1)[::37] = -0.0
    dy = np.broadcast_to(_specials(block, dtype, 1), shape)
    _same_bits(fe.relu_grad(dy, y), np.where(y > 0, dy, np.dtype(dtype).type(0)))
    uint = fe.UINT_OF_FLOAT[np.dtype(dtype)]
    rows = fe._relu_grad_broadcast(dy, y, uint)
    assert (rows is None) == (block[-1] == 100 or block == (1, 64, 1, 2))


def test_relu_grad_of_a_pooling_gradient_eager_and_graph(monkeypatch):
    x = _specials((16, 12, 12, 16), np.float32)
    g = _specials((16, 16), np.float32, 2)
    rows = []
    broadcast = fe._relu_grad_broadcast
    monkeypatch.setattr(fe, "_relu_grad_broadcast", lambda *a: rows.append(1) or broadcast(*a))

    def f(x, g):
        with tw.GradientTape() as tape:
            tape.watch(x)
            r = tw.nn.relu(x)
            y = tw.reduce_mean(r, axis=[1, 2])
        # (r is also a result: the relu stays out of the gradient's fused block, as in seed 004)
        return tape.gradient(y, x, output_gradients=g), r
    y = np.maximum(x, np.float32(0))
    ref = np.where(y > 0, np.broadcast_to((g / np.float32(144))[:, None, None, :], x.shape),
                   np.float32(0))
    eager = f(tw.constant(x), tw.constant(g))[0].numpy()
    graph = tw.function(f)(tw.constant(x), tw.constant(g))[0].numpy()
    assert len(rows) == 2      # both modes took the broadcast's rows
    _same_bits(eager, graph)
    np.testing.assert_allclose(eager, ref, rtol=1e-6)
