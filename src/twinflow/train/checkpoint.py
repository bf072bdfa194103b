"""Object-based checkpoints: ``tw.train.Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``.

A checkpoint at prefix ``P`` is two files: ``P.npz`` (the arrays, NumPy's format, read with
``allow_pickle=False``) and ``P.index.json`` (object-graph path -> array key, shape, dtype,
checksum). Both are written with ``core.files.atomic_write`` (temporary file, fsync, rename,
fsync of the folder); the index is written last, so a checkpoint is visible only once complete.
The ``.npz`` also carries its own copy of the index (member ``__index__``) and loading trusts
that copy: a save killed between replacing ``P.npz`` and ``P.index.json`` of an earlier save at
the same prefix still loads (the new values), never a mix. A directory's ``checkpoint`` file
(JSON) names its latest checkpoint; names that lead outside the directory are refused.

Variables are matched by their path in the object graph (``model/layer-0/kernel``): the chain
of attribute names from the Checkpoint's keyword arguments down to the variable. A path whose
object does not exist yet is kept on the deepest object that does (``_deferred_restores``) and
restored when the variable is created (a Keras layer built later, an optimizer slot).
"""
from __future__ import annotations

import io
import json
import os
import re
import zipfile
import zlib

import numpy as np

from ..core.errors import DataLossError, NotFoundError, PermissionDeniedError
from ..core.files import atomic_write
from ..ops.variables import Variable
from .module import walk_children

__all__ = ["atomic_write"]  # re-exported: the one atomic writer lives in core/files.py

_FORMAT = "twinflow-checkpoint"
_VERSION = 1
_STATE_FILE = "checkpoint"
_EMBEDDED_INDEX = "__index__"
# Nested JSON deeper than this is refused before Python's parser recurses that deep.
MAX_JSON_DEPTH = 200
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


# ---------------------------------------------------------------------------------------------
# Files

def _crc(a) -> int:
    return zlib.crc32(np.ascontiguousarray(a).tobytes())


def _strip_prefix(path: str) -> str:
    for suffix in (".index.json", ".npz", ".index"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def parse_json(data: bytes, what: str) -> object:
    """Parses JSON read from a file, refusing what would exhaust the parser.

    Args:
        data: the file's bytes.
        what: the file, for error messages.

    Returns:
        The parsed value.

    Raises:
        DataLossError: not UTF-8 JSON, or nested deeper than ``MAX_JSON_DEPTH``.
    """
    try:
        text = data.decode()
        depth = level = 0
        # Bracket depth outside strings, measured before json.loads recurses that deep.
        for b in _BRACKETS.findall(_STRINGS.sub("", text)):
            level += 1 if b in "[{" else -1
            depth = max(depth, level)
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"nested {depth} levels deep (more than {MAX_JSON_DEPTH})")
        return json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise DataLossError(f"{what} is corrupt: {e}") from None


def load_npz(source, what: str, keys=None) -> dict:
    """Reads the arrays of an ``.npz`` (path or bytes) without unpickling or huge allocations.

    Each member's header is checked against the member's stored size first, so a header
    declaring more elements than the file holds is refused instead of allocated.

    Args:
        source: a file path or the file's bytes.
        what: the file, for error messages.
        keys: the members to read (default: all).

    Returns:
        Member name (without ``.npy``) -> array.

    Raises:
        DataLossError: the file is not a valid ``.npz`` or a member is inconsistent.
    """
    fmt = np.lib.format
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as z:
            out = {}
            for info in z.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                if keys is not None and name not in keys:
                    continue
                with z.open(info) as f:
                    version = fmt.read_magic(f)
                    header = fmt.read_array_header_1_0(f) if version == (1, 0) else \
                        fmt.read_array_header_2_0(f)
                    shape, _, dtype = header
                    if dtype.hasobject:
                        raise ValueError(f"member {name!r} holds Python objects")
                    count = 1
                    for d in shape:
                        count *= int(d)
                    if count * dtype.itemsize > info.file_size:
                        raise ValueError(
                            f"member {name!r} declares shape {list(shape)} ({count} elements "
                            f"of {dtype}) but stores only {info.file_size} bytes")
                    data = f.read(count * dtype.itemsize)
                    if len(data) != count * dtype.itemsize:
                        raise ValueError(f"member {name!r} is truncated")
                    arr = np.frombuffer(data, dtype=dtype).copy()
                    order = "F" if header[1] else "C"
                    out[name] = arr.reshape(shape, order=order)
            return out
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, zlib.error, KeyError,
            TypeError, SyntaxError, MemoryError, OverflowError, NotImplementedError) as e:
        raise DataLossError(f"{what} is corrupt: {e}") from None


def write_arrays(prefix: str, arrays: dict, extra: dict | None = None) -> str:
    """Writes a checkpoint of ``arrays`` (path -> ndarray) at ``prefix``.

    Args:
        prefix: the checkpoint prefix (files ``prefix.npz`` and ``prefix.index.json``).
        arrays: object-graph path -> NumPy array.
        extra: JSON-serializable metadata stored in the index.

    Returns:
        The prefix.
    """
    prefix = _strip_prefix(os.fspath(prefix))
    keys = {path: f"v{i}" for i, path in enumerate(arrays)}
    payload = {keys[p]: np.asarray(a) for p, a in arrays.items()}
    index = {
        "format": _FORMAT, "version": _VERSION, "data": os.path.basename(prefix) + ".npz",
        "variables": {p: {"key": keys[p], "shape": list(np.shape(a)),
                          "dtype": np.asarray(a).dtype.name, "crc32": _crc(a)}
                      for p, a in arrays.items()},
        "metadata": extra or {},
    }
    text = json.dumps(index, indent=1, sort_keys=False).encode()
    payload[_EMBEDDED_INDEX] = np.frombuffer(text, np.uint8)
    buf = io.BytesIO()  # one write of the whole file: fewer points a save can stop at
    np.savez(buf, **payload)
    atomic_write(prefix + ".npz", buf.getbuffer())
    atomic_write(prefix + ".index.json", text)
    return prefix


def _check_index(index, what: str) -> dict:
    """The ``variables`` table of a parsed index, after checking its structure."""
    if not isinstance(index, dict) or index.get("format") != _FORMAT:
        raise DataLossError(f"{what} is not a twinflow checkpoint index")
    entries = index.get("variables")
    if not isinstance(entries, dict):
        raise DataLossError(f"{what} is corrupt: 'variables' is not a table")
    for path, meta in entries.items():
        ok = isinstance(meta, dict) and isinstance(meta.get("key"), str) and \
            isinstance(meta.get("dtype"), str) and isinstance(meta.get("shape"), list) and \
            all(type(d) is int and d >= 0 for d in meta["shape"])
        if not ok:
            raise DataLossError(f"{what} is corrupt: the entry of {path!r} is malformed "
                                f"({str(meta)[:80]})")
    return entries


def read_arrays(prefix: str) -> dict:
    """Reads every array of the checkpoint at ``prefix``, checking it against its index.

    Args:
        prefix: the checkpoint prefix.

    Returns:
        Object-graph path -> NumPy array.

    Raises:
        NotFoundError: no checkpoint at ``prefix``.
        DataLossError: the files are corrupt or disagree with each other.
    """
    prefix = _strip_prefix(os.fspath(prefix))
    index_path = prefix + ".index.json"
    if not os.path.exists(index_path):
        raise NotFoundError(f"Unsuccessful checkpoint restore: no checkpoint at {prefix!r} "
                            f"({index_path} does not exist)")
    with open(index_path, "rb") as f:
        index = parse_json(f.read(), f"Checkpoint index {index_path}")
    entries = _check_index(index, f"Checkpoint index {index_path}")
    # The index names its data file; basename keeps a tampered index from reading elsewhere.
    data = index.get("data")
    data_path = os.path.join(os.path.dirname(prefix), os.path.basename(data)) \
        if isinstance(data, str) and data else prefix + ".npz"
    try:
        z = load_npz(data_path, f"Checkpoint data {data_path}")
    except FileNotFoundError as e:
        raise DataLossError(f"Checkpoint {prefix!r} is incomplete: {data_path} is "
                            "missing") from e
    if _EMBEDDED_INDEX in z:
        # The data file's own index wins: it is what was written together with the arrays.
        entries = _check_index(parse_json(z.pop(_EMBEDDED_INDEX).tobytes(),
                                          f"Checkpoint data {data_path}"),
                               f"The index inside {data_path}")
    out = {}
    for path, meta in entries.items():
        if meta["key"] not in z:
            raise DataLossError(f"Checkpoint {prefix!r} is corrupt: the value of "
                                f"{path!r} is missing from {data_path}")
        arr = z[meta["key"]]
        if list(arr.shape) != list(meta["shape"]) or arr.dtype.name != meta["dtype"]:
            raise DataLossError(
                f"Checkpoint {prefix!r} is corrupt: {path!r} has shape "
                f"{list(arr.shape)} dtype {arr.dtype.name} in {data_path} but the index "
                f"says shape {meta['shape']} dtype {meta['dtype']}")
        if "crc32" in meta and _crc(arr) != meta["crc32"]:
            raise DataLossError(f"Checkpoint {prefix!r} is corrupt: the value of "
                                f"{path!r} in {data_path} fails its checksum")
        out[path] = arr
    return out


# ---------------------------------------------------------------------------------------------
# Object graph

def collect_variables(root) -> dict:
    """Path -> Variable for every variable reachable from ``root`` (first path wins)."""
    out: dict = {}
    seen: set = set()

    def visit(obj, prefix: str) -> None:
        for key, child in obj._trackable_children().items():
            path = f"{prefix}{key}"
            if isinstance(child, Variable):
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
        elif rest == "":
            status.unused.add(path)  # the checkpoint has a value where we hold an object
        else:
            later.append((target, rest, value, path))
    for var, value, path in now:
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

    def write(self, file_prefix: str, options=None) -> str:
        """Writes a checkpoint at exactly ``file_prefix`` (no numbering, no state file).

        Args:
            file_prefix: the checkpoint prefix.
            options: ignored (TensorFlow's CheckpointOptions).

        Returns:
            The prefix written.
        """
        arrays = {p: v.numpy() for p, v in collect_variables(self).items()}
        return write_arrays(os.fspath(file_prefix), arrays)

    def save(self, file_prefix: str, options=None) -> str:
        """Writes ``file_prefix-N`` (N = the save counter after incrementing it).

        Also records it as the latest checkpoint of its directory.

        Args:
            file_prefix: the prefix; ``-N`` is appended.
            options: ignored.

        Returns:
            The checkpoint path (``file_prefix-N``).
        """
        counter = self.save_counter
        counter.assign_add(1)
        path = f"{os.fspath(file_prefix)}-{int(counter.numpy())}"
        self.write(path)
        update_checkpoint_state(os.path.dirname(path) or ".", path)
        return path

    def read(self, save_path: str, options=None) -> LoadStatus:
        """Restores from ``save_path`` (see ``restore``).

        Args:
            save_path: a checkpoint prefix.
            options: unused (TensorFlow signature).

        Returns:
            The LoadStatus of the restore.
        """
        return self.restore(save_path)

    def restore(self, save_path: str | None, options=None) -> LoadStatus:
        """Restores every variable in the object graph from ``save_path``.

        Values of variables that do not exist yet are restored when they are created.

        Args:
            save_path: a checkpoint prefix (e.g. from ``latest_checkpoint``); None restores
                nothing.
            options: ignored.

        Returns:
            A load status with ``assert_consumed()`` and friends.

        Raises:
            NotFoundError, DataLossError: the checkpoint is missing or corrupt.
            ValueError: a value's shape or dtype does not fit its variable (nothing restored).
        """
        if save_path is None:
            return LoadStatus(self, {})
        values = read_arrays(save_path)
        if "save_counter" in values:
            self.save_counter  # noqa: B018  (creates it so it is restored too)
        return restore_into(self, values)


def _state_path(directory: str) -> str:
    return os.path.join(directory, _STATE_FILE)


def _inside(directory: str, name: str) -> str:
    """The path of checkpoint ``name`` listed in ``directory``'s state file.

    Raises:
        PermissionDeniedError: the name leads outside ``directory``.
    """
    base = os.path.realpath(directory)
    path = os.path.realpath(os.path.join(directory, name))
    if path == base or os.path.commonpath([base, path]) != base:
        raise PermissionDeniedError(
            f"The checkpoint state file {_state_path(directory)} names {name!r}, which is "
            f"outside {directory!r}; twinflow only reads (and deletes) checkpoints inside the "
            "folder of their state file. Fix or delete that file.")
    return os.path.join(directory, os.path.relpath(path, base))


def _read_state(directory: str, strict: bool = True) -> dict | None:
    """The parsed state file of ``directory`` (None when there is none).

    Args:
        directory: the checkpoint directory.
        strict: raise on a corrupt file (False: treat it as absent, for saves that rewrite
            it).
    """
    path = _state_path(directory)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    try:
        state = parse_json(data, f"Checkpoint state file {path}")
        names = state.get("all_model_checkpoint_paths", []) if isinstance(state, dict) else 0
        latest = state.get("model_checkpoint_path") if isinstance(state, dict) else 0
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or \
                not (latest is None or isinstance(latest, str)):
            raise DataLossError(f"Checkpoint state file {path} is corrupt: expected "
                                "{'model_checkpoint_path': str, "
                                "'all_model_checkpoint_paths': [str, ...]}")
    except DataLossError:
        if strict:
            raise
        return None
    return state


def _write_state(directory: str, latest: str, all_paths: list) -> None:
    state = {"model_checkpoint_path": latest, "all_model_checkpoint_paths": all_paths}
    atomic_write(_state_path(directory), json.dumps(state, indent=1).encode())


def update_checkpoint_state(directory: str, path: str) -> None:
    """Makes ``path`` the latest checkpoint named by ``directory``'s state file.

    Args:
        directory: the directory holding the ``checkpoint`` state file.
        path: the checkpoint prefix just written.
    """
    state = _read_state(directory, strict=False) or {}
    name = os.path.relpath(path, directory)
    paths = [p for p in state.get("all_model_checkpoint_paths", [])
             if p != name and _is_inside(directory, p)] + [name]
    _write_state(directory, name, paths)


def _is_inside(directory: str, name: str) -> bool:
    try:
        _inside(directory, name)
    except PermissionDeniedError:
        return False
    return True


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint in ``checkpoint_dir``, or None.

    Args:
        checkpoint_dir: a directory written by ``Checkpoint.save`` or ``CheckpointManager``.
        latest_filename: ignored (TensorFlow's state file name).

    Returns:
        The checkpoint prefix, or None when there is none.

    Raises:
        PermissionDeniedError: the state file names a checkpoint outside the directory.
        DataLossError: the state file is corrupt.
    """
    directory = os.fspath(checkpoint_dir)
    state = _read_state(directory)
    if not state or not state.get("model_checkpoint_path"):
        return None
    path = _inside(directory, state["model_checkpoint_path"])
    return path if os.path.exists(path + ".index.json") else None


def _delete_checkpoint(prefix: str) -> None:
    """Deletes the two files of a checkpoint twinflow wrote (index first: it disappears
    atomically); anything else of that name is left alone."""
    index_path = prefix + ".index.json"
    try:
        with open(index_path, "rb") as f:
            index = parse_json(f.read(), index_path)
    except (OSError, DataLossError):
        return
    if not isinstance(index, dict) or index.get("format") != _FORMAT:
        return
    os.remove(index_path)
    if index.get("data") in (None, os.path.basename(prefix) + ".npz") and \
            os.path.exists(prefix + ".npz"):
        os.remove(prefix + ".npz")


class CheckpointManager:
    """Numbers checkpoints in a directory and keeps the newest ``max_to_keep``.

    Args:
        checkpoint: the Checkpoint to save.
        directory: where checkpoints go.
        max_to_keep: how many to keep, a positive integer (None keeps all).
        checkpoint_name: the prefix of the files.
        keep_checkpoint_every_n_hours: ignored.
        step_counter: ignored.
        checkpoint_interval: ignored.
        init_fn: ignored.
    """

    def __init__(self, checkpoint: Checkpoint, directory: str, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours=None, checkpoint_name: str = "ckpt",
                 step_counter=None, checkpoint_interval=None, init_fn=None) -> None:
        if max_to_keep is not None and (type(max_to_keep) is bool or
                                        not isinstance(max_to_keep, int) or max_to_keep < 1):
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep!r}.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = _read_state(self._directory) or {}
        if state.get("model_checkpoint_path"):
            _inside(self._directory, state["model_checkpoint_path"])
        paths = [_inside(self._directory, p)
                 for p in state.get("all_model_checkpoint_paths", [])]
        self._checkpoints = [p for p in paths if os.path.exists(p + ".index.json")]

    @property
    def directory(self) -> str:
        """The checkpoint directory."""
        return self._directory

    @property
    def checkpoints(self) -> list:
        """The kept checkpoints, oldest first."""
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint, or None."""
        return self._checkpoints[-1] if self._checkpoints else None

    def save(self, checkpoint_number: int | None = None, check_interval: bool = True,
             options=None) -> str:
        """Writes a new numbered checkpoint and deletes the oldest beyond ``max_to_keep``.

        Args:
            checkpoint_number: the number to use (default: the save counter).
            check_interval: ignored.
            options: ignored.

        Returns:
            The new checkpoint's prefix.
        """
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = f"{self._prefix}-{number}"
        # Order matters for a save that is killed: the new checkpoint is complete on disk
        # before the state file names it, and old ones go only once it does.
        self._checkpoint.write(path)
        kept = [p for p in self._checkpoints if p != path] + [path]
        drop = []
        if self._max_to_keep is not None and len(kept) > self._max_to_keep:
            drop, kept = kept[:-self._max_to_keep], kept[-self._max_to_keep:]
        _write_state(self._directory, os.path.relpath(path, self._directory),
                     [os.path.relpath(p, self._directory) for p in kept])
        self._checkpoints = kept
        for old in drop:
            _delete_checkpoint(old)
        return path

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint if there is one.

        Returns:
            The restored path, or None.
        """
        if self.latest_checkpoint:
            self._checkpoint.restore(self.latest_checkpoint)
            return self.latest_checkpoint
        return None
