"""keras.ops.numpy against NumPy: values, dtypes, eager vs tw.function, gradients."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.keras import ops

R = np.random.default_rng(0)
X = R.normal(size=(3, 4)).astype(np.float32)
Y = R.normal(size=(3, 4)).astype(np.float32)
P = np.abs(X) + 0.5
V = R.normal(size=(5,)).astype(np.float32)
I = np.array([[3, -1, 2], [0, 5, -4]], np.int32)
J = np.array([[2, 7, 1], [4, 5, 6]], np.int32)
NAN = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [4.0, 2.0, np.nan]], np.float32)
SQ = (X[:, :3].T @ X[:, :3] + 3 * np.eye(3)).astype(np.float32)

# (name, args, kwargs, NumPy reference)
UNARY_FLOAT = ["sin", "cos", "tan", "arctan", "sinh", "cosh", "tanh", "arcsinh", "exp",
               "expm1", "sign", "negative", "square", "abs", "absolute", "fabs", "floor",
               "ceil", "trunc", "rint" if False else "round", "cbrt", "sinc", "deg2rad",
               "rad2deg", "signbit", "isnan", "isinf", "isfinite", "exp2"]
UNARY_POS = ["sqrt", "log", "log2", "log10", "log1p", "reciprocal", "arccosh"]
CASES = [(n, (X,), {}, getattr(np, n)) for n in UNARY_FLOAT] + \
    [(n, (P + (1.0 if n == "arccosh" else 0.0),), {}, getattr(np, n)) for n in UNARY_POS] + [
    ("arcsin", (np.tanh(X),), {}, np.arcsin), ("arccos", (np.tanh(X),), {}, np.arccos),
    ("arctanh", (np.tanh(X),), {}, np.arctanh), ("i0", (X,), {}, np.i0),
    ("rsqrt", (P,), {}, lambda a: 1 / np.sqrt(a)),
    ("round", (X * 100,), {"decimals": 1}, lambda a, decimals: np.round(a, decimals)),
    ("sqrt", (I + 5,), {}, lambda a: np.sqrt(a).astype(np.float32)),
]
for n in ["add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum",
          "arctan2", "hypot", "logaddexp", "logaddexp2", "fmax", "fmin", "equal", "not_equal",
          "greater", "greater_equal", "less", "less_equal", "power", "mod", "fmod",
          "floor_divide", "nextafter", "heaviside"]:
    a, b = (P, Y) if n == "power" else (X, Y)
    CASES.append((n, (a, b), {}, getattr(np, n)))
for n in ["gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]:
    b = np.abs(J) % 4 if "shift" in n else J
    CASES.append((n, (np.abs(I) if "shift" in n else I, b), {}, getattr(np, n)))
for n in ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "ptp",
          "argmax", "argmin", "any", "all", "cumsum", "cumprod", "count_nonzero", "median"]:
    CASES.append((n, (X,), {}, getattr(np, n)))
    CASES.append((n + "[axis]", (X,), {"axis": 1}, getattr(np, n)))
for n in ["nansum", "nanprod", "nanmean", "nanmax", "nanmin", "nancumsum", "nancumprod",
          "nanmedian"]:
    CASES.append((n, (np.nan_to_num(NAN[[0, 2]], nan=np.nan),), {"axis": 1}, getattr(np, n)))
CASES += [
    ("nanvar", (NAN[[0, 2]],), {"axis": 1}, np.nanvar),
    ("nanstd", (NAN[[0, 2]],), {"axis": 1}, np.nanstd),
    ("nanargmax", (NAN[[0, 2]],), {"axis": 1}, np.nanargmax),
    ("nanquantile", (NAN[[0, 2]], 0.3), {"axis": 1}, np.nanquantile),
    ("nanpercentile", (NAN[[0, 2]], [10.0, 60.0]), {"axis": 1}, np.nanpercentile),
    ("max[keepdims]", (X,), {"axis": 0, "keepdims": True}, np.max),
    ("sum[tuple]", (X.reshape(3, 2, 2),), {"axis": (0, 2)}, np.sum),
    ("logsumexp", (X,), {"axis": 1}, lambda a, axis: np.log(np.exp(a).sum(axis))),
    ("quantile", (X, [0.1, 0.5, 0.9]), {"axis": 1}, np.quantile),
    ("quantile[nearest]", (X, 0.4), {"method": "nearest"}, np.quantile),
    ("quantile[lower]", (X, 0.4), {"axis": 0, "method": "lower"}, np.quantile),
    ("quantile[midpoint]", (X, 0.4), {"axis": 0, "method": "midpoint"}, np.quantile),
    ("percentile", (X, 25.0), {"axis": 0, "keepdims": True}, np.percentile),
    ("average", (X,), {"axis": 1, "weights": np.arange(1.0, 5.0, dtype=np.float32)},
     np.average),
    ("isclose", (X, X + 1e-9), {}, np.isclose), ("allclose", (X, X), {}, np.allclose),
    ("clip", (X, -0.5, 0.5), {}, np.clip), ("nan_to_num", (NAN,), {}, np.nan_to_num),
    ("reshape", (X, (2, 6)), {}, np.reshape), ("ravel", (X,), {}, np.ravel),
    ("transpose", (X,), {}, np.transpose), ("flip", (X,), {}, np.flip),
    ("flip[axis]", (X,), {"axis": 1}, np.flip), ("fliplr", (X,), {}, np.fliplr),
    ("flipud", (X,), {}, np.flipud), ("rot90", (X,), {}, np.rot90),
    ("rot90[k]", (X,), {"k": 3}, np.rot90),
    ("roll", (X, 2), {}, np.roll), ("roll[axis]", (X, -1), {"axis": 1}, np.roll),
    ("moveaxis", (X.reshape(3, 2, 2), 0, -1), {}, np.moveaxis),
    ("swapaxes", (X.reshape(3, 2, 2), 0, 2), {}, np.swapaxes),
    ("expand_dims", (X, (0, 3)), {}, np.expand_dims),
    ("squeeze", (X.reshape(3, 1, 4),), {}, np.squeeze),
    ("tile", (V, (2, 2)), {}, np.tile), ("repeat", (X, 2), {"axis": 1}, np.repeat),
    ("repeat[flat]", (X, 2), {}, np.repeat),
    ("broadcast_to", (V, (2, 5)), {}, np.broadcast_to),
    ("concatenate", ([X, Y],), {"axis": 1}, np.concatenate),
    ("append", (X, Y), {}, np.append), ("stack", ([X, Y],), {"axis": 2}, np.stack),
    ("hstack", ([X, Y],), {}, np.hstack), ("vstack", ([V, V],), {}, np.vstack),
    ("dstack", ([X, Y],), {}, np.dstack),
    ("split", (X, 2), {"axis": 1}, np.split), ("split[idx]", (X, [1, 3]), {"axis": 1}, np.split),
    ("array_split", (V, 3), {}, np.array_split), ("hsplit", (X, 2), {}, np.hsplit),
    ("vsplit", (X.reshape(4, 3), 2), {}, np.vsplit),
    ("dsplit", (X.reshape(1, 3, 4), [1]), {}, np.dsplit),
    ("pad", (X, ((1, 0), (2, 1))), {}, np.pad),
    ("pad[reflect]", (X, 1), {"mode": "reflect"}, np.pad),
    ("pad[symmetric]", (X, ((1, 1), (0, 2))), {"mode": "symmetric"}, np.pad),
    ("take", (X, [0, -1, 2]), {"axis": 1}, np.take), ("take[flat]", (X, [5, 0]), {}, np.take),
    ("take_along_axis", (X, np.argsort(X, axis=1)), {"axis": 1}, np.take_along_axis),
    ("where", (X > 0, X, Y), {}, np.where),
    ("select", ([X > 0.5, X < -0.5], [X, Y]), {"default": 7.0}, np.select),
    ("diag", (V,), {"k": 1}, np.diag), ("diag[matrix]", (X,), {"k": -1}, np.diag),
    ("diagflat", (X[:2, :2],), {}, np.diagflat),
    ("diagonal", (X.reshape(3, 2, 2),), {"offset": 0, "axis1": 1, "axis2": 2}, np.diagonal),
    ("trace", (X,), {"offset": 1}, np.trace),
    ("tril", (X,), {"k": 1}, np.tril), ("triu", (X,), {"k": -1}, np.triu),
    ("tri", (3,), {"M": 4, "k": 1}, lambda n, M, k: np.tri(n, M, k).astype(np.float32)),
    ("eye", (3,), {"M": 4, "k": -1}, lambda n, M, k: np.eye(n, M, k).astype(np.float32)),
    ("matmul", (X, Y.T), {}, np.matmul), ("matmul[vec]", (X, V[:4]), {}, np.matmul),
    ("dot", (X, Y.T), {}, np.dot), ("dot[3d]", (X.reshape(3, 2, 2), V[:2]), {}, np.dot),
    ("inner", (X, Y), {}, np.inner), ("outer", (V, V[:3]), {}, np.outer),
    ("vdot", (X, Y), {}, np.vdot), ("kron", (X[:2, :2], Y[:2, :3]), {}, np.kron),
    ("cross", (X[:, :3], Y[:, :3]), {}, np.cross),
    ("tensordot", (X, Y.T), {"axes": 1}, np.tensordot),
    ("einsum", ("ij,kj->ik", X, Y), {}, np.einsum),
    ("sort", (X,), {"axis": 0}, np.sort), ("argsort", (V,), {}, np.argsort),
    ("searchsorted", (np.sort(V), X), {}, np.searchsorted),
    ("searchsorted[right]", (np.sort(V), V), {"side": "right"}, np.searchsorted),
    ("digitize", (X, np.array([-1.0, 0.0, 1.0], np.float32)), {}, np.digitize),
    ("bincount", (np.array([0, 1, 1, 4], np.int32),), {"minlength": 6}, np.bincount),
    ("isin", (I, J), {}, np.isin),
    ("diff", (X,), {"n": 2, "axis": 1}, np.diff), ("diff[0]", (X,), {"axis": 0}, np.diff),
    ("trapezoid", (X,), {"dx": 0.5}, np.trapezoid if hasattr(np, "trapezoid") else np.trapz),
    ("corrcoef", (X,), {}, np.corrcoef),
    ("correlate", (V, V[:3]), {}, np.correlate),
    ("correlate[full]", (V, V[:3]), {"mode": "full"}, np.correlate),
    ("correlate[same]", (V[:2], V[:3]), {"mode": "same"}, np.correlate),
    ("vander", (V[:3],), {"N": 4}, np.vander),
    ("linspace", (0.0, 1.0, 5), {}, lambda a, b, n: np.linspace(a, b, n, dtype=np.float32)),
    ("linspace[open]", (1.0, 2.0, 4), {"endpoint": False},
     lambda a, b, n, endpoint: np.linspace(a, b, n, endpoint=endpoint, dtype=np.float32)),
    ("logspace", (0.0, 2.0, 3), {}, lambda a, b, n: np.logspace(a, b, n, dtype=np.float32)),
    ("geomspace", (1.0, 8.0, 4), {}, lambda a, b, n: np.geomspace(a, b, n, dtype=np.float32)),
    ("arange", (1, 7, 2), {}, lambda *a: np.arange(*a, dtype=np.int32)),
    ("arange[float]", (0.0, 1.0, 0.25), {}, lambda *a: np.arange(*a, dtype=np.float32)),
    ("hamming", (5,), {}, lambda n: np.hamming(n).astype(np.float32)),
    ("kaiser", (5, 2.0), {}, lambda n, b: np.kaiser(n, b).astype(np.float32)),
    ("full", ((2, 3), 1.5), {}, lambda s, v: np.full(s, v, np.float32)),
    ("zeros_like", (I,), {}, np.zeros_like), ("ones_like", (X,), {}, np.ones_like),
    ("full_like", (X, 2.0), {}, np.full_like),
    ("meshgrid", (V[:2], V[:3]), {}, np.meshgrid),
    ("meshgrid[ij]", (V[:2], V[:3]), {"indexing": "ij"}, np.meshgrid),
    ("unravel_index", (np.array([1, 5, 7], np.int32), (2, 4)), {}, np.unravel_index),
    ("nonzero", (I,), {}, np.nonzero), ("count_nonzero[int]", (I,), {}, np.count_nonzero),
    ("real", (X + 1j * Y,), {}, np.real), ("imag", (X + 1j * Y,), {}, np.imag),
    ("conj", (X + 1j * Y,), {}, np.conj), ("angle", (X + 1j * Y,), {}, np.angle),
    ("slogdet", (SQ,), {}, lambda a: tuple(np.linalg.slogdet(a))),
    ("signbit", (np.array([-0.0, 0.0, -1.0], np.float32),), {}, np.signbit),
    ("isposinf", (np.array([np.inf, -np.inf, 1.0], np.float32),), {}, np.isposinf),
    ("isneginf", (np.array([np.inf, -np.inf, 1.0], np.float32),), {}, np.isneginf),
    ("ldexp", (X, J[:, :2].repeat(2, 1)[:1].repeat(3, 0)), {}, np.ldexp),
]


def _fn(name):
    return getattr(ops, name.split("[")[0])


def _close(got, want, name):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            _close(g, w, name)
        return
    g = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    w = np.asarray(want)
    assert g.shape == w.shape, (name, g.shape, w.shape)
    if w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w, err_msg=name)
    else:
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, err_msg=name)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(case):
    name, args, kwargs, ref = case
    _close(_fn(name)(*args, **kwargs), ref(*args, **kwargs), name)


GRAPH = [c for c in CASES if c[0].split("[")[0] not in ("nonzero", "bincount")]


@pytest.mark.parametrize("case", GRAPH[::3], ids=[c[0] for c in GRAPH[::3]])
def test_graph_agrees(case):
    name, args, kwargs, _ = case
    fn = _fn(name)
    tensors = [tw.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    eager = fn(*tensors, **kwargs)
    graph = tw.function(lambda: fn(*tensors, **kwargs))()
    _close(graph, eager if not isinstance(eager, tw.Tensor) else eager.numpy(), name)


def test_dtype_promotion_is_keras():
    i32, f16 = tw.constant([1, 2], tw.int32), tw.constant([1.0, 2.0], tw.float16)
    assert ops.add(i32, f16).dtype == tw.float16
    assert ops.add(tw.constant([1], tw.int8), tw.constant([1], tw.uint8)).dtype == tw.int16
    assert ops.add(f16, tw.constant([1.0], tw.float32)).dtype == tw.float32
    assert ops.add(f16, 1.5).dtype == tw.float16          # Python scalars are weak
    assert ops.add(i32, 1.5).dtype == tw.float32          # ... but make ints float
    assert ops.mean(i32).dtype == tw.float32
    assert ops.sum(tw.constant([True, True])).dtype == tw.int32
    assert ops.divide(i32, i32).dtype == tw.float32
    assert ops.argmax(tw.constant([1.0, 3.0])).dtype == tw.int32


def test_unique_sorted_with_counts_and_inverse():
    x = np.array([3, 1, 3, 2, 1, 3], np.int32)
    vals, idx, inv, counts = ops.unique(x, return_index=True, return_inverse=True,
                                        return_counts=True)
    w = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, e in zip((vals, idx, inv, counts), w):
        np.testing.assert_array_equal(g.numpy(), e)


def test_histogram_matches_numpy():
    counts, edges = ops.histogram(V, bins=4)
    wc, we = np.histogram(V, bins=4)
    np.testing.assert_array_equal(counts.numpy(), wc)
    np.testing.assert_allclose(edges.numpy(), we, rtol=1e-6)
    counts, _ = ops.histogram(V, bins=3, range=(-0.5, 0.5))
    np.testing.assert_array_equal(counts.numpy(), np.histogram(V, 3, (-0.5, 0.5))[0])


def test_rearrange_and_vectorize():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = ops.rearrange(x, "b h (w c) -> b (h w) c", c=2)
    np.testing.assert_array_equal(out.numpy(), x.reshape(2, 3, 2, 2).reshape(2, 6, 2))
    out = ops.rearrange(x, "b h w -> w b h")
    np.testing.assert_array_equal(out.numpy(), x.transpose(2, 0, 1))
    with pytest.raises(ValueError, match="same axes"):
        ops.rearrange(x, "b h w -> b h")
    f = ops.vectorize(lambda a, b: a * 2 + b)
    np.testing.assert_allclose(f(X, V[:4]).numpy(), X * 2 + V[:4], rtol=1e-6)


def test_errors_name_the_function():
    with pytest.raises(ValueError, match="keras.ops.split"):
        ops.split(V, 2)
    with pytest.raises(ValueError, match="mode 'wrap'"):
        ops.pad(X, 1, mode="wrap")
    with pytest.raises(TypeError, match="gcd"):
        ops.gcd(X, X)
    with pytest.raises(ValueError, match="both x1 and x2"):
        ops.where(X > 0, X)


@pytest.mark.parametrize("name,args", [
    ("sinc", (X,)), ("hypot", (X, Y)), ("logaddexp", (X, Y)), ("cbrt", (P,)),
    ("quantile", (X, 0.3)), ("nanmean", (X,)), ("std", (X,)), ("kron", (X[:2, :2], Y[:2])),
    ("cross", (X[:, :3], Y[:, :3])), ("take_along_axis", (X, np.argsort(X, 1), 1)),
    ("diagonal", (X,)), ("correlate", (V, V[:3])), ("trapezoid", (X,)), ("corrcoef", (X,)),
])
def test_gradient_matches_finite_differences(name, args):
    fn = getattr(ops, name)
    x0 = np.asarray(args[0], np.float64)
    rest = [np.asarray(a, np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
            else a for a in args[1:]]
    x = tw.constant(x0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(fn(x, *rest))
    g = tape.gradient(y, x).numpy()
    eps = 1e-6
    num = np.zeros_like(x0)
    for i in range(x0.size):
        d = np.zeros_like(x0)
        d.flat[i] = eps
        num.flat[i] = (float(ops.sum(fn(x0 + d, *rest))) - float(ops.sum(fn(x0 - d, *rest)))) \
            / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-5, err_msg=name)
