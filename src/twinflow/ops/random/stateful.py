"""Stateful random ops: normal, uniform, truncated normal, categorical, shuffle, gamma, Poisson."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, convert_to_tensor
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, ShapeLike, Tensor, TensorLike
from ..core import convert
from ..math.binary import add, divide, multiply, subtract
from .seeds import (
    _arg,
    _categorical_sample,
    _float_dtype,
    _float_sample,
    _is_py,
    _multinomial_shape,
    _normal,
    _seed_attrs,
    _shape_arg,
    _shape_infer,
    _shape_tuple,
    _stream,
    check_float_dtype,
    truncated_normal_sample,
)


def _sampling_op(name: str, stream: str, doc: str, sample):
    """Declares a stateful random op: its kernel is ``sample(generator, shape, np_dtype)`` with
    the (op type, dtype, seeds) stream named ``stream`` (see ``seeds._stream``)."""
    def kernel(shape, *, dtype, seed=0, seed2=0, generator=None):
        gen = _stream(stream, dtype.np, seed, seed2, generator)
        return sample(gen, _shape_tuple(shape), dtype.np)

    def grad(op, dy):
        return None
    ns = {"__doc__": doc, "infer": _shape_infer, "kernel": kernel, "grad": grad}
    return register_op(name, stateful=True)(type(name, (), ns))


def _uniform_sample(gen, shape, np_dtype):
    out = _float_sample(gen, "random", shape, np_dtype)
    if np_dtype not in (np.float32, np.float64):
        # rounding to a narrower float may reach 1.0; keep the interval half-open
        out = np.minimum(out, np.nextafter(np_dtype.type(1), np_dtype.type(0)))
    return out


RandomStandardNormal = _sampling_op(
    "RandomStandardNormal", "normal", "Samples from N(0, 1).",
    lambda gen, shape, np_dtype: _float_sample(gen, "standard_normal", shape, np_dtype))
RandomUniform = _sampling_op("RandomUniform", "uniform", "Samples uniformly from [0, 1).",
                             _uniform_sample)
TruncatedNormal = _sampling_op(
    "TruncatedNormal", "truncated_normal",
    "Samples from N(0, 1), redrawing values more than 2 standard deviations out.",
    truncated_normal_sample)


def _uniform_int_infer(shape, minval, maxval, *, seed=0, seed2=0, generator=None):
    for name, t in (("minval", minval), ("maxval", maxval)):
        if t.shape.rank not in (None, 0):
            raise InvalidArgumentError(None, None, f"{name} must be a scalar, got shape "
                                                   f"{t.shape}")
    return _shape_infer(shape, dtype=minval.dtype)


@register_op("RandomUniformInt", stateful=True)
class RandomUniformInt:
    """Samples integers uniformly from [minval, maxval)."""

    infer = _uniform_int_infer

    def kernel(shape, minval, maxval, *, seed=0, seed2=0, generator=None):
        if not minval < maxval:
            raise InvalidArgumentError(None, None, f"Need minval < maxval, got {minval} >= "
                                                   f"{maxval}")
        gen = _stream("uniform_int", minval.dtype, seed, seed2, generator)
        return gen.integers(minval, maxval, size=_shape_tuple(shape), dtype=minval.dtype)

    def grad(op, dy):
        return None, None, None


def _multinomial_infer(logits, num_samples, *, output_dtype, seed=0, seed2=0, generator=None):
    return _multinomial_shape(logits, num_samples, output_dtype)


@register_op("Multinomial", stateful=True)
class Multinomial:
    """Draws ``num_samples`` class indices per row of unnormalized log-probabilities."""

    infer = _multinomial_infer

    def kernel(logits, num_samples, *, output_dtype, seed=0, seed2=0, generator=None):
        n = int(num_samples)
        if n < 0:
            raise InvalidArgumentError(None, None, f"num_samples should be nonnegative, got "
                                                   f"{n}")
        gen = _stream("multinomial", logits.dtype, seed, seed2, generator)
        return _categorical_sample(logits, gen.random((logits.shape[0], n)), output_dtype.np)

    def grad(op, dy):
        return None, None


@register_op("RandomShuffle", stateful=True)
class RandomShuffle:
    """Shuffles a tensor along its first dimension."""

    def infer(value, *, seed=0, seed2=0, generator=None):
        return value.dtype, value.shape

    def kernel(value, *, seed=0, seed2=0, generator=None):
        if value.ndim == 0 or value.shape[0] <= 1:
            return value
        gen = _stream("shuffle", value.dtype, seed, seed2, generator)
        return value[gen.permutation(value.shape[0])]

    def grad(op, dy):
        return None


def _concat_infer(shape, param, dtype):
    head = _shape_infer(shape, dtype=dtype)[1]
    if head.rank is None or param.shape.rank is None:
        return dtype, TensorShape(None)
    return dtype, TensorShape(head.as_list() + param.shape.as_list())


@register_op("RandomGamma", stateful=True)
class RandomGamma:
    """Samples Gamma(alpha, 1): ``shape`` samples for each entry of ``alpha``."""

    def infer(shape, alpha, *, seed=0, seed2=0, generator=None):
        check_float_dtype("RandomGamma", alpha.dtype)
        return _concat_infer(shape, alpha, alpha.dtype)

    def kernel(shape, alpha, *, seed=0, seed2=0, generator=None):
        gen = _stream("gamma", alpha.dtype, seed, seed2, generator)
        size = _shape_tuple(shape) + alpha.shape
        # np.asarray: NumPy returns a Python float, not an array, for a scalar parameter.
        return np.asarray(gen.standard_gamma(np.broadcast_to(alpha, size).astype(np.float64)),
                          dtype=alpha.dtype)

    def grad(op, dy):
        return None, None


@register_op("RandomPoissonV2", stateful=True)
class RandomPoissonV2:
    """Samples Poisson(rate): ``shape`` samples for each entry of ``rate``."""

    def infer(shape, rate, *, dtype, seed=0, seed2=0, generator=None):
        return _concat_infer(shape, rate, dtype)

    def kernel(shape, rate, *, dtype, seed=0, seed2=0, generator=None):
        gen = _stream("poisson", rate.dtype, seed, seed2, generator)
        size = _shape_tuple(shape) + rate.shape
        return np.asarray(gen.poisson(np.broadcast_to(rate, size).astype(np.float64)),
                          dtype=dtype.np)

    def grad(op, dy):
        return None, None


def _uniform(shape, minval, maxval, dtype, seeds: dict, name):
    dtype = dtypes.as_dtype(dtype)
    shape_t = _shape_arg(shape)
    if dtype.is_integer:
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"tw.random.uniform supports int32 and int64, got {dtype.name}")
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name}")
        return bind(RandomUniformInt, [shape_t, _arg(minval, dtype), _arg(maxval, dtype)],
                    seeds, name=name)
    dtype = _float_dtype(dtype, "tw.random.uniform")
    if maxval is None:
        maxval = 1
    rnd = bind(RandomUniform, [shape_t], {"dtype": dtype, **seeds}, name=name)
    if _is_py(minval, 0) and _is_py(maxval, 1):
        return rnd
    lo, hi = _arg(minval, dtype), _arg(maxval, dtype)
    return add(multiply(rnd, subtract(hi, lo)), lo)


def random_normal(shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                  dtype: DTypeLike = dtypes.float32, seed: int | None = None,
                  name: str | None = None) -> Tensor:
    """Samples from a normal distribution (``tw.random.normal``).

    Args:
        shape: a 1-D int tensor or list (entries may be tensors).
        mean: the mean, a scalar or tensor broadcastable to ``shape``.
        stddev: the standard deviation, likewise.
        dtype: a floating-point dtype.
        seed: the op seed (see ``set_seed``).
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    return _normal(RandomStandardNormal, shape, mean, stddev, dtype, _seed_attrs(seed), name,
                   "tw.random.normal")


def truncated_normal(shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                     dtype: DTypeLike = dtypes.float32, seed: int | None = None,
                     name: str | None = None) -> Tensor:
    """Samples from a normal distribution truncated at two standard deviations.

    Args:
        shape: a 1-D int tensor or list.
        mean: the mean.
        stddev: the standard deviation before truncation.
        dtype: a floating-point dtype.
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.
    """
    return _normal(TruncatedNormal, shape, mean, stddev, dtype, _seed_attrs(seed), name,
                   "tw.random.truncated_normal")


def random_uniform(shape: ShapeLike, minval: TensorLike = 0, maxval: TensorLike | None = None,
                   dtype: DTypeLike = dtypes.float32, seed: int | None = None,
                   name: str | None = None) -> Tensor:
    """Samples uniformly from [minval, maxval) (``tw.random.uniform``).

    Args:
        shape: a 1-D int tensor or list.
        minval: lower bound (inclusive).
        maxval: upper bound (exclusive); default 1 for floats, required for integers.
        dtype: float16/32/64 or int32/int64.
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of ``shape`` and ``dtype``.

    Raises:
        ValueError: an integer dtype without ``maxval``.
    """
    return _uniform(shape, minval, maxval, dtype, _seed_attrs(seed), name)


def categorical(logits: TensorLike, num_samples, dtype: DTypeLike | None = None,
                seed: int | None = None, name: str | None = None) -> Tensor:
    """Draws class indices from categorical distributions (``tw.random.categorical``).

    Args:
        logits: a float tensor [batch_size, num_classes] of unnormalized log-probabilities.
        num_samples: how many samples per row.
        dtype: int32 or int64 (default int64).
        seed: the op seed.
        name: op name.

    Returns:
        An integer tensor [batch_size, num_samples].
    """
    logits = convert(logits)
    out = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    n = convert(num_samples, dtype=dtypes.int32) if not hasattr(num_samples, "dtype") \
        else convert(num_samples)
    return bind(Multinomial, [logits, n], {"output_dtype": out, **_seed_attrs(seed)},
                name=name)


def random_shuffle(value: TensorLike, seed: int | None = None, name: str | None = None) -> Tensor:
    """Shuffles ``value`` along its first dimension (``tw.random.shuffle``).

    Args:
        value: a tensor.
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(RandomShuffle, [convert(value)], _seed_attrs(seed), name=name)


def random_gamma(shape: ShapeLike, alpha, beta: TensorLike | None = None,
                 dtype: DTypeLike = dtypes.float32, seed: int | None = None,
                 name: str | None = None) -> Tensor:
    """Samples from Gamma(alpha, beta) distributions (``tw.random.gamma``).

    Args:
        shape: a 1-D int tensor or list: the number of samples per distribution.
        alpha: the shape parameter(s), a scalar or tensor.
        beta: the inverse scale parameter(s), broadcastable with ``alpha`` (default 1).
        dtype: a floating-point dtype.
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of shape ``shape + broadcast(alpha, beta).shape``.
    """
    dtype = _float_dtype(dtype, "tw.random.gamma")
    a = _arg(alpha, dtype)
    if beta is not None:
        a = add(a, multiply(_arg(beta, dtype), 0.0))  # broadcast alpha against beta
    out = bind(RandomGamma, [_shape_arg(shape), a], _seed_attrs(seed), name=name)
    if beta is None:
        return out
    return divide(out, _arg(beta, dtype))


def random_poisson(shape: ShapeLike, lam: TensorLike, dtype: DTypeLike = dtypes.float32,
                   seed: int | None = None, name: str | None = None) -> Tensor:
    """Samples from Poisson(lam) distributions (``tw.random.poisson``).

    Args:
        shape: a 1-D int tensor or list: the number of samples per distribution.
        lam: the rate(s), a scalar or float tensor.
        dtype: the output dtype (float or int32/int64).
        seed: the op seed.
        name: op name.

    Returns:
        A tensor of shape ``shape + lam.shape``.
    """
    rate = convert(lam) if isinstance(lam, Tensor) else convert_to_tensor(
        np.asarray(lam, dtype=np.float32))
    return bind(RandomPoissonV2, [_shape_arg(shape), rate],
                {"dtype": dtypes.as_dtype(dtype), **_seed_attrs(seed)}, name=name)


