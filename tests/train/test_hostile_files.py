"""Corrupted and hostile save files: each load raises a clear error naming the file and
changes nothing (no half-restored model). Table-driven over checkpoints, save_weights and
``.keras`` files."""
from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest

import twinflow as tw
from twinflow.core.errors import DataLossError, NotFoundError, PermissionDeniedError

K = tw.keras
CLEAR = (DataLossError, NotFoundError, PermissionDeniedError, ValueError, FileNotFoundError)


def _model():
    m = K.Sequential([K.layers.Dense(3, input_shape=(4,)), K.layers.Dense(2)])
    m.build((None, 4))
    return m


def _huge_npy(n: int = 2 ** 40) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f4", "fortran_order": False, "shape": (n,)})
    return buf.getvalue() + b"\0" * 16


def _rewrite_zip(path: str, change) -> None:
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members = change(members)
    with zipfile.ZipFile(path, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)


def _edit_json(path: str, change) -> None:
    with open(path) as f:
        data = json.load(f)
    with open(path, "w") as f:
        json.dump(change(data), f)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _truncate(path: str, frac: float) -> None:
    data = open(path, "rb").read()
    open(path, "wb").write(data[: int(len(data) * frac)])


def _flip(path: str, frac: float) -> None:
    data = bytearray(open(path, "rb").read())
    data[int(len(data) * frac)] ^= 0xFF
    open(path, "wb").write(bytes(data))


def _in_keras(member: str, change):
    def apply(path):
        def edit(members):
            members[member] = change(members[member])
            return members
        _rewrite_zip(path, edit)
    return apply


def _keras_config(change):
    return _in_keras("config.json", lambda b: json.dumps(change(json.loads(b))).encode())


def _units(cfg, value):
    cfg["config"]["layers"][-1]["config"]["units"] = value
    return cfg


def _huge_member(members):
    key = next(n for n in members if n != "__index__.npy")
    members[key] = _huge_npy()
    members.pop("__index__.npy", None)
    return members


def _edit_h5(data: bytes, edit) -> bytes:
    import h5py  # noqa: PLC0415  (an optional dependency, as in the code under test)
    buf = io.BytesIO(data)
    with h5py.File(buf, "a") as h5:
        edit(h5)
    return buf.getvalue()


def _keras_huge_h5(data: bytes) -> bytes:
    """A dataset declaring 2**40 elements (HDF5 allocates lazily: the file stays small)."""
    def edit(h5):
        del h5["layers/dense/vars/0"]
        h5["layers/dense/vars"].create_dataset("0", shape=(2 ** 20, 2 ** 20), dtype="f4")
    return _edit_h5(data, edit)


def _keras_h5_without_layer(data: bytes) -> bytes:
    def edit(h5):
        del h5["layers/dense_1"]
    return _edit_h5(data, edit)


# (name, what is corrupted: "ckpt" = save_weights prefix files, "keras" = a .keras file,
#  "state" = the folder's checkpoint state file; the corruption, applied to the path)
CKPT = [
    ("npz header declares 2**40 elements", "npz", lambda p: _rewrite_zip(p, _huge_member)),
    ("index is a list", "index", lambda p: open(p, "w").write("[]")),
    ("index variables is a list", "index",
     lambda p: _edit_json(p, lambda d: {**d, "variables": [1, 2]})),
    ("index entry is a list", "index",
     lambda p: _edit_json(p, lambda d: {**d, "variables": {k: [] for k in d["variables"]}})),
    ("index shape is text", "index", lambda p: _edit_json(p, lambda d: {**d, "variables": {
        k: {**v, "shape": "abc"} for k, v in d["variables"].items()}})),
    ("index nested 100000 deep", "index", lambda p: open(p, "w").write(_nested(100000))),
    ("index not UTF-8", "index", lambda p: open(p, "wb").write(b"\xff\xfe{")),
    ("data file missing", "npz", os.remove),
    ("embedded index is a list", "npz", lambda p: _rewrite_zip(p, lambda m: {
        **m, "__index__.npy": _npy(np.frombuffer(b"[1]", np.uint8))})),
    ("embedded index nested deep", "npz", lambda p: _rewrite_zip(p, lambda m: {
        **m, "__index__.npy": _npy(np.frombuffer(_nested(5000).encode(), np.uint8))})),
    ("npz member holds objects", "npz", lambda p: _rewrite_zip(p, lambda m: {
        **m, "__index__.npy": _npy(np.array([{}], dtype=object))})),
] + [(f"npz truncated at {f:.0%}", "npz", lambda p, f=f: _truncate(p, f))
     for f in (0.0, 0.1, 0.5, 0.9, 0.99)] + \
    [(f"npz bit flip at {f:.0%}", "npz", lambda p, f=f: _flip(p, f))
     for f in (0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99)] + \
    [(f"index truncated at {f:.0%}", "index", lambda p, f=f: _truncate(p, f))
     for f in (0.0, 0.5, 0.9)]

STATE = [
    ("state file is a list", lambda p: open(p, "w").write("[1]")),
    ("state file nested deep", lambda p: open(p, "w").write(_nested(100000))),
    ("state names ../x", lambda p: open(p, "w").write(
        '{"model_checkpoint_path": "../x", "all_model_checkpoint_paths": ["../x"]}')),
    ("state names an absolute path", lambda p: open(p, "w").write(
        '{"model_checkpoint_path": "/etc/passwd", "all_model_checkpoint_paths": []}')),
    ("state paths is a dict", lambda p: open(p, "w").write(
        '{"model_checkpoint_path": "w", "all_model_checkpoint_paths": {"a": 1}}')),
]

KERAS = [
    ("config units=2**40", _keras_config(lambda c: _units(c, 2 ** 40))),
    ("config units=2**28 (allocatable, refused first)",
     _keras_config(lambda c: _units(c, 2 ** 28))),
    ("config units='3'", _keras_config(lambda c: _units(c, "x"))),
    ("config units=-1", _keras_config(lambda c: _units(c, -1))),
    ("config nested 100000 deep", _in_keras("config.json", lambda b: _nested(100000).encode())),
    ("config is a list", _in_keras("config.json", lambda b: b"[]")),
    ("config layers is a dict", _keras_config(
        lambda c: {**c, "config": {**c["config"], "layers": {"a": 1}}})),
    ("config class unknown", _keras_config(lambda c: {**c, "class_name": "os.system"})),
    ("metadata is a list", _in_keras("metadata.json", lambda b: b"[1]")),
    ("weights declare 2**40 elements", _in_keras("model.weights.h5", _keras_huge_h5)),
    ("weights lack a layer", _in_keras("model.weights.h5", _keras_h5_without_layer)),
    ("weights not HDF5", _in_keras("model.weights.h5", lambda b: b"garbage")),
] + [(f"keras truncated at {f:.0%}", lambda p, f=f: _truncate(p, f))
     for f in (0.0, 0.2, 0.6, 0.95)] + \
    [(f"keras bit flip at {f:.0%}", lambda p, f=f: _flip(p, f))
     for f in (0.02, 0.2, 0.4, 0.6, 0.8, 0.98)]


def _npy(a) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=True)  # deliberately hostile: loading must refuse it
    return buf.getvalue()


def _check_clear(err: BaseException, names) -> None:
    assert isinstance(err, CLEAR), f"raw {type(err).__name__}: {err}"
    assert any(n in str(err) for n in names), f"error does not name the file: {err}"


@pytest.mark.parametrize("name, target, corrupt", CKPT, ids=[c[0] for c in CKPT])
def test_corrupt_checkpoint_is_a_clear_error_and_restores_nothing(tmp_path, name, target,
                                                                   corrupt):
    m = _model()
    m.save_weights(str(tmp_path / "w"))
    corrupt(str(tmp_path / ("w.npz" if target == "npz" else "w.index.json")))
    fresh = _model()
    before = [w.copy() for w in fresh.get_weights()]
    try:
        fresh.load_weights(str(tmp_path / "w"))
    except Exception as e:  # noqa: BLE001  (checked here)
        _check_clear(e, [str(tmp_path / "w")])
        after = before
    else:  # a flip in bytes nothing reads (a zip timestamp): the exact saved values load
        assert "flip" in name
        after = m.get_weights()
    for a, b in zip(after, fresh.get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name, corrupt", STATE, ids=[c[0] for c in STATE])
def test_corrupt_state_file_is_a_clear_error(tmp_path, name, corrupt):
    _model().save_weights(str(tmp_path / "w"))
    corrupt(str(tmp_path / "checkpoint"))
    fresh = _model()
    before = [w.copy() for w in fresh.get_weights()]
    for load in (lambda: tw.train.latest_checkpoint(str(tmp_path)),
                 lambda: fresh.load_weights(str(tmp_path)),
                 lambda: tw.train.CheckpointManager(tw.train.Checkpoint(m=fresh),
                                                    str(tmp_path), 2)):
        with pytest.raises(Exception) as info:  # noqa: PT011  (checked below)
            load()
        _check_clear(info.value, [str(tmp_path / "checkpoint")])
    for a, b in zip(before, fresh.get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name, corrupt", KERAS, ids=[c[0] for c in KERAS])
def test_corrupt_keras_file_is_a_clear_error(tmp_path, name, corrupt):
    path = str(tmp_path / "m.keras")
    m = _model()
    m.save(path)
    corrupt(path)
    try:
        loaded = K.models.load_model(path)
    except Exception as e:  # noqa: BLE001  (checked here)
        _check_clear(e, [path])
    else:  # a flip in bytes nothing reads (a zip timestamp): the exact saved values load
        assert "flip" in name
        for a, b in zip(m.get_weights(), loaded.get_weights()):
            np.testing.assert_array_equal(a, b)
