"""Checkpoints in TensorFlow's format (the tensor bundle, ``saved_model/bundle.py``):
``tw.train.list_variables``, ``load_variable``, ``load_checkpoint``, and what
``tw.train.Checkpoint`` writes with ``format="tensorflow"`` and reads from TensorFlow.

A variable at object-graph path ``model/w`` is stored under TensorFlow's key
``model/w/.ATTRIBUTES/VARIABLE_VALUE``; the object graph itself (``TrackableObjectGraph``) is
the string tensor ``_CHECKPOINTABLE_OBJECT_GRAPH``, which TensorFlow's ``Checkpoint.read``
matches objects with.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import numpy as np

from ..core import dtypes
from ..core.errors import NotFoundError
from ..ops.variables import Variable
from ..saved_model.bundle import BundleReader, is_bundle, write_bundle
from ..saved_model.protos import saved_model_message
from .checkpoint_files import latest_checkpoint, read_arrays, stored_value

__all__ = ["CheckpointReader", "list_variables", "load_variable", "load_checkpoint",
           "checkpoints_iterator",
           "write_tf_checkpoint", "read_tf_values", "VALUE_SUFFIX", "OBJECT_GRAPH_KEY"]

VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _graph_class():
    return saved_model_message("TrackableObjectGraph")


def object_graph(root) -> tuple:
    """TensorFlow's ``TrackableObjectGraph`` of ``root`` (breadth first, as TensorFlow walks
    it) and the variables it names.

    Args:
        root: a trackable object (a Checkpoint).

    Returns:
        (the message, {checkpoint key: Variable}).
    """
    proto = _graph_class()()
    ids = {id(root): 0}
    queue = [(root, "")]
    proto.nodes.add()
    keys: dict = {}
    while queue:
        obj, path = queue.pop(0)
        node = proto.nodes[ids[id(obj)]]
        if isinstance(obj, Variable):
            key = path + VALUE_SUFFIX
            node.attributes.add(name="VARIABLE_VALUE", full_name=str(obj.name).split(":")[0],
                                checkpoint_key=key)
            keys[key] = obj
            continue
        for name, child in obj._trackable_children().items():
            if id(child) not in ids:
                ids[id(child)] = len(proto.nodes)
                proto.nodes.add()
                queue.append((child, f"{path}/{name}" if path else name))
            node.children.add(node_id=ids[id(child)], local_name=name)
    return proto, keys


def write_tf_checkpoint(root, prefix: str) -> str:
    """Writes the variables of ``root``'s object graph in TensorFlow's format.

    Args:
        root: a trackable object (a Checkpoint).
        prefix: the checkpoint prefix.

    Returns:
        The prefix.
    """
    proto, keys = object_graph(root)
    tensors = {k: stored_value(v) for k, v in keys.items()}
    tensors[OBJECT_GRAPH_KEY] = np.array(proto.SerializeToString(), dtype=object)
    return write_bundle(prefix, tensors)


def read_tf_values(prefix: str) -> dict:
    """The variable values of a checkpoint in TensorFlow's format, by object-graph path.

    Args:
        prefix: the checkpoint prefix.

    Returns:
        path (``model/w``) -> array; keys that are not variable values (the object graph)
        are left out.
    """
    r = BundleReader(prefix)
    tensors = {k: r.get_tensor(k) for k in r.entries}  # every tensor checked before any use
    return {k[:-len(VALUE_SUFFIX)]: v for k, v in tensors.items() if k.endswith(VALUE_SUFFIX)}


def _prefix(ckpt_dir_or_file: str) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise NotFoundError(None, None, f"Couldn't find 'checkpoint' file or checkpoints "
                                            f"in given directory {path}")
        return latest
    return path


class CheckpointReader:
    """Reads a checkpoint's tensors by name: TensorFlow's format (names are TensorFlow's keys)
    or twinflow's own (names are object-graph paths).

    Args:
        prefix: the checkpoint prefix.
    """

    def __init__(self, prefix: str) -> None:
        self.prefix = os.fspath(prefix)
        if is_bundle(self.prefix):
            self._bundle = BundleReader(self.prefix)
            self._arrays = None
        else:
            self._bundle = None
            self._arrays = read_arrays(self.prefix)

    def _names(self) -> list:
        return sorted(self._bundle.entries if self._bundle else self._arrays)

    def has_tensor(self, name: str) -> bool:
        """Whether the checkpoint holds ``name``.

        Args:
            name: a tensor name.

        Returns:
            True if present.
        """
        return name in self._names()

    def get_tensor(self, name: str) -> np.ndarray:
        """The value of tensor ``name``.

        Args:
            name: a tensor name.

        Returns:
            A NumPy array (a bytes object for a scalar string).
        """
        if self._bundle is not None:
            value = self._bundle.get_tensor(name)
            return value[()] if value.dtype == object and value.ndim == 0 else value
        if name not in self._arrays:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return np.array(self._arrays[name])

    def get_variable_to_shape_map(self) -> dict:
        """Tensor name -> shape (a list of ints).

        Returns:
            The map.
        """
        if self._bundle is not None:
            return {k: self._bundle.shape_and_dtype(k)[0] for k in self._names()}
        return {k: list(np.shape(v)) for k, v in self._arrays.items()}

    def get_variable_to_dtype_map(self) -> dict:
        """Tensor name -> DType.

        Returns:
            The map.
        """
        if self._bundle is not None:
            return {k: self._bundle.shape_and_dtype(k)[1] for k in self._names()}
        return {k: dtypes.from_numpy(np.asarray(v).dtype) for k, v in self._arrays.items()}


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A reader of the checkpoint at ``ckpt_dir_or_file`` (a directory: its latest).

    Args:
        ckpt_dir_or_file: a checkpoint prefix, or a directory with a ``checkpoint`` file.

    Returns:
        A CheckpointReader.

    Raises:
        NotFoundError: there is no checkpoint there.
        DataLossError: the checkpoint is corrupt or truncated.
    """
    return CheckpointReader(_prefix(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: str) -> list:
    """The (name, shape) of every tensor in a checkpoint, sorted by name.

    Args:
        ckpt_dir_or_file: a checkpoint prefix, or a directory (its latest checkpoint).

    Returns:
        A list of (name, list of ints).
    """
    return sorted(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The value of one tensor of a checkpoint.

    Args:
        ckpt_dir_or_file: a checkpoint prefix, or a directory (its latest checkpoint).
        name: the tensor's name (``:0`` suffixes are ignored, as TensorFlow does).

    Returns:
        A NumPy array.
    """
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def checkpoints_iterator(checkpoint_dir: str, min_interval_secs: float = 0,
                         timeout: float | None = None,
                         timeout_fn: Callable[[], bool] | None = None) -> Iterator[str]:
    """Yields each new latest checkpoint of ``checkpoint_dir`` as it appears (polling).

    Args:
        checkpoint_dir: the directory whose ``checkpoint`` state file is watched.
        min_interval_secs: the least time between two yields.
        timeout: the most seconds to wait for a new checkpoint (None: forever).
        timeout_fn: called when ``timeout`` passes; the iterator ends if it returns True
            (without it, the iterator ends at the first timeout).

    Returns:
        An iterator of checkpoint prefixes.
    """
    last = None
    while True:
        start = time.monotonic()
        while True:
            path = latest_checkpoint(checkpoint_dir)
            if path is not None and path != last:
                break
            if timeout is not None and time.monotonic() - start >= timeout:
                path = None
                break
            time.sleep(min(1.0, timeout or 1.0))
        if path is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        last = path
        yielded = time.monotonic()
        yield path
        time.sleep(max(0.0, min_interval_secs - (time.monotonic() - yielded)))
