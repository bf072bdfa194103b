"""``keras.ops.numpy``: NumPy's functions over tensors, with Keras' dtype rules.

The element-wise functions and reductions (``_math.py``) and the array functions
(``_array.py``) are the ``numpy_api`` tables under Keras' dtype rules; they and the
sorting/statistics ones (``_stats.py``) are published here with their summaries. Every
function accepts tensors, variables, NumPy arrays and Python values, runs eagerly and in
``tw.function``, and is differentiable where its math is.
"""
from __future__ import annotations

import numpy as np

from ...ops import array_ops as A
from ...ops import math_ops as MO
from ...ops.linalg_decomp import slogdet as _slogdet
from ...ops.math import comparison as _cmp
from . import _array, _stats
from ._common import as_float, make, promote, publish, tensor
from ._math import BINARY, REDUCTIONS, UNARY

_SHIFTS = {
    "left_shift": (lambda x, y: _cmp.left_shift(*promote(x, y)), "``x << y``, element-wise."),
    "right_shift": (lambda x, y: _cmp.right_shift(*promote(x, y)), "``x >> y``, element-wise."),
    "bitwise_left_shift": (lambda x, y: _cmp.left_shift(*promote(x, y)),
                           "``x << y``, element-wise."),
    "bitwise_right_shift": (lambda x, y: _cmp.right_shift(*promote(x, y)),
                            "``x >> y``, element-wise."),
}


def _slogdet_fn(x):
    return _slogdet(as_float(x))


def _view(x, dtype=None):
    x = tensor(x)
    if dtype is None:
        return A.identity(x)
    raise ValueError("keras.ops.view: reinterpreting the bytes of a tensor as another dtype "
                     "is not supported by twinflow (tensors have no shared memory)")


_MORE = {
    "copy": (lambda x: A.identity(tensor(x)), "A copy of ``x``."),
    "fliplr": (lambda x: _array.flip(x, 1), "Reverse the columns (axis 1)."),
    "flipud": (lambda x: _array.flip(x, 0), "Reverse the rows (axis 0)."),
    "zeros_like": (_array._like(0), "Zeros with the shape (and dtype) of ``x``."),
    "ones_like": (_array._like(1), "Ones with the shape (and dtype) of ``x``."),
    "empty_like": (_array._like(0), "A tensor with the shape of ``x`` (zeros)."),
    "bartlett": (_array._window(np.bartlett), "The Bartlett window of length ``x``."),
    "blackman": (_array._window(np.blackman), "The Blackman window of length ``x``."),
    "hamming": (_array._window(np.hamming), "The Hamming window of length ``x``."),
    "hanning": (_array._window(np.hanning), "The Hann window of length ``x``."),
    "slogdet": (_slogdet_fn, "``(sign, log|det|)`` of square matrices."),
    "view": (_view, "``x`` itself when ``dtype`` is None (bit reinterpretation raises)."),
}

_ARRAY_DOCS = {
    "zeros": "Zeros of ``shape``.", "ones": "Ones of ``shape``.",
    "empty": "A tensor of ``shape`` (zeros).", "full": "``fill_value`` in ``shape``.",
    "full_like": "``fill_value`` in the shape of ``x``.", "array": "``x`` as a tensor.",
    "arange": "Evenly spaced values in ``[start, stop)``.", "eye": "A 2-D identity-like matrix.",
    "identity": "The ``n`` by ``n`` identity matrix.", "tri": "Ones at and below diagonal k.",
    "tril": "The lower triangle (below diagonal k).", "triu": "The upper triangle.",
    "linspace": "``num`` evenly spaced values from ``start`` to ``stop``.",
    "logspace": "``num`` values spaced evenly on a log scale.",
    "geomspace": "``num`` values spaced evenly on a log scale (a geometric progression).",
    "kaiser": "The Kaiser window of length ``x``.", "vander": "The Vandermonde matrix.",
    "reshape": "``x`` with a new shape.", "ravel": "``x`` flattened.",
    "expand_dims": "``x`` with new axes of length 1.", "squeeze": "Drop axes of length 1.",
    "transpose": "Permute the axes.", "moveaxis": "Move axes to new positions.",
    "swapaxes": "Swap two axes.", "broadcast_to": "``x`` broadcast to ``shape``.",
    "tile": "Repeat ``x`` as a whole.", "repeat": "Repeat each element.",
    "flip": "Reverse along axes (all by default).", "roll": "Roll elements along an axis.",
    "rot90": "Rotate by 90 degrees ``k`` times in the plane ``axes``.",
    "ndim": "The rank of ``x``.", "shape": "The static shape as a tuple.",
    "size": "The number of elements.", "concatenate": "Join along an axis.",
    "append": "``x2`` appended to ``x1`` (flattened when axis is None).",
    "stack": "Join along a new axis.", "hstack": "Join horizontally.",
    "vstack": "Join vertically.", "dstack": "Join along the third axis.",
    "split": "Split into equal sections or at indices.",
    "array_split": "Split into nearly equal sections or at indices.",
    "hsplit": "Split horizontally.", "vsplit": "Split vertically.",
    "dsplit": "Split along the third axis.", "pad": "Pad ``x``.",
    "take": "Elements at ``indices`` along an axis.",
    "take_along_axis": "Elements picked per position along an axis.",
    "get_item": "``x[key]``.", "where": "``x1`` where ``condition`` else ``x2``.",
    "nonzero": "Indices of the nonzero elements, one tensor per axis.",
    "select": "Elements from ``choicelist`` by the first true condition.",
    "diag": "Extract a diagonal, or build a diagonal matrix.",
    "diagflat": "A matrix with the flattened input on diagonal k.",
    "diagonal": "A diagonal of the plane ``(axis1, axis2)``.",
    "trace": "Sum along a diagonal.", "tensordot": "Tensor contraction over ``axes``.",
    "matmul": "Matrix product.", "dot": "NumPy's dot product.",
    "inner": "Inner product over the last axes.", "outer": "Outer product.",
    "vdot": "Dot product of the flattened, conjugated first and second inputs.",
    "kron": "Kronecker product.", "cross": "Cross product of 2- or 3-vectors.",
    "meshgrid": "Coordinate grids.", "einsum": "Einstein summation.",
    "unstack": "The slices along ``axis``, as a list.",
    "rearrange": "Reorder, merge and split axes by an einops pattern.",
}

_STATS_DOCS = {
    "sort": "Sorted along ``axis``.", "argsort": "Indices that sort along ``axis``.",
    "argpartition": "Indices that partition along ``axis`` around ``kth``.",
    "unique": "The unique elements (sorted), with indices/inverse/counts on request.",
    "searchsorted": "Insertion points of ``values`` in a sorted 1-D sequence.",
    "digitize": "The bin of each element.", "bincount": "Counts of each non-negative int.",
    "histogram": "``(counts, bin edges)`` of a 1-D input.",
    "quantile": "Quantiles ``q`` along ``axis``.", "percentile": "Percentiles ``q``.",
    "median": "The median along ``axis``.", "nanquantile": "Quantiles, ignoring NaNs.",
    "nanpercentile": "Percentiles, ignoring NaNs.", "nanmedian": "Median, ignoring NaNs.",
    "diff": "The ``n``-th discrete difference.", "trapezoid": "Trapezoidal-rule integral.",
    "corrcoef": "Pearson correlation coefficients of the rows.",
    "correlate": "Cross-correlation of two 1-D sequences.",
    "isin": "Whether each element of ``x1`` is in ``x2``.",
    "unravel_index": "Flat indices as a tuple of coordinate tensors.",
    "vectorize": "A function applying ``pyfunc`` element-wise.",
    "view_as_complex": "Pairs (last axis of 2) as complex numbers.",
    "view_as_real": "Complex numbers as (real, imag) pairs on a new last axis.",
    "cdist": "Euclidean distances between the rows of ``x`` and of ``y``.",
}

__all__ = publish(globals(), {**UNARY, **BINARY, **REDUCTIONS, **_stats.NAN, **_SHIFTS,
                              **_MORE}, __name__)
for _name, _doc in _ARRAY_DOCS.items():
    globals()[_name] = make(_name, getattr(_array, _name), _doc, __name__)
for _name, _doc in _STATS_DOCS.items():
    globals()[_name] = make(_name, getattr(_stats, _name), _doc, __name__)
__all__ += list(_ARRAY_DOCS) + list(_STATS_DOCS)
del _name, _doc, MO
