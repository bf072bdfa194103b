"""Object-based checkpoints: ``tw.train.Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``.

The files (``P.npz`` + ``P.index.json``, the ``checkpoint`` state file) and their safe,
atomic reading and writing are in ``checkpoint_files.py``.

Variables are matched by their path in the object graph (``model/layer-0/kernel``): the chain
of attribute names from the Checkpoint's keyword arguments down to the variable. A path whose
object does not exist yet is kept on the deepest object that does (``_deferred_restores``) and
restored when the variable is created (a Keras layer built later, an optimizer slot).
"""
from __future__ import annotations

import os
import time

import numpy as np

from ..core.errors import UnimplementedError
from ..core.files import atomic_write
from ..core.props import readonly
from ..ops.variables import Variable
from ..saved_model.bundle import is_bundle
from .checkpoint_files import (
    _delete_checkpoint,
    _inside,
    _read_state,
    _write_state,
    latest_checkpoint,
    load_npz,
    parse_json,
    read_arrays,
    stored_value,
    update_checkpoint_state,
    write_arrays,
)
from .module import walk_children
from .state import PythonState, check_options, run_write_callbacks
from .tf_checkpoint import read_tf_values, write_tf_checkpoint

# Re-exported: the one atomic writer (core/files.py) and the file format's readers/writers.
__all__ = ["atomic_write", "latest_checkpoint", "load_npz", "parse_json", "read_arrays",
           "update_checkpoint_state", "write_arrays"]


# ---------------------------------------------------------------------------------------------
# Object graph

def collect_variables(root) -> dict:
    """Path -> Variable for every variable reachable from ``root`` (first path wins)."""
    out: dict = {}
    seen: set = set()

    def visit(obj, prefix: str) -> None:
        for key, child in obj._trackable_children().items():
            path = f"{prefix}{key}"
            if isinstance(child, (Variable, PythonState)):
                if id(child) not in seen:
                    seen.add(id(child))
                    out[path] = child
            elif id(child) not in seen:
                seen.add(id(child))
                visit(child, path + "/")
    visit(root, "")
    return out


def _resolve(obj, path: str):
    """Follows ``path`` from ``obj``: (variable, None) or (deepest object, remaining path)."""
    while True:
        children = obj._trackable_children()
        child = children.get(path)
        if child is not None:
            if isinstance(child, Variable):
                return child, None
            return child, ""
        best = None
        for key in children:
            if path.startswith(key + "/") and (best is None or len(key) > len(best)):
                best = key
        if best is None or isinstance(children[best], Variable):
            return obj, path
        obj, path = children[best], path[len(best) + 1:]


def _check_compatible(var: Variable, value: np.ndarray, path: str) -> None:
    shape = tuple(var.shape.as_list()) if var.shape.rank is not None else None
    if shape is not None and tuple(value.shape) != shape:
        raise ValueError(
            f"Received incompatible tensor with shape {list(value.shape)} when attempting to "
            f"restore variable {path!r} ({var.name}) with shape {list(shape)}; nothing was "
            "restored")
    if value.dtype != var.dtype.np and not np.can_cast(value.dtype, var.dtype.np,
                                                       casting="same_kind"):
        raise ValueError(
            f"Cannot restore variable {path!r} ({var.name}) of dtype {var.dtype.name} from a "
            f"checkpoint value of dtype {value.dtype.name}; nothing was restored")


def _assign(var: Variable, value: np.ndarray) -> None:
    # Restoring is not an op of any graph being built: set the storage directly.
    var._set(np.array(value, dtype=var.dtype.np))


def restore_into(root, values: dict, status: LoadStatus | None = None) -> LoadStatus:
    """Assigns ``values`` (path -> array) to the variables of ``root``'s object graph.

    Every value whose variable exists is checked first and only then assigned, so a mismatch
    leaves the objects untouched. Paths whose objects do not exist yet are deferred.

    Args:
        root: a trackable object.
        values: path -> array.
        status: the status object to fill (a new one by default).

    Returns:
        A LoadStatus.
    """
    status = status or LoadStatus(root, values)
    now, later = [], []
    for path, value in values.items():
        target, rest = _resolve(root, path)
        if rest is None:
            _check_compatible(target, value, path)
            now.append((target, value, path))
        elif rest == "" and isinstance(target, PythonState):
            now.append((target, value, path))
        elif rest == "":
            status.unused.add(path)  # the checkpoint has a value where we hold an object
        else:
            later.append((target, rest, value, path))
    for var, value, path in now:
        if isinstance(var, PythonState):
            var.deserialize(np.asarray(value).item().decode())
        else:
            _assign(var, value)
        status.matched.add(path)
    for obj, rest, value, path in later:
        pending = obj.__dict__.setdefault("_deferred_restores", {})
        pending[rest] = (value, path, status)
        status.deferred.add(path)
    return status


def apply_deferred(obj) -> None:
    """Restores the deferred values of ``obj`` whose variables exist now.

    Called by objects that create variables late (a layer's build, an optimizer's slots).

    Args:
        obj: a trackable object.
    """
    pending = obj.__dict__.get("_deferred_restores")
    if not pending:
        return
    resolved = []
    for rest, (value, path, status) in list(pending.items()):
        target, remaining = _resolve(obj, rest)
        if remaining is None:
            _check_compatible(target, value, path)
            resolved.append((rest, target, value, path, status))
        elif remaining and target is not obj:
            del pending[rest]
            target.__dict__.setdefault("_deferred_restores", {})[remaining] = (value, path,
                                                                              status)
            apply_deferred(target)
    for rest, var, value, path, status in resolved:
        _assign(var, value)
        del pending[rest]
        status.deferred.discard(path)
        status.matched.add(path)


class LoadStatus:
    """What a restore matched (``CheckpointLoadStatus``): assertions over the match.

    Args:
        root: the object graph's root that was restored.
        values: the checkpoint's values, by key.
    """

    def __init__(self, root, values: dict) -> None:
        self._root = root
        self._values = values
        self.matched: set = set()
        self.deferred: set = set()
        self.unused: set = set()

    def assert_consumed(self) -> LoadStatus:
        """Raises unless every checkpoint value was restored and every variable got a value.

        Returns:
            self.
        """
        self.assert_existing_objects_matched()
        if self.deferred:
            raise AssertionError(f"Unresolved object in checkpoint: values for "
                                 f"{sorted(self.deferred)} were never restored (their "
                                 "variables have not been created)")
        return self

    def assert_existing_objects_matched(self) -> LoadStatus:
        """Raises if a variable that exists now got no value from the checkpoint.

        Returns:
            self.
        """
        missing = [p for p in collect_variables(self._root) if p not in self.matched
                   and not p.startswith("save_counter")]
        if missing:
            raise AssertionError(f"Some objects had attributes which were not restored: "
                                 f"{missing}")
        if self.unused:
            raise AssertionError(f"Checkpoint values did not match an object: "
                                 f"{sorted(self.unused)}")
        return self

    def assert_nontrivial_match(self) -> LoadStatus:
        """Raises unless at least one variable was restored.

        Returns:
            self.
        """
        if not self.matched - {"save_counter"}:
            raise AssertionError("Nothing except the root object matched a checkpointed value")
        return self

    def expect_partial(self) -> LoadStatus:
        """Silences warnings about an incomplete restore (twinflow does not warn).

        Returns:
            self.
        """
        return self

    def run_restore_ops(self, session=None) -> None:
        """Restores happen immediately in twinflow; kept for TensorFlow compatibility.

        Args:
            session: unused (TF1 sessions).
        """

    def initialize_or_restore(self, session=None) -> None:
        """Restores happen immediately in twinflow; kept for TensorFlow compatibility.

        Args:
            session: unused (TF1 sessions).
        """


# ---------------------------------------------------------------------------------------------
# Public API

class Checkpoint:
    """Saves and restores the variables of a graph of objects (``tw.train.Checkpoint``).

    Args:
        root: an optional root object whose children are checkpointed at the top level.
        **kwargs: named trackable objects (models, optimizers, variables, other checkpoints).
    """

    def __init__(self, root=None, **kwargs) -> None:
        for name, value in kwargs.items():
            if value is None:
                raise ValueError(f"Checkpoint was passed None for {name!r}")
            if not (isinstance(value, Variable) or hasattr(value, "_trackable_children")
                    or isinstance(value, (list, tuple, dict))):
                raise ValueError(f"Checkpoint was expecting a trackable object (a Variable, "
                                 f"Module, Layer, Model or Optimizer) for {name!r}, got "
                                 f"{value!r}")
        self._root = root
        self._kwargs = dict(kwargs)
        self._save_counter: Variable | None = None

    def __getattr__(self, name: str):
        kwargs = self.__dict__.get("_kwargs", {})
        if name in kwargs:
            return kwargs[name]
        raise AttributeError(name)

    def _trackable_children(self) -> dict:
        out: dict = {}
        if self._root is not None:
            out.update(self._root._trackable_children())
        for name, value in self._kwargs.items():
            walk_children(name, value, out)
        if self._save_counter is not None:
            out["save_counter"] = self._save_counter
        return out

    @property
    def save_counter(self) -> Variable:
        """How many times ``save`` has run (an int64 variable, checkpointed too)."""
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), trainable=False, name="save_counter")
        return self._save_counter

    def write(self, file_prefix: str, options=None, *, format: str = "twinflow") -> str:
        """Writes a checkpoint at exactly ``file_prefix`` (no numbering, no state file).

        Args:
            file_prefix: the checkpoint prefix.
            options: a ``tw.train.CheckpointOptions`` (unsupported options raise), or None.
            format: ``"twinflow"`` (``P.npz`` + ``P.index.json``) or ``"tensorflow"``
                (TensorFlow's tensor bundle ``P.index`` + ``P.data-00000-of-00001``, with the
                object graph TensorFlow's ``Checkpoint.read`` matches).

        Returns:
            The prefix written.
        """
        options = check_options(options)
        found = collect_variables(self)
        if format == "tensorflow":
            if any(isinstance(v, PythonState) for v in found.values()):
                raise UnimplementedError(None, None, "PythonState objects are saved in "
                                         "twinflow's checkpoint format only")
            path = write_tf_checkpoint(self, os.fspath(file_prefix))
        elif format != "twinflow":
            raise ValueError(f"format must be 'twinflow' or 'tensorflow', got {format!r}")
        else:
            arrays = {p: np.array(v.serialize().encode()) if isinstance(v, PythonState)
                      else stored_value(v) for p, v in found.items()}
            path = write_arrays(os.fspath(file_prefix), arrays)
        run_write_callbacks(options, path)
        return path

    def save(self, file_prefix: str, options=None, *, format: str = "twinflow") -> str:
        """Writes ``file_prefix-N`` (N = the save counter after incrementing it).

        Also records it as the latest checkpoint of its directory.

        Args:
            file_prefix: the prefix; ``-N`` is appended.
            options: a ``tw.train.CheckpointOptions``, or None.
            format: ``"twinflow"`` or ``"tensorflow"`` (see ``write``).

        Returns:
            The checkpoint path (``file_prefix-N``).
        """
        counter = self.save_counter
        counter.assign_add(1)
        path = f"{os.fspath(file_prefix)}-{int(counter.numpy())}"
        self.write(path, options, format=format)
        update_checkpoint_state(os.path.dirname(path) or ".", path)
        return path

    def read(self, save_path: str, options=None) -> LoadStatus:
        """Restores from ``save_path`` (see ``restore``).

        Args:
            save_path: a checkpoint prefix.
            options: a ``tw.train.CheckpointOptions``, or None.

        Returns:
            The LoadStatus of the restore.
        """
        return self.restore(save_path, options)

    def restore(self, save_path: str | None, options=None) -> LoadStatus:
        """Restores every variable in the object graph from ``save_path``.

        Values of variables that do not exist yet are restored when they are created.

        Args:
            save_path: a checkpoint prefix (e.g. from ``latest_checkpoint``); None restores
                nothing.
            options: a ``tw.train.CheckpointOptions``, or None.

        Returns:
            A load status with ``assert_consumed()`` and friends.

        Raises:
            NotFoundError, DataLossError: the checkpoint is missing or corrupt.
            ValueError: a value's shape or dtype does not fit its variable (nothing restored).
        """
        check_options(options)
        if save_path is None:
            return LoadStatus(self, {})
        save_path = os.fspath(save_path)
        if is_bundle(save_path) and not os.path.exists(save_path + ".index.json"):
            values = read_tf_values(save_path)  # written by TensorFlow (or format="tensorflow")
        else:
            values = read_arrays(save_path)
        if "save_counter" in values:
            self.save_counter  # noqa: B018  (creates it so it is restored too)
        return restore_into(self, values)


class CheckpointManager:
    """Numbers checkpoints in a directory and keeps the newest ``max_to_keep``.

    Args:
        checkpoint: the Checkpoint to save.
        directory: where checkpoints go.
        max_to_keep: how many to keep, a positive integer (None keeps all).
        keep_checkpoint_every_n_hours: a checkpoint leaving the kept set is not deleted when
            it is at least this many hours newer than the last one so preserved (it is no
            longer listed in ``checkpoints``); the times are kept in the state file.
        checkpoint_name: the prefix of the files.
        step_counter: a variable (or tensor) holding the training step; needed with
            ``checkpoint_interval``.
        checkpoint_interval: ``save`` writes only when ``step_counter`` advanced this many
            steps since the last saved step (else returns None).
        init_fn: called by ``restore_or_initialize`` when there is no checkpoint.
        last_checkpoint_step: the step of the last checkpoint (with ``checkpoint_interval``).
    """

    def __init__(self, checkpoint: Checkpoint, directory: str, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours=None, checkpoint_name: str = "ckpt",
                 step_counter=None, checkpoint_interval=None, init_fn=None,
                 last_checkpoint_step=None) -> None:
        if max_to_keep is not None and (type(max_to_keep) is bool or
                                        not isinstance(max_to_keep, int) or max_to_keep < 1):
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep!r}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._every_n_hours = keep_checkpoint_every_n_hours
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._last_step = last_checkpoint_step
        self._init_fn = init_fn
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = _read_state(self._directory) or {}
        if state.get("model_checkpoint_path"):
            _inside(self._directory, state["model_checkpoint_path"])
        paths = [_inside(self._directory, p)
                 for p in state.get("all_model_checkpoint_paths", [])]
        now = time.time()
        # As TensorFlow: the clock starts a second back; a time from the future is now.
        self._preserved_at = min(_number(state.get("last_preserved_timestamp"), now - 1.0), now)
        stamps = state.get("all_model_checkpoint_timestamps")
        if not (isinstance(stamps, list) and len(stamps) == len(paths)):
            stamps = [self._preserved_at] * len(paths)
        self._stamps = {p: min(_number(t, self._preserved_at), now)
                        for p, t in zip(paths, stamps) if os.path.exists(p + ".index.json")}

    directory = readonly("_directory", "The checkpoint directory.")
    checkpoint_interval = readonly("_interval", "The steps between saves (None: every save).")

    @property
    def checkpoints(self) -> list:
        """The kept checkpoints, oldest first."""
        return list(self._stamps)

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint, or None."""
        return next(reversed(self._stamps), None)

    def _step(self) -> int:
        value = self._step_counter
        return int(value.numpy() if hasattr(value, "numpy") else value)

    def save(self, checkpoint_number: int | None = None, check_interval: bool = True,
             options=None) -> str | None:
        """Writes a new numbered checkpoint and deletes the oldest beyond ``max_to_keep``.

        Args:
            checkpoint_number: the number to use (default: the save counter).
            check_interval: with ``checkpoint_interval``: False saves even before the interval
                has passed (never twice at one step).
            options: a ``tw.train.CheckpointOptions``, or None.

        Returns:
            The new checkpoint's prefix, or None when ``checkpoint_interval`` skipped it.
        """
        if self._interval is not None:
            step = self._step()
            if self._last_step is not None and (step == self._last_step or (
                    check_interval and step < self._last_step + self._interval)):
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = f"{self._prefix}-{number}"
        # Order matters for a save that is killed: the new checkpoint is complete on disk
        # before the state file names it, and old ones go only once it does.
        self._checkpoint.write(path, options)
        self._stamps.pop(path, None)
        self._stamps[path] = time.time()
        drop = []
        while self._max_to_keep is not None and len(self._stamps) > self._max_to_keep:
            old = next(iter(self._stamps))
            stamp = self._stamps.pop(old)
            if self._every_n_hours and \
                    stamp - self._every_n_hours * 3600.0 >= self._preserved_at:
                self._preserved_at = stamp  # kept on disk, no longer managed
            else:
                drop.append(old)
        self._record()
        for old in drop:
            _delete_checkpoint(old)
        return path

    def _record(self) -> None:
        rel = [os.path.relpath(p, self._directory) for p in self._stamps]
        _write_state(self._directory, rel[-1], rel, {
            "all_model_checkpoint_timestamps": list(self._stamps.values()),
            "last_preserved_timestamp": self._preserved_at})

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint if there is one, else calls ``init_fn``.

        Returns:
            The restored path, or None.
        """
        latest = self.latest_checkpoint
        if latest:
            self._checkpoint.restore(latest)
            if self._interval is not None:
                self._last_step = self._step()
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None


def _number(value, default: float) -> float:
    """A timestamp read from the state file (``default`` when it is not a number)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else default
