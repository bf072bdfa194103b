"""Auto-sharding: one worker's part of a pipeline of *global* batches, as
``tw.data.experimental.AutoShardPolicy`` (set through ``Options().experimental_distribute``)
decides, for strategies whose replicas live in several processes.

* ``FILE``: the files the pipeline reads (a reader dataset's ``filenames``, or the names of
  ``Dataset.list_files``) are dealt out to the workers (``files[index::num_workers]``; fewer files
  than workers is an error), and the pipeline's last ``batch`` makes batches of
  ``global / num_workers``, so a step's global batch is the workers' batches together.
* ``DATA``: every worker reads the whole pipeline and keeps its slice of each global batch (the
  slices differ by at most one element, the first workers taking the extra ones), so the
  workers' slices of one step are exactly the global batch one process would see.
* ``AUTO`` (the default): ``FILE`` if the pipeline reads files, else ``DATA``.
* ``HINT``: ``shard(SHARD_HINT, SHARD_HINT)`` placeholders become ``shard(num_workers, index)``.
* ``OFF``: every worker reads everything; its batches are ``global / num_workers`` long.

Nodes are rewritten by copying the chain of single-input nodes above the one that changes;
the user's dataset is left as it was.
"""
from __future__ import annotations

import copy

import numpy as np

from ..core import errors
from .dataset import Dataset
from .experimental import SHARD_HINT, AutoShardPolicy
from .readers import _FileDataset
from .structure import leaves, pack
from .transforms import Batch, Shard, Unary

__all__ = ["auto_shard", "worker_slice"]


def auto_shard(dataset: Dataset, num_workers: int, index: int) -> Dataset:
    """Worker ``index``'s part of ``dataset`` (whose elements are global batches).

    Args:
        dataset: the pipeline.
        num_workers: how many workers share it.
        index: this worker.

    Returns:
        The sharded pipeline (``dataset`` itself for one worker).
    """
    if not 0 <= index < num_workers:
        raise ValueError(f"auto_shard: worker index {index} is not in [0, {num_workers})")
    raw = dataset.options().experimental_distribute.auto_shard_policy
    policy = AutoShardPolicy.AUTO if raw is None else AutoShardPolicy(raw)
    if num_workers == 1:
        return dataset
    if policy is AutoShardPolicy.OFF:
        return _rebatch(dataset, num_workers, "OFF")
    if policy is AutoShardPolicy.HINT:
        return _rewrite(dataset, lambda n, below: _hint(n, below, num_workers, index)) or dataset
    if policy in (AutoShardPolicy.FILE, AutoShardPolicy.AUTO):
        sharded = _rewrite(dataset, lambda n, below: _by_file(n, below, num_workers, index))
        if sharded is not None:
            return _rebatch(sharded, num_workers, "FILE")
        if policy is AutoShardPolicy.FILE:
            raise errors.NotFoundError(
                None, None, "AutoShardPolicy.FILE: found no files to shard in the dataset (no "
                "reader dataset such as TFRecordDataset, nor Dataset.list_files); use "
                "AutoShardPolicy.DATA or OFF")
    return worker_slice(dataset, num_workers, index)


def worker_slice(dataset: Dataset, num_workers: int, index: int) -> Dataset:
    """Each element (a batch) cut along axis 0 into ``num_workers`` slices, keeping slice
    ``index`` (sizes differ by at most one; the first slices take the extra elements).

    Args:
        dataset: a dataset of batches.
        num_workers: how many slices.
        index: which one.

    Returns:
        The dataset of slices.
    """
    return _WorkerSlice(dataset, num_workers, index)


class _WorkerSlice(Unary):
    def __init__(self, input_dataset: Dataset, num: int, index: int) -> None:
        super().__init__(input_dataset)
        self._num, self._index = num, index

    def _gen(self):
        for element in self._input._gen():
            flat = [np.asarray(x) for x in leaves(element)]
            n = flat[0].shape[0] if flat and flat[0].ndim else 0
            base, extra = divmod(n, self._num)
            lo = self._index * base + min(self._index, extra)
            hi = lo + base + (1 if self._index < extra else 0)
            yield pack(element, [x[lo:hi] for x in flat])


def _chain(dataset: Dataset) -> list:
    """The dataset and the nodes below it through single inputs, top first."""
    out = [dataset]
    while isinstance(getattr(out[-1], "_input", None), Dataset):
        out.append(out[-1]._input)
    return out


def _rewrite(dataset: Dataset, change) -> Dataset | None:
    """``dataset`` rebuilt bottom-up: ``change(node, below)`` returns a replacement for
    ``node`` built on ``below`` (its input, already rebuilt) or None; the nodes above a
    replacement are copied onto their new input. None if nothing changed."""
    rebuilt = None  # the rebuilt node under the current one; None while nothing changed
    for node in reversed(_chain(dataset)):
        below = rebuilt if rebuilt is not None else getattr(node, "_input", None)
        replaced = change(node, below)
        if replaced is not None:
            rebuilt = replaced
        elif rebuilt is not None:
            rebuilt = copy.copy(node)
            rebuilt._input = below
    return rebuilt


def _by_file(node: Dataset, below, num: int, index: int) -> Dataset | None:
    if isinstance(node, _FileDataset):
        files = node._files
        if len(files) < num:
            raise errors.InvalidArgumentError(
                None, None, f"AutoShardPolicy.FILE: {len(files)} file(s) for {num} workers; "
                "each worker needs at least one file (use AutoShardPolicy.DATA)")
        out = copy.copy(node)
        out._files = files[index::num]
        return out
    if getattr(node, "_tw_file_names", False):  # the names Dataset.list_files matched
        if node._cardinality() < num:
            raise errors.InvalidArgumentError(
                None, None, f"AutoShardPolicy.FILE: {node._cardinality()} file(s) for {num} "
                "workers; each worker needs at least one file (use AutoShardPolicy.DATA)")
        return Shard(node, num, index)
    return None


def _hint(node: Dataset, below, num: int, index: int) -> Dataset | None:
    if isinstance(node, Shard) and node._num == SHARD_HINT:
        return Shard(below, num, index)
    return None


def _rebatch(dataset: Dataset, num: int, policy: str) -> Dataset:
    """The pipeline with its last ``batch`` making ``size / num`` elements per batch."""
    batch = next((n for n in _chain(dataset) if isinstance(n, Batch)), None)
    if batch is None:
        raise errors.InvalidArgumentError(
            None, None, f"AutoShardPolicy.{policy}: the dataset has no batch() to split into "
            "per-worker batches; batch it with the global batch size")
    if batch._size % num:
        raise errors.InvalidArgumentError(
            None, None, f"AutoShardPolicy.{policy}: the global batch size {batch._size} is not "
            f"divisible by the {num} workers (AutoShardPolicy.DATA splits any batch)")

    def change(node, below):
        if node is not batch:
            return None
        out = copy.copy(node)
        out._input, out._size = below, node._size // num
        return out
    return _rewrite(dataset, change)
