"""More stateless random ops (the seed alone determines the numbers): gamma, poisson, binomial,
categorical, shuffle, index_shuffle, seed split/fold_in, and ``create_rng_state``/``Algorithm``.

Like the other stateless ops, the samples come from a NumPy PCG64 generator seeded by the
``[2]`` seed (``stateless_generator``): deterministic, but not TensorFlow's Philox bit stream.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, ShapeLike, Tensor, TensorLike
from ..array.gather import gather
from ..array.layout import stack
from ..array.shape import shape as _shape_of
from ..core import convert
from ..math.binary import divide
from .seeds import (
    Algorithm,
    _algorithm,
    _categorical_sample,
    _multinomial_shape,
    _shape_arg,
    _shape_infer,
    _shape_tuple,
)
from .stateless import stateless_generator


def _seed(seed) -> Tensor:
    s = convert(seed, dtype_hint=dtypes.int32) if not hasattr(seed, "dtype") else convert(seed)
    if not s.dtype.is_integer:
        raise InvalidArgumentError(None, None, f"seed must be an integer tensor, got "
                                               f"{s.dtype.name}")
    if s.shape.rank is not None and s.shape.as_list() not in ([2], [None]):
        raise InvalidArgumentError(None, None, f"seed must have shape [2], got {s.shape}")
    return s


def _no_grad(op, *dys):
    return [None] * len(op.inputs)


# ----- full-range integers: split and fold_in ---------------------------------------------------

@register_op("StatelessRandomUniformFullInt",
             schema="shape:T, seed:Tseed -> output:dtype | T:type in [int32,int64]; "
                    "Tseed:type in [int32,int64,uint32,uint64]; "
                    "dtype:type in [int32,int64,uint32,uint64]")
class StatelessRandomUniformFullInt:
    """Integers uniform over the whole range of ``dtype``, determined by ``seed``."""

    def infer(shape, seed, *, dtype):
        return _shape_infer(shape, dtype=dtype)

    def kernel(shape, seed, *, dtype):
        info = np.iinfo(dtype.np)
        return stateless_generator(seed).integers(info.min, info.max, size=_shape_tuple(shape),
                                                  dtype=dtype.np, endpoint=True)

    grad = _no_grad


def split(seed, num: int = 2, alg="auto_select") -> Tensor:
    """``num`` new seeds derived from ``seed`` (``tw.random.split``).

    Args:
        seed: a ``[2]`` integer seed.
        num: how many seeds.
        alg: a ``tw.random.Algorithm``, its name or number (checked); the values do not
            depend on it (twinflow's stateless ops always use PCG64).

    Returns:
        ``[num, 2]`` seeds of ``seed``'s dtype.
    """
    _algorithm(alg)
    s = _seed(seed)
    return bind(StatelessRandomUniformFullInt, [_shape_arg([int(num), 2]), s], {"dtype": s.dtype})


def fold_in(seed, data, alg="auto_select") -> Tensor:
    """A new seed from ``seed`` and an integer ``data`` (``tw.random.fold_in``).

    Args:
        seed: a ``[2]`` integer seed.
        data: an int32/int64 scalar (a step, a replica id...).
        alg: a ``tw.random.Algorithm``, its name or number (checked); the values do not
            depend on it (twinflow's stateless ops always use PCG64).

    Returns:
        ``[2]``: a number drawn from ``seed``, then ``data`` (TensorFlow's layout).
    """
    _algorithm(alg)
    d = convert(data, dtype_hint=dtypes.int32)
    first = bind(StatelessRandomUniformFullInt, [_shape_arg([]), _seed(seed)], {"dtype": d.dtype})
    return stack([first, d])


# ----- distributions ----------------------------------------------------------------------------

def _param_infer(shape, *params, dtype):
    out = _shape_infer(shape, dtype=dtype)[1]
    for p in params:
        if out.rank is not None and p.shape.rank is not None and \
                p.shape.rank > out.rank:
            raise InvalidArgumentError(None, None, f"parameter shape {p.shape} does not "
                                                   f"broadcast to the sample shape {out}")
    return dtype, out


def _broadcast(p, size, what: str):
    try:
        return np.broadcast_to(p, size)
    except ValueError:
        raise InvalidArgumentError(None, None, f"{what} of shape {list(p.shape)} does not "
                                               f"broadcast to the sample shape {list(size)}") \
            from None


def _draw(sample, seed, shape, param, what: str, dtype):
    """``sample(generator, param)`` with ``param`` broadcast to ``shape`` (as float64), in
    ``dtype``."""
    p = _broadcast(param, _shape_tuple(shape), what).astype(np.float64)
    # np.asarray: NumPy's samplers return a Python scalar, not an array, for a 0-d parameter.
    return np.asarray(sample(stateless_generator(seed), p), dtype=dtype.np)


def _one_param_op(name: str, param: str, sample, schema: str, doc: str, grad):
    """Declares a stateless sampler whose one parameter input ``param`` broadcasts to the sample
    shape: ``sample(generator, param)`` draws (from float64 parameters)."""
    def infer(shape, seed, p, *, dtype):
        return _param_infer(shape, p, dtype=dtype)

    def kernel(shape, seed, p, *, dtype):
        return _draw(sample, seed, shape, p, param, dtype)

    decl = type(name, (), {"__doc__": doc, "infer": infer, "kernel": kernel, "grad": grad})
    return register_op(name, schema=schema)(decl)


def _gamma_grad(op, dy):
    if op.needs_grad[2]:
        raise NotImplementedError("tw.random.stateless_gamma: the gradient with respect "
                                  "to alpha is not supported yet")
    return None, None, None


StatelessRandomGammaV2 = _one_param_op(
    "StatelessRandomGammaV2", "alpha", lambda g, a: g.standard_gamma(a),
    "shape:T, seed:Tseed, alpha:dtype -> output:dtype | T:type in [int32,int64]; "
    "Tseed:type in [int32,int64]; dtype:type in [half,float,double]",
    "Gamma(alpha, 1) samples of ``shape`` (alpha broadcasts to it).", _gamma_grad)


def stateless_gamma(shape: ShapeLike, seed, alpha: TensorLike, beta: TensorLike | None = None,
                    dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """Deterministic Gamma(alpha, beta) samples (``tw.random.stateless_gamma``).

    Args:
        shape: the sample shape; ``alpha``/``beta`` broadcast to it.
        seed: a ``[2]`` integer seed.
        alpha: the concentration (> 0).
        beta: the rate (> 0); default 1.
        dtype: a floating-point dtype.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    dtype = dtypes.as_dtype(dtype)
    a = convert(alpha, dtype=dtype)
    out = bind(StatelessRandomGammaV2, [_shape_arg(shape), _seed(seed), a], {"dtype": dtype},
               name=name)
    return out if beta is None else divide(out, convert(beta, dtype=dtype))


StatelessRandomPoisson = _one_param_op(
    "StatelessRandomPoisson", "lam", lambda g, rate: g.poisson(rate),
    "shape:T, seed:Tseed, lam:Rtype -> output:dtype | T:type in [int32,int64]; "
    "Tseed:type in [int32,int64]; Rtype:type in [half,float,double,int32,int64]; "
    "dtype:type in [half,float,double,int32,int64]",
    "Poisson(lam) samples of ``shape`` (lam broadcasts to it).", _no_grad)


def stateless_poisson(shape: ShapeLike, seed, lam: TensorLike, dtype: DTypeLike = dtypes.int32,
                      name: str | None = None) -> Tensor:
    """Deterministic Poisson(lam) samples (``tw.random.stateless_poisson``).

    Args:
        shape: the sample shape; ``lam`` broadcasts to it.
        seed: a ``[2]`` integer seed.
        lam: the rate (>= 0).
        dtype: the result dtype (int32, int64 or floating point).
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    lam_t = convert(lam, dtype_hint=dtypes.float32)
    return bind(StatelessRandomPoisson, [_shape_arg(shape), _seed(seed), lam_t],
                {"dtype": dtypes.as_dtype(dtype)}, name=name)


@register_op("StatelessRandomBinomial",
             schema="shape:S, seed:Tseed, counts:T, probs:T -> output:dtype | "
                    "S:type in [int32,int64]; Tseed:type in [int32,int64]; "
                    "T:type in [half,float,double,int32,int64]; "
                    "dtype:type in [half,float,double,int32,int64]")
class StatelessRandomBinomial:
    """Binomial(counts, probs) samples of ``shape`` (the parameters broadcast to it)."""

    def infer(shape, seed, counts, probs, *, dtype):
        return _param_infer(shape, counts, probs, dtype=dtype)

    def kernel(shape, seed, counts, probs, *, dtype):
        size = _shape_tuple(shape)
        n = _broadcast(counts, size, "counts").astype(np.int64)
        p = _broadcast(probs, size, "probs").astype(np.float64)
        if np.any(n < 0) or np.any((p < 0) | (p > 1)):
            raise InvalidArgumentError(None, None, "stateless_binomial: counts must be >= 0 and "
                                                   "probs in [0, 1]")
        return np.asarray(stateless_generator(seed).binomial(n, p), dtype=dtype.np)

    grad = _no_grad


def stateless_binomial(shape: ShapeLike, seed, counts: TensorLike, probs: TensorLike,
                       output_dtype: DTypeLike = dtypes.int32,
                       name: str | None = None) -> Tensor:
    """Deterministic Binomial(counts, probs) samples (``tw.random.stateless_binomial``).

    Args:
        shape: the sample shape; ``counts`` and ``probs`` broadcast to it.
        seed: a ``[2]`` integer seed.
        counts: the number of trials.
        probs: the success probability, same dtype as ``counts``.
        output_dtype: the result dtype.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``output_dtype``.
    """
    c = convert(counts, dtype_hint=dtypes.float32)
    p = convert(probs, dtype=c.dtype)
    return bind(StatelessRandomBinomial, [_shape_arg(shape), _seed(seed), c, p],
                {"dtype": dtypes.as_dtype(output_dtype)}, name=name)


@register_op("StatelessMultinomial",
             schema="logits:T, num_samples:int32, seed:Tseed -> output:output_dtype | "
                    "T:type in [half,bfloat16,float,double]; Tseed:type in [int32,int64]; "
                    "output_dtype:type in [int32,int64]")
class StatelessMultinomial:
    """``num_samples`` class indices per row of unnormalized log-probabilities."""

    def infer(logits, num_samples, seed, *, output_dtype):
        return _multinomial_shape(logits, num_samples, output_dtype)

    def kernel(logits, num_samples, seed, *, output_dtype):
        n = int(num_samples)
        if logits.ndim != 2 or n < 0:
            raise InvalidArgumentError(None, None, f"logits should be a matrix and num_samples "
                                                   f">= 0, got shape {list(logits.shape)}, {n}")
        u = stateless_generator(seed).random((logits.shape[0], n))
        return _categorical_sample(logits, u, output_dtype.np)

    grad = _no_grad


def stateless_categorical(logits: TensorLike, num_samples, seed, dtype: DTypeLike = dtypes.int64,
                          name: str | None = None) -> Tensor:
    """Deterministic samples from categorical distributions (``tw.random.stateless_categorical``).

    Args:
        logits: ``[batch, num_classes]`` unnormalized log-probabilities.
        num_samples: samples per row.
        seed: a ``[2]`` integer seed.
        dtype: int32 or int64.
        name: op name.

    Returns:
        ``[batch, num_samples]`` class indices.
    """
    lg = convert(logits)
    n = convert(num_samples, dtype=dtypes.int32)
    return bind(StatelessMultinomial, [lg, n, _seed(seed)],
                {"output_dtype": dtypes.as_dtype(dtype)}, name=name)


# ----- permutations -----------------------------------------------------------------------------

@register_op("StatelessPermutation",
             schema="n:int64, seed:Tseed -> output:int64 | Tseed:type in [int32,int64]")
class StatelessPermutation:
    """A permutation of ``0..n-1`` determined by ``seed`` (what ``stateless_shuffle`` gathers
    with, so that its gradient is the gather's)."""

    def infer(n, seed):
        v = constant_value(n)
        return dtypes.int64, TensorShape([None if v is None else int(v)])

    def kernel(n, seed):
        return stateless_generator(seed).permutation(int(n)).astype(np.int64)

    grad = _no_grad


@name_scoped
def stateless_shuffle(value: TensorLike, seed, alg="auto_select",
                      name: str | None = None) -> Tensor:
    """Deterministically shuffles ``value`` along its first axis
    (``tw.random.experimental.stateless_shuffle``).

    Args:
        value: a tensor of rank >= 1.
        seed: a ``[2]`` integer seed.
        alg: a ``tw.random.Algorithm``, its name or number (checked); the values do not
            depend on it (twinflow's stateless ops always use PCG64).

    Returns:
        ``value`` with its first axis permuted.
    """
    _algorithm(alg)
    v = convert(value)
    if v.shape.rank == 0:
        raise InvalidArgumentError(None, None, "stateless_shuffle: value must have rank >= 1")
    n = _shape_of(v, out_type=dtypes.int64)[0]
    return gather(v, bind(StatelessPermutation, [n, _seed(seed)]))


_INDEX_SHUFFLE_MAX = 1 << 24


@register_op("RandomIndexShuffle",
             schema="index:T, seed:Tseed, max_index:T -> output:T | "
                    "T:type in [int32,int64,uint32,uint64]; Tseed:type in [int32,int64,uint32,"
                    "uint64]")
class RandomIndexShuffle:
    """Where ``index`` goes in a permutation of ``0..max_index`` that ``seed`` determines."""

    def infer(index, seed, max_index):
        return index.dtype, index.shape

    def kernel(index, seed, max_index):
        m = int(max_index)
        if m < 0 or m >= _INDEX_SHUFFLE_MAX:
            raise InvalidArgumentError(None, None, f"index_shuffle: max_index must be in [0, "
                                                   f"{_INDEX_SHUFFLE_MAX}) in twinflow (the "
                                                   f"permutation is materialized), got {m}")
        if np.any(index < 0) or np.any(index > m):
            raise InvalidArgumentError(None, None, f"index_shuffle: index must be in [0, {m}]")
        perm = stateless_generator(seed).permutation(m + 1)
        return perm[index].astype(index.dtype)

    grad = _no_grad


def index_shuffle(index: TensorLike, seed, max_index) -> Tensor:
    """The position of ``index`` in a seeded permutation of ``[0, max_index]``
    (``tw.random.experimental.index_shuffle``).

    Args:
        index: integer indices in ``[0, max_index]``.
        seed: an integer seed tensor (any length).
        max_index: the largest index (below 2**24 in twinflow: the permutation is built).

    Returns:
        A tensor like ``index``; for a fixed seed it is a bijection of ``[0, max_index]``.
    """
    i = convert(index, dtype_hint=dtypes.int64)
    s = convert(seed, dtype_hint=dtypes.int64) if not hasattr(seed, "dtype") else convert(seed)
    return bind(RandomIndexShuffle, [i, s, convert(max_index, dtype=i.dtype)])


# ----- algorithms and RNG states ----------------------------------------------------------------

_STATE_SIZES = {Algorithm.PHILOX: 3, Algorithm.THREEFRY: 2, Algorithm.AUTO_SELECT: 3}


def create_rng_state(seed, alg) -> np.ndarray:
    """An RNG state from an integer seed, TensorFlow's layout (``tw.random.create_rng_state``).

    Args:
        seed: a Python int (or a list of ints, placed first).
        alg: an ``Algorithm``, its name or its number.

    Returns:
        An int64 NumPy array: the seed padded with zeros to the algorithm's state size (3 for
        Philox, 2 for ThreeFry); ``tw.random.Generator(state=...)`` accepts it.
    """
    size = _STATE_SIZES[_algorithm(alg)]
    s = np.asarray(seed, dtype=np.int64).reshape(-1)
    if s.size > size:
        raise ValueError(f"seed has {s.size} elements; the state of {alg} holds {size}")
    return np.concatenate([s, np.zeros(size - s.size, np.int64)])
