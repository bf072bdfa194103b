"""Array functions of a NumPy-like API: creation, shape, joining and splitting, indexing, products.

``array_functions(policy)`` returns them as one namespace (``policy.py`` decides conversion and
dtypes), shared by ``keras.ops`` and ``tf.experimental.numpy``. NumPy's semantics (``split`` at
indices, ``dot`` by rank, ``flip`` over all axes by default) over twinflow's ops; shapes that
must be known to follow NumPy (``array_split`` sections, ``kron``, ``diag`` of a matrix) are read
from the static shape and raise a ValueError naming the function when unknown.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..core import dtypes
from ..ops import array_ops as A
from ..ops import linalg_ops as L
from ..ops import math_ops as MO
from ..ops import reduction_ops as R
from .policy import Policy


def array_functions(P: Policy) -> SimpleNamespace:  # noqa: N803
    """The array functions under the dtype rules ``P``.

    Args:
        P: the policy (conversion, promotion, default dtypes).

    Returns:
        A namespace of functions named as NumPy's (``zeros``, ``reshape``, ``split``...) and
        the helpers ``_dims``, ``_ax``, ``_like``, ``_window``, ``_shape_arg``.
    """
    tensor, promote, as_float, floatx = P.tensor, P.promote, P.as_float, P.floatx
    def _dims(x, fn: str) -> list:
        dims = x.shape.as_list() if x.shape.rank is not None else None
        if dims is None or any(d is None for d in dims):
            raise ValueError(f"{P.name}.{fn} needs a fully known shape; got {x.shape}")
        return dims

    def _ax(axis: int, rank: int) -> int:
        return axis + rank if axis < 0 else axis

    def _dtype(dtype, default):
        return dtypes.as_dtype(dtype) if dtype is not None else default

    # -- creation --------------------------------------------------------------------------------

    def _shape_arg(shape):
        return [shape] if isinstance(shape, int) else shape

    def zeros(shape, dtype=None):
        return A.zeros(_shape_arg(shape), _dtype(dtype, floatx()))

    def ones(shape, dtype=None):
        return A.ones(_shape_arg(shape), _dtype(dtype, floatx()))

    def empty(shape, dtype=None):
        return zeros(shape, dtype)

    def full(shape, fill_value, dtype=None):
        v = tensor(fill_value, dtype)
        return A.broadcast_to(v, _shape_arg(shape))

    def _like(value):
        def f(x, dtype=None):
            x = tensor(x)
            return A.fill(A.shape(x), MO.cast(value, _dtype(dtype, x.dtype)))
        return f

    def full_like(x, fill_value, dtype=None):
        x = tensor(x)
        return A.broadcast_to(tensor(fill_value, _dtype(dtype, x.dtype)), A.shape(x))

    def array(x, dtype=None):
        return tensor(x, dtype)

    def arange(start, stop=None, step=None, dtype=None):
        if stop is None:
            start, stop = 0, start
        step = 1 if step is None else step
        is_float = any(isinstance(v, float) or (hasattr(v, "dtype") and
                                                 dtypes.as_dtype(v.dtype).is_floating)
                       for v in (start, stop, step))
        dt = _dtype(dtype, floatx() if is_float else P.index_dtype())
        if dt.is_floating:
            return A.range(tensor(start, dt), tensor(stop, dt), tensor(step, dt))
        return MO.cast(A.range(start, stop, step), dt)

    def eye(N, M=None, k: int = 0, dtype=None):  # noqa: N803  (NumPy's names)
        m = N if M is None else M
        return tensor(np.eye(int(N), int(m), int(k)), _dtype(dtype, floatx()))

    def identity(n, dtype=None):
        return eye(n, None, 0, dtype)

    def tri(N, M=None, k: int = 0, dtype=None):  # noqa: N803
        m = N if M is None else M
        return tensor(np.tri(int(N), int(m), int(k)), _dtype(dtype, floatx()))

    def _band_mask(x, k: int, lower: bool):
        shape = A.shape(x)
        n, m = shape[-2], shape[-1]
        rows = A.expand_dims(A.range(n), 1)
        cols = A.expand_dims(A.range(m), 0)
        return MO.less_equal(cols - rows, k) if lower else MO.greater_equal(cols - rows, k)

    def tril(x, k: int = 0):
        x = tensor(x)
        return MO.where(_band_mask(x, k, True), x, A.zeros_like(x))

    def triu(x, k: int = 0):
        x = tensor(x)
        return MO.where(_band_mask(x, k, False), x, A.zeros_like(x))

    def _spaced(start, stop, num: int, endpoint: bool, dtype, axis: int):
        a, b = promote(as_float(start), as_float(stop))
        div = (num - 1) if endpoint else num
        steps = MO.cast(A.range(num), a.dtype) / max(div, 1)
        rank = a.shape.rank or 0
        steps = A.reshape(steps, [num] + [1] * rank)
        out = a + steps * (b - a)
        if endpoint and num > 1:
            out = A.concat([out[:-1], A.expand_dims(b + A.zeros_like(a), 0)], 0)
        if axis != 0:
            out = moveaxis(out, 0, axis)
        return out, (b - a) / max(div, 1)

    def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
                 dtype=None, axis: int = 0):
        out, step = _spaced(start, stop, num, endpoint, dtype, axis)
        if dtype is not None:
            out = tensor(out, dtype)
        return (out, step) if retstep else out

    def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10, dtype=None,
                 axis: int = 0):
        out, _ = _spaced(start, stop, num, endpoint, dtype, axis)
        out = MO.pow(MO.cast(base, out.dtype) + A.zeros_like(out), out)
        return out if dtype is None else tensor(out, dtype)

    def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
        a, b = promote(as_float(start), as_float(stop))
        out, _ = _spaced(MO.log(MO.abs(a)), MO.log(MO.abs(b)), num, endpoint, None, 0)
        out = MO.exp(out) * MO.sign(a)
        if axis != 0:
            out = moveaxis(out, 0, axis)
        return out if dtype is None else tensor(out, dtype)

    def _window(fn):
        def f(x):
            return tensor(fn(int(x)), floatx())
        return f

    def kaiser(x, beta):
        return tensor(np.kaiser(int(x), float(beta)), floatx())

    def vander(x, N=None, increasing: bool = False):  # noqa: N803
        x = tensor(x)
        n = _dims(x, "vander")[0] if N is None else int(N)
        powers = np.arange(n) if increasing else np.arange(n)[::-1]
        return MO.pow(A.expand_dims(x, 1), tensor(powers.copy(), x.dtype))

    # -- shape -----------------------------------------------------------------------------------

    def reshape(x, newshape):
        return A.reshape(tensor(x), _shape_arg(newshape))

    def ravel(x):
        return A.reshape(tensor(x), [-1])

    def expand_dims(x, axis):
        x = tensor(x)
        axes = axis if isinstance(axis, (list, tuple)) else [axis]
        out_rank = x.shape.rank + len(axes)
        for a in sorted(_ax(a, out_rank) for a in axes):
            x = A.expand_dims(x, a)
        return x

    def squeeze(x, axis=None):
        x = tensor(x)
        if axis is None:
            return A.squeeze(x)
        return A.squeeze(x, list(axis) if isinstance(axis, (list, tuple)) else [axis])

    def transpose(x, axes=None):
        return A.transpose(tensor(x), None if axes is None else list(axes))

    def moveaxis(x, source, destination):
        x = tensor(x)
        rank = x.shape.rank
        src = [_ax(a, rank) for a in (source if isinstance(source, (list, tuple)) else [source])]
        dst = [_ax(a, rank) for a in (destination if isinstance(destination, (list, tuple))
                                      else [destination])]
        order = [i for i in range(rank) if i not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return A.transpose(x, order)

    def swapaxes(x, axis1: int, axis2: int):
        x = tensor(x)
        perm = list(range(x.shape.rank))
        a, b = _ax(axis1, len(perm)), _ax(axis2, len(perm))
        perm[a], perm[b] = perm[b], perm[a]
        return A.transpose(x, perm)

    def broadcast_to(x, shape):
        return A.broadcast_to(tensor(x), _shape_arg(shape))

    def tile(x, repeats):
        x = tensor(x)
        reps = [repeats] if isinstance(repeats, int) else list(repeats)
        rank = x.shape.rank
        if len(reps) < rank:
            reps = [1] * (rank - len(reps)) + reps
        elif len(reps) > rank:
            x = A.reshape(x, [1] * (len(reps) - rank) + _shape_list(x))
        return A.tile(x, reps)

    def _shape_list(x) -> list:
        return [d if d is not None else -1 for d in x.shape.as_list()]

    def repeat(x, repeats, axis=None):
        x = tensor(x)
        if axis is None:
            x, axis = A.reshape(x, [-1]), 0
        return A.repeat(x, repeats, axis=axis)

    def flip(x, axis=None):
        x = tensor(x)
        axes = list(range(x.shape.rank)) if axis is None else \
            (list(axis) if isinstance(axis, (list, tuple)) else [axis])
        return A.reverse(x, axes)

    def roll(x, shift, axis=None):
        x = tensor(x)
        if axis is None:
            return A.reshape(A.roll(A.reshape(x, [-1]), shift, 0), A.shape(x))
        return A.roll(x, shift, axis)

    def rot90(array, k: int = 1, axes=(0, 1)):
        x = tensor(array)
        k %= 4
        a, b = axes
        for _ in range(k):
            x = swapaxes(flip(x, b), a, b)
        return x

    def ndim(x):
        return tensor(x).shape.rank

    def shape(x):
        x = tensor(x) if not hasattr(x, "shape") else x
        return tuple(x.shape.as_list()) if hasattr(x.shape, "as_list") else tuple(x.shape)

    def size(x):
        return A.size(tensor(x))

    # -- joining and splitting -------------------------------------------------------------------

    def concatenate(xs, axis: int = 0):
        ts = promote(*xs)
        if axis is None:
            return A.concat([A.reshape(t, [-1]) for t in ts], 0)
        return A.concat(ts, axis)

    def append(x1, x2, axis=None):
        return concatenate([x1, x2], axis)

    def stack(x, axis: int = 0):
        return A.stack(promote(*x), axis)

    def _atleast(t, n: int):
        t = tensor(t)
        while t.shape.rank < n:
            t = A.expand_dims(t, 0 if t.shape.rank == 0 or n == 2 else t.shape.rank)
        return t

    def hstack(xs):
        ts = promote(*xs)
        return A.concat(ts, 0 if all(t.shape.rank == 1 for t in ts) else 1)

    def vstack(xs):
        return A.concat([_atleast(t, 2) for t in promote(*xs)], 0)

    def dstack(xs):
        out = []
        for t in promote(*xs):
            if t.shape.rank == 1:
                t = A.reshape(t, [1, -1, 1])
            elif t.shape.rank == 2:
                t = A.expand_dims(t, 2)
            out.append(t)
        return A.concat(out, 2)

    def _split_sizes(n: int, indices_or_sections, equal: bool, fn: str) -> list:
        if isinstance(indices_or_sections, int):
            k = indices_or_sections
            if equal and n % k:
                raise ValueError(f"{P.name}.{fn}: an axis of length {n} does not split into {k} "
                                 "equal sections")
            return [n // k + 1] * (n % k) + [n // k] * (k - n % k)
        points = [0] + [min(max(int(i), 0), n) for i in indices_or_sections] + [n]
        return [max(b - a, 0) for a, b in zip(points[:-1], points[1:])]

    def split(x, indices_or_sections, axis: int = 0, _equal: bool = True, _fn: str = "split"):
        x = tensor(x)
        n = _dims(x, _fn)[axis]
        sizes = _split_sizes(n, indices_or_sections, _equal, _fn)
        return A.split(x, sizes, axis=axis)

    def array_split(x, indices_or_sections, axis: int = 0):
        return split(x, indices_or_sections, axis, False, "array_split")

    def hsplit(x, indices_or_sections):
        x = tensor(x)
        return split(x, indices_or_sections, 0 if x.shape.rank == 1 else 1, True, "hsplit")

    def vsplit(x, indices_or_sections):
        return split(x, indices_or_sections, 0, True, "vsplit")

    def dsplit(x, indices_or_sections):
        return split(x, indices_or_sections, 2, True, "dsplit")

    def unstack(x, num=None, axis: int = 0):
        return A.unstack(tensor(x), num=num, axis=axis)

    def pad(x, pad_width, mode: str = "constant", constant_values=None):
        x = tensor(x)
        rank = x.shape.rank
        pw = np.asarray(pad_width, dtype=np.int64)
        pw = np.broadcast_to(pw.reshape(-1, 2) if pw.size > 1 else pw.reshape(1, 1),
                             (rank, 2)).tolist()
        mode = mode.lower()
        if mode == "constant":
            value = 0 if constant_values is None else constant_values
            return A.pad(x, pw, "CONSTANT", MO.cast(value, x.dtype))
        if constant_values is not None:
            raise ValueError(f"{P.name}.pad: constant_values is only used with mode='constant', "
                             f"not {mode!r}")
        if mode in ("reflect", "symmetric"):
            return A.pad(x, pw, mode.upper())
        raise ValueError(f"{P.name}.pad: mode {mode!r} is not supported (twinflow supports "
                         "'constant', 'reflect' and 'symmetric', as tf.pad does)")

    # -- indexing --------------------------------------------------------------------------------

    def take(x, indices, axis=None):
        x = tensor(x)
        idx = tensor(indices)
        if axis is None:
            x, axis = A.reshape(x, [-1]), 0
        n = A.shape(x)[axis]
        if idx.dtype.is_integer:
            idx = MO.where(MO.less(idx, 0), idx + MO.cast(n, idx.dtype), idx)
        return A.gather(x, idx, axis=axis)

    def take_along_axis(x, indices, axis=None):
        x, idx = tensor(x), tensor(indices)
        if axis is None:
            x, axis = A.reshape(x, [-1]), 0
        axis = _ax(axis, x.shape.rank)
        n = A.shape(x)[axis]
        idx = MO.where(MO.less(idx, 0), idx + MO.cast(n, idx.dtype), idx)
        xm, im = moveaxis(x, axis, -1), moveaxis(idx, axis, -1)
        batch = A.broadcast_dynamic_shape(A.shape(xm)[:-1], A.shape(im)[:-1])
        xm = A.broadcast_to(xm, A.concat([batch, A.shape(xm)[-1:]], 0))
        im = A.broadcast_to(im, A.concat([batch, A.shape(im)[-1:]], 0))
        out = A.gather(xm, im, axis=-1, batch_dims=max(xm.shape.rank - 1, 0))
        return moveaxis(out, -1, axis)

    def get_item(x, key):
        return tensor(x)[key]

    def where(condition, x1=None, x2=None):
        c = MO.cast(tensor(condition), dtypes.bool_)
        if x1 is None and x2 is None:
            return nonzero(c)
        if x1 is None or x2 is None:
            raise ValueError(f"{P.name}.where: give both x1 and x2, or neither")
        a, b = promote(x1, x2)
        return MO.where(c, a, b)

    def nonzero(x):
        x = tensor(x)
        idx = MO.cast(MO.where(MO.not_equal(x, MO.cast(0, x.dtype))), P.index_dtype())
        return tuple(A.unstack(idx, num=x.shape.rank, axis=1))

    def select(condlist, choicelist, default=0):
        choices = promote(*choicelist)
        out = A.broadcast_to(tensor(default, choices[0].dtype), A.shape(choices[0]))
        for c, v in zip(reversed(list(condlist)), reversed(choices)):
            out = MO.where(MO.cast(tensor(c), dtypes.bool_), v, out)
        return out

    def diag(x, k: int = 0):
        x = tensor(x)
        if x.shape.rank == 1:
            n = _dims(x, "diag")[0] + abs(k)
            rows = np.arange(n - abs(k)) + max(-k, 0)
            cols = rows + k
            idx = np.stack([rows, cols], 1)
            return A.scatter_nd(tensor(idx.astype(np.int32)), x, [n, n])
        if x.shape.rank == 2:
            return diagonal(x, k)
        raise ValueError(f"{P.name}.diag needs a 1-D or 2-D input, got rank {x.shape.rank}")

    def diagflat(x, k: int = 0):
        return diag(ravel(x), k)

    def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1):
        x = tensor(x)
        rank = x.shape.rank
        x = moveaxis(x, [_ax(axis1, rank), _ax(axis2, rank)], [rank - 2, rank - 1])
        n, m = _dims(x, "diagonal")[-2:]
        rows = np.arange(max(0, -offset), n)
        rows = rows[rows + offset < m]
        xm = moveaxis(x, [rank - 2, rank - 1], [0, 1])
        idx = np.stack([rows, rows + offset], 1).astype(np.int32)
        return moveaxis(A.gather_nd(xm, tensor(idx)), 0, -1)

    def trace(x, offset: int = 0, axis1: int = 0, axis2: int = 1):
        d = diagonal(x, offset, axis1, axis2)
        return R.reduce_sum(d if not d.dtype.is_bool else MO.cast(d, dtypes.int32), axis=-1)

    def tensordot(x1, x2, axes=2):
        a, b = promote(x1, x2)
        return L.tensordot(a, b, axes)

    def matmul(x1, x2):
        a, b = promote(x1, x2)
        if a.shape.rank == 1 and b.shape.rank == 1:
            return R.reduce_sum(a * b)
        if a.shape.rank == 1:
            return A.squeeze(L.matmul(A.expand_dims(a, 0), b), [-2])
        if b.shape.rank == 1:
            return A.squeeze(L.matmul(a, A.expand_dims(b, 1)), [-1])
        return L.matmul(a, b)

    def dot(x1, x2):
        a, b = promote(x1, x2)
        if a.shape.rank == 0 or b.shape.rank == 0:
            return a * b
        if b.shape.rank == 1:
            return L.tensordot(a, b, [[a.shape.rank - 1], [0]])
        return L.tensordot(a, b, [[a.shape.rank - 1], [b.shape.rank - 2]])

    def inner(x1, x2):
        a, b = promote(x1, x2)
        if a.shape.rank == 0 or b.shape.rank == 0:
            return a * b
        return L.tensordot(a, b, [[a.shape.rank - 1], [b.shape.rank - 1]])

    def outer(x1, x2):
        a, b = promote(x1, x2)
        return A.expand_dims(ravel(a), 1) * A.expand_dims(ravel(b), 0)

    def vdot(x1, x2):
        a, b = promote(x1, x2)
        a = ravel(a)
        return R.reduce_sum((MO.conj(a) if a.dtype.is_complex else a) * ravel(b))

    def kron(x1, x2):
        a, b = promote(x1, x2)
        da, db = _dims(a, "kron"), _dims(b, "kron")
        r = max(len(da), len(db))
        da, db = [1] * (r - len(da)) + da, [1] * (r - len(db)) + db
        ia = [v for d in da for v in (d, 1)]
        ib = [v for d in db for v in (1, d)]
        out = A.reshape(a, ia) * A.reshape(b, ib)
        return A.reshape(out, [p * q for p, q in zip(da, db)])

    def cross(x1, x2, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis=None):
        a, b = promote(x1, x2)
        if axis is not None:
            axisa = axisb = axisc = axis
        a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
        na, nb = _dims(a, "cross")[-1], _dims(b, "cross")[-1]
        if na not in (2, 3) or nb not in (2, 3):
            raise ValueError(f"{P.name}.cross: vectors must have 2 or 3 components, got {na} "
                             f"and {nb}")
        if na == 2 and nb == 2:
            return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
        if na == 2:
            a = A.concat([a, A.zeros_like(a[..., :1])], -1)
        if nb == 2:
            b = A.concat([b, A.zeros_like(b[..., :1])], -1)
        a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
        b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
        out = A.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)
        return moveaxis(out, -1, axisc)

    def meshgrid(*x, indexing: str = "xy"):
        return A.meshgrid(*promote(*x), indexing=indexing)

    def einsum(subscripts, *operands, **kwargs):
        return L.einsum(subscripts, *promote(*operands), **kwargs)

    return SimpleNamespace(**{k: v for k, v in locals().items() if callable(v)})
