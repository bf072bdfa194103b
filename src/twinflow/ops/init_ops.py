"""TensorFlow 2's top-level initializers (``tw.constant_initializer``, ``tw.ones_initializer``,
``tw.zeros_initializer``, ``tw.random_normal_initializer``, ``tw.random_uniform_initializer``).

They are callables ``init(shape, dtype)`` (TensorFlow's ``init_ops_v2``), independent of Keras:
a seeded random initializer draws from the stateless generator with seed ``[seed, 0]``, so
every call gives the same values, as TensorFlow's does.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..eager.execute import constant
from ..graph.tensor import Tensor
from . import array_ops
from .random.stateful import random_normal, random_uniform
from .random.stateless import stateless_random_normal, stateless_random_uniform

__all__ = ["constant_initializer", "ones_initializer", "zeros_initializer",
           "random_normal_initializer", "random_uniform_initializer"]


class _Initializer:
    """The shared protocol: ``__call__(shape, dtype)``, ``get_config``, ``from_config``."""

    def get_config(self) -> dict:
        """The constructor arguments.

        Returns:
            A dict that ``from_config`` accepts.
        """
        return {}

    @classmethod
    def from_config(cls, config: dict):
        """Builds an initializer from ``get_config()``'s dict.

        Args:
            config: the dict.

        Returns:
            The initializer.
        """
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


def _check_kwargs(kwargs: dict) -> None:
    extra = set(kwargs) - {"partition_shape", "partition_offset"}
    if extra:
        raise TypeError(f"Keyword argument should be one of ['partition_shape', "
                        f"'partition_offset']. Received: {sorted(extra)}")
    if kwargs:
        raise ValueError("twinflow does not partition variables: partition_shape/"
                         "partition_offset are not supported")


class _Filled(_Initializer):
    _fill = staticmethod(array_ops.zeros)

    def __call__(self, shape, dtype=dtypes.float32, **kwargs) -> Tensor:
        """A tensor of the initializer's value.

        Args:
            shape: the shape.
            dtype: the dtype (default float32).
            **kwargs: TensorFlow's partition arguments (not supported).

        Returns:
            The tensor.
        """
        _check_kwargs(kwargs)
        return self._fill(shape, dtypes.as_dtype(dtype))


class zeros_initializer(_Filled):  # noqa: N801  (TensorFlow's name)
    """Initializer of tensors of zeros."""


class ones_initializer(_Filled):  # noqa: N801
    """Initializer of tensors of ones."""

    _fill = staticmethod(array_ops.ones)


class constant_initializer(_Initializer):  # noqa: N801
    """Initializer of tensors holding ``value`` (a scalar, or a list with one value per
    element, in row-major order)."""

    def __init__(self, value=0, support_partition=False) -> None:
        """Keeps the value.

        Args:
            value: a scalar, or one value per element (list, tuple, NumPy array, tensor).
            support_partition: partitioned variables are not supported: must be False.
        """
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray, Tensor))):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__} (expected "
                            "Python scalar, list or tuple of values, or numpy.ndarray).")
        if support_partition:
            raise ValueError("twinflow does not partition variables: support_partition=True "
                             "is not supported")
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        """A tensor of ``value``.

        Args:
            shape: the shape.
            dtype: the dtype (default: inferred from ``value``).
            **kwargs: TensorFlow's partition arguments (not supported).

        Returns:
            The tensor.
        """
        _check_kwargs(kwargs)
        value = self.value.numpy() if isinstance(self.value, Tensor) else self.value
        shape = [int(d) for d in shape]
        size = int(np.prod(shape))
        arr = np.asarray(value)
        if arr.ndim and arr.size != size:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Value has "
                            f"{arr.size} elements, but got `shape` {tuple(shape)} with {size} "
                            "elements).")
        return constant(value, None if dtype is None else dtypes.as_dtype(dtype), shape=shape)

    def get_config(self) -> dict:
        """The constructor arguments.

        Returns:
            ``{"value": value}``.
        """
        return {"value": self.value}


def _floating(dtype, what: str):
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or (what == "uniform" and dtype.is_integer)):
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: "
                         f"{dtype!r}.")
    return dtype


class _Random(_Initializer):
    """A random initializer drawing with ``_draw(shape, a, b, dtype)`` (no seed) or
    ``_seeded(shape, [seed, 0], a, b, dtype)``, where ``a, b`` are the attributes ``_params``;
    ``_kind`` ("normal", "uniform") decides which dtypes it accepts."""

    _params: tuple
    _kind: str

    def __call__(self, shape, dtype=dtypes.float32, **kwargs) -> Tensor:
        """Samples a tensor (the same one on every call when ``seed`` is set).

        Args:
            shape: the shape.
            dtype: a floating dtype (default float32; the uniform initializer also takes
                integer dtypes).
            **kwargs: TensorFlow's partition arguments (not supported).

        Returns:
            The tensor.
        """
        _check_kwargs(kwargs)
        dtype = _floating(dtype, self._kind)
        a, b = (getattr(self, p) for p in self._params)
        if self.seed is None:
            return self._draw(shape, a, b, dtype)
        return self._seeded(shape, [self.seed, 0], a, b, dtype)

    def get_config(self) -> dict:
        """The constructor arguments.

        Returns:
            The distribution's parameters and ``seed``, by name.
        """
        return {p: getattr(self, p) for p in (*self._params, "seed")}


class random_normal_initializer(_Random):  # noqa: N801
    """Initializer of normally distributed tensors."""

    _params, _kind = ("mean", "stddev"), "normal"
    _draw, _seeded = staticmethod(random_normal), staticmethod(stateless_random_normal)

    def __init__(self, mean=0.0, stddev=0.05, seed=None) -> None:
        """Keeps the distribution's parameters.

        Args:
            mean: the mean.
            stddev: the standard deviation.
            seed: an int for the same values on every call, or None.
        """
        self.mean = mean
        self.stddev = stddev
        self.seed = seed


class random_uniform_initializer(_Random):  # noqa: N801
    """Initializer of uniformly distributed tensors in ``[minval, maxval)``."""

    _params, _kind = ("minval", "maxval"), "uniform"
    _draw, _seeded = staticmethod(random_uniform), staticmethod(stateless_random_uniform)

    def __init__(self, minval=-0.05, maxval=0.05, seed=None) -> None:
        """Keeps the distribution's parameters.

        Args:
            minval: the lower bound (included).
            maxval: the upper bound (excluded).
            seed: an int for the same values on every call, or None.
        """
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
