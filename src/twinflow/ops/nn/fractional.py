"""Fractional max and average pooling (Graham, 2014): pooling regions of sizes ``k`` and
``k + 1`` chosen at random so that the output is ``floor(input / pooling_ratio)`` along the
height and width.

The region boundaries follow TensorFlow's generator (``GeneratePoolingSequence``): a shuffled
mix of the two sizes (``pseudo_random=False``) or ``ceil(alpha * (i + u))`` for one random
``u`` (``pseudo_random=True``); with ``overlapping`` each region also takes the next region's
first row/column. The random draws are twinflow's (deterministic for a seed, but not
TensorFlow's sequence). The ops also return the boundaries, which their gradients use.
"""
from __future__ import annotations

import math

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.registry import register_op
from ...graph.tensor import TensorLike
from ..array.shape import shape
from ..core import convert
from ..random.seeds import _seed_attrs, _stream
from .geometry import _hw4

_TYPES = "T:type in [float,double,int32,int64]"


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def pooling_sequence(gen, n_in: int, n_out: int, pseudo_random: bool) -> np.ndarray:
    """Cumulative region boundaries ``[n_out + 1]`` from 0 to ``n_in``."""
    k = n_in // n_out
    if n_in % n_out == 0:
        diff = np.full(n_out, k, np.int64)
    elif pseudo_random:
        alpha = n_in / n_out
        u_max = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        u = gen.uniform() * u_max
        cum = [1] + [int(math.ceil(alpha * (i + u))) for i in range(1, n_out)] + [n_in + 1]
        diff = np.diff(np.asarray(cum, np.int64))
    else:
        diff = np.full(n_out, k, np.int64)
        diff[:n_in % n_out] += 1
        gen.shuffle(diff)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _regions(seq: np.ndarray, n_in: int, overlapping: bool) -> list:
    return [(int(seq[i]), min(int(seq[i + 1]) + (1 if overlapping else 0), n_in))
            for i in range(len(seq) - 1)]


def _out_dims(shape_list, ratio):
    if len(ratio) != 4 or ratio[0] != 1 or ratio[3] != 1:
        raise _err(f"pooling_ratio must be [1, row, col, 1] (batch and depth pooling are not "
                   f"supported), got {list(ratio)}")
    if any(r < 1 for r in ratio):
        raise _err(f"pooling_ratio must be >= 1, got {list(ratio)}")
    out = []
    for d, r in zip(shape_list, ratio):
        if d is None:
            out.append(None)
            continue
        o = int(math.floor(d / r))
        if o <= 0:
            raise _err(f"the pooling ratio {r} is too large for a dimension of size {d}")
        out.append(o)
    return out


def _pool_infer(value, *, pooling_ratio, pseudo_random=False, overlapping=False,
                deterministic=False, seed=0, seed2=0):
    if value.shape.rank not in (None, 4):
        raise _err(f"value must be 4-D [batch, height, width, channels], got {value.shape}")
    dims = value.shape.as_list() if value.shape.rank == 4 else [None] * 4
    out = _out_dims(dims, pooling_ratio)
    rows = None if out[1] is None else out[1] + 1
    cols = None if out[2] is None else out[2] + 1
    return [(value.dtype, TensorShape(out)), (dtypes.int64, TensorShape([rows])),
            (dtypes.int64, TensorShape([cols]))]


def _pool_kernel(reduce: str):
    def kernel(value, *, pooling_ratio, pseudo_random=False, overlapping=False,
               deterministic=False, seed=0, seed2=0):
        n, h, w, c = value.shape
        _, oh, ow, _ = _out_dims(list(value.shape), pooling_ratio)
        if deterministic:       # TensorFlow restarts its generator from the seeds each run
            gen = np.random.default_rng([seed % 2**63, seed2 % 2**63]) if seed or seed2 \
                else np.random.default_rng()
        else:
            gen = _stream("fractional_pool", np.int64, seed, seed2)
        rows = pooling_sequence(gen, h, oh, pseudo_random)
        cols = pooling_sequence(gen, w, ow, pseudo_random)
        out = np.empty((n, oh, ow, c), value.dtype)
        for i, (r0, r1) in enumerate(_regions(rows, h, overlapping)):
            for j, (c0, c1) in enumerate(_regions(cols, w, overlapping)):
                win = value[:, r0:r1, c0:c1, :]
                out[:, i, j, :] = win.max(axis=(1, 2)) if reduce == "max" else \
                    win.mean(axis=(1, 2), dtype=np.float64).astype(value.dtype)
        return out, rows, cols
    return kernel


_POOL_SCHEMA = ("value:T -> output:T, row_pooling_sequence:int64, col_pooling_sequence:int64 "
                "| pooling_ratio:list(float) >=4; pseudo_random:bool=False; "
                "overlapping:bool=False; deterministic:bool=False; seed:int=0; seed2:int=0; "
                + _TYPES)


def _fractional_pool(name: str, reduce: str, grad, doc: str):
    """Declares FractionalMaxPool or FractionalAvgPool (``reduce`` "max" or "avg")."""
    decl = type(name, (), {"__doc__": doc, "infer": _pool_infer, "kernel": _pool_kernel(reduce),
                           "grad": grad})
    return register_op(name, multi_output=True, stateful=True, schema=_POOL_SCHEMA)(decl)


def _region_grad(grad_op, op, *head):
    """Binds ``grad_op`` on ``head`` and the forward op's region boundaries."""
    return bind(grad_op, [*head, op.outputs[1], op.outputs[2]],
                {"overlapping": op.attrs.get("overlapping", False)})


def _max_grad(op, dy, drows, dcols):
    return _region_grad(FractionalMaxPoolGrad, op, op.inputs[0], op.outputs[0], dy)


def _avg_grad(op, dy, drows, dcols):
    return _region_grad(FractionalAvgPoolGrad, op, shape(op.inputs[0], out_type=dtypes.int64),
                        dy)


FractionalMaxPool = _fractional_pool("FractionalMaxPool", "max", _max_grad, (
    "Max over random fractional pooling regions (and the region boundaries)."))
FractionalAvgPool = _fractional_pool("FractionalAvgPool", "avg", _avg_grad, (
    "Mean over random fractional pooling regions (and the region boundaries)."))


def _check_seq(seq, n: int, what: str) -> None:
    if seq.ndim != 1 or len(seq) < 2 or seq[0] != 0 or seq[-1] != n or \
            (np.diff(seq) <= 0).any():
        raise _err(f"{what} must rise from 0 to {n}, got {seq.tolist()}")


@register_op("FractionalMaxPoolGrad", schema=(
    "orig_input:T, orig_output:T, out_backprop:T, row_pooling_sequence:int64, "
    f"col_pooling_sequence:int64 -> output:T | overlapping:bool=False; {_TYPES}"))
class FractionalMaxPoolGrad:
    """Routes each output's gradient to the first maximum of its region."""

    def infer(orig_input, orig_output, out_backprop, row, col, *, overlapping=False):
        return orig_input.dtype, orig_input.shape

    def kernel(orig_input, orig_output, out_backprop, row, col, *, overlapping=False):
        n, h, w, c = orig_input.shape
        _check_seq(row, h, "row_pooling_sequence")
        _check_seq(col, w, "col_pooling_sequence")
        out = np.zeros(orig_input.shape, orig_input.dtype)
        bi, ci = np.meshgrid(np.arange(n), np.arange(c), indexing="ij")
        for i, (r0, r1) in enumerate(_regions(row, h, overlapping)):
            for j, (c0, c1) in enumerate(_regions(col, w, overlapping)):
                win = orig_input[:, r0:r1, c0:c1, :].reshape(n, -1, c)
                k = np.argmax(win, axis=1)                       # first maximum
                ww = c1 - c0
                np.add.at(out, (bi, r0 + k // ww, c0 + k % ww, ci), out_backprop[:, i, j, :])
        return out


@register_op("FractionalAvgPoolGrad", schema=(
    "orig_input_tensor_shape:int64, out_backprop:T, row_pooling_sequence:int64, "
    f"col_pooling_sequence:int64 -> output:T | overlapping:bool=False; {_TYPES}"))
class FractionalAvgPoolGrad:
    """Spreads each output's gradient evenly over its region."""

    def infer(orig_shape, out_backprop, row, col, *, overlapping=False):
        v = constant_value(orig_shape)
        return out_backprop.dtype, TensorShape(None if v is None else
                                               [int(d) for d in np.asarray(v)])

    def kernel(orig_shape, out_backprop, row, col, *, overlapping=False):
        n, h, w, c = (int(d) for d in orig_shape)
        _check_seq(row, h, "row_pooling_sequence")
        _check_seq(col, w, "col_pooling_sequence")
        out = np.zeros((n, h, w, c), np.float64)
        for i, (r0, r1) in enumerate(_regions(row, h, overlapping)):
            for j, (c0, c1) in enumerate(_regions(col, w, overlapping)):
                share = out_backprop[:, i, j, :] / ((r1 - r0) * (c1 - c0))
                out[:, r0:r1, c0:c1, :] += share[:, None, None, :]
        return out.astype(out_backprop.dtype)


def _ratio(pooling_ratio) -> list:
    r = [float(v) for v in np.asarray(pooling_ratio, np.float64).reshape(-1)]
    return _hw4(r, 1.0, "pooling_ratio", "float")


def _call(op, value, pooling_ratio, pseudo_random, overlapping, seed, name) -> tuple:
    attrs = {"pooling_ratio": _ratio(pooling_ratio), "pseudo_random": bool(pseudo_random),
             "overlapping": bool(overlapping)}
    if seed == 0:
        attrs.update(deterministic=False, seed=0, seed2=0)
    else:
        attrs.update(deterministic=True, **_seed_attrs(int(seed)))
    return tuple(bind(op, [convert(value)], attrs, name=name))


_DOC = """{what} over random fractional regions (``tw.nn.fractional_{kind}_pool``).

    Args:
        value: ``[batch, height, width, channels]`` (float32/64, int32/64).
        pooling_ratio: >= 1 per dimension: a float, ``[row, col]`` or ``[1, row, col, 1]``.
        pseudo_random: overlapping-interval sequences instead of shuffled ones.
        overlapping: each region also takes the next region's first row/column.
        seed: 0 for a fresh draw each run, else a seed (a fixed sequence per seed).
        name: op name.

    Returns:
        ``(output, row_pooling_sequence, col_pooling_sequence)``.
    """


def fractional_max_pool(value: TensorLike, pooling_ratio, pseudo_random: bool = False,
                        overlapping: bool = False, seed: int = 0,
                        name: str | None = None) -> tuple:
    return _call(FractionalMaxPool, value, pooling_ratio, pseudo_random, overlapping, seed,
                 name)


def fractional_avg_pool(value: TensorLike, pooling_ratio, pseudo_random: bool = False,
                        overlapping: bool = False, seed: int = 0,
                        name: str | None = None) -> tuple:
    return _call(FractionalAvgPool, value, pooling_ratio, pseudo_random, overlapping, seed,
                 name)


fractional_max_pool.__doc__ = _DOC.format(what="Max pooling", kind="max")
fractional_avg_pool.__doc__ = _DOC.format(what="Average pooling", kind="avg")
