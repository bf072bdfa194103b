"""``keras.ops`` sorting, searching, counting, quantiles, NaN-ignoring reductions, differences.
"""
from __future__ import annotations

import numpy as np

from ...control.vectorize import vectorized_map
from ...core import dtypes
from ...ops import array_ops as A
from ...ops import linalg_ops as L
from ...ops import math_ops as MO
from ...ops import reduction_ops as R
from ...ops import segment_ops as SG
from ...ops.nn import conv as _conv
from ._array import _ax, _dims, moveaxis, ravel
from ._common import as_float, floatx, promote, tensor


def sort(x, axis: int = -1):
    x = tensor(x)
    if x.dtype.is_bool:
        return MO.cast(A.sort(MO.cast(x, dtypes.int32), axis=axis), dtypes.bool_)
    return A.sort(x, axis=axis)


def argsort(x, axis: int = -1):
    x = tensor(x)
    if axis is None:
        x, axis = A.reshape(x, [-1]), 0
    if x.dtype.is_bool:
        x = MO.cast(x, dtypes.int32)
    return A.argsort(x, axis=axis, stable=True)


def argpartition(x, kth, axis: int = -1):
    # A full argsort is one valid partition: every element before ``kth`` is no larger.
    return argsort(x, axis)


def unique(x, sorted: bool = True, return_index: bool = False,  # noqa: A002 (Keras' name)
           return_inverse: bool = False, return_counts: bool = False, axis=None, size=None,
           fill_value=None):
    if axis is not None or size is not None:
        raise ValueError("keras.ops.unique: twinflow supports axis=None and size=None only")
    flat = ravel(x)
    values, inverse, counts = A.unique_with_counts(flat)
    if sorted:
        order = A.argsort(values, stable=True)
        values, counts = A.gather(values, order), A.gather(counts, order)
        inverse = A.gather(A.argsort(order, stable=True), inverse)
    out = [values]
    if return_index:
        n = A.shape(values)[0]
        pos = A.range(A.shape(flat)[0])
        out.append(SG.unsorted_segment_min(pos, inverse, n))
    if return_inverse:
        out.append(A.reshape(inverse, A.shape(tensor(x))))
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


def searchsorted(sorted_sequence, values, side: str = "left"):
    seq, v = promote(sorted_sequence, values)
    if seq.shape.rank != 1:
        raise ValueError(f"keras.ops.searchsorted needs a 1-D sorted_sequence, got rank "
                         f"{seq.shape.rank}")
    out = A.searchsorted(A.reshape(seq, [1, -1]), A.reshape(v, [1, -1]), side=side)
    return A.reshape(out, A.shape(v))


def digitize(x, bins):
    return searchsorted(bins, x, side="right")


def bincount(x, weights=None, minlength: int = 0, sparse: bool = False):
    if sparse:
        raise ValueError("keras.ops.bincount: sparse=True is not supported by twinflow")
    x = MO.cast(tensor(x), dtypes.int32)
    w = None if weights is None else tensor(weights)
    out_dtype = dtypes.int32 if w is None else w.dtype
    axis = -1 if x.shape.rank == 2 else None
    return SG.bincount(x, weights=w, minlength=minlength, axis=axis, dtype=out_dtype)


def histogram(x, bins: int = 10, range=None):  # noqa: A002 (NumPy's name)
    x = as_float(x)
    if x.shape.rank != 1:
        raise ValueError(f"keras.ops.histogram needs a 1-D input, got rank {x.shape.rank}")
    lo, hi = (R.reduce_min(x), R.reduce_max(x)) if range is None else \
        (tensor(range[0], x.dtype), tensor(range[1], x.dtype))
    inside = MO.logical_and(MO.greater_equal(x, lo), MO.less_equal(x, hi))
    vals = A.boolean_mask(x, inside)
    width = (hi - lo) / bins
    idx = MO.cast(MO.floor((vals - lo) / MO.where(MO.equal(width, 0.0), A.ones_like(width),
                                                    width)), dtypes.int32)
    idx = MO.minimum(MO.maximum(idx, 0), bins - 1)
    counts = SG.unsorted_segment_sum(A.ones_like(idx), idx, bins)
    edges = lo + MO.cast(A.range(bins + 1), x.dtype) * width
    return counts, edges


def _quantile_impl(x, q, axis, method: str, keepdims: bool, ignore_nan: bool):
    x = as_float(x)
    q = as_float(q)
    q = MO.cast(q, x.dtype)
    rank = x.shape.rank
    axes = list(range(rank)) if axis is None else \
        [_ax(a, rank) for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    keep = [i for i in range(rank) if i not in axes]
    xt = A.transpose(x, keep + axes)
    kept_shape = A.shape(xt)[:len(keep)]
    red = [d for i, d in enumerate(x.shape.as_list()) if i in axes]
    inner = int(np.prod(red)) if None not in red else \
        A.reshape(R.reduce_prod(A.shape(xt)[len(keep):]), [1])
    rows = A.reshape(xt, [-1, inner] if isinstance(inner, int) else
                     A.concat([tensor([-1]), inner], 0))
    nan = MO.is_nan(rows)
    if ignore_nan:
        rows = MO.where(nan, MO.cast(np.inf, x.dtype) + A.zeros_like(rows), rows)
    srt = A.sort(rows, axis=-1)
    total = MO.cast(A.shape(rows)[1], x.dtype)
    n = R.reduce_sum(MO.cast(MO.logical_not(nan), x.dtype), axis=1) if ignore_nan else \
        total + A.zeros_like(srt[:, 0])
    qf = A.reshape(q, [-1])
    pos = A.expand_dims(n - 1.0, 1) * A.expand_dims(qf, 0)
    pos = MO.maximum(pos, 0.0)
    lo, hi = MO.floor(pos), MO.ceil(pos)
    if method == "lower":
        hi = lo
    elif method == "higher":
        lo = hi
    elif method == "nearest":
        lo = hi = MO.round(pos)
    elif method not in ("linear", "midpoint"):
        raise ValueError(f"keras.ops.quantile: method {method!r} is not one of 'linear', "
                         "'lower', 'higher', 'midpoint', 'nearest'")
    gl = A.gather(srt, MO.cast(lo, dtypes.int32), batch_dims=1)
    gh = A.gather(srt, MO.cast(hi, dtypes.int32), batch_dims=1)
    frac = 0.5 if method == "midpoint" else pos - lo
    out = gl + (gh - gl) * frac if method in ("linear", "midpoint") else gl
    if ignore_nan:
        out = MO.where(MO.equal(A.expand_dims(n, 1), 0.0),
                       MO.cast(np.nan, x.dtype) + A.zeros_like(out), out)
    else:
        any_nan = A.expand_dims(R.reduce_any(nan, axis=1), 1)
        out = MO.where(any_nan, MO.cast(np.nan, x.dtype) + A.zeros_like(out), out)
    out = A.transpose(out)  # [nq, rows]
    out = A.reshape(out, A.concat([A.shape(qf), kept_shape], 0))
    if keepdims:
        for a in sorted(axes):
            out = A.expand_dims(out, a + 1)
    if q.shape.rank == 0:
        out = out[0]
    return out


def _quantile_fn(scale: float, ignore_nan: bool):
    def f(x, q, axis=None, method: str = "linear", keepdims: bool = False):
        q = as_float(q) * scale if scale != 1.0 else q
        return _quantile_impl(x, q, axis, method, keepdims, ignore_nan)
    return f


def _median_fn(ignore_nan: bool):
    def f(x, axis=None, keepdims: bool = False):
        return _quantile_impl(x, 0.5, axis, "linear", keepdims, ignore_nan)
    return f


quantile, nanquantile = _quantile_fn(1.0, False), _quantile_fn(1.0, True)
percentile, nanpercentile = _quantile_fn(0.01, False), _quantile_fn(0.01, True)
median, nanmedian = _median_fn(False), _median_fn(True)


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def _fill_nan(x, value):
    x = tensor(x)
    if not x.dtype.is_floating:
        return x, None
    nan = MO.is_nan(x)
    return MO.where(nan, MO.cast(value, x.dtype) + A.zeros_like(x), x), nan


def _nan_extreme(op, fill):
    def f(x, axis=None, keepdims: bool = False):
        y, nan = _fill_nan(x, fill)
        out = op(y, axis=_axis(axis), keepdims=keepdims)
        if nan is None:
            return out
        all_nan = R.reduce_all(nan, axis=_axis(axis), keepdims=keepdims)
        return MO.where(all_nan, MO.cast(np.nan, out.dtype) + A.zeros_like(out), out)
    return f


def nansum(x, axis=None, keepdims: bool = False):
    y, _ = _fill_nan(x, 0)
    if y.dtype.is_bool:
        y = MO.cast(y, dtypes.int32)
    return R.reduce_sum(y, axis=_axis(axis), keepdims=keepdims)


def nanprod(x, axis=None, keepdims: bool = False):
    y, _ = _fill_nan(x, 1)
    return R.reduce_prod(y, axis=_axis(axis), keepdims=keepdims)


def _nan_count(x, axis, keepdims):
    x = as_float(x)
    return R.reduce_sum(MO.cast(MO.logical_not(MO.is_nan(x)), x.dtype), axis=_axis(axis),
                        keepdims=keepdims)


def nanmean(x, axis=None, keepdims: bool = False):
    x = as_float(x)
    return nansum(x, axis, keepdims) / _nan_count(x, axis, keepdims)


def nanvar(x, axis=None, keepdims: bool = False):
    x = as_float(x)
    mean = nanmean(x, axis, True)
    dev, _ = _fill_nan(MO.square(x - mean), 0)
    return R.reduce_sum(dev, axis=_axis(axis), keepdims=keepdims) / \
        _nan_count(x, axis, keepdims)


def nanstd(x, axis=None, keepdims: bool = False):
    return MO.sqrt(nanvar(x, axis, keepdims))


def _nan_arg(op, fill):
    def f(x, axis=None, keepdims: bool = False):
        y, nan = _fill_nan(x, fill)
        flat = axis is None
        if flat:
            y, axis_ = A.reshape(y, [-1]), 0
        else:
            axis_ = axis
        out = MO.cast(op(y, axis=axis_), dtypes.int32)
        if nan is not None:
            all_nan = R.reduce_all(A.reshape(nan, [-1]) if flat else nan, axis=axis_)
            out = MO.where(all_nan, MO.cast(-1, dtypes.int32) + A.zeros_like(out), out)
        if keepdims:
            out = A.reshape(out, [1] * (tensor(x).shape.rank or 0)) if flat else \
                A.expand_dims(out, axis)
        return out
    return f


def _nan_cum(op, fill):
    def f(x, axis=None, dtype=None):
        y, _ = _fill_nan(x if dtype is None else tensor(x, dtype), fill)
        if axis is None:
            return op(A.reshape(y, [-1]), axis=0)
        return op(y, axis=axis)
    return f


def diff(a, n: int = 1, axis: int = -1):
    x = tensor(a)
    for _ in range(n):
        x = moveaxis(x, axis, -1)
        x = moveaxis(x[..., 1:] - x[..., :-1], -1, axis)
    return x


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    y = as_float(y)
    ym = moveaxis(y, axis, -1)
    avg = (ym[..., 1:] + ym[..., :-1]) * 0.5
    if x is None:
        return R.reduce_sum(avg, axis=-1) * dx
    xs = moveaxis(as_float(x), axis if tensor(x).shape.rank > 1 else 0, -1)
    return R.reduce_sum(avg * (xs[..., 1:] - xs[..., :-1]), axis=-1)


def corrcoef(x):
    x = as_float(x)
    if x.shape.rank == 1:
        x = A.expand_dims(x, 0)
    xc = x - R.reduce_mean(x, axis=1, keepdims=True)
    cov = L.matmul(xc, A.transpose(xc))
    d = MO.sqrt(A.expand_dims(R.reduce_sum(xc * xc, axis=1), 1))
    out = cov / (d * A.transpose(d))
    return MO.clip_by_value(out, -1.0, 1.0)


def correlate(x1, x2, mode: str = "valid"):
    a, v = promote(x1, x2)
    if not a.dtype.is_floating:
        a, v = MO.cast(a, floatx()), MO.cast(v, floatx())
    m, n = _dims(a, "correlate")[0], _dims(v, "correlate")[0]
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"keras.ops.correlate: mode must be 'valid', 'same' or 'full', "
                         f"got {mode!r}")
    if m < n:
        return A.reverse(correlate(v, a, mode), [0])
    pads = {"valid": (0, 0), "full": (n - 1, n - 1), "same": (n // 2, (n - 1) // 2)}
    ap = A.pad(a, [list(pads[mode])])
    out = _conv.conv1d(A.reshape(ap, [1, -1, 1]), A.reshape(v, [n, 1, 1]), 1, "VALID")
    return A.reshape(out, [-1])


def isin(x1, x2, assume_unique: bool = False, invert: bool = False):
    a, b = promote(x1, x2)
    found = R.reduce_any(MO.equal(A.expand_dims(a, -1), ravel(b)), axis=-1)
    return MO.logical_not(found) if invert else found


def unravel_index(indices, shape):
    idx = tensor(indices)
    out = A.unravel_index(MO.cast(idx, dtypes.int32), tensor(list(shape), dtypes.int32))
    return tuple(MO.cast(t, idx.dtype) for t in A.unstack(out, num=len(shape), axis=0))


def vectorize(pyfunc, *, excluded=None, signature=None):
    if excluded or signature:
        raise ValueError("keras.ops.vectorize: twinflow supports neither `excluded` nor "
                         "`signature`; call vectorized_map directly")

    def fn(*args):
        ts = promote(*args) if len(args) > 1 else [tensor(args[0])]
        shp = A.broadcast_dynamic_shape(A.shape(ts[0]), A.shape(ts[-1]))
        for t in ts[1:-1]:
            shp = A.broadcast_dynamic_shape(shp, A.shape(t))
        flat = [A.reshape(A.broadcast_to(t, shp), [-1]) for t in ts]
        out = vectorized_map(lambda e: pyfunc(*e), tuple(flat))
        return A.reshape(out, shp)
    fn.__name__ = getattr(pyfunc, "__name__", "vectorized")
    return fn


def view_as_complex(x):
    x = as_float(x)
    return MO.complex(x[..., 0], x[..., 1])


def view_as_real(x):
    x = tensor(x)
    return A.stack([MO.real(x), MO.imag(x)], -1)


def cdist(x, y):
    a, b = promote(as_float(x), as_float(y))
    d = A.expand_dims(a, -2) - A.expand_dims(b, -3)
    return MO.sqrt(R.reduce_sum(MO.square(d), axis=-1))


def polar(abs_, angle):
    r, t = promote(as_float(abs_), as_float(angle))
    return MO.complex(r * MO.cos(t), r * MO.sin(t))


NAN = {
    "nansum": (nansum, "Sum over ``axis``, NaNs counted as 0."),
    "nanprod": (nanprod, "Product over ``axis``, NaNs counted as 1."),
    "nanmean": (nanmean, "Mean over ``axis`` of the values that are not NaN."),
    "nanvar": (nanvar, "Variance over ``axis`` of the values that are not NaN."),
    "nanstd": (nanstd, "Standard deviation over ``axis`` of the values that are not NaN."),
    "nanmax": (_nan_extreme(R.reduce_max, -np.inf), "Maximum over ``axis``, ignoring NaNs."),
    "nanmin": (_nan_extreme(R.reduce_min, np.inf), "Minimum over ``axis``, ignoring NaNs."),
    "nanargmax": (_nan_arg(R.argmax, -np.inf), "Index of the maximum, ignoring NaNs."),
    "nanargmin": (_nan_arg(R.argmin, np.inf), "Index of the minimum, ignoring NaNs."),
    "nancumsum": (_nan_cum(MO.cumsum, 0), "Cumulative sum, NaNs counted as 0."),
    "nancumprod": (_nan_cum(MO.cumprod, 1), "Cumulative product, NaNs counted as 1."),
}
