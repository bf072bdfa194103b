"""Keras 3 ``.weights.h5`` files: ``model.save_weights('m.weights.h5')`` / ``load_weights``.

The layout is Keras 3's: ``layers/<class name>/vars/<i>`` (``dense``, ``dense_1``... in the
model's layer order, whatever the layers are called) holds a layer's own variables in creation
order, and nested layers sit under the attribute that holds them
(``layers/lstm/cell/vars/0``, ``layers/bidirectional/forward_layer/cell/vars/1``; items of a
list attribute are named by class, ``cells/lstm_cell``). Only the model's weights are
written (no optimizer group). h5py is imported when a file is read or written; the file is
written through a temporary file and renamed (``atomic_write``), and reading never runs code.
"""
from __future__ import annotations

import io
import os
from collections.abc import Iterator

import numpy as np

from ..core import errors
from ..ops.variables import Variable
from ..train.checkpoint import atomic_write
from ..train.module import camel_to_snake
from .layers.base import Layer


def _h5py():
    try:
        import h5py  # noqa: PLC0415  (optional dependency, imported on use)
    except ImportError:
        raise ImportError("Reading or writing Keras `.weights.h5` files needs h5py: "
                          "`pip install h5py`") from None
    return h5py


def _children(layer: Layer) -> Iterator[tuple]:
    """(attribute path, sub-layer) pairs, as Keras 3 names them."""
    if getattr(layer, "_tw_functional", False) or getattr(layer, "_tw_sequential", False):
        # a model used as a layer (ConvNeXt's stem): its layers, by class, under "layers/"
        subs = [x for x in layer.layers if type(x).__name__ != "InputLayer"]
        for sub, v in _by_class(subs):
            yield f"layers/{sub}", v
        return
    for name, value in vars(layer).items():
        if name.startswith("_tw_") or name == "_deferred_restores" or \
                name.startswith("_user_"):
            continue
        key = name.lstrip("_")
        if isinstance(value, Layer):
            yield key, value
        elif isinstance(value, (list, tuple)) and value and \
                all(isinstance(v, Layer) for v in value):
            for sub, v in _by_class(value):
                yield f"{key}/{sub}", v


def _by_class(layers: list) -> Iterator[tuple]:
    """Keras names the items of a list by class: ``dense``, ``dense_1``... (not by name)."""
    used: dict = {}
    for v in layers:
        base = camel_to_snake(type(v).__name__)
        n = used.get(base, 0)
        used[base] = n + 1
        yield base + (f"_{n}" if n else ""), v


def _walk(layer: Layer, path: str) -> Iterator[tuple]:
    yield path, layer._own_variables()
    for key, child in _children(layer):
        yield from _walk(child, f"{path}/{key}")


def _entries(model) -> list:
    if not getattr(model, "_tw_functional", False) and not getattr(model, "_tw_sequential",
                                                                   False):
        raise NotImplementedError("Keras `.weights.h5` files are supported for Sequential and "
                                  "functional models; save a subclassed model's weights with "
                                  "a checkpoint path (no .weights.h5 suffix)")
    if not model.built:
        raise ValueError(f"Model {model.name!r} is not built: call it on data or build it "
                         "before saving or loading `.weights.h5` weights.")
    out = []
    layers = [x for x in model.layers if type(x).__name__ != "InputLayer"]
    for key, layer in _by_class(layers):
        out.extend(_walk(layer, f"layers/{key}"))
    return out


def save_weights(model, path: str) -> None:
    """Writes ``model``'s weights in Keras 3's ``.weights.h5`` layout.

    Args:
        model: a built Sequential or functional model.
        path: the file (ending in ``.weights.h5``).
    """
    h5py = _h5py()
    entries = _entries(model)

    def write(f) -> None:
        buffer = io.BytesIO()
        with h5py.File(buffer, "w") as h5:
            write_entries(h5, entries)
        f.write(buffer.getvalue())
    atomic_write(os.fspath(path), write)


def write_entries(h5, entries: list) -> None:
    """Writes a model's variables into an open HDF5 file, in Keras 3's layout.

    Args:
        h5: the ``h5py.File``.
        entries: ``(group path, variables)`` pairs (``_entries(model)``).
    """
    h5.create_group("vars")
    for group_path, variables in entries:
        write_variables(h5.require_group(group_path).create_group("vars"), variables)


def write_variables(group, variables: list) -> None:
    """Writes ``variables`` as the datasets ``"0"``, ``"1"``... of ``group``.

    Args:
        group: an ``h5py.Group``.
        variables: the variables, in order.
    """
    for i, v in enumerate(variables):
        group.create_dataset(str(i), data=np.asarray(v.numpy()))


def load_weights(model, path: str) -> None:
    """Loads a Keras 3 (or twinflow) ``.weights.h5`` file into ``model``.

    Every variable is checked (count and shapes) before any is assigned, so a mismatched
    file changes nothing.

    Args:
        model: a built Sequential or functional model of the same architecture.
        path: the file.
    """
    h5py = _h5py()
    path = os.fspath(path)
    entries = _entries(model)
    try:
        h5 = h5py.File(path, "r")
    except OSError as e:
        raise errors.DataLossError(None, None, f"{path}: not a readable HDF5 weights file "
                                   f"({e})") from None
    with h5:
        updates = check_entries(h5, entries, path)
    for v, value in updates:
        _assign(v, value)


def check_entries(h5, entries: list, path: str) -> list:
    """``(variable, value)`` for every variable of ``entries`` from the open file ``h5``,
    after checking counts, shapes and dtypes (so nothing is assigned from a bad file).

    Args:
        h5: an open h5py File.
        entries: ``_entries(model)``.
        path: the file's name, for messages.

    Returns:
        The list of pairs.
    """
    h5py = _h5py()
    updates: list = []
    for group_path, variables in entries:
        group = h5.get(f"{group_path}/vars")
        if group is None:
            if variables:
                raise ValueError(f"{path}: no weights for {group_path!r} (the file was "
                                 "saved from a different model)")
            continue
        if not isinstance(group, h5py.Group):
            raise ValueError(f"{path}: {group_path}/vars is not a group")
        if len(group) != len(variables):
            raise ValueError(f"{path}: {group_path!r} has {len(group)} variables in the "
                             f"file, the model's layer has {len(variables)}")
        for i, v in enumerate(variables):
            data = group.get(str(i))
            if not isinstance(data, h5py.Dataset):
                raise ValueError(f"{path}: {group_path}/vars/{i} is missing")
            want = tuple(v.shape.as_list())
            if tuple(data.shape) != want:
                raise ValueError(f"{path}: {group_path}/vars/{i} has shape "
                                 f"{tuple(data.shape)}, the variable {v.name} has {want}")
            if data.dtype.kind not in "fiub":
                raise ValueError(f"{path}: {group_path}/vars/{i} holds {data.dtype}, "
                                 "not numbers")
            updates.append((v, np.asarray(data[()], dtype=v.dtype.np)))
    return updates


def _assign(v: Variable, value: np.ndarray) -> None:
    v.assign(value)
