"""Whole-model saving: ``model.save(path)``, ``load_model``, ``to_json``/``model_from_json``.

A ``.keras`` file is a zip (as in Keras 3) holding three members; a directory path holds the
same three files:

* ``config.json``: the architecture (``{"class_name", "config", "build_config",
  "compile_config"}``), the layers' ``get_config()`` and, for functional models, each layer's
  inbound nodes (``["layer name", node index, tensor index]`` references);
* ``model.weights.npz``: every weight (``layers/<layer>/vars/<i>``, or object-graph paths for
  subclassed models) and the optimizer's state (``optimizer/...``), read with
  ``allow_pickle=False``;
* ``metadata.json``: format, versions and each array's shape and dtype.

Nothing in a saved model is executable: classes are looked up by name among twinflow's own
layers, losses, metrics and optimizers, or in ``custom_objects`` given to ``load_model``; Lambda
layers' functions are stored by name and must be passed in ``custom_objects`` too. Files are
written to a temporary file and renamed into place; loading checks every array against the
rebuilt model before assigning any, so a mismatch or a corrupt file raises and restores
nothing.
"""
from __future__ import annotations

import io
import json
import os
import warnings
import zipfile
import zlib
from collections.abc import Iterator
from importlib import metadata as _importlib_metadata

import numpy as np

from ..core import nest
from ..core.errors import DataLossError
from ..core.files import atomic_write, atomic_write_dir, recover
from ..core.shapes import TensorShape
from ..ops.variables import Variable
from ..train import checkpoint as _ckpt
from . import keras_archive as _archive
from .configurable import serialize as serialize_layer  # (a layer's, a nested model's)
from .layers import base as _layers_base
from .layers.base import Layer
from .layers.input_layer import InputLayer
from .layers.keras_tensor import KerasTensor
from .registry import _CUSTOM, custom_object_scope  # noqa: F401  (re-exported)
from .registry import REGISTERED as _REGISTERED
from .registry import custom as _custom
from .registry import jsonable as _jsonable
from .saving_compile import (  # noqa: F401  (re-exported)
    compile_config,
    compile_from_config,
    deserialize_optimizer,
    serialize_optimizer,
)

FORMAT = "twinflow-keras"
FORMAT_VERSION = 1
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.weights.npz"
METADATA_FILE = "metadata.json"
_TENSOR_REF = "__keras_tensor__"


# ---------------------------------------------------------------------------------------------
# Custom objects and class lookup

def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _builtin_layer(name: str) -> type | None:
    for cls in _subclasses(Layer):
        if cls.__name__ == name and cls.__module__.startswith("twinflow.keras"):
            return cls
    return None


def layer_class(class_name: str) -> type:
    """The layer (or model) class saved as ``class_name``: custom objects first, then
    twinflow's own.

    Args:
        class_name: the saved class name.

    Returns:
        The class.

    Raises:
        ValueError: the class is unknown (a custom class not in ``custom_objects``).
    """
    cls = _custom(class_name) or _builtin_layer(class_name)
    if cls is None:
        raise ValueError(f"Unknown layer: '{class_name}'. Please ensure you are using a "
                         "`custom_objects` argument (load_model(path, custom_objects={"
                         f"'{class_name}': {class_name}}}) or a custom_object_scope to pass "
                         "the class of a custom layer or subclassed model.")
    return cls


def _resolve_custom_strings(config: dict) -> dict:
    """Config values naming a custom object (an activation function...) become the object."""
    if not _CUSTOM and not _REGISTERED:
        return config
    out = {}
    for k, v in config.items():
        obj = _custom(v) if isinstance(v, str) and k != "name" else None
        out[k] = obj if obj is not None else v
    return out


def deserialize_layer(entry: dict) -> Layer:
    """Rebuilds a layer from ``serialize_layer``'s output.

    Args:
        entry: ``{"class_name", "config"}``.

    Returns:
        The layer (unbuilt; models are built by their ``from_config``).
    """
    cls = layer_class(entry["class_name"])
    config = _resolve_custom_strings(dict(entry.get("config") or {}))
    try:
        return cls.from_config(config)
    except TypeError as e:
        raise TypeError(f"Could not rebuild layer {config.get('name')!r} of class "
                        f"{entry['class_name']} from its config: {e}. A custom class must "
                        "accept its get_config() as keyword arguments (or define "
                        "from_config).") from e


# ---------------------------------------------------------------------------------------------
# Functional models

def functional_config(model) -> dict:
    """The config of a functional model: its layers, their inbound nodes, inputs and outputs.

    Args:
        model: a functional ``Model``.

    Returns:
        A JSON-serializable dict (Keras' layout).
    """
    per_layer: dict = {}
    node_key: dict = {}
    for node in model._tw_nodes_order:
        lst = per_layer.setdefault(id(node.layer), [])
        node_key[id(node)] = (node.layer.name, len(lst))
        lst.append(node)

    def ref(t: KerasTensor) -> list:
        if t._node is None:
            return [t._layer.name, 0, 0]
        name, index = node_key[id(t._node)]
        return [name, index, t._index]

    def arg(x, where: str):
        if isinstance(x, KerasTensor):
            shape = x.shape.as_list() if x.shape.rank is not None else None
            return {"class_name": _TENSOR_REF, "config": {
                "shape": shape, "dtype": x.dtype.name, "keras_history": ref(x)}}
        if isinstance(x, (list, tuple)):
            return [arg(v, where) for v in x]
        if isinstance(x, dict):
            return {str(k): arg(v, where) for k, v in x.items()}
        if isinstance(x, slice):  # an operation node's index (``x[:, 1:]``), as Keras 3 writes
            return {"class_name": "__slice__", "config": {
                "start": arg(x.start, where), "stop": arg(x.stop, where),
                "step": arg(x.step, where)}}
        if x is Ellipsis:
            return {"class_name": "__ellipsis__", "config": {}}
        return _jsonable(x, where)

    names = [layer.name for layer in model._tw_layer_list]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"Cannot save model {model.name!r}: layer names must be unique, "
                         f"found {dup} more than once")
    layers = []
    for layer in model._tw_layer_list:
        entry = serialize_layer(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = [
            {"args": arg(list(node.args), f"layer {layer.name!r}"),
             "kwargs": arg(dict(node.kwargs), f"layer {layer.name!r}")}
            for node in per_layer.get(id(layer), [])]
        layers.append(entry)
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": nest.map_structure(ref, model._tw_inputs),
            "output_layers": nest.map_structure(ref, model._tw_outputs)}


def _is_ref(x) -> bool:
    return isinstance(x, list) and len(x) == 3 and isinstance(x[0], str) and \
        isinstance(x[1], int) and isinstance(x[2], int)


def _map_refs(fn, structure):
    if _is_ref(structure):
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _map_refs(fn, v) for k, v in structure.items()}
    if isinstance(structure, list):
        return [_map_refs(fn, v) for v in structure]
    return structure


def functional_from_config(cls: type, config: dict):
    """Rebuilds a functional model from ``functional_config``'s output.

    Args:
        cls: the model class (``Model`` or a subclass taking ``inputs``/``outputs``).
        config: the config.

    Returns:
        The model, with fresh weights.
    """
    created: dict = {}
    pending: list = []
    for entry in config["layers"]:
        layer = deserialize_layer(entry)
        name = entry.get("name", layer.name)
        created[name] = layer
        for i, node in enumerate(entry.get("inbound_nodes", [])):
            pending.append((layer, name, i, node))
    tensors: dict = {}
    for name, layer in created.items():
        if isinstance(layer, InputLayer):
            tensors[(name, 0)] = [layer.output]

    def lookup(r):
        return tensors[(r[0], r[1])][r[2]]

    def ready(x) -> bool:
        if isinstance(x, dict) and x.get("class_name") == _TENSOR_REF:
            h = x["config"]["keras_history"]
            return (h[0], h[1]) in tensors
        if isinstance(x, list):
            return all(ready(v) for v in x)
        if isinstance(x, dict):
            return all(ready(v) for v in x.values())
        return True

    def value(x):
        if isinstance(x, dict) and x.get("class_name") == _TENSOR_REF:
            return lookup(x["config"]["keras_history"])
        if isinstance(x, dict) and x.get("class_name") == "__slice__":
            c = x.get("config") or {}
            return slice(value(c.get("start")), value(c.get("stop")), value(c.get("step")))
        if isinstance(x, dict) and x.get("class_name") == "__ellipsis__":
            return Ellipsis
        if isinstance(x, list):
            return [value(v) for v in x]
        if isinstance(x, dict):
            return {k: value(v) for k, v in x.items()}
        return x

    while pending:
        progress = False
        for item in list(pending):
            layer, name, i, node = item
            if not (ready(node["args"]) and ready(node["kwargs"])):
                continue
            args = value(node["args"])
            out = layer(*args, **value(node["kwargs"]))
            tensors[(name, i)] = nest.flatten(out)
            pending.remove(item)
            progress = True
        if not progress:
            names = sorted({n for _, n, _, _ in pending})
            raise ValueError(f"Cannot rebuild the functional model {config.get('name')!r}: "
                             f"the inputs of layers {names} are never computed")
    try:
        inputs = _map_refs(lookup, config["input_layers"])
        outputs = _map_refs(lookup, config["output_layers"])
    except KeyError as e:
        raise ValueError(f"Cannot rebuild the functional model {config.get('name')!r}: it "
                         f"refers to an unknown tensor {e}") from e
    model = cls(inputs=inputs, outputs=outputs, name=config.get("name"))
    if config.get("trainable") is False:
        model.trainable = False
    return model


# ---------------------------------------------------------------------------------------------
# Compile config

def _is_functional_or_sequential(model) -> bool:
    return bool(getattr(model, "_tw_functional", False)) or \
        type(model).__name__ == "Sequential" and type(model).__module__.startswith("twinflow")


# ---------------------------------------------------------------------------------------------
# Weights

def weight_items(model) -> list:
    """``(key, variable, description)`` for every weight of ``model``, in a stable order.

    Functional and Sequential models key weights by layer name (``layers/dense/vars/0``);
    subclassed models by their object-graph path.

    Args:
        model: the model.

    Returns:
        The list.
    """
    out, seen = [], set()
    if _is_functional_or_sequential(model):
        for layer in model.layers:
            for i, v in enumerate(layer.weights):
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append((f"layers/{layer.name}/vars/{i}", v,
                                f"layer {layer.name!r} weight {v.name!r}"))
        return out
    for path, v in _ckpt.collect_variables(model).items():
        if id(v) not in seen and not path.startswith("optimizer"):
            seen.add(id(v))
            out.append((f"model/{path}", v, f"weight {path!r} ({v.name})"))
    return out


def _optimizer_arrays(model, items: list) -> tuple:
    opt = model._tw_optimizer if model._tw_compiled else None
    if opt is None:
        return {}, []
    by_id = {id(v): key for key, v, _ in items}
    arrays = {"optimizer/iterations": opt.iterations.numpy()}
    order = []
    for var, slots in zip(opt._tw_tracked, opt._tw_slots):
        key = by_id.get(id(var))
        if key is None:
            continue  # a variable that is not one of the model's weights
        order.append(key)
        for name, slot in slots.items():
            arrays[f"optimizer/slots/{key}/{name}"] = slot.numpy()
    return arrays, order


def _shape(v: Variable) -> tuple | None:
    return tuple(v.shape.as_list()) if v.shape.rank is not None else None


# ---------------------------------------------------------------------------------------------
# Files

def _to_config(model) -> dict:
    build = None
    if not _is_functional_or_sequential(model):
        shape = getattr(model, "_tw_input_shape", None)
        if isinstance(shape, TensorShape) and shape.rank is not None:
            build = {"input_shape": shape.as_list()}
        elif isinstance(shape, (list, tuple)):
            build = {"input_shape": _jsonable(shape, "the input shape")}
    return {"module": type(model).__module__, "class_name": type(model).__name__,
            "config": _jsonable(model.get_config(), f"model {model.name!r}"),
            "build_config": build, "compile_config": compile_config(model)}


def model_to_json(model, **kwargs) -> str:
    """The model's architecture as a JSON string (no weights).

    Args:
        model: the model.
        **kwargs: passed to ``json.dumps``.

    Returns:
        The JSON text.
    """
    if not _is_functional_or_sequential(model) and type(model).get_config is \
            _builtin_layer("Model").get_config:
        raise NotImplementedError(
            f"Model {model.name!r} is a subclassed model ({type(model).__name__}) without "
            "get_config(); its architecture is Python code. Implement get_config() (and pass "
            "the class in custom_objects when loading), or save only its weights.")
    cfg = {"class_name": type(model).__name__,
           "config": _jsonable(model.get_config(), f"model {model.name!r}")}
    return json.dumps(cfg, **kwargs)


def save_model(model, filepath, overwrite: bool = True) -> None:
    """Writes ``model`` (architecture, weights, compile config, optimizer state).

    Args:
        model: the model.
        filepath: a ``.keras`` file (a zip) or a directory.
        overwrite: replace an existing file; False raises if it exists.
    """
    path = os.fspath(filepath)
    if path.endswith((".h5", ".hdf5")):
        raise ValueError(f"Cannot save {path!r}: twinflow writes the `.keras` format (a zip "
                         "of JSON and .npz files) or a directory, not HDF5")
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False")
    if not model.built:
        raise ValueError(f"Model {model.name!r} has not been built; call it on data or "
                         "build() it before saving")
    config = _to_config(model)
    if path.endswith(".keras") and _is_functional_or_sequential(model) and _has_h5py():
        # Keras 3's own layout (config.json, model.weights.h5, metadata.json).
        keras_cfg = _archive.twinflow_config_to_keras(config, model)
        members = {METADATA_FILE: _archive.metadata_json(_version()),
                   CONFIG_FILE: json.dumps(keras_cfg, indent=1).encode(),
                   _archive.KERAS_WEIGHTS: _archive.weights_h5(model)}
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
            for name, data in members.items():
                z.writestr(name, data)
        atomic_write(path, buf.getbuffer())
        return
    items = weight_items(model)
    arrays = {key: v.numpy() for key, v, _ in items}
    opt_arrays, opt_order = _optimizer_arrays(model, items)
    arrays.update(opt_arrays)
    metadata = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "keras_version": "3",
        "twinflow_version": _version(),
        "weights": {key: {"shape": list(np.shape(a)), "dtype": np.asarray(a).dtype.name}
                    for key, a in arrays.items()},
        "descriptions": {key: d for key, _, d in items},
        "optimizer_slot_order": opt_order,
    }
    config_bytes = json.dumps(config, indent=1).encode()
    meta_bytes = json.dumps(metadata, indent=1).encode()
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    weights_bytes = buf.getvalue()
    if path.endswith(".keras"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
            z.writestr(METADATA_FILE, meta_bytes)
            z.writestr(CONFIG_FILE, config_bytes)
            z.writestr(WEIGHTS_FILE, weights_bytes)
        atomic_write(path, buf.getbuffer())
        return
    _write_directory(path, {WEIGHTS_FILE: weights_bytes, CONFIG_FILE: config_bytes,
                            METADATA_FILE: meta_bytes})


def _has_h5py() -> bool:
    """Whether Keras 3's layout can be written; without h5py, twinflow's (with a warning)."""
    try:
        _archive._h5._h5py()
    except ImportError:
        warnings.warn("h5py is not installed: writing twinflow's own .keras layout "
                      "(model.weights.npz), which Keras cannot read; `pip install h5py` for "
                      "Keras 3's", stacklevel=3)
        return False
    return True


def _write_directory(path: str, files: dict) -> None:
    """Writes ``files`` as the directory ``path``, replacing an earlier save as a whole."""
    recover(path)
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise FileExistsError(f"Cannot save the model as directory {path!r}: a file of "
                                  "that name exists (use a path ending in .keras for one file)")
        others = sorted(set(os.listdir(path)) - set(files))
        if others:
            raise FileExistsError(f"Cannot save the model into {path!r}: the directory holds "
                                  f"other files ({others[:5]}) that saving would remove. Use "
                                  "a new or empty directory, or a .keras file.")
    atomic_write_dir(path, files)


def _version() -> str:
    try:
        return _importlib_metadata.version("twinflow")
    except _importlib_metadata.PackageNotFoundError:
        return "unknown"


def _read_members(path: str) -> tuple:
    """(config dict, metadata dict, weights npz bytes) of a saved model."""
    recover(path)
    if os.path.isdir(path):
        files = {}
        for name in (CONFIG_FILE, METADATA_FILE, WEIGHTS_FILE):
            p = os.path.join(path, name)
            if not os.path.exists(p):
                raise DataLossError(f"Saved model {path!r} is incomplete: {name} is missing")
            with open(p, "rb") as f:
                files[name] = f.read()
    else:
        if not os.path.exists(path):
            raise FileNotFoundError(f"No file or directory found at {path}")
        try:
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
                if _archive.KERAS_WEIGHTS in names and WEIGHTS_FILE not in names:
                    return _read_keras3(path, z, names)
                for name in (CONFIG_FILE, METADATA_FILE, WEIGHTS_FILE):
                    if name not in names:
                        raise DataLossError(f"Saved model {path!r} is corrupt: {name} is "
                                            "missing from the archive")
                files = {n: z.read(n) for n in (CONFIG_FILE, METADATA_FILE, WEIGHTS_FILE)}
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as e:
            raise DataLossError(f"Saved model {path!r} is corrupt (not a readable .keras "
                                f"zip): {e}") from e
    config = _ckpt.parse_json(files[CONFIG_FILE], f"Saved model {path!r}: {CONFIG_FILE}")
    metadata = _ckpt.parse_json(files[METADATA_FILE], f"Saved model {path!r}: {METADATA_FILE}")
    if not isinstance(config, dict) or not isinstance(metadata, dict):
        raise DataLossError(f"Saved model {path!r} is corrupt: {CONFIG_FILE} and "
                            f"{METADATA_FILE} must each hold a JSON object")
    if metadata.get("format") != FORMAT:
        raise DataLossError(f"{path!r} is not a twinflow saved model (metadata format "
                            f"{metadata.get('format')!r})")
    return config, metadata, files[WEIGHTS_FILE]


def _read_keras3(path: str, z: zipfile.ZipFile, names: set) -> tuple:
    """(config in twinflow's form, metadata, model.weights.h5 bytes) of a Keras 3 archive."""
    if CONFIG_FILE not in names:
        raise DataLossError(f"Saved model {path!r} is corrupt: {CONFIG_FILE} is missing from "
                            "the archive")
    config = _ckpt.parse_json(z.read(CONFIG_FILE), f"Saved model {path!r}: {CONFIG_FILE}")
    metadata = _ckpt.parse_json(z.read(METADATA_FILE), f"Saved model {path!r}: "
                                f"{METADATA_FILE}") if METADATA_FILE in names else {}
    if not isinstance(config, dict) or not isinstance(metadata, dict):
        raise DataLossError(f"Saved model {path!r} is corrupt: {CONFIG_FILE} and "
                            f"{METADATA_FILE} must each hold a JSON object")
    metadata = dict(metadata)
    metadata["format"] = _archive.KERAS_WEIGHTS
    return (_archive.keras_config_to_twinflow(config), metadata,
            z.read(_archive.KERAS_WEIGHTS))


def _read_arrays(path: str, data: bytes, metadata: dict) -> dict:
    arrays = _ckpt.load_npz(data, f"Saved model {path!r}: {WEIGHTS_FILE}")
    weights = metadata.get("weights", {})
    if not isinstance(weights, dict) or not all(
            isinstance(m, dict) and isinstance(m.get("shape"), list) for m in weights.values()):
        raise DataLossError(f"Saved model {path!r} is corrupt: {METADATA_FILE}'s 'weights' "
                            "is not a table of {'shape': [...], 'dtype': ...}")
    for key, meta in weights.items():
        if key not in arrays:
            raise DataLossError(f"Saved model {path!r} is corrupt: the value of {key!r} is "
                                f"missing from {WEIGHTS_FILE}")
        a = arrays[key]
        if list(a.shape) != list(meta["shape"]) or a.dtype.name != meta["dtype"]:
            raise DataLossError(f"Saved model {path!r} is corrupt: {key!r} has shape "
                                f"{list(a.shape)} dtype {a.dtype.name} but metadata.json says "
                                f"shape {meta['shape']} dtype {meta['dtype']}")
    return arrays


def _build_model(config: dict):
    model = deserialize_layer({"class_name": config["class_name"],
                               "config": config.get("config", {})})
    build = config.get("build_config")
    if build and not model.built and build.get("input_shape") is not None:
        model.build(tuple(build["input_shape"]))
    return model


def _check_and_assign(path: str, model, arrays: dict, metadata: dict) -> None:
    items = weight_items(model)
    descriptions = metadata.get("descriptions", {})
    problems = []
    assign = []
    expected = {key for key, _, _ in items}
    for key, var, desc in items:
        if key not in arrays:
            problems.append(f"{desc} with shape {list(_shape(var) or [])}: no saved value "
                            f"({key!r})")
            continue
        a = arrays[key]
        shape = _shape(var)
        if shape is not None and tuple(a.shape) != shape:
            problems.append(f"{desc}: the model's shape is {list(shape)} but the saved value "
                            f"{key!r} has shape {list(a.shape)}")
            continue
        if a.dtype != var.dtype.np and not np.can_cast(a.dtype, var.dtype.np,
                                                       casting="same_kind"):
            problems.append(f"{desc}: dtype {var.dtype.name} cannot hold the saved "
                            f"{a.dtype.name} value")
            continue
        assign.append((var, a))
    extra = sorted(k for k in arrays if not k.startswith("optimizer/") and k not in expected)
    for key in extra:
        problems.append(f"saved value {key!r} ({descriptions.get(key, 'unknown')}) with shape "
                        f"{list(arrays[key].shape)} has no weight in the rebuilt model")
    opt_assign, opt_build = [], []
    opt = model._tw_optimizer if model._tw_compiled else None
    if opt is not None and "optimizer/iterations" in arrays:
        by_key = {key: var for key, var, _ in items}
        order = [k for k in metadata.get("optimizer_slot_order", []) if k in by_key]
        opt_build = [by_key[k] for k in order]
        for key in order:
            var = by_key[key]
            for name in opt._slot_names():
                skey = f"optimizer/slots/{key}/{name}"
                if skey not in arrays:
                    problems.append(f"optimizer slot {name!r} of {descriptions.get(key, key)}"
                                    ": no saved value")
                elif _shape(var) is not None and tuple(arrays[skey].shape) != _shape(var):
                    problems.append(f"optimizer slot {name!r} of {descriptions.get(key, key)}"
                                    f": shape {list(arrays[skey].shape)} does not match the "
                                    f"weight's {list(_shape(var))}")
                else:
                    opt_assign.append((key, name, arrays[skey]))
    if problems:
        raise ValueError(f"Cannot load {path!r} into the rebuilt model {model.name!r}; "
                         "nothing was restored:\n  " + "\n  ".join(problems))
    for var, a in assign:
        var._set(np.array(a, dtype=var.dtype.np))
    if opt is not None and "optimizer/iterations" in arrays:
        opt.build(opt_build)
        by_key = {key: var for key, var, _ in items}
        for key, name, a in opt_assign:
            slot = opt.get_slot(by_key[key], name)
            slot._set(np.array(a, dtype=slot.dtype.np))
        opt.iterations._set(np.asarray(arrays["optimizer/iterations"], dtype=np.int64))


def load_model(filepath, custom_objects: dict | None = None, compile: bool = True,  # noqa: A002
               safe_mode: bool = True):
    """Loads a model written by ``model.save`` (``tw.keras.models.load_model``).

    Args:
        filepath: the ``.keras`` file or directory.
        custom_objects: name -> class or function for custom layers, subclassed models,
            losses, metrics and Lambda functions.
        compile: compile the model as it was saved (optimizer state included).
        safe_mode: accepted; twinflow never loads executable code.

    Returns:
        The model.

    Raises:
        DataLossError: the file is corrupt or incomplete.
        ValueError: a saved weight does not fit the rebuilt model (nothing is restored), or a
            class is unknown.
    """
    path = os.fspath(filepath)
    legacy = path.endswith((".h5", ".hdf5")) and os.path.isfile(path)
    if legacy:
        config, data = _archive.read_legacy_h5(path)
        metadata = {"format": "legacy_h5"}
    else:
        config, metadata, data = _read_members(path)
    keras3 = metadata.get("format") in (_archive.KERAS_WEIGHTS, "legacy_h5")
    arrays = {} if keras3 else _read_arrays(path, data, metadata)
    with custom_object_scope(custom_objects):
        # No weight can be bigger than the largest saved array: refuse before allocating one
        # (small ones are built, so a mismatch is reported with both shapes by the check).
        sizes = [int(np.prod(a.shape, dtype=np.int64)) for a in arrays.values()]
        limit = max(sizes + [2 ** 22, _archive.largest_dataset(data) if keras3 else 0])
        try:
            with _layers_base.max_weight_elements(limit):
                model = _build_model(config)
                if compile and config.get("compile_config"):
                    compile_from_config(model, config["compile_config"])
        except _HOSTILE as e:
            # A config that no saved model has (units=2**40, wrong types, missing keys):
            # nothing was restored into anything that exists, so just say which file.
            raise ValueError(f"Cannot load the model saved in {path!r}: its {CONFIG_FILE} "
                             f"does not describe a buildable model ({type(e).__name__}: "
                             f"{str(e)[:300]})") from e
        if legacy:
            _archive.load_legacy_weights(model, data, path)
        elif keras3:
            _archive.load_weights_h5(model, data, path, compile)
        else:
            _check_and_assign(path, model, arrays, metadata)
    return model


_HOSTILE = (TypeError, KeyError, AttributeError, IndexError, RecursionError, MemoryError,
            OverflowError, ValueError)


def model_from_json(json_string: str, custom_objects: dict | None = None):
    """Rebuilds a model (fresh weights) from ``model.to_json()``.

    Args:
        json_string: the JSON text.
        custom_objects: name -> class or function for custom objects.

    Returns:
        The model.
    """
    try:
        config = json.loads(json_string)
    except ValueError as e:
        raise ValueError(f"model_from_json: not JSON: {e}") from e
    with custom_object_scope(custom_objects):
        return _build_model(config)
