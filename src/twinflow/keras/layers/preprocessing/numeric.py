"""Numeric preprocessing layers: Normalization, Discretization, CategoryEncoding, Hashing,
HashedCrossing, Rescaling (Keras 3's config keys and outputs)."""
from __future__ import annotations

import numpy as np

from ....core import dtypes
from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops
from ....ops.math.comparison import where
from ....ops.ragged.cross import ragged_cross_hashed
from ....ops.string_ops import as_string
from . import kernels
from .base import PreprocessingLayer, to_numpy

_EPSILON = 1e-7  # keras.backend.epsilon()
_MODES = ("int", "one_hot", "multi_hot", "count")


def check_mode(mode: str, allowed=_MODES, legacy: bool = False) -> str:
    """``mode`` if it is one of ``allowed``, else a ValueError naming them; ``legacy``: the
    text layers' older names (``'binary'``, ``'tf-idf'``) are accepted too."""
    if legacy:
        mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(mode, mode)
    if mode not in allowed:
        raise ValueError(f"Invalid value for argument `output_mode`. Expected one of "
                         f"{list(allowed)}. Received: output_mode={mode!r}")
    return mode


def no_sparse(sparse: bool, layer: str) -> None:
    """Refuses ``sparse=True`` (dense outputs only)."""
    if sparse:
        raise NotImplementedError(f"{layer}(sparse=True) is not supported in twinflow: "
                                  f"the outputs are dense")


def encode(indices: Tensor, mode: str, depth: int, dtype) -> Tensor:
    """Keras' ``encode_categorical_inputs``: ``indices`` as they are for "int", else encoded."""
    if mode == "int":
        return indices
    return kernels.category_encode(indices, depth, mode, dtype)


class Normalization(PreprocessingLayer):
    """Shifts and scales inputs to mean 0 and variance 1 (``(x - mean) / sqrt(var)``).

    Args:
        axis: the axis (or axes) that keep separate statistics; None for one scalar mean.
        mean: the mean (else ``adapt`` computes it).
        variance: the variance (with ``mean``).
        invert: apply the inverse transformation (``mean + x * sqrt(var)``).
        **kwargs: Layer arguments.
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert: bool = False,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        self.axis = tuple(axis)
        if (mean is None) != (variance is None):
            raise ValueError("When setting values directly, both `mean` and `variance` must "
                             f"be set. Received: mean={mean} and variance={variance}")
        self.input_mean, self.input_variance = mean, variance
        self.invert = bool(invert)
        self.mean = self.variance = None
        self._stats = None

    def build(self, input_shape) -> None:
        shape = tuple(input_shape) if input_shape is not None else None
        if shape is None or None in [shape[a] for a in self.axis] if shape else False:
            raise ValueError(f"Normalization needs known sizes on axis {self.axis}; got input "
                             f"shape {shape}")
        ndim = len(shape)
        keep = sorted(a + ndim if a < 0 else a for a in self.axis)
        for a in keep:
            if not 0 <= a < ndim:
                raise ValueError(f"Normalization: axis {self.axis} is out of range for inputs "
                                 f"of rank {ndim}")
        self._keep = keep
        self._broadcast = [shape[d] if d in keep else 1 for d in range(ndim)]
        self._var_shape = tuple(shape[d] for d in keep)
        if self.input_mean is not None:
            self.mean = np.broadcast_to(np.asarray(self.input_mean, self._tw_dtype.np),
                                        self._broadcast).copy()
            self.variance = np.broadcast_to(np.asarray(self.input_variance,
                                                       self._tw_dtype.np), self._broadcast).copy()
        elif self.mean is None:
            self.adapt_mean = self.add_weight("mean", self._var_shape, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight("variance", self._var_shape,
                                                  initializer="ones", trainable=False)
            # Keras keeps (and never updates) an int "count" weight: the same weights layout
            self.count = self.add_weight("count", (), dtype="int64", initializer="zeros",
                                         trainable=False)
            self.mean = np.zeros(self._broadcast, self._tw_dtype.np)
            self.variance = np.ones(self._broadcast, self._tw_dtype.np)

    def reset_state(self) -> None:
        if self.input_mean is not None:
            raise ValueError("Cannot adapt a Normalization layer whose mean and variance "
                             "were passed to the constructor")
        self._stats = None

    def update_state(self, data) -> None:
        arr = to_numpy(data).astype(np.float64)
        if not self.built:
            self._maybe_build_shape(arr.shape)
        if arr.ndim != len(self._broadcast):
            raise ValueError(f"Normalization: adapt data of rank {arr.ndim} does not match the "
                             f"layer's rank {len(self._broadcast)}")
        red = tuple(d for d in range(arr.ndim) if d not in self._keep)
        n = int(np.prod([arr.shape[d] for d in red]))
        s = arr.sum(axis=red, keepdims=True)
        q = (arr * arr).sum(axis=red, keepdims=True)
        if self._stats is None:
            self._stats = [n, s, q]
        else:
            self._stats = [self._stats[0] + n, self._stats[1] + s, self._stats[2] + q]

    def _maybe_build_shape(self, shape) -> None:
        self.build(tuple(shape))
        self.built = True

    def finalize_state(self) -> None:
        if self._stats is None:
            raise ValueError("Normalization.adapt() got no data")
        n, s, q = self._stats
        mean = s / n
        var = np.maximum(q / n - mean * mean, 0.0)
        dt = self._tw_dtype.np
        self.mean = mean.reshape(self._broadcast).astype(dt)
        self.variance = var.reshape(self._broadcast).astype(dt)
        self.adapt_mean.assign(mean.reshape(self._var_shape).astype(dt))
        self.adapt_variance.assign(var.reshape(self._var_shape).astype(dt))

    def call(self, inputs) -> Tensor:
        x = math_ops.cast(inputs, self._tw_dtype) if inputs.dtype != self._tw_dtype else inputs
        if hasattr(self, "adapt_mean") and self.input_mean is None:
            mean = array_ops.reshape(self.adapt_mean, self._broadcast)
            var = array_ops.reshape(self.adapt_variance, self._broadcast)
        else:
            mean, var = self.mean, self.variance
        std = math_ops.maximum(math_ops.sqrt(var), _EPSILON)
        if self.invert:
            return mean + x * std
        return (x - mean) / std

    def get_config(self) -> dict:
        cfg = super().get_config()
        mean, var = self.input_mean, self.input_variance
        if isinstance(mean, np.ndarray):
            mean, var = mean.tolist(), np.asarray(var).tolist()
        cfg.update(axis=self.axis, invert=self.invert, mean=mean, variance=var)
        return cfg


def _summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    """Keras' quantile summary of one batch: every ``step``-th sorted value, weight ``step``."""
    values = np.sort(values.reshape(-1))
    step = max(values.size * epsilon, 1)
    picked = values[int(step - 1)::int(step)]
    return np.stack([picked, np.full(picked.shape, step, picked.dtype)])


def _compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    """Interpolates a summary down to ``1 / epsilon`` points (Keras' compress_summary)."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum = summary[1].cumsum()
    frac = cum / cum[-1]
    bins = np.interp(percents, frac, summary[0])
    cum = np.interp(percents, frac, cum)
    weights = cum - np.concatenate(([0], cum[:-1]))
    return np.stack((bins, weights)).astype("float32")


class Discretization(PreprocessingLayer):
    """Buckets numbers: index ``i`` where ``bin_boundaries[i-1] <= x < bin_boundaries[i]``.

    Args:
        bin_boundaries: the sorted boundaries (or None to ``adapt`` ``num_bins`` quantiles).
        num_bins: the number of bins ``adapt`` computes.
        epsilon: the quantile approximation error of ``adapt``.
        output_mode: "int", "one_hot", "multi_hot" or "count".
        sparse: must be False.
        **kwargs: Layer arguments.
    """

    def __init__(self, bin_boundaries=None, num_bins: int | None = None, epsilon: float = 0.01,
                 output_mode: str = "int", sparse: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        no_sparse(sparse, "Discretization")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. "
                             f"Received: num_bins={num_bins} and "
                             f"bin_boundaries={bin_boundaries}")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. Received: "
                             f"`num_bins={num_bins}`")
        self.bin_boundaries = list(bin_boundaries) if bin_boundaries is not None else None
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = check_mode(output_mode)
        self.sparse = sparse
        self.summary = np.array([[], []], "float32")  # the quantile summary adapt builds

    def reset_state(self) -> None:
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead.")
        self.summary = np.array([[], []], "float32")

    def update_state(self, data) -> None:
        s = _summarize(to_numpy(data).astype("float32"), self.epsilon)
        merged = np.concatenate((self.summary, s), axis=1)
        self.summary = _compress(merged[:, np.argsort(merged[0], kind="stable")], self.epsilon)

    def finalize_state(self) -> None:
        if self.num_bins is not None:
            self.bin_boundaries = _compress(self.summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs) -> Tensor:
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at "
                             "construction time or call `adapt(dataset)` before you can start "
                             "using the `Discretization` layer.")
        idx = kernels.bucketize(inputs, self.bin_boundaries)
        return encode(idx, self.output_mode, len(self.bin_boundaries) + 1, self._tw_dtype)

    _config_keys = ("bin_boundaries", "num_bins", "epsilon", "output_mode", "sparse")

    @classmethod
    def from_config(cls, config: dict) -> Discretization:
        """The layer of ``get_config()`` (an adapted one keeps its boundaries).

        Args:
            config: the arguments.

        Returns:
            The layer.
        """
        config = dict(config)
        bounds = config.pop("bin_boundaries", None)
        if config.get("num_bins") is None:
            return cls(bin_boundaries=bounds, **config)
        layer = cls(**config)
        layer.bin_boundaries = bounds
        return layer


class CategoryEncoding(PreprocessingLayer):
    """Encodes integer indices in ``[0, num_tokens)`` as one-hot, multi-hot or count vectors.

    Args:
        num_tokens: the number of categories.
        output_mode: "one_hot", "multi_hot" or "count".
        sparse: must be False.
        **kwargs: Layer arguments.
    """

    def __init__(self, num_tokens: int | None = None, output_mode: str = "multi_hot",
                 sparse: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        no_sparse(sparse, "CategoryEncoding")
        if num_tokens is None or num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        self.num_tokens = int(num_tokens)
        self.output_mode = check_mode(output_mode, ("one_hot", "multi_hot", "count"))
        self.sparse = sparse

    def call(self, inputs, count_weights=None) -> Tensor:
        if count_weights is not None:
            raise NotImplementedError("CategoryEncoding(count_weights=...) is not supported")
        if not inputs.dtype.is_integer:
            inputs = math_ops.cast(inputs, dtypes.int64)
        return kernels.category_encode(inputs, self.num_tokens, self.output_mode,
                                       self._tw_dtype)

    _config_keys = ("num_tokens", "output_mode")


def _salt(salt):
    if salt is None:
        return None
    if isinstance(salt, int):
        return (salt, salt)
    if isinstance(salt, (list, tuple)) and len(salt) == 2:
        return (int(salt[0]), int(salt[1]))
    raise ValueError(f"The `salt` argument for `Hashing` can only be a tuple of size 2 "
                     f"integers, or a single integer. Received: salt={salt}.")


def hash_values(x: Tensor, num_bins: int, key) -> Tensor:
    """The bucket of each string or integer (integers hash their decimal string, as Keras)."""
    if x.dtype.is_integer:
        x = as_string(x)
    elif not x.dtype.is_string:
        raise ValueError(f"Hashing needs string or integer inputs, got {x.dtype.name}")
    return kernels.hash_bucket(x, num_bins, key)


class Hashing(PreprocessingLayer):
    """Hashes strings or integers into ``num_bins`` buckets with TensorFlow's FarmHash
    fingerprint (SipHash with ``salt``), so bucket numbers match Keras'.

    Args:
        num_bins: the number of buckets (including the mask bucket 0 with ``mask_value``).
        mask_value: the value that maps to bucket 0 (others go to 1..num_bins-1).
        salt: an int or two ints: use the keyed SipHash.
        output_mode: "int", "one_hot", "multi_hot" or "count".
        sparse: must be False.
        **kwargs: Layer arguments.
    """

    def __init__(self, num_bins: int, mask_value=None, salt=None, output_mode: str = "int",
                 sparse: bool = False, **kwargs) -> None:
        kwargs.setdefault("dtype", "int64" if output_mode == "int" else "float32")
        super().__init__(**kwargs)
        no_sparse(sparse, "Hashing")
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive "
                             f"values. Received: num_bins={num_bins}.")
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.salt = salt
        self.strong_key = _salt(salt)
        self.output_mode = check_mode(output_mode)
        self.sparse = sparse

    def call(self, inputs) -> Tensor:
        x = inputs
        if self.mask_value is None:
            out = hash_values(x, self.num_bins, self.strong_key)
        else:
            mask = math_ops.equal(x, array_ops.constant(self.mask_value, dtype=x.dtype))
            out = hash_values(x, self.num_bins - 1, self.strong_key) + 1
            out = where(mask, array_ops.zeros_like(out), out)
        return encode(out, self.output_mode, self.num_bins, "float32")

    _config_keys = ("num_bins", "salt", "mask_value", "output_mode", "sparse")


class HashedCrossing(PreprocessingLayer):
    """Hashes the cross of two categorical features into ``num_bins`` buckets (TensorFlow's
    ``sparse.cross_hashed`` numbers).

    Args:
        num_bins: the number of buckets.
        output_mode: "int" or "one_hot".
        sparse: must be False.
        **kwargs: Layer arguments.
    """

    def __init__(self, num_bins: int, output_mode: str = "int", sparse: bool = False,
                 **kwargs) -> None:
        kwargs.setdefault("dtype", "int64" if output_mode == "int" else "float32")
        super().__init__(**kwargs)
        no_sparse(sparse, "HashedCrossing")
        self.num_bins = int(num_bins)
        self.output_mode = check_mode(output_mode, ("int", "one_hot"))
        self.sparse = sparse

    def call(self, inputs) -> Tensor:
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(f"`HashedCrossing` should be called on a list or tuple of two "
                             f"inputs. Received: inputs={inputs}")
        a, b = inputs
        if a.shape.rank != b.shape.rank:
            raise ValueError(f"`HashedCrossing` inputs must have the same rank; got shapes "
                             f"{a.shape} and {b.shape}")
        rank = a.shape.rank
        if rank not in (0, 1, 2) or (rank == 2 and a.shape[-1] != 1):
            raise ValueError(f"`HashedCrossing` only supports inputs of shape (), (batch,) or "
                             f"(batch, 1); got {a.shape}")
        shape = array_ops.shape(a)
        a2, b2 = (array_ops.reshape(t, [-1, 1]) for t in (a, b))
        out = ragged_cross_hashed([a2, b2], num_buckets=self.num_bins).flat_values
        out = array_ops.reshape(out, shape)
        return encode(out, self.output_mode, self.num_bins, "float32")

    _config_keys = ("num_bins", "output_mode", "sparse")


class Rescaling(PreprocessingLayer):
    """``x * scale + offset`` in the layer's dtype (e.g. ``scale=1/255``).

    Args:
        scale: a float, or one per channel.
        offset: a float, or one per channel.
        **kwargs: Layer arguments.
    """

    def __init__(self, scale, offset=0.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs) -> Tensor:
        x = math_ops.cast(inputs, self._tw_dtype) if inputs.dtype != self._tw_dtype else inputs
        dt = self._tw_dtype.np
        return x * np.asarray(self.scale, dt) + np.asarray(self.offset, dt)

    _config_keys = ("scale", "offset")
