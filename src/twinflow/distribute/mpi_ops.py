"""Ops whose kernels run MPI collectives, so a ``tw.function`` (a Keras train step) can
all-reduce its gradients across the workers: ``MpiAllReduce`` (N tensors in one fused call)
and ``MpiAllGather``.

An op names its communicator by an integer ``group_key`` (``register_group``): graphs hold
Python values as attrs, not communicators. Both ops are stateful (never folded, merged or
dropped by the compiler passes): each worker must run the same collectives in the same order.
Their gradients are collectives too, so every worker runs them in its backward pass: the
gradient of a sum all-reduce is the sum all-reduce of the upstream gradients (each worker's
input reaches every worker's output), of a gather the sum all-reduce of the upstream gradient,
sliced back to this worker's rows.
"""
from __future__ import annotations

import itertools
import threading

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.registry import register_op
from ..ops import array_ops
from ..ops.core import ZerosLike, convert
from .mpi import Communicator, world

__all__ = ["all_gather", "all_reduce", "register_group"]

_groups: dict = {}
_groups_lock = threading.Lock()
_keys = itertools.count(1)


def register_group(comm: Communicator) -> int:
    """The key under which graph ops find ``comm`` (the same communicator keeps its key).

    Args:
        comm: a Communicator.

    Returns:
        An integer ``group_key``.
    """
    with _groups_lock:
        for key, known in _groups.items():
            if known is comm:
                return key
        key = next(_keys)
        _groups[key] = comm
        return key


def _group(key: int) -> Communicator:
    with _groups_lock:
        comm = _groups.get(key)
    if comm is None:
        raise InvalidArgumentError(None, None, f"no MPI communicator has group_key {key} in "
                                   "this process (was the graph built by another process?)")
    return comm


def _timeout(timeout: float) -> float | None:
    return None if timeout <= 0 else timeout  # 0 in the attr: the communicator's default


def _check_reduction(reduction: str, dtype_names: list) -> None:
    if reduction not in ("sum", "mean", "min", "max"):
        raise InvalidArgumentError(None, None, f"MpiAllReduce: reduction must be sum, mean, "
                                   f"min or max, got {reduction!r}")
    for name in dtype_names:
        if name == "bool" and reduction in ("sum", "mean") or name == "string":
            raise InvalidArgumentError(None, None, f"MpiAllReduce cannot {reduction} {name} "
                                       "tensors")


def _check_gather_rank(rank: int | None) -> None:
    if rank == 0:
        raise InvalidArgumentError(None, None, "MpiAllGather needs a tensor of rank >= 1, got "
                                   "a scalar")


@register_op("MpiAllReduce", stateful=True, multi_output=True)
class MpiAllReduce:
    """Reduces each input elementwise over the workers of a communicator (sum, mean, min,
    max); every worker gets the results. Inputs of one dtype travel as one buffer."""

    def infer(*xs, reduction, group_key, timeout, bytes_per_pack):
        _check_reduction(reduction, [x.dtype.name for x in xs])
        return [(x.dtype, x.shape) for x in xs]

    def kernel(*xs, reduction, group_key, timeout, bytes_per_pack):
        # the kernel checks what infer checks: eagerly, infer does not run
        _check_reduction(reduction, [np.dtype(x.dtype).name if x.dtype != object else "string"
                                     for x in xs])
        return tuple(_group(group_key).all_reduce(list(xs), reduction, _timeout(timeout),
                                                  bytes_per_pack))

    def grad(op, *dys):
        if op.attrs["reduction"] not in ("sum", "mean"):
            # min/max: each output comes from one worker's input; TensorFlow has no gradient
            return [None] * len(op.inputs)
        dys = [dy if dy is not None else bind(ZerosLike, [o]) for dy, o in zip(dys,
                                                                                 op.outputs)]
        return bind(MpiAllReduce, dys, dict(op.attrs))


@register_op("MpiAllGather", stateful=True)
class MpiAllGather:
    """Concatenates the workers' inputs along axis 0, in rank order (the workers' axis-0
    sizes may differ)."""

    def infer(x, *, group_key, timeout):
        _check_gather_rank(x.shape.rank)
        if x.shape.rank is None:
            return x.dtype, TensorShape(None)
        return x.dtype, TensorShape([None] + x.shape.as_list()[1:])

    def kernel(x, *, group_key, timeout):
        _check_gather_rank(np.ndim(x))
        return _group(group_key).all_gather(x, _timeout(timeout))

    def grad(op, dy):
        return bind(MpiAllGatherGrad, [dy, op.inputs[0]], dict(op.attrs))


@register_op("MpiAllGatherGrad", stateful=True)
class MpiAllGatherGrad:
    """The gradient of ``MpiAllGather``: the upstream gradients summed over the workers, this
    worker's rows (``x`` gives their count)."""

    def infer(dy, x, *, group_key, timeout):
        return dy.dtype, x.shape

    def kernel(dy, x, *, group_key, timeout):
        comm = _group(group_key)
        sizes = comm.all_gather(np.array([x.shape[0]], np.int64), _timeout(timeout))
        total = comm.all_reduce([dy], "sum", _timeout(timeout))[0]
        start = int(sizes[:comm.rank].sum())
        return np.ascontiguousarray(total[start:start + x.shape[0]])


def all_reduce(tensors, reduction: str = "sum", communicator: Communicator | None = None,
               timeout: float | None = None, bytes_per_pack: int = 0, name=None) -> list:
    """All-reduces tensors across the MPI workers, eagerly or inside a ``tw.function``.

    Args:
        tensors: a list of tensors (each worker passes the same shapes and dtypes).
        reduction: ``'sum'``, ``'mean'``, ``'min'`` or ``'max'``.
        communicator: the Communicator (default: ``mpi.world()``).
        timeout: seconds to wait for the other workers (default: the communicator's).
        bytes_per_pack: 0 for one buffer per dtype, else the size of a pack.
        name: op name.

    Returns:
        A list of tensors, one per input.
    """
    comm = _world_if_none(communicator)
    xs = [convert(t) for t in tensors]
    if not xs:
        return []
    attrs = {"reduction": reduction, "group_key": register_group(comm),
             "timeout": float(timeout or 0.0), "bytes_per_pack": int(bytes_per_pack)}
    return list(bind(MpiAllReduce, xs, attrs, name=name))


def all_gather(tensor, axis: int = 0, communicator: Communicator | None = None,
               timeout: float | None = None, name=None):
    """Concatenates the workers' tensors along ``axis`` (rank order), on every worker.

    Args:
        tensor: this worker's tensor.
        axis: the axis to concatenate along (the other axes must agree).
        communicator: the Communicator (default: ``mpi.world()``).
        timeout: seconds to wait.
        name: op name.

    Returns:
        The concatenation.
    """
    comm = _world_if_none(communicator)
    x = convert(tensor)
    attrs = {"group_key": register_group(comm), "timeout": float(timeout or 0.0)}
    if axis == 0:
        return bind(MpiAllGather, [x], attrs, name=name)
    rank = x.shape.rank
    if rank is None:
        raise InvalidArgumentError(None, None, "all_gather along an axis other than 0 needs "
                                   "a tensor of known rank")
    axis = axis + rank if axis < 0 else axis
    perm = [axis] + [i for i in range(rank) if i != axis]
    inverse = [perm.index(i) for i in range(rank)]
    moved = bind(MpiAllGather, [array_ops.transpose(x, perm)], attrs, name=name)
    return array_ops.transpose(moved, inverse)


def _world_if_none(communicator: Communicator | None) -> Communicator:
    return world() if communicator is None else communicator
