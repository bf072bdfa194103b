"""The on-disk checkpoint format: ``P.npz`` + ``P.index.json``, the ``checkpoint`` state file,
and readers that refuse corrupt or hostile files (see ``checkpoint.py`` for the object graph).

A checkpoint at prefix ``P`` is two files: ``P.npz`` (the arrays, NumPy's format, read without
unpickling) and ``P.index.json`` (object-graph path -> array key, shape, dtype, checksum). Both
are written with ``core.files.atomic_write`` (temporary file, fsync, rename, fsync of the
folder); the index is written last, so a checkpoint is visible only once complete. The ``.npz``
also carries its own copy of the index (member ``__index__``) and loading trusts that copy: a
save killed between replacing ``P.npz`` and ``P.index.json`` of an earlier save at the same
prefix still loads (the new values), never a mix. A directory's ``checkpoint`` file (JSON)
names its latest checkpoint; names that lead outside the directory are refused.
"""
from __future__ import annotations

import io
import json
import os
import re
import zipfile
import zlib

import numpy as np

from ..core import dtypes
from ..core.errors import DataLossError, NotFoundError, PermissionDeniedError
from ..core.files import atomic_write

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


def stored_value(v) -> np.ndarray:
    """A variable's value as a checkpoint stores it: ``numpy()``, but a quantized value keeps
    its structured NumPy type (which names its DataType; ``numpy()`` gives plain integers).

    Args:
        v: a variable.

    Returns:
        The array.
    """
    a = v.numpy()
    return np.asarray(a).view(v.dtype.np) if v.dtype.is_quantized else a


def _special(d: np.dtype):
    """The twinflow DType of a type NumPy's ``.npz`` cannot describe (bfloat16, float8, int4,
    quantized), else None."""
    t = dtypes._BY_NP.get(d)
    return t if t is not None and (t.is_quantized or t in dtypes.ML_DTYPES) else None


def _dtype_name(a: np.ndarray) -> str:
    t = _special(a.dtype)
    return a.dtype.name if t is None else t.name


def _storable(a: np.ndarray) -> np.ndarray:
    """``a``, or for a special type its bytes as unsigned ints of the same width."""
    return a if _special(a.dtype) is None else a.view(f"u{a.dtype.itemsize}")


def _restored(a: np.ndarray, name) -> np.ndarray:
    """The inverse of ``_storable``, given the dtype name the index records."""
    t = dtypes._BY_NAME.get(name) if isinstance(name, str) else None
    if t is None or not (t.is_quantized or t in dtypes.ML_DTYPES) or a.dtype.kind != "u" or \
            a.dtype.itemsize != t.np.itemsize:
        return a
    return a.view(t.np)


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
    payload = {keys[p]: _storable(np.asarray(a)) for p, a in arrays.items()}
    index = {
        "format": _FORMAT, "version": _VERSION, "data": os.path.basename(prefix) + ".npz",
        "variables": {p: {"key": keys[p], "shape": list(np.shape(a)),
                          "dtype": _dtype_name(np.asarray(a)), "crc32": _crc(a)}
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
        arr = _restored(z[meta["key"]], meta["dtype"])
        if list(arr.shape) != list(meta["shape"]) or _dtype_name(arr) != meta["dtype"]:
            raise DataLossError(
                f"Checkpoint {prefix!r} is corrupt: {path!r} has shape "
                f"{list(arr.shape)} dtype {arr.dtype.name} in {data_path} but the index "
                f"says shape {meta['shape']} dtype {meta['dtype']}")
        if "crc32" in meta and _crc(arr) != meta["crc32"]:
            raise DataLossError(f"Checkpoint {prefix!r} is corrupt: the value of "
                                f"{path!r} in {data_path} fails its checksum")
        out[path] = arr
    return out


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
        state = parse_json(data, f"Checkpoint state file {path}") \
            if data.lstrip()[:1] in (b"{", b"") else _parse_tf_state(data, path)
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


# ``name: "string"`` or ``name: number`` (the timestamps CheckpointManager writes)
_TF_STATE_LINE = re.compile(r'\s*(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|[-+0-9.eE]+)\s*')


def _parse_tf_state(data: bytes, path: str) -> dict:
    """TensorFlow's state file (a ``CheckpointState`` text proto) as twinflow's dict."""
    state: dict = {"all_model_checkpoint_paths": []}
    try:
        lines = data.decode().splitlines()
    except UnicodeDecodeError:
        raise DataLossError(f"Checkpoint state file {path} is corrupt: not text") from None
    for line in filter(str.strip, lines):
        m = _TF_STATE_LINE.fullmatch(line)
        if m is None:
            raise DataLossError(f"Checkpoint state file {path} is corrupt: {line[:80]!r}")
        value = (m.group(2) or "").encode().decode("unicode_escape")
        if m.group(1) == "model_checkpoint_path":
            state["model_checkpoint_path"] = value
        elif m.group(1) == "all_model_checkpoint_paths":
            state["all_model_checkpoint_paths"].append(value)
    return state


def _write_state(directory: str, latest: str, all_paths: list, extra: dict | None = None) -> None:
    # extra: CheckpointManager's timestamps (TensorFlow's CheckpointState fields)
    state = {"model_checkpoint_path": latest, "all_model_checkpoint_paths": all_paths,
             **(extra or {})}
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
        latest_filename: the state file's name: only TensorFlow's default
            ``'checkpoint'`` (or None); another raises NotImplementedError.

    Returns:
        The checkpoint prefix, or None when there is none.

    Raises:
        PermissionDeniedError: the state file names a checkpoint outside the directory.
        DataLossError: the state file is corrupt.
    """
    if latest_filename not in (None, _STATE_FILE):
        raise NotImplementedError(f"latest_checkpoint(latest_filename={latest_filename!r}): "
                                  f"twinflow's state file is always {_STATE_FILE!r}")
    directory = os.fspath(checkpoint_dir)
    state = _read_state(directory)
    if not state or not state.get("model_checkpoint_path"):
        return None
    path = _inside(directory, state["model_checkpoint_path"])
    # twinflow's format (P.index.json) or TensorFlow's tensor bundle (P.index)
    return path if os.path.exists(path + ".index.json") or os.path.exists(path + ".index") \
        else None


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
