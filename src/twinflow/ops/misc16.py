"""Top-level leftovers of issue 16: ``tw.math.betainc`` (with its gradient in x),
``tw.ragged_fill_empty_rows`` (+ ``_grad``), ``tw.conv2d_backprop_filter_v2``/``input_v2``,
``tw.conv`` (TensorFlow's general ``Conv``: batch dims, groups), ``tw.extract_volume_patches``,
``tw.random.stateless_parameterized_truncated_normal`` and ``tw.random_index_shuffle``."""
from __future__ import annotations

import base64
import math

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind, constant_value
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from .array_ops import concat, pad, reshape, shape, split, transpose
from .core import convert, convert_pair
from .math.special import lgamma
from .math_ops import exp, log, multiply, subtract
from .nn.conv import Conv2DBackpropFilter, Conv2DBackpropInput
from .nn.generic import convolution
from .nn.geometry import _conv_attrs
from .random.stateless_dist import RandomIndexShuffle
from .sobol_table import DIRECTIONS_B64, SOBOL_BITS, SOBOL_DIMS


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


# ----- betainc ----------------------------------------------------------------------------

def _lbeta(a, b):
    lg = np.vectorize(math.lgamma, otypes=[np.float64])
    return lg(a) + lg(b) - lg(a + b)


def _betacf(a, b, x, iters: int = 300):
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1.0 / d
    h = d.copy()
    for m in range(1, iters + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = d * c
        h *= delta
        if np.all(np.abs(delta - 1.0) < 1e-16):
            break
    return h


def betainc_np(a, b, x) -> np.ndarray:
    """The regularized incomplete beta function ``I_x(a, b)`` in float64 (NaN outside the
    domain ``a, b > 0``, ``0 <= x <= 1``)."""
    a, b, x = (np.asarray(v, np.float64) for v in np.broadcast_arrays(a, b, x))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    out[ok & (x == 0)] = 0.0
    out[ok & (x == 1)] = 1.0
    inner = ok & (x > 0) & (x < 1)
    if inner.any():
        ai, bi, xi = a[inner], b[inner], x[inner]
        with np.errstate(all="ignore"):
            front = np.exp(ai * np.log(xi) + bi * np.log1p(-xi) - _lbeta(ai, bi))
            direct = xi < (ai + 1) / (ai + bi + 2)
            res = np.where(direct, front * _betacf(ai, bi, xi) / ai,
                           1.0 - front * _betacf(bi, ai, 1.0 - xi) / bi)
        out[inner] = res
    return out


def _betainc_infer(a, b, x):
    shapes = [t.shape for t in (a, b, x) if t.shape.rank != 0]
    out = shapes[0] if shapes else TensorShape([])
    for s in shapes[1:]:
        if not out.is_compatible_with(s):
            raise _err(f"Shapes of a, b and x are inconsistent: {a.shape} vs. {b.shape} vs. "
                       f"{x.shape}")
        out = out.merge_with(s)
    return a.dtype, out


@register_op("Betainc", same_dtype=True, check_shapes=True,
             schema="a:T, b:T, x:T -> z:T | T:type in [float,double]")
class Betainc:
    """The regularized incomplete beta function ``I_x(a, b)``."""

    infer = _betainc_infer

    def kernel(a, b, x):
        return betainc_np(a, b, x).astype(a.dtype)

    def grad(op, dz):
        # d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b); TensorFlow gives none for a and b
        a, b, x = op.inputs
        log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
        dx = exp(subtract(multiply(a - 1, log(x)) + multiply(b - 1, log(1 - x)), log_beta))
        return None, None, multiply(dz, dx)


def betainc(a: TensorLike, b: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The regularized incomplete beta function ``I_x(a, b)`` (``tw.math.betainc``).

    Args:
        a: positive float32/float64 (same shape as the others, or a scalar).
        b: positive, like ``a``.
        x: in [0, 1], like ``a``.
        name: op name.

    Returns:
        ``I_x(a, b)`` (NaN outside the domain); differentiable in ``x``.
    """
    a, b = convert_pair(a, b)
    return bind(Betainc, [a, b, convert(x, dtype=a.dtype)], name=name)



# ----- ragged_fill_empty_rows -----------------------------------------------------------------

@register_op("RaggedFillEmptyRows", multi_output=True, schema=(
    "value_rowids:int64, values:T, nrows:int64, default_value:T -> output_value_rowids:int64, "
    "output_values:T, empty_row_indicator:bool, reverse_index_map:int64 | T:type"))
class RaggedFillEmptyRows:
    """Inserts ``default_value`` into every empty row of a ragged tensor given by its
    (sorted) value row ids."""

    def infer(value_rowids, values, nrows, default_value):
        n = constant_value(nrows)
        rows = values.shape[0] if values.shape.rank else None
        return [(dtypes.int64, TensorShape([None])), (values.dtype, TensorShape([None])),
                (dtypes.bool_, TensorShape([None if n is None else int(n)])),
                (dtypes.int64, TensorShape([rows]))]

    def kernel(value_rowids, values, nrows, default_value):
        n = int(nrows)
        ids = np.asarray(value_rowids, np.int64)
        if ids.shape != values.shape[:1]:
            raise _err(f"value_rowids {list(ids.shape)} and values {list(values.shape)} must "
                       "have the same length")
        if len(ids) and (ids.min() < 0 or ids.max() >= n or (np.diff(ids) < 0).any()):
            raise _err(f"value_rowids must be sorted and in [0, nrows={n})")
        counts = np.bincount(ids, minlength=n)
        empty = counts == 0
        out_ids = np.sort(np.concatenate([ids, np.flatnonzero(empty)]), kind="stable")
        # each original value moves down by the empty rows before its row
        shift = np.cumsum(empty)
        reverse = np.arange(len(ids)) + (shift[ids] if len(ids) else 0)
        out_vals = np.empty((len(out_ids),) + values.shape[1:], values.dtype)
        out_vals[...] = default_value
        out_vals[reverse] = values
        return out_ids, out_vals, empty, reverse.astype(np.int64)

    def grad(op, d_ids, d_values, d_empty, d_reverse):
        if d_values is None:
            return None, None, None, None
        dv, dd = bind(RaggedFillEmptyRowsGrad, [op.outputs[3], d_values])
        return None, dv, None, dd


@register_op("RaggedFillEmptyRowsGrad", multi_output=True, schema=(
    "reverse_index_map:int64, grad_values:T -> d_values:T, d_default_value:T | T:type"))
class RaggedFillEmptyRowsGrad:
    """Splits the filled values' gradient into the original values' and the default's."""

    def infer(reverse_index_map, grad_values):
        return [(grad_values.dtype, reverse_index_map.shape), (grad_values.dtype,
                                                               TensorShape([]))]

    def kernel(reverse_index_map, grad_values):
        idx = np.asarray(reverse_index_map, np.int64)
        if len(idx) and (idx.min() < 0 or idx.max() >= len(grad_values)):
            raise _err("reverse_index_map holds an index outside grad_values")
        d_values = grad_values[idx]
        mask = np.ones(len(grad_values), bool)
        mask[idx] = False
        return d_values, grad_values[mask].sum(dtype=grad_values.dtype).astype(
            grad_values.dtype)


def ragged_fill_empty_rows(value_rowids: TensorLike, values: TensorLike, nrows: TensorLike,
                           default_value: TensorLike, name: str | None = None) -> tuple:
    """Fills each empty row of a ragged tensor with one ``default_value``.

    Args:
        value_rowids: int64 sorted row id of each value.
        values: the values.
        nrows: int64 number of rows.
        default_value: the value put in empty rows.
        name: op name.

    Returns:
        ``(output_value_rowids, output_values, empty_row_indicator, reverse_index_map)``.
    """
    v = convert(values)
    return tuple(bind(RaggedFillEmptyRows, [convert(value_rowids, dtype=dtypes.int64), v,
                                            convert(nrows, dtype=dtypes.int64),
                                            convert(default_value, dtype=v.dtype)], name=name))


def ragged_fill_empty_rows_grad(reverse_index_map: TensorLike, grad_values: TensorLike,
                                name: str | None = None) -> tuple:
    """The gradient of ``ragged_fill_empty_rows``.

    Args:
        reverse_index_map: its fourth output.
        grad_values: the gradient of its filled values.
        name: op name.

    Returns:
        ``(d_values, d_default_value)``.
    """
    return tuple(bind(RaggedFillEmptyRowsGrad, [convert(reverse_index_map,
                                                        dtype=dtypes.int64),
                                                convert(grad_values)], name=name))


# ----- convolutions ---------------------------------------------------------------------------

def _v2_attrs(strides, padding, explicit_paddings, data_format, dilations) -> dict:
    if padding == "EXPLICIT":
        p = list(explicit_paddings)
        if len(p) != 8:
            raise ValueError(f"explicit_paddings must have 8 entries, got {p}")
        padding = [p[i:i + 2] for i in range(0, 8, 2)]
    elif explicit_paddings:
        raise ValueError("explicit_paddings needs padding='EXPLICIT'")
    return _conv_attrs(strides, padding, dilations, data_format)


_NHWC, _NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


@name_scoped
def conv2d_backprop_filter_v2(input: TensorLike, filter: TensorLike, out_backprop: TensorLike,
                              strides, padding: str, use_cudnn_on_gpu: bool = True,
                              explicit_paddings=[], data_format: str = "NHWC",  # noqa: B006
                              dilations=[1, 1, 1, 1], name: str | None = None  # noqa: B006
                              ) -> Tensor:
    """The gradient of ``conv2d`` wrt its filter, the filter's shape given by ``filter``.

    Args:
        input: ``[batch, h, w, in]`` (NHWC) or NCHW.
        filter: a tensor whose shape is the filter's ``[fh, fw, in, out]``.
        out_backprop: the output gradient.
        strides: 4 ints.
        padding: "SAME", "VALID" or "EXPLICIT".
        use_cudnn_on_gpu: no effect on the CPU.
        explicit_paddings: 8 ints for "EXPLICIT".
        data_format: "NHWC" or "NCHW".
        dilations: 4 ints.
        name: op name.

    Returns:
        ``[fh, fw, in, out]``.
    """
    x, dy = convert_pair(input, out_backprop)
    attrs = _v2_attrs(strides, padding, explicit_paddings, data_format, dilations)
    sizes = shape(convert(filter, dtype=x.dtype))
    if data_format == "NCHW":
        x, dy = transpose(x, _NHWC), transpose(dy, _NHWC)
    return bind(Conv2DBackpropFilter, [x, sizes, dy], attrs)


@name_scoped
def conv2d_backprop_input_v2(input: TensorLike, filter: TensorLike, out_backprop: TensorLike,
                             strides, padding: str, use_cudnn_on_gpu: bool = True,
                             explicit_paddings=[], data_format: str = "NHWC",  # noqa: B006
                             dilations=[1, 1, 1, 1], name: str | None = None  # noqa: B006
                             ) -> Tensor:
    """The gradient of ``conv2d`` wrt its input, the input's shape given by ``input``.

    Args:
        input: a tensor whose shape is the input's.
        filter: ``[fh, fw, in, out]``.
        out_backprop, strides, padding, use_cudnn_on_gpu, explicit_paddings, data_format,
            dilations, name: as for ``conv2d_backprop_filter_v2``.

    Returns:
        The input gradient, shaped like ``input``.
    """
    w, dy = convert_pair(filter, out_backprop)
    attrs = _v2_attrs(strides, padding, explicit_paddings, data_format, dilations)
    x = convert(input, dtype=w.dtype)
    if data_format == "NCHW":
        sizes = shape(transpose(x, _NHWC))
        return transpose(bind(Conv2DBackpropInput, [sizes, w, transpose(dy, _NHWC)], attrs),
                         _NCHW)
    return bind(Conv2DBackpropInput, [shape(x), w, dy], attrs)


@name_scoped
def conv(input: TensorLike, filter: TensorLike, strides, padding: str,
         explicit_paddings=[], data_format: str = "CHANNELS_LAST",  # noqa: B006
         dilations=[], batch_dims: int = 1,  # noqa: B006
         groups: int = 1, name: str | None = None) -> Tensor:
    """TensorFlow's general convolution (``Conv``): 1-3 spatial dims after ``batch_dims``
    batch dimensions, optionally grouped.

    Args:
        input: ``batch_dims`` batch dims, spatial dims, channels (or channels first).
        filter: ``[*spatial, in_channels / groups, out_channels]``.
        strides: one int per input dimension (1 on batch and channel dims).
        padding: "SAME", "VALID" or "EXPLICIT".
        explicit_paddings: two ints per input dimension for "EXPLICIT".
        data_format: "CHANNELS_LAST" or "CHANNELS_FIRST".
        dilations: one int per input dimension (default all 1).
        batch_dims: how many leading batch dimensions.
        groups: the number of channel groups.
        name: op name.

    Returns:
        The convolution, with the batch dims of ``input``.
    """
    x, w = convert_pair(input, filter)
    rank = x.shape.rank
    if rank is None or w.shape.rank is None:
        raise ValueError("tw.conv needs inputs of known rank")
    n_sp = rank - batch_dims - 1
    if n_sp not in (1, 2, 3) or w.shape.rank != n_sp + 2:
        raise ValueError(f"tw.conv: {rank}-D input with batch_dims={batch_dims} and a "
                         f"{w.shape.rank}-D filter do not make a 1-3 D convolution")
    if data_format not in ("CHANNELS_LAST", "CHANNELS_FIRST"):
        raise ValueError(f"data_format must be CHANNELS_LAST or CHANNELS_FIRST, got "
                         f"{data_format!r}")
    first = data_format == "CHANNELS_FIRST"
    if first:
        x = transpose(x, list(range(batch_dims)) + list(range(batch_dims + 1, rank)) +
                      [batch_dims])
    # strides, dilations and explicit pads run over (batch, spatial..., channels)
    sp = slice(2, 2 + n_sp) if first else slice(1, 1 + n_sp)

    def _spatial(v, what):
        v = [int(i) for i in v]
        if len(v) != n_sp + 2:
            raise ValueError(f"tw.conv: {what} must have {n_sp + 2} entries, got {v}")
        return v[sp]

    strides_sp = _spatial(strides, "strides")
    dil_sp = _spatial(dilations, "dilations") if len(dilations) else [1] * n_sp
    if padding == "EXPLICIT":
        if len(explicit_paddings) != 2 * (n_sp + 2):
            raise ValueError(f"tw.conv: explicit_paddings must have {2 * (n_sp + 2)} entries")
        pairs = [[int(v) for v in explicit_paddings[2 * i:2 * i + 2]]
                 for i in range(n_sp + 2)][sp]
        x = pad(x, [[0, 0]] * batch_dims + pairs + [[0, 0]])
        padding = "VALID"
    dims = shape(x)
    flat = reshape(x, concat([[-1], dims[batch_dims:]], 0)) if batch_dims != 1 else x
    if groups == 1:
        y = convolution(flat, w, padding=padding, strides=strides_sp, dilations=dil_sp)
    else:
        xs = split(flat, groups, axis=-1)
        ws = split(w, groups, axis=-1)
        y = concat([convolution(a, f, padding=padding, strides=strides_sp, dilations=dil_sp)
                    for a, f in zip(xs, ws)], -1)
    if batch_dims != 1:
        y = reshape(y, concat([dims[:batch_dims], shape(y)[1:]], 0))
    if first:
        y = transpose(y, list(range(batch_dims)) + [rank - 1] +
                      list(range(batch_dims, rank - 1)))
    return y


@name_scoped
def extract_volume_patches(input: TensorLike, ksizes, strides, padding: str,
                           name: str | None = None) -> Tensor:
    """3-D patches of ``[batch, planes, rows, cols, depth]`` gathered into the depth
    dimension (``tw.extract_volume_patches``).

    Args:
        input: a 5-D tensor with known spatial sizes.
        ksizes: ``[1, kp, kr, kc, 1]``.
        strides: ``[1, sp, sr, sc, 1]``.
        padding: "VALID" or "SAME" (zeros).
        name: op name.

    Returns:
        ``[batch, out_p, out_r, out_c, kp * kr * kc * depth]``.
    """
    x = convert(input)
    if x.shape.rank != 5 or None in x.shape.as_list()[1:4]:
        raise ValueError(f"extract_volume_patches needs a 5-D input with known spatial sizes, "
                         f"got {x.shape}")
    k, s = [int(v) for v in ksizes], [int(v) for v in strides]
    for v, what in ((k, "ksizes"), (s, "strides")):
        if len(v) != 5 or v[0] != 1 or v[4] != 1 or min(v) < 1:
            raise ValueError(f"{what} must be [1, p, r, c, 1] with positive entries, got {v}")
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}")
    dims = x.shape.as_list()[1:4]
    out, pads = [], [[0, 0]]
    for n, kk, ss in zip(dims, k[1:4], s[1:4]):
        if padding == "VALID":
            o = (n - kk) // ss + 1
            if o <= 0:
                raise ValueError(f"a window of {kk} does not fit a dimension of {n}")
            pads.append([0, 0])
        else:
            o = -(-n // ss)
            total = max((o - 1) * ss + kk - n, 0)
            pads.append([total // 2, total - total // 2])
        out.append(o)
    x = pad(x, pads + [[0, 0]]) if any(p[1] or p[0] for p in pads) else x
    parts = [x[:, i:i + (out[0] - 1) * s[1] + 1:s[1], j:j + (out[1] - 1) * s[2] + 1:s[2],
               m:m + (out[2] - 1) * s[3] + 1:s[3]]
             for i in range(k[1]) for j in range(k[2]) for m in range(k[3])]
    return concat(parts, -1)


# ----- random: parameterized truncated normal, index shuffle ----------------------------------

def _seed_pair(seed) -> tuple:
    s = np.asarray(seed).reshape(-1)
    if s.shape != (2,):
        raise _err(f"seed must have shape [2], got {list(np.shape(seed))}")
    return int(s[0]) % 2**64, int(s[1]) % 2**64


def truncated_standard_normal(gen, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Standard normal samples restricted to ``[lo, hi]`` (elementwise bounds): plain
    rejection where the interval holds enough mass, Robert's exponential proposal in a tail,
    a uniform proposal on short intervals."""
    lo, hi = np.broadcast_arrays(np.asarray(lo, np.float64), np.asarray(hi, np.float64))
    out = np.full(lo.shape, np.nan)
    flip = hi <= 0                                  # mirror left tails onto the right
    a, b = np.where(flip, -hi, lo), np.where(flip, -lo, hi)
    todo = a <= b
    for _ in range(10000):
        if not todo.any():
            break
        idx = np.flatnonzero(todo)
        aa, bb = a.flat[idx], b.flat[idx]
        z = gen.standard_normal(len(idx))
        ok = (z >= aa) & (z <= bb)
        tail = aa > 0.5
        alpha = (aa + np.sqrt(aa * aa + 4)) / 2
        ze = aa - np.log(gen.uniform(size=len(idx))) / alpha
        ok_e = (gen.uniform(size=len(idx)) <= np.exp(-0.5 * (ze - alpha) ** 2)) & (ze <= bb)
        short = (bb - aa) < 0.5
        zu = aa + (bb - aa) * gen.uniform(size=len(idx))
        m = np.where(aa > 0, aa, np.where(bb < 0, bb, 0.0))
        ok_u = gen.uniform(size=len(idx)) <= np.exp(-0.5 * (zu * zu - m * m))
        pick = np.where(short, zu, np.where(tail, ze, z))
        good = np.where(short, ok_u, np.where(tail, ok_e, ok))
        out.flat[idx[good]] = pick[good]
        todo.flat[idx[good]] = False
    return np.where(flip, -out, out)


@register_op("StatelessParameterizedTruncatedNormal", schema=(
    "shape:S, seed:Tseed, means:dtype, stddevs:dtype, minvals:dtype, maxvals:dtype -> "
    "output:dtype | S:type in [int32,int64]; Tseed:type=int64 in [int32,int64]; "
    "dtype:type in [half,float,double]"))
class StatelessParameterizedTruncatedNormal:
    """Normal samples truncated to ``[minvals, maxvals]``, a pure function of ``seed``."""

    def infer(shape, seed, means, stddevs, minvals, maxvals):
        v = constant_value(shape)
        return means.dtype, TensorShape(None if v is None else [int(d) for d in
                                                               np.asarray(v).reshape(-1)])

    def kernel(shape, seed, means, stddevs, minvals, maxvals):
        dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
        try:
            p = [np.broadcast_to(np.asarray(v, np.float64), dims)
                 for v in (means, stddevs, minvals, maxvals)]
        except ValueError:
            raise _err(f"means, stddevs, minvals and maxvals must broadcast to the shape "
                       f"{list(dims)}") from None
        mean, std, lo, hi = p
        if (std <= 0).any() or (lo >= hi).any():
            raise _err("stddevs must be positive and minvals < maxvals")
        gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
            list(_seed_pair(seed)) + [0x7A4C])))
        z = truncated_standard_normal(gen, (lo - mean) / std, (hi - mean) / std)
        return (mean + std * z).astype(means.dtype)


@name_scoped
def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0,
                                             minvals=-2.0, maxvals=2.0,
                                             name: str | None = None) -> Tensor:
    """Truncated normal samples with per-element parameters, determined by ``seed``
    (``tw.random.stateless_parameterized_truncated_normal``).

    Args:
        shape: the output shape.
        seed: shape ``[2]`` int seed.
        means: the means (broadcast to ``shape``).
        stddevs: the standard deviations (> 0).
        minvals: the lower bounds.
        maxvals: the upper bounds (> minvals).
        name: op name.

    Returns:
        Samples in ``[minvals, maxvals]`` (float32 unless the parameters say otherwise).
    """
    m = convert(means, dtype_hint=dtypes.float32)
    args = [convert(shape, dtype_hint=dtypes.int32), convert(seed, dtype_hint=dtypes.int64), m]
    args += [convert(v, dtype=m.dtype) for v in (stddevs, minvals, maxvals)]
    return bind(StatelessParameterizedTruncatedNormal, args)


def random_index_shuffle(index: TensorLike, seed: TensorLike, max_index: TensorLike,
                         rounds: int = 4, name: str | None = None) -> Tensor:
    """Maps each ``index`` to its position in a random permutation of ``[0, max_index]``
    determined by ``seed`` and ``rounds`` (``tw.random_index_shuffle``; the permutation is
    ``tw.random.experimental.index_shuffle``'s, not TensorFlow's cipher).

    Args:
        index: int indices in ``[0, max_index]``.
        seed: shape ``[3]`` int seed.
        max_index: the largest index (same dtype as ``index``).
        rounds: TensorFlow's cipher rounds; another value gives another permutation.
        name: op name.

    Returns:
        The shuffled positions, like ``index``.
    """
    if int(rounds) < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    s = convert(seed, dtype_hint=dtypes.int64)
    if s.shape.rank is not None and s.shape != TensorShape([3]):
        raise ValueError(f"random_index_shuffle: seed must have shape [3], got {s.shape}")
    if int(rounds) != 4:
        s = concat([s, convert([int(rounds)], dtype=s.dtype)], 0)
    i = convert(index, dtype_hint=dtypes.int64)
    return bind(RandomIndexShuffle, [i, s, convert(max_index, dtype=i.dtype)], name=name)


# ----- sobol_sample -----------------------------------------------------------------------------

def _directions() -> np.ndarray:
    raw = base64.b64decode("".join(DIRECTIONS_B64))
    return np.frombuffer(raw, "<u4").reshape(SOBOL_BITS, SOBOL_DIMS).astype(np.uint64)


@register_op("SobolSample", schema=(
    "dim:int32, num_results:int32, skip:int32 -> samples:dtype | "
    "dtype:type=float in [float,double]"))
class SobolSample:
    """Points ``skip + 1 ...`` of the Sobol sequence (Gray-code order), in [0, 1)."""

    def infer(dim, num_results, skip, *, dtype=dtypes.float32):
        d, n = constant_value(dim), constant_value(num_results)
        return dtypes.as_dtype(dtype), TensorShape([None if n is None else int(n),
                                                    None if d is None else int(d)])

    def kernel(dim, num_results, skip, *, dtype=dtypes.float32):
        d, n, s = int(dim), int(num_results), int(skip)
        if d < 1 or n < 0 or s < 0:
            raise _err(f"dim must be >= 1 and num_results, skip >= 0; got {d}, {n}, {s}")
        if d > SOBOL_DIMS:
            raise _err(f"sobol_sample supports up to {SOBOL_DIMS} dimensions in twinflow, "
                       f"got {d}")
        if n + s >= 1 << SOBOL_BITS:
            raise _err(f"num_results + skip must be below 2**{SOBOL_BITS}, got {n + s}")
        idx = np.arange(s + 1, s + n + 1, dtype=np.uint64)
        gray = idx ^ (idx >> np.uint64(1))
        v = _directions()[:, :d]
        x = np.zeros((n, d), np.uint64)
        for k in range(SOBOL_BITS):
            bit = ((gray >> np.uint64(k)) & np.uint64(1)).astype(bool)
            x[bit] ^= v[k]
        return (x.astype(np.float64) * 2.0 ** -32).astype(dtypes.as_dtype(dtype).np)


def sobol_sample(dim, num_results, skip=0, dtype=dtypes.float32,
                 name: str | None = None) -> Tensor:
    """Points of the Sobol low-discrepancy sequence (``tw.math.sobol_sample``; TensorFlow's
    direction numbers and ordering, up to 128 dimensions and 2**29 points).

    Args:
        dim: the dimension of each point (1-128).
        num_results: how many points.
        skip: how many points to skip first.
        dtype: float32 or float64.
        name: op name.

    Returns:
        ``[num_results, dim]`` in [0, 1).
    """
    i32 = dtypes.int32
    return bind(SobolSample, [convert(dim, dtype=i32), convert(num_results, dtype=i32),
                              convert(skip, dtype=i32)], {"dtype": dtypes.as_dtype(dtype)},
                name=name)
