"""``tf.experimental.numpy.random``: NumPy's legacy random functions over twinflow's stateful
random ops (seeded by ``seed``, as ``tw.random.set_seed``). Floats are float64, integers
int64, as NumPy's."""
from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from ..core import dtypes
from ..graph.tensor import Tensor
from ..ops import math_ops as M
from ..ops.random import seeds as _seeds
from ..ops.random import stateful as _random
from .config import as_dtype, tensor

__all__ = ["poisson", "rand", "randint", "randn", "random", "seed", "standard_normal",
           "uniform"]


def _shape(size) -> list:
    if size is None:
        return []
    if isinstance(size, (int, np.integer)):
        return [int(size)]
    if isinstance(size, Tensor):
        return size
    return [int(s) for s in size]


def seed(s) -> None:
    """Seeds the random functions (``tw.random.set_seed(s)``).

    Args:
        s: an int.
    """
    _seeds.set_seed(int(s))


def _float64_samplers(op: Callable, what: str, names: tuple[str, str], star: str) -> tuple:
    """NumPy's two float64 samplers over the random op ``op``: ``names[0](size=None)`` and
    ``names[1](*star)``, the same with the shape given as separate dimensions."""
    name, by_dims = names

    def sample(size=None) -> Tensor:
        return op(_shape(size), dtype=dtypes.float64)

    def sample_dims(*dims) -> Tensor:
        return sample(dims)

    sample.__name__ = sample.__qualname__ = name
    sample.__doc__ = f"""{what} float64 samples.

    Args:
        size: the shape (an int or a tuple); None for a scalar.

    Returns:
        A float64 tensor.
    """
    sample_dims.__name__ = sample_dims.__qualname__ = by_dims
    sample_dims.__signature__ = inspect.Signature(  # NumPy's name for the dimensions
        [inspect.Parameter(star, inspect.Parameter.VAR_POSITIONAL)], return_annotation="Tensor")
    sample_dims.__doc__ = f"""``{name}`` of shape ``{star}``.

    Args:
        *{star}: the dimensions.

    Returns:
        A float64 tensor.
    """
    return sample, sample_dims


random, rand = _float64_samplers(_random.random_uniform, "Uniform (in ``[0, 1)``)",
                                 ("random", "rand"), "size")
standard_normal, randn = _float64_samplers(_random.random_normal, "Standard normal",
                                           ("standard_normal", "randn"), "args")


def uniform(low=0.0, high=1.0, size=None) -> Tensor:
    """Uniform samples in ``[low, high)`` (float64; broadcast ``low``/``high`` as NumPy).

    Args:
        low: the lower bound.
        high: the upper bound.
        size: the shape; None for the broadcast shape of ``low`` and ``high``.

    Returns:
        A float64 tensor.
    """
    lo, hi = tensor(low, dtypes.float64), tensor(high, dtypes.float64)
    if size is None:
        shape = (lo + hi).shape.as_list()
    else:
        shape = _shape(size)
    u = _random.random_uniform(shape, dtype=dtypes.float64)
    return lo + u * (hi - lo)


def randint(low, high=None, size=None, dtype=np.int64) -> Tensor:
    """Integers uniform in ``[low, high)`` (``[0, low)`` when ``high`` is None).

    Args:
        low: the lowest value (or the bound, without ``high``).
        high: one above the highest value.
        size: the shape; None for a scalar.
        dtype: an integer dtype (int64 by default).

    Returns:
        A tensor of ``dtype``.

    Raises:
        ValueError: ``high <= low`` or a non-integer dtype.
    """
    dt = as_dtype(dtype)
    if not dt.is_integer:
        raise ValueError(f"tf.experimental.numpy.random.randint: dtype must be an integer "
                         f"type, got {dt.name}")
    if high is None:
        low, high = 0, low
    if np.ndim(low) or np.ndim(high) or isinstance(low, Tensor) or isinstance(high, Tensor):
        # Bounds per element (broadcast as NumPy): scale a uniform sample in [0, 1).
        lo, hi = tensor(low, dtypes.int64), tensor(high, dtypes.int64)
        shape = (lo + hi).shape.as_list() if size is None else _shape(size)
        u = _random.random_uniform(shape, dtype=dtypes.float64)
        span = M.cast(hi - lo, dtypes.float64)
        out = lo + M.cast(M.floor(u * span), dtypes.int64)
    else:
        if int(high) <= int(low):
            raise ValueError(f"tf.experimental.numpy.random.randint: low >= high ({low} >= "
                             f"{high})")
        out = _random.random_uniform(_shape(size), int(low), int(high), dtype=dtypes.int64)
    return out if dt is dtypes.int64 else M.cast(out, dt)


def poisson(lam=1.0, size=None) -> Tensor:
    """Poisson samples (int64).

    Args:
        lam: the rate(s).
        size: the shape; None for a scalar (or the shape of ``lam``).

    Returns:
        An int64 tensor.
    """
    rate = tensor(lam, dtypes.float64)
    shape = _shape(size)
    if size is not None and rate.shape.rank:
        raise ValueError("tf.experimental.numpy.random.poisson: give size or an array lam, "
                         "not both")
    return _random.random_poisson(shape, rate, dtype=dtypes.int64)
