"""``tf.experimental.numpy``'s array functions: creation, shape, joining, indexing, products.

Rows over the shared ``arrays.py`` functions built under TensorFlow's NumPy dtype rules
(``config.TNP``), with TensorFlow's signatures; dtype arguments are read as NumPy reads them
(``float`` is float64). Each row is ``name: (implementation, signature, summary)``;
``SAME_NAME`` lists the ``arrays.py`` functions published as they are.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..graph.tensor import Tensor
from ..ops import array_ops as A
from ..ops import math_ops as M
from .arrays import array_functions
from .config import TNP, as_dtype, default_float, promote, result_type, tensor
from .tnp_math import ROWS as _MATH

F = array_functions(TNP)


def _dt(dtype, default=None):
    """A dtype argument as a DType; ``float`` (the signature default) is float64."""
    return default if dtype is None else as_dtype(dtype)


def _creator(fn):
    return lambda shape, dtype=float: fn(shape, _dt(dtype))


def _like(value):
    return lambda a, dtype=None: F._like(value)(a, _dt(dtype))


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    _layout(order, "full_like", "CFAK")
    t = tensor(a)
    dt = _dt(dtype, t.dtype)
    target = A.shape(t) if shape is None else F._shape_arg(shape)
    return A.broadcast_to(tensor(fill_value, dt), target)


def _layout(order, fn: str, allowed: str) -> None:
    # Tensors have no memory layout: C/F/A/K only matter where they change values (reshape).
    if order not in tuple(allowed):
        raise ValueError(f"tf.experimental.numpy.{fn}: order must be one of {list(allowed)}, "
                         f"got {order!r}")


def _array(val, dtype=None, copy=True, ndmin=0):
    t = tensor(val, None if dtype is None else as_dtype(dtype))
    rank = t.shape.rank
    if rank is not None and rank < ndmin:
        t = A.reshape(t, [1] * (ndmin - rank) + F._shape_list(t))
    return t


def _asarray(a, dtype=None):
    return tensor(a, None if dtype is None else as_dtype(dtype))


def _eye(N, M=None, k=0, dtype=float):  # noqa: N803  (NumPy's names)
    return F.eye(N, M, k, _dt(dtype, dtypes.float64))


def _tri(N, M=None, k=0, dtype=None):  # noqa: N803
    return F.tri(N, M, k, _dt(dtype, dtypes.float64))


def _space_dtype(start, stop):
    return result_type(start, stop, np.float32 if isinstance(start, float) and
                       isinstance(stop, float) and default_float() is dtypes.float32 else 1.0)


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    dt = _space_dtype(start, stop)
    out = F.linspace(tensor(start, dt), tensor(stop, dt), num, endpoint, retstep,
                     None if dtype is float else _dt(dtype), axis)
    return out


def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    dt = _space_dtype(start, stop)
    return F.logspace(tensor(start, dt), tensor(stop, dt), num, endpoint, base, _dt(dtype),
                      axis)


def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    dt = _space_dtype(start, stop)
    return F.geomspace(tensor(start, dt), tensor(stop, dt), num, endpoint, _dt(dtype), axis)


def _reshape(a, newshape, order="C"):
    _layout(order, "reshape", "CFA")
    if order == "F":
        t = tensor(a)
        shape = [newshape] if isinstance(newshape, int) else list(newshape)
        rev = A.transpose(t, list(range(t.shape.rank))[::-1])
        out = A.reshape(rev, shape[::-1])
        return A.transpose(out, list(range(len(shape)))[::-1])
    return F.reshape(a, newshape)


def _flatten(a, order="C"):
    return _reshape(a, -1, order)


def _atleast(n: int):
    def f(*arys):
        outs = [F._atleast(tensor(a), n) if n != 3 else _atleast_3d(tensor(a)) for a in arys]
        return outs[0] if len(outs) == 1 else outs
    return f


def _atleast_3d(t):
    rank = t.shape.rank
    if rank == 0:
        return A.reshape(t, [1, 1, 1])
    if rank == 1:
        return A.reshape(t, [1, -1, 1])
    if rank == 2:
        return A.expand_dims(t, 2)
    return t


def _broadcast_arrays(*args, **kwargs):
    if kwargs.pop("subok", False) or kwargs:
        raise TypeError("tf.experimental.numpy.broadcast_arrays takes only the arrays (and "
                        f"subok=False), got {sorted(kwargs) or ['subok']}")
    ts = [tensor(a) for a in args]
    shape = A.shape(ts[0])
    for t in ts[1:]:
        shape = A.broadcast_dynamic_shape(shape, A.shape(t))
    return [A.broadcast_to(t, shape) for t in ts]


def _meshgrid(*xi, **kwargs):
    indexing = kwargs.pop("indexing", "xy")
    sparse = kwargs.pop("sparse", False)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"tf.experimental.numpy.meshgrid got unexpected arguments "
                        f"{sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"tf.experimental.numpy.meshgrid: indexing must be 'xy' or 'ij', "
                         f"got {indexing!r}")
    ts = [A.reshape(t, [-1]) for t in (tensor(x) for x in xi)]
    if not sparse:
        return list(A.meshgrid(*ts, indexing=indexing))
    n = len(ts)
    out = []
    for i, t in enumerate(ts):
        shape = [1] * n
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        shape[pos] = -1
        out.append(A.reshape(t, shape))
    return out


def _einsum(subscripts, *operands, **kwargs):
    kwargs.pop("optimize", None)  # a contraction-order hint: the result does not depend on it
    if kwargs:
        raise TypeError(f"tf.experimental.numpy.einsum: unsupported arguments {sorted(kwargs)}")
    return F.einsum(subscripts, *operands)


def _size(x, axis=None):
    t = tensor(x)
    if axis is not None:
        dim = t.shape[axis] if t.shape.rank is not None else None
        return dim if dim is not None else A.shape(t, out_type=dtypes.int64)[axis]
    if t.shape.is_fully_defined():
        return int(np.prod(t.shape.as_list(), dtype=np.int64))
    return A.size(t, out_type=dtypes.int64)


def _shape(a):
    return tensor(a).shape if not isinstance(a, Tensor) else a.shape


def _isscalar(num):
    if isinstance(num, (bool, int, float, complex, str, bytes, np.generic)):
        return True
    return isinstance(num, Tensor) and num.shape.rank == 0


def _dtype_of(x):
    return x.dtype if isinstance(x, Tensor) else tensor(x).dtype


def _sort(a, axis=-1, kind="quicksort", order=None):
    t = _sort_input(a, kind, order, "sort")
    if axis is None:
        t, axis = A.reshape(t, [-1]), 0
    if t.dtype.is_bool:
        return M.cast(A.sort(M.cast(t, dtypes.int32), axis=axis), dtypes.bool_)
    return A.sort(t, axis=axis)


def _argsort(a, axis=-1, kind="quicksort", order=None):
    t = _sort_input(a, kind, order, "argsort")
    if axis is None:
        t, axis = A.reshape(t, [-1]), 0
    if t.dtype.is_bool:
        t = M.cast(t, dtypes.int32)
    return M.cast(A.argsort(t, axis=axis, stable=True), dtypes.int64)


def _sort_input(a, kind, order, fn: str):
    if order is not None:
        raise ValueError(f"tf.experimental.numpy.{fn}: order= (structured arrays) is not "
                         "supported")
    if kind not in ("quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"tf.experimental.numpy.{fn}: unknown kind {kind!r}")
    return tensor(a)


def _diff(a, n=1, axis=-1):
    t = tensor(a)
    if n < 0:
        raise ValueError(f"tf.experimental.numpy.diff: order must be non-negative, got {n}")
    for _ in range(n):
        t = F.moveaxis(t, axis, -1)
        t = F.moveaxis(t[..., 1:] - t[..., :-1], -1, axis)
    return t


def _polyval(p, x):
    if isinstance(p, (list, tuple)):
        coeffs = list(p)
    else:
        t = tensor(p)
        coeffs = A.unstack(t) if t.shape.rank else [t]
    ts = promote(*coeffs, x)
    xs, out = ts[-1], A.zeros_like(ts[-1])
    for c in ts[:-1]:
        out = out * xs + c
    return out


def _compress(condition, a, axis=None):
    t = tensor(a)
    if axis is None:
        t, axis = A.reshape(t, [-1]), 0
    cond = M.cast(tensor(condition), dtypes.bool_)
    idx = A.reshape(M.where(cond), [-1])
    return A.gather(t, idx, axis=axis)


def _ix(*args):
    n = len(args)
    out = []
    for i, a in enumerate(args):
        t = tensor(a)
        if t.dtype.is_bool:
            t = A.reshape(M.where(t), [-1])
        shape = [1] * n
        shape[i] = -1
        out.append(A.reshape(t, shape))
    return out


def _diag_indices(n, ndim=2):
    idx = A.range(n)
    return tuple(idx for _ in range(ndim))


def _take(a, indices, axis=None, mode="clip"):
    t, idx = tensor(a), tensor(indices)
    if axis is None:
        t, axis = A.reshape(t, [-1]), 0
    size = M.cast(A.shape(t)[axis], idx.dtype)
    if mode == "clip":
        idx = M.minimum(M.maximum(idx, M.cast(0, idx.dtype)), size - 1)
    elif mode == "wrap":
        idx = M.floormod(idx, size)
    elif mode != "raise":
        raise ValueError(f"tf.experimental.numpy.take: mode must be 'clip', 'wrap' or 'raise', "
                         f"got {mode!r}")
    return A.gather(t, idx, axis=axis)


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    d = F.diagonal(a, offset, axis1, axis2)
    return _MATH["sum"][0](d, -1, dtype, None)


def _pad(array, pad_width, mode, **kwargs):
    value = kwargs.pop("constant_values", None)
    if kwargs:
        raise ValueError(f"tf.experimental.numpy.pad: unsupported arguments {sorted(kwargs)}")
    return F.pad(array, pad_width, mode, value)


def _where(condition, x=None, y=None):
    out = F.where(condition, x, y)
    return list(out) if isinstance(out, tuple) else out


ROWS = {
    "zeros": (_creator(F.zeros), "shape, dtype=float", "Zeros of ``shape``."),
    "ones": (_creator(F.ones), "shape, dtype=float", "Ones of ``shape``."),
    "empty": (_creator(F.zeros), "shape, dtype=float", "An array of ``shape`` (zeros)."),
    "zeros_like": (_like(0), "a, dtype=None", "Zeros shaped like ``a``."),
    "ones_like": (_like(1), "a, dtype=None", "Ones shaped like ``a``."),
    "empty_like": (_like(0), "a, dtype=None", "An array shaped like ``a`` (zeros)."),
    "full": (lambda shape, fill_value, dtype=None: F.full(shape, fill_value, _dt(dtype)),
             "shape, fill_value, dtype=None", "``fill_value`` in ``shape``."),
    "full_like": (_full_like, "a, fill_value, dtype=None, order='K', subok=True, shape=None",
                  "``fill_value`` shaped like ``a`` (or ``shape``)."),
    "array": (_array, "val, dtype=None, copy=True, ndmin=0", "``val`` as an array."),
    **dict.fromkeys(("asarray", "asanyarray", "ascontiguousarray"),
                    (_asarray, "a, dtype=None", "``a`` as an array.")),
    "copy": (lambda a: A.identity(tensor(a)), "a", "A copy of ``a``."),
    "arange": (lambda start, stop=None, step=1, dtype=None: F.arange(start, stop, step,
                                                                       _dt(dtype)),
               "start, stop=None, step=1, dtype=None", "Evenly spaced values."),
    "eye": (_eye, "N, M=None, k=0, dtype=float", "Ones on diagonal ``k``."),
    "identity": (lambda n, dtype=float: _eye(n, None, 0, dtype), "n, dtype=float",
                 "The identity matrix."),
    "tri": (_tri, "N, M=None, k=0, dtype=None", "Ones at and below diagonal ``k``."),
    "linspace": (_linspace,
                 "start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0",
                 "``num`` evenly spaced values."),
    "logspace": (_logspace, "start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0",
                 "``num`` values evenly spaced on a log scale."),
    "geomspace": (_geomspace, "start, stop, num=50, endpoint=True, dtype=None, axis=0",
                  "A geometric progression of ``num`` values."),
    "diag_indices": (_diag_indices, "n, ndim=2", "The indices of the main diagonal."),
    "trace": (_trace, "a, offset=0, axis1=0, axis2=1, dtype=None", "Sum along a diagonal."),
    "reshape": (_reshape, "a, newshape, order='C'", "``a`` with a new shape."),
    "flatten": (_flatten, "a, order='C'", "``a`` flattened."),
    "broadcast_arrays": (_broadcast_arrays, "*args, **kwargs", "Broadcast against each other."),
    "fliplr": (lambda m: F.flip(m, 1), "m", "Reverse the columns."),
    "flipud": (lambda m: F.flip(m, 0), "m", "Reverse the rows."),
    "atleast_1d": (_atleast(1), "*arys", "Arrays with at least one axis."),
    "atleast_2d": (_atleast(2), "*arys", "Arrays with at least two axes."),
    "atleast_3d": (_atleast(3), "*arys", "Arrays with at least three axes."),
    "ndim": (lambda a: tensor(a).shape.rank, "a", "The number of axes."),
    "shape": (_shape, "a", "The shape, as a TensorShape."),
    "size": (_size, "x, axis=None", "The number of elements (along ``axis``)."),
    "isscalar": (_isscalar, "num", "Whether ``num`` is a scalar."),
    "iscomplexobj": (lambda x: _dtype_of(x).is_complex, "x", "Whether the dtype is complex."),
    "isrealobj": (lambda x: not _dtype_of(x).is_complex, "x", "Whether the dtype is not complex."),
    "split": (lambda ary, ios, axis=0: F.split(ary, ios, axis), "ary, indices_or_sections, axis=0",
              "Split into equal sections or at indices."),
    "take": (_take, "a, indices, axis=None, out=None, mode='clip'",
             "Elements at ``indices`` (out-of-range indices clipped by default)."),
    "where": (_where, "condition, x=None, y=None",
              "``x`` where ``condition`` else ``y``; the nonzero indices without them."),
    "nonzero": (lambda a: list(F.nonzero(a)), "a", "Indices of the nonzero elements."),
    "compress": (_compress, "condition, a, axis=None", "The slices where ``condition`` holds."),
    "ix_": (_ix, "*args", "Open meshes for cross-indexing."),
    "meshgrid": (_meshgrid, "*xi, **kwargs", "Coordinate grids (``indexing``, ``sparse``)."),
    "pad": (_pad, "array, pad_width, mode, **kwargs", "Pad ``array``."),
    "sort": (_sort, "a, axis=-1, kind='quicksort', order=None", "Sorted along ``axis``."),
    "argsort": (_argsort, "a, axis=-1, kind='quicksort', order=None",
                "Indices that sort along ``axis`` (stable)."),
    "diff": (_diff, "a, n=1, axis=-1", "The ``n``-th discrete difference."),
    "polyval": (_polyval, "p, x", "The polynomial with coefficients ``p`` at ``x``."),
    "einsum": (_einsum, "subscripts, *operands, **kwargs", "Einstein summation."),
}

# The functions ``arrays.py`` implements under NumPy's name: ``name: (signature, summary)``.
SAME_NAME = {
    "tril": ("m, k=0", "The lower triangle."),
    "triu": ("m, k=0", "The upper triangle."),
    "diag": ("v, k=0", "A diagonal, or a diagonal matrix."),
    "diagflat": ("v, k=0", "A matrix with ``v`` flattened on diagonal ``k``."),
    "diagonal": ("a, offset=0, axis1=0, axis2=1", "A diagonal."),
    "vander": ("x, N=None, increasing=False", "The Vandermonde matrix."),
    "ravel": ("a", "``a`` flattened."),
    "expand_dims": ("a, axis", "A new axis of length 1."),
    "squeeze": ("a, axis=None", "Drop axes of length 1."),
    "transpose": ("a, axes=None", "Permute the axes."),
    "moveaxis": ("a, source, destination", "Move axes."),
    "swapaxes": ("a, axis1, axis2", "Swap two axes."),
    "broadcast_to": ("array, shape", "``array`` broadcast to ``shape``."),
    "tile": ("a, reps", "Repeat ``a`` as a whole."),
    "repeat": ("a, repeats, axis=None", "Repeat each element."),
    "flip": ("m, axis=None", "Reverse along axes (all by default)."),
    "roll": ("a, shift, axis=None", "Roll elements along an axis."),
    "rot90": ("m, k=1, axes=(0, 1)", "Rotate by 90 degrees ``k`` times."),
    "concatenate": ("arys, axis=0", "Join along an axis."),
    "append": ("arr, values, axis=None", "``values`` appended to ``arr``."),
    "stack": ("arrays, axis=0", "Join along a new axis."),
    "hstack": ("tup", "Join horizontally."),
    "vstack": ("tup", "Join vertically."),
    "dstack": ("tup", "Join along the third axis."),
    "hsplit": ("ary, indices_or_sections", "Split horizontally."),
    "vsplit": ("ary, indices_or_sections", "Split vertically."),
    "dsplit": ("ary, indices_or_sections", "Split along the third axis."),
    "take_along_axis": ("arr, indices, axis", "Elements picked per position."),
    "select": ("condlist, choicelist, default=0", "Pick by the first true condition."),
    "kron": ("a, b", "Kronecker product."),
    "cross": ("a, b, axisa=-1, axisb=-1, axisc=-1, axis=None", "Cross product."),
    "dot": ("a, b", "NumPy's dot product."),
    "matmul": ("x1, x2", "Matrix product."),
    "inner": ("a, b", "Inner product over the last axes."),
    "outer": ("a, b", "Outer product."),
    "vdot": ("a, b", "Dot product of the flattened arrays (first conjugated)."),
    "tensordot": ("a, b, axes=2", "Tensor contraction over ``axes``."),
}
ROWS.update({name: (getattr(F, name), *row) for name, row in SAME_NAME.items()})
