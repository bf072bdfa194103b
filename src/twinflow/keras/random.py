"""``tw.keras.random``: Keras 3's random functions over twinflow's stateless random ops.

As in Keras: an integer ``seed`` makes a call deterministic (the same numbers every call), a
``SeedGenerator`` advances its state on each draw (so a layer holding one draws new numbers
each step, reproducibly), and ``seed=None`` draws from a process-wide generator.
"""
from __future__ import annotations

import threading

import numpy as np

from ..core import dtypes
from ..core.context import eager_mode
from ..graph.tensor import Tensor
from ..ops import array_ops, math_ops
from ..ops import random_ops as _sl
from ..ops.random import stateless_dist as _sd
from ..ops.variables import Variable
from . import settings as _backend


class SeedGenerator:
    """A seed whose state advances on each use (Keras 3's ``keras.random.SeedGenerator``).

    Args:
        seed: the initial seed (an int); None picks one at random.
        name: the generator's name.
        **kwargs: ``dtype``/``backend`` (accepted for compatibility when they are Keras'
            defaults).
    """

    def __init__(self, seed: int | None = None, name: str | None = None, **kwargs) -> None:
        bad = {k: v for k, v in kwargs.items() if v not in (None, "uint32", "int64",
                                                           "tensorflow")}
        if bad:
            raise ValueError(f"SeedGenerator: unsupported arguments {bad}")
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2 ** 31))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"SeedGenerator needs an integer seed, got {seed!r}")
        self.name = name or "seed_generator"
        with eager_mode():
            self.state = Variable(np.array([int(seed), 0], np.int64), trainable=False,
                                  name=f"{self.name}/seed_generator_state")
        self._lock = threading.Lock()

    def next(self) -> Tensor:
        """The current ``[seed, counter]`` pair; advances the counter.

        Returns:
            An int64 tensor of shape [2].
        """
        with self._lock:
            value = self.state.read_value()
            self.state.assign_add(np.array([0, 1], np.int64))
        return value

    def get_config(self) -> dict:
        """The generator's config.

        Returns:
            ``{"seed": ...}``.
        """
        return {"seed": int(self.state.numpy()[0])}


_GLOBAL: list = []
_GLOBAL_LOCK = threading.Lock()


def _seed(seed) -> Tensor:
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if seed is None:
        with _GLOBAL_LOCK:
            if not _GLOBAL:
                _GLOBAL.append(SeedGenerator())
        return _GLOBAL[0].next()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int, a SeedGenerator or None, got {seed!r}")
    return array_ops.constant(np.array([int(seed), 0], np.int64))


def _float(dtype) -> dtypes.DType:
    return dtypes.as_dtype(dtype or _backend.floatx())


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normal samples.

    Args:
        shape: the output shape.
        mean: the mean.
        stddev: the standard deviation.
        dtype: a float dtype (``floatx()`` by default).
        seed: an int, a SeedGenerator or None.

    Returns:
        The samples.
    """
    return _sl.stateless_random_normal(shape, _seed(seed), mean, stddev, _float(dtype))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None) -> Tensor:
    """Uniform samples in ``[minval, maxval)``.

    Args:
        minval: the lower bound.
        maxval: the upper bound.
        shape, dtype, seed: as in ``normal``.

    Returns:
        The samples.
    """
    return _sl.stateless_random_uniform(shape, _seed(seed), minval, maxval, _float(dtype))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normal samples redrawn beyond two standard deviations.

    Args:
        shape, mean, stddev, dtype, seed: as in ``normal``.

    Returns:
        The samples.
    """
    return _sl.stateless_truncated_normal(shape, _seed(seed), mean, stddev, _float(dtype))


def randint(shape, minval, maxval, dtype="int32", seed=None) -> Tensor:
    """Integers uniform in ``[minval, maxval)``.

    Args:
        shape: the output shape.
        minval: the lower bound.
        maxval: the upper bound (excluded).
        dtype: an integer dtype.
        seed: an int, a SeedGenerator or None.

    Returns:
        The samples.
    """
    u = _sl.stateless_random_uniform(shape, _seed(seed), dtype=dtypes.float64)
    lo = math_ops.cast(minval, dtypes.float64)
    span = math_ops.cast(maxval, dtypes.float64) - lo
    return math_ops.cast(math_ops.floor(lo + u * span), dtypes.as_dtype(dtype))


def categorical(logits, num_samples, dtype="int32", seed=None) -> Tensor:
    """Class indices drawn from unnormalized log-probabilities (one row per batch entry).

    Args:
        logits: ``(batch, classes)`` logits.
        num_samples: samples per row.
        dtype: the index dtype.
        seed: an int, a SeedGenerator or None.

    Returns:
        ``(batch, num_samples)`` indices.
    """
    return _sd.stateless_categorical(logits, num_samples, _seed(seed), dtypes.as_dtype(dtype))


def gamma(shape, alpha, dtype=None, seed=None) -> Tensor:
    """Gamma samples with concentration ``alpha`` (rate 1).

    Args:
        shape: the output shape.
        alpha: the concentration.
        dtype: a float dtype.
        seed: an int, a SeedGenerator or None.

    Returns:
        The samples.
    """
    return _sd.stateless_gamma(shape, _seed(seed), alpha, dtype=_float(dtype))


def beta(shape, alpha, beta, dtype=None, seed=None) -> Tensor:  # noqa: F811 (Keras' name)
    """Beta samples, as ``g1 / (g1 + g2)`` of two gamma draws.

    Args:
        shape: the output shape.
        alpha: the first concentration.
        beta: the second concentration.
        dtype: a float dtype.
        seed: an int, a SeedGenerator or None.

    Returns:
        The samples.
    """
    s = _seed(seed)
    g1 = _sd.stateless_gamma(shape, s, alpha, dtype=_float(dtype))
    g2 = _sd.stateless_gamma(shape, s + np.array([0, 2 ** 31], np.int64), beta,
                             dtype=_float(dtype))
    return g1 / (g1 + g2)


def binomial(shape, counts, probabilities, dtype=None, seed=None) -> Tensor:
    """Binomial samples (successes in ``counts`` trials of probability ``probabilities``).

    Args:
        shape: the output shape.
        counts: the trials.
        probabilities: the success probability.
        dtype: the output dtype (``floatx()`` as in Keras).
        seed: an int, a SeedGenerator or None.

    Returns:
        The samples.
    """
    out = _sd.stateless_binomial(shape, _seed(seed), counts, probabilities,
                                 output_dtype=dtypes.int32)
    return math_ops.cast(out, _float(dtype))


def dropout(inputs, rate, noise_shape=None, seed=None) -> Tensor:
    """Zeroes each element with probability ``rate`` and scales the rest by ``1/(1-rate)``.

    Args:
        inputs: the tensor.
        rate: the drop probability, in [0, 1).
        noise_shape: the shape of the kept/dropped pattern (broadcast to the inputs).
        seed: an int, a SeedGenerator or None.

    Returns:
        The tensor with dropout applied.
    """
    x = inputs if isinstance(inputs, Tensor) else array_ops.constant(np.asarray(inputs))
    if not 0 <= float(rate) < 1:
        raise ValueError(f"dropout rate must be in [0, 1), got {rate}")
    shape = array_ops.shape(x) if noise_shape is None else noise_shape
    keep = math_ops.greater_equal(_sl.stateless_random_uniform(shape, _seed(seed), dtype=x.dtype),
                                  math_ops.cast(rate, x.dtype))
    return math_ops.where(keep, x / (1.0 - float(rate)), array_ops.zeros_like(x))


def shuffle(x, axis: int = 0, seed=None) -> Tensor:
    """``x`` with its slices along ``axis`` in a random order.

    Args:
        x: the tensor.
        axis: the shuffled axis.
        seed: an int, a SeedGenerator or None.

    Returns:
        The shuffled tensor.
    """
    x = x if isinstance(x, Tensor) else array_ops.constant(np.asarray(x))
    n = array_ops.shape(x)[axis]
    order = array_ops.argsort(_sl.stateless_random_uniform(array_ops.reshape(n, [1]), _seed(seed)))
    return array_ops.gather(x, order, axis=axis)


__all__ = ["SeedGenerator", "normal", "uniform", "truncated_normal", "randint",
           "categorical", "gamma", "beta", "binomial", "dropout", "shuffle"]
