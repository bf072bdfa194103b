"""Space-to-batch and partition/stitch ops: ``tw.space_to_batch_nd``/``batch_to_space``
(spatial blocks moved into the batch and back, for dilated convolutions),
``tw.required_space_to_batch_paddings``, ``tw.dynamic_partition``, ``tw.dynamic_stitch``.

Block shapes, paddings and crops must be known when the op is built (TensorFlow also accepts
tensors computed at run time; twinflow raises a clear error for those).
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant, constant_value
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..core import convert
from . import shape as shape_ops
from .create import range as _range
from .create import zeros_like
from .gather import gather

__all__ = ["space_to_batch_nd", "space_to_batch", "batch_to_space", "batch_to_space_nd",
           "required_space_to_batch_paddings", "dynamic_partition", "dynamic_stitch"]


def _static_ints(value, what: str, op: str) -> np.ndarray:
    if isinstance(value, Tensor):
        got = constant_value(value)
        if got is None:
            raise InvalidArgumentError(None, None, f"{op}: {what} must be known when the op is "
                                                   "built (twinflow does not take it at run time)")
        value = got
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{op}: {what} must be integers, got {arr.dtype}")
    return arr.astype(np.int64)


def _check_blocks(x_shape: TensorShape, block: tuple, pads: tuple, op: str, what: str) -> int:
    m = len(block)
    if m < 1:
        raise InvalidArgumentError(None, None, f"{op}: block_shape must have at least one "
                                               "element")
    if any(b < 1 for b in block):
        raise InvalidArgumentError(None, None, f"{op}: block_shape must be positive, got "
                                               f"{list(block)}")
    if len(pads) != m or any(len(p) != 2 for p in pads):
        raise InvalidArgumentError(None, None, f"{op}: {what} must have shape [{m}, 2], got "
                                               f"{[list(p) for p in pads]}")
    if any(v < 0 for p in pads for v in p):
        raise InvalidArgumentError(None, None, f"{op}: {what} must be non-negative, got "
                                               f"{[list(p) for p in pads]}")
    if x_shape.rank is not None and x_shape.rank < m + 1:
        raise InvalidArgumentError(None, None, f"{op}: input rank should be >= {m + 1} "
                                               f"instead of {x_shape.rank}")
    return m


def _blocks_infer(op: str, what: str, batch, spatial):
    """The ``infer`` of SpaceToBatchND/BatchToSpaceND (``what``: their paddings/crops input):
    ``batch(size, n)`` maps the batch size, ``spatial(i, size, block, pair)`` the size of
    spatial dimension ``i`` (when known); n is the product of the block sizes."""
    def infer(input, block_shape, **pairs_attr):
        pairs = pairs_attr[what]
        m = _check_blocks(input.shape, block_shape, pairs, op, what)
        if input.shape.rank is None:
            return input.dtype, TensorShape(None)
        dims = input.shape.as_list()
        n = int(np.prod(block_shape))
        out = [None if dims[0] is None else batch(dims[0], n)]
        out += [None if d is None else spatial(i, d, block_shape[i], pairs[i])
                for i, d in enumerate(dims[1:m + 1])]
        return input.dtype, TensorShape(out + dims[m + 1:])
    return infer


def _padded_blocks(i: int, d: int, block: int, pair) -> int:
    d += pair[0] + pair[1]
    if d % block:
        raise InvalidArgumentError(
            None, None, f"SpaceToBatchND: padded spatial dimension {i} ({d}) must "
            f"be divisible by block_shape[{i}] ({block})")
    return d // block


def _batch_blocks(b: int, n: int) -> int:
    if b % n:
        raise InvalidArgumentError(None, None, f"BatchToSpaceND: input batch dimension ({b}) is "
                                               f"not divisible by the product of block sizes "
                                               f"({n})")
    return b // n


def _cropped_blocks(i: int, d: int, block: int, pair) -> int:
    d = d * block - pair[0] - pair[1]
    if d < 0:
        raise InvalidArgumentError(None, None, f"BatchToSpaceND: crops {pair} are larger "
                                               f"than dimension {i + 1}")
    return d


@register_op("SpaceToBatchND", check_shapes=True,
             schema="input:T -> output:T | T:type; block_shape:list(int); paddings:any")
class SpaceToBatchND:
    """Zero-pads the spatial dims, then moves each block offset into the batch."""

    infer = _blocks_infer("SpaceToBatchND", "paddings", lambda b, n: b * n, _padded_blocks)

    def kernel(input, block_shape, paddings):
        m = len(block_shape)
        x = np.pad(input, [(0, 0)] + [tuple(p) for p in paddings] +
                   [(0, 0)] * (input.ndim - m - 1))
        b = x.shape[0]
        split = [b]
        for i in range(m):
            split += [x.shape[i + 1] // block_shape[i], block_shape[i]]
        x = x.reshape(split + list(x.shape[m + 1:]))
        perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
        perm += list(range(1 + 2 * m, x.ndim))
        x = x.transpose(perm)
        return np.ascontiguousarray(x).reshape(
            [b * int(np.prod(block_shape))] + list(x.shape[m + 1:]))

    def grad(op, dy):
        return batch_to_space_nd(dy, op.attrs["block_shape"], op.attrs["paddings"])


@register_op("BatchToSpaceND", check_shapes=True,
             schema="input:T -> output:T | T:type; block_shape:list(int); crops:any")
class BatchToSpaceND:
    """Moves batch blocks back into the spatial dims, then crops them."""

    infer = _blocks_infer("BatchToSpaceND", "crops", _batch_blocks, _cropped_blocks)

    def kernel(input, block_shape, crops):
        m = len(block_shape)
        n = int(np.prod(block_shape))
        b = input.shape[0] // n
        x = input.reshape(list(block_shape) + [b] + list(input.shape[1:]))
        perm = [m]
        for i in range(m):
            perm += [m + 1 + i, i]
        perm += list(range(2 * m + 1, x.ndim))
        x = x.transpose(perm)
        shape = [b] + [input.shape[1 + i] * block_shape[i] for i in range(m)]
        x = np.ascontiguousarray(x).reshape(shape + list(input.shape[m + 1:]))
        idx = [slice(None)] + [slice(c[0], x.shape[1 + i] - c[1]) for i, c in enumerate(crops)]
        return np.ascontiguousarray(x[tuple(idx)])

    def grad(op, dy):
        return space_to_batch_nd(dy, op.attrs["block_shape"], op.attrs["crops"])


def _pairs(value, what: str, op: str) -> tuple:
    arr = _static_ints(value, what, op)
    if arr.ndim != 2 or arr.shape[1:] != (2,):
        raise InvalidArgumentError(None, None, f"{op}: {what} must have shape [M, 2], got "
                                               f"{list(arr.shape)}")
    return tuple(tuple(int(v) for v in row) for row in arr)


def _bind_blocks(opdef, what: str, input, block_shape, pairs, name) -> Tensor:
    """Binds SpaceToBatchND or BatchToSpaceND (``what``: "paddings" or "crops", ``pairs``)."""
    block = tuple(int(b) for b in _static_ints(block_shape, "block_shape", opdef.name).reshape(-1))
    return bind(opdef, [convert(input)],
                {"block_shape": block, what: _pairs(pairs, what, opdef.name)}, name=name)


def space_to_batch_nd(input: TensorLike, block_shape, paddings, name=None) -> Tensor:
    """Pads the spatial dims and moves each of their ``block_shape`` offsets into the batch.

    Args:
        input: a tensor ``[batch] + spatial (M dims) + remaining``.
        block_shape: M positive ints.
        paddings: ``[M, 2]`` non-negative ints (start, end) per spatial dim.
        name: the op name.

    Returns:
        ``[batch * prod(block_shape), padded_spatial / block_shape..., remaining...]``.
    """
    return _bind_blocks(SpaceToBatchND, "paddings", input, block_shape, paddings, name)


space_to_batch = space_to_batch_nd  # TensorFlow 2's name for the same function


def batch_to_space_nd(input: TensorLike, block_shape, crops, name=None) -> Tensor:
    """The inverse of ``space_to_batch_nd``: batch blocks back into space, then cropped.

    Args:
        input: a tensor ``[batch * prod(block_shape)] + spatial (M dims) + remaining``.
        block_shape: M positive ints.
        crops: ``[M, 2]`` non-negative ints cropped (start, end) per spatial dim.
        name: the op name.

    Returns:
        ``[batch, spatial * block_shape - crops..., remaining...]``.
    """
    return _bind_blocks(BatchToSpaceND, "crops", input, block_shape, crops, name)


batch_to_space = batch_to_space_nd  # TensorFlow 2's name for the same function


@name_scoped
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None) -> tuple:
    """The paddings (and crops to undo them) that make ``input_shape + base_paddings``
    divisible by ``block_shape``.

    Args:
        input_shape: M ints, the spatial shape.
        block_shape: M positive ints.
        base_paddings: ``[M, 2]`` ints padded at least (default zeros).
        name: the name scope.

    Returns:
        ``(paddings, crops)``: two int32 ``[M, 2]`` tensors.
    """
    what = "required_space_to_batch_paddings"
    shape = _static_ints(input_shape, "input_shape", what).reshape(-1)
    block = _static_ints(block_shape, "block_shape", what).reshape(-1)
    if shape.size != block.size:
        raise InvalidArgumentError(None, None, f"{what}: input_shape {list(shape)} and "
                                               f"block_shape {list(block)} differ in length")
    base = np.zeros((block.size, 2), np.int64) if base_paddings is None else \
        np.asarray(_pairs(base_paddings, "base_paddings", what), np.int64).reshape(-1, 2)
    full = shape + base[:, 0] + base[:, 1]
    extra = (block - full % block) % block
    paddings = np.stack([base[:, 0], base[:, 1] + extra], 1).astype(np.int32)
    crops = np.stack([np.zeros_like(extra), extra], 1).astype(np.int32)
    return constant(paddings), constant(crops)


@register_op("DynamicPartition", multi_output=True, check_shapes=True,
             schema="data:T, partitions:int32 -> outputs:any | T:type; num_partitions:int >=1")
class DynamicPartition:
    """Splits ``data`` into ``num_partitions`` tensors by the partition of each entry."""

    def infer(data, partitions, num_partitions):
        p, d = partitions.shape, data.shape
        if p.rank is not None and d.rank is not None:
            if p.rank > d.rank or not TensorShape(d.as_list()[:p.rank]).is_compatible_with(p):
                raise InvalidArgumentError(None, None, f"DynamicPartition: data.shape must "
                                                       f"start with partitions.shape, got "
                                                       f"data.shape = {d}, partitions.shape = "
                                                       f"{p}")
        rest = TensorShape(None) if p.rank is None or d.rank is None else \
            TensorShape([None] + d.as_list()[p.rank:])
        return [(data.dtype, rest)] * num_partitions

    def kernel(data, partitions, num_partitions):
        if partitions.size and (partitions.min() < 0 or partitions.max() >= num_partitions):
            bad = partitions[(partitions < 0) | (partitions >= num_partitions)][0]
            raise InvalidArgumentError(None, None, f"DynamicPartition: partitions has value "
                                                   f"{bad} outside [0, {num_partitions})")
        flat = data.reshape((partitions.size,) + data.shape[partitions.ndim:])
        p = partitions.reshape(-1)
        return tuple(np.ascontiguousarray(flat[p == i]) for i in range(num_partitions))

    def grad(op, *dys):
        data, partitions = op.inputs
        size = shape_ops.size(partitions)
        original = shape_ops.reshape(_range(size), shape_ops.shape(partitions))
        pieces = dynamic_partition(original, partitions, len(dys))
        dys = [zeros_like(o) if g is None else g for g, o in zip(dys, op.outputs)]
        stitched = dynamic_stitch(pieces, dys)
        return shape_ops.reshape(stitched, shape_ops.shape(data)), None


def dynamic_partition(data: TensorLike, partitions: TensorLike, num_partitions: int,
                      name=None) -> list:
    """Splits ``data`` by ``partitions``: output ``i`` holds the entries whose partition is i.

    Args:
        data: a tensor whose shape starts with ``partitions``' shape.
        partitions: int32 values in ``[0, num_partitions)``.
        num_partitions: the number of outputs.
        name: the op name.

    Returns:
        A list of ``num_partitions`` tensors.
    """
    if isinstance(num_partitions, bool) or not isinstance(num_partitions, (int, np.integer)):
        raise TypeError(f"num_partitions must be an int, got {num_partitions!r}")
    return list(bind(DynamicPartition, [convert(data), convert(partitions, dtypes.int32)],
                     {"num_partitions": int(num_partitions)}, name=name))


@register_op("DynamicStitch", check_shapes=True)
class DynamicStitch:
    """Interleaves ``data[m]`` into one tensor at rows ``indices[m]``."""

    def infer(*inputs, N):
        indices, data = inputs[:N], inputs[N:]
        dt = data[0].dtype
        for i, (ix, d) in enumerate(zip(indices, data)):
            if ix.dtype is not dtypes.int32:
                raise InvalidArgumentError(None, None, f"DynamicStitch: indices[{i}] must be "
                                                       f"int32, got {ix.dtype.name}")
            if d.dtype is not dt:
                raise InvalidArgumentError(None, None, f"DynamicStitch: data[{i}] is "
                                                       f"{d.dtype.name}, data[0] {dt.name}")
            if ix.shape.rank is not None and d.shape.rank is not None and not TensorShape(
                    d.shape.as_list()[:ix.shape.rank]).is_compatible_with(ix.shape):
                raise InvalidArgumentError(None, None, f"DynamicStitch: data[{i}].shape "
                                                       f"{d.shape} must start with "
                                                       f"indices[{i}].shape {ix.shape}")
        i0, d0 = indices[0].shape, data[0].shape
        rest = None if i0.rank is None or d0.rank is None else d0.as_list()[i0.rank:]
        return dt, TensorShape(None if rest is None else [None] + rest)

    def kernel(*inputs, N):
        indices, data = inputs[:N], inputs[N:]
        rest = data[0].shape[indices[0].ndim:]
        n = max((int(ix.max()) + 1 for ix in indices if ix.size), default=0)
        if any(ix.size and ix.min() < 0 for ix in indices):
            raise InvalidArgumentError(None, None, "DynamicStitch: indices must be "
                                                   "non-negative")
        out = np.zeros((n,) + rest, data[0].dtype)
        for ix, d in zip(indices, data):
            if d.shape[ix.ndim:] != rest:
                raise InvalidArgumentError(None, None, f"DynamicStitch: data shapes "
                                                       f"{d.shape} and {data[0].shape} differ "
                                                       "after the indices' dims")
            out[ix.reshape(-1)] = d.reshape((ix.size,) + rest)
        return out

    def grad(op, dy):
        n = op.attrs["N"]
        indices = op.inputs[:n]
        return [None] * n + [gather(dy, ix) for ix in indices]


def dynamic_stitch(indices, data, name=None) -> Tensor:
    """Interleaves tensors: ``merged[indices[m][i]] = data[m][i]`` (later ones win).

    Args:
        indices: a list of int32 tensors.
        data: a list of tensors, ``data[m].shape`` starting with ``indices[m].shape``.
        name: the op name.

    Returns:
        ``[max(indices) + 1] + data[0].shape[indices[0].rank:]``; rows no index names are 0.
    """
    indices, data = list(indices), list(data)
    if not indices or len(indices) != len(data):
        raise InvalidArgumentError(None, None, f"DynamicStitch: needs as many indices as data "
                                               f"(at least one), got {len(indices)} and "
                                               f"{len(data)}")
    ins = [convert(i, dtypes.int32) for i in indices] + [convert(d) for d in data]
    return bind(DynamicStitch, ins, {"N": len(indices)}, name=name)
