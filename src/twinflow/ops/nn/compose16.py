"""Compositions of existing ops: ``with_space_to_batch``, ``atrous_conv2d_transpose``,
``safe_embedding_lookup_sparse`` and ``tw.nn.experimental``'s ``general_dropout`` and
``stateless_dropout`` (TensorFlow builds these from other ops the same way)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import ShapeLike, Tensor, TensorLike
from ..array.batch_space import (
    batch_to_space_nd,
    required_space_to_batch_paddings,
    space_to_batch_nd,
)
from ..array.create import zeros_like
from ..array.join import concat
from ..array.layout import expand_dims
from ..array.shape import reshape, shape
from ..core import check_float, convert
from ..math.binary import multiply
from ..math.cast import cast
from ..math.comparison import greater, greater_equal, logical_and, where
from ..math.reduce import reduce_prod
from ..math.unary import reciprocal
from ..random.stateless import stateless_random_uniform
from ..sparse.math import embedding_lookup_sparse
from ..sparse.ops import fill_empty_rows, reshape_sparse, retain
from ..sparse.tensor import SparseTensor
from .conv import conv2d_transpose
from .normalization import static_rate


def _as_list(v, n: int, what: str) -> list:
    vals = np.asarray(v).reshape(-1).tolist()
    if len(vals) == 1 and n > 1:
        vals = vals * n
    if len(vals) != n:
        raise ValueError(f"{what} must have {n} entries, got {vals}")
    return [int(x) for x in vals]


def with_space_to_batch(input: TensorLike, dilation_rate, padding: str, op: Callable,
                        filter_shape=None, spatial_dims=None, data_format=None) -> Tensor:
    """Runs ``op`` on a dilated input turned into a batch of undilated ones:
    ``batch_to_space(op(space_to_batch(input, dilation_rate, paddings)), crops)``.

    Args:
        input: ``[batch, ..spatial.., channels]`` (or channels-first with ``data_format``).
        dilation_rate: one int per spatial dimension.
        padding: "VALID" or "SAME" (SAME needs ``filter_shape``).
        op: ``op(converted_input, num_spatial_dims, "VALID")``, the undilated operation.
        filter_shape: the filter's spatial shape (for SAME padding).
        spatial_dims: the spatial dimensions of ``input`` (ascending; default after batch).
        data_format: "N...C" (default) or "NC..." (sets the default ``spatial_dims``).

    Returns:
        ``op``'s result at the input's resolution.
    """
    x = convert(input)
    rate = [int(r) for r in np.asarray(dilation_rate).reshape(-1)]
    n = len(rate)
    if n == 0 or any(r < 1 for r in rate):
        raise ValueError(f"dilation_rate must be positive ints, got {rate}")
    if spatial_dims is None:
        first = 2 if data_format is not None and str(data_format).startswith("NC") else 1
        spatial_dims = list(range(first, first + n))
    spatial_dims = [int(d) for d in spatial_dims]
    if len(spatial_dims) != n or sorted(spatial_dims) != spatial_dims or spatial_dims[0] < 1:
        raise ValueError(f"spatial_dims must be {n} ascending dims >= 1, got {spatial_dims}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    if all(r == 1 for r in rate):
        return op(x, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        ks = _as_list(filter_shape, n, "filter_shape")[:n]
        total = [r * (k - 1) for r, k in zip(rate, ks)]
        base = [[t // 2, t - t // 2] for t in total]
    else:
        base = [[0, 0]] * n
    # block over dims 1..max(spatial_dims): the rate on spatial dims, 1 between them
    dims = list(range(1, spatial_dims[-1] + 1))
    block = [rate[spatial_dims.index(d)] if d in spatial_dims else 1 for d in dims]
    base_all = [base[spatial_dims.index(d)] if d in spatial_dims else [0, 0] for d in dims]
    in_shape = shape(x)
    sizes = concat([expand_dims(in_shape[d], 0) for d in dims], 0) if len(dims) > 1 \
        else expand_dims(in_shape[dims[0]], 0)
    paddings, crops = required_space_to_batch_paddings(sizes, block, base_all)
    y = op(space_to_batch_nd(x, block, paddings), n, "VALID")
    return batch_to_space_nd(y, block, crops)


@name_scoped
def atrous_conv2d_transpose(value: TensorLike, filters: TensorLike, output_shape: ShapeLike,
                            rate: int, padding: str, name: str | None = None) -> Tensor:
    """The transpose (gradient) of ``atrous_conv2d``: a stride-1 transposed convolution with
    dilation ``rate``.

    Args:
        value: ``[batch, height, width, in_channels]``.
        filters: ``[h, w, out_channels, in_channels]``.
        output_shape: the shape of the result ``[batch, H, W, out_channels]``.
        rate: the dilation (>= 1).
        padding: "SAME" or "VALID".
        name: op name.

    Returns:
        ``output_shape``.
    """
    if int(rate) < 1:
        raise ValueError(f"rate must be a positive integer, got {rate}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    return conv2d_transpose(value, filters, output_shape, strides=1, padding=padding,
                            dilations=int(rate))


@name_scoped
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids: SparseTensor,
                                 sparse_weights: SparseTensor | None = None,
                                 combiner: str = "mean", default_id=None, max_norm=None,
                                 name: str | None = None,
                                 allow_fast_lookup: bool = False) -> Tensor:
    """``embedding_lookup_sparse`` that tolerates invalid ids and empty rows: ids < 0 (and
    weights <= 0) are dropped, and rows left empty give ``embedding_weights[default_id]``
    (or zeros without ``default_id``).

    Args:
        embedding_weights: ``[vocab, ...]`` (or a list holding one such tensor).
        sparse_ids: int SparseTensor ``[d0, ..., dn]``.
        sparse_weights: float SparseTensor like ``sparse_ids``, or None (weight 1).
        combiner: "sum", "mean" or "sqrtn".
        default_id: the id used for empty rows, or None for zeros.
        max_norm: clip each embedding's L2 norm to this before combining.
        name: op name.
        allow_fast_lookup: accepted for compatibility (one lookup path here).

    Returns:
        ``[d0, ..., d(n-1)] + embedding_weights.shape[1:]``.
    """
    params = embedding_weights
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise ValueError("safe_embedding_lookup_sparse supports one embedding tensor, got "
                             f"{len(params)}")
        params = params[0]
    params = convert(params)
    ids = sparse_ids
    original_shape = ids.dense_shape
    rank = ids.indices.shape[1] if ids.indices.shape.rank == 2 else None
    if rank is None:
        raise ValueError("sparse_ids must have a known rank")
    if rank > 2:
        flat = concat([expand_dims(reduce_prod(original_shape[:-1]), 0),
                       original_shape[-1:]], 0)
        ids = reshape_sparse(ids, flat)
        if sparse_weights is not None:
            sparse_weights = reshape_sparse(sparse_weights, flat)
    keep = greater_equal(ids.values, cast(0, ids.values.dtype))
    if sparse_weights is not None:
        keep = logical_and(keep, greater(sparse_weights.values,
                                         cast(0, sparse_weights.values.dtype)))
        sparse_weights = retain(sparse_weights, keep)
    ids = retain(ids, keep)
    ids, empty = fill_empty_rows(ids, 0 if default_id is None else int(default_id))
    if sparse_weights is not None:
        sparse_weights, _ = fill_empty_rows(sparse_weights, 1.0)
    result = embedding_lookup_sparse(params, ids, sparse_weights, combiner=combiner,
                                     max_norm=max_norm)
    if default_id is None:
        mask = reshape(empty, concat([shape(empty), [1] * (result.shape.rank - 1)], 0))
        result = where(mask, zeros_like(result), result)
    out_shape = concat([cast(original_shape[:-1], dtypes.int32), shape(result)[1:]], 0)
    return reshape(result, out_shape)


def _dropout(x, rate, noise_shape, sample: Callable, what: str) -> Tensor:
    x = convert(x)
    check_float(what, x, allow_complex=False)
    if static_rate(rate) == 0:
        return x
    shp = shape(x) if noise_shape is None else noise_shape
    rate_t = cast(convert(rate), x.dtype)
    u = sample(shp, x.dtype)
    keep = cast(greater_equal(u, rate_t), x.dtype)
    return multiply(multiply(x, reciprocal(1 - rate_t)), keep)


@name_scoped
def general_dropout(x: TensorLike, rate, uniform_sampler: Callable, noise_shape=None,
                    name: str | None = None) -> Tensor:
    """Dropout with a caller-supplied uniform sampler: keeps ``x / (1 - rate)`` where
    ``uniform_sampler(shape=..., dtype=...) >= rate``, else 0.

    Args:
        x: a float tensor.
        rate: the drop probability in [0, 1).
        uniform_sampler: ``f(shape, dtype)`` returning uniform [0, 1) samples.
        noise_shape: the mask's shape (broadcast against ``x``).
        name: op name.

    Returns:
        A tensor like ``x``.
    """
    return _dropout(x, rate, noise_shape,
                    lambda s, dt: uniform_sampler(shape=s, dtype=dt), "general_dropout")


@name_scoped
def stateless_dropout(x: TensorLike, rate, seed, rng_alg=None, noise_shape=None,
                      name: str | None = None) -> Tensor:
    """Dropout whose mask is a pure function of ``seed`` (``stateless_random_uniform``).

    Args:
        x: a float tensor.
        rate: the drop probability in [0, 1).
        seed: shape ``[2]`` int seed.
        rng_alg: None or "auto_select" (twinflow's one stateless generator).
        noise_shape: the mask's shape (broadcast against ``x``).
        name: op name.

    Returns:
        A tensor like ``x``.
    """
    if rng_alg not in (None, "auto_select"):
        raise NotImplementedError(f"stateless_dropout: rng_alg={rng_alg!r} is not supported "
                                  "(twinflow's stateless ops have one generator; pass None)")
    return _dropout(x, rate, noise_shape,
                    lambda s, dt: stateless_random_uniform(s, seed, dtype=dt),
                    "stateless_dropout")
