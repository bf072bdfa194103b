"""Keras 3 ``.keras`` archives: ``config.json``, ``model.weights.h5``, ``metadata.json``.

``model.save('m.keras')`` of a Sequential or functional model writes this layout, so Keras 3
loads it; ``load_model`` reads archives written by Keras 3 (and twinflow's own earlier
``model.weights.npz`` archives, ``saving.py``). The config is Keras 3's: every object is
``{"module", "class_name", "config", "registered_name"}``, layers carry ``build_config`` and
``inbound_nodes``. Reading maps those onto twinflow's classes (``_to_twinflow``) and drops the
Keras-only arguments that hold their neutral value (``quantization_config: null``...); any
other argument twinflow lacks raises. Weights use ``h5_weights``' layout
(``layers/<class>/vars/<i>``); the optimizer's variables are ``optimizer/vars/<i>`` in Keras'
order (iterations, learning rate, then each variable's slots). Nothing is executed: classes
are looked up by name, as ``saving.py`` does.
"""
from __future__ import annotations

import datetime
import io
import json
import warnings

import numpy as np

from ..core.errors import DataLossError
from . import h5_weights as _h5
from .ops import operation as _ops_operation

KERAS_WEIGHTS = "model.weights.h5"
KERAS_VERSION = "3.15.1"  # the Keras whose files twinflow's are checked against
# Keras-only arguments, dropped on load when they hold these (neutral) values.
_NEUTRAL = {"quantization_config": None, "optional": False, "lora_rank": None,
            "lora_alpha": None, "input_axes": None, "output_axes": None,
            "loss_scale_factor": None, "shared_object_id": None, "synchronized": False,
            "renorm": False, "renorm_clipping": None, "renorm_momentum": 0.99}
# (a quantized layer's mode is in its dtype policy; its quantization_config is left at the
# mode's default: custom quantizers do not travel through files)
_ALWAYS_DROP = ("shared_object_id", "quantization_config")


# ---------------------------------------------------------------------------------------------
# Keras 3 config -> twinflow config

def _obj(x) -> bool:
    return isinstance(x, dict) and "class_name" in x and "config" in x


def _clean_args(cfg: dict) -> dict:
    out = {}
    for k, v in cfg.items():
        if k in _ALWAYS_DROP or (k in _NEUTRAL and v == _NEUTRAL[k]):
            continue
        out[k] = _to_twinflow(v)
    return out


def _to_twinflow(x):
    """A Keras 3 config value in the form twinflow's ``from_config`` functions read."""
    if isinstance(x, list):
        return [_to_twinflow(v) for v in x]
    if not isinstance(x, dict):
        return x
    if _obj(x):
        name = x["class_name"]
        if name == "__keras_tensor__":
            return x
        if str(x.get("module") or "").startswith("keras.src.ops"):
            out = _ops_operation.operation_entry(name, _clean_args(x["config"]))
            for k in ("name", "inbound_nodes"):
                if k in x:
                    out[k] = _to_twinflow(x[k])
            return out
        if name in ("DTypePolicy", "FloatDTypePolicy"):
            cfg = x["config"]
            return cfg.get("name") if isinstance(cfg, dict) else cfg
        if name.endswith("DTypePolicy") and isinstance(x["config"], dict):  # quantized
            cfg = x["config"]
            return f"{cfg.get('mode')}_from_{cfg.get('source_name')}"
        out = {"class_name": "Model" if name == "Functional" else name,
               "config": _clean_args(x["config"]) if isinstance(x["config"], dict)
               else x["config"]}
        if name == "InputLayer" and isinstance(out["config"], dict):
            c = out["config"]
            if "batch_shape" in c:
                c["batch_input_shape"] = c.pop("batch_shape")
        for k in ("name", "inbound_nodes", "build_config", "compile_config"):
            if k in x:
                out[k] = _to_twinflow(x[k])
        return out
    return {k: _to_twinflow(v) for k, v in x.items() if k not in _ALWAYS_DROP}


def keras_config_to_twinflow(config: dict) -> dict:
    """Normalizes a Keras 3 ``config.json`` for ``saving``'s model builders.

    Args:
        config: the parsed ``config.json``.

    Returns:
        ``{"class_name", "config", "build_config", "compile_config"}`` in twinflow's form.
    """
    if not _obj(config):
        raise DataLossError(None, None, "config.json is not a serialized Keras model "
                            "(no class_name/config)")
    out = _to_twinflow(config)
    compile_cfg = config.get("compile_config")
    if isinstance(compile_cfg, dict):
        compile_cfg = dict(compile_cfg)
        opt = compile_cfg.get("optimizer")
        if _obj(opt):
            compile_cfg["optimizer"] = {"class_name": opt["class_name"],
                                        "config": _clean_args(opt["config"])}
        for k in ("steps_per_execution", "jit_compile", "auto_scale_loss"):
            compile_cfg.pop(k, None)
        out["compile_config"] = compile_cfg
    return out


# ---------------------------------------------------------------------------------------------
# twinflow config -> Keras 3 config

def _operation_to_keras(entry: dict) -> dict:
    """A KerasOperation node as Keras 3 writes an operation: its class in ``keras.src.ops``,
    config = its name and own arguments."""
    cfg = entry["config"]
    op = cfg["op"]
    out = {"module": _ops_operation.keras_module(op),
           "class_name": "".join(w.capitalize() for w in op.split("_")),
           "config": {"name": cfg.get("name"), **cfg.get("op_config", {})},
           "registered_name": None}
    out["registered_name"] = out["class_name"]
    for k in ("name", "inbound_nodes"):
        if k in entry:
            out[k] = entry[k]
    return out


def _layer_to_keras(entry: dict, layer) -> dict:
    cfg = dict(entry["config"])
    name = entry["class_name"]
    if name == "KerasOperation":
        return _operation_to_keras(entry)
    if name == "InputLayer":
        if "batch_input_shape" in cfg:
            cfg["batch_shape"] = cfg.pop("batch_input_shape")
    else:
        cfg.pop("batch_input_shape", None)
    out = {"module": "keras.layers", "class_name": name, "config": cfg,
           "registered_name": None}
    shape = getattr(layer, "_tw_input_shape", None) if layer is not None else None
    if shape is not None and name != "InputLayer":
        out["build_config"] = {"input_shape": _jsonable_shape(shape)}
    for k in ("name", "inbound_nodes"):
        if k in entry:
            out[k] = entry[k]
    return out


def _jsonable_shape(shape):
    if hasattr(shape, "as_list"):
        return shape.as_list() if shape.rank is not None else None
    if isinstance(shape, (list, tuple)):
        return [_jsonable_shape(s) if isinstance(s, (list, tuple)) or hasattr(s, "as_list")
                else s for s in shape]
    return shape


def twinflow_config_to_keras(config: dict, model) -> dict:
    """``saving._to_config``'s output in Keras 3's form (what Keras 3 writes).

    Args:
        config: twinflow's model config.
        model: the model (its layers give the build shapes).

    Returns:
        The Keras 3 ``config.json`` object.
    """
    inner = dict(config["config"])
    by_name = {layer.name: layer for layer in model.layers}
    inner["layers"] = [_layer_to_keras(e, by_name.get(e.get("name") or
                                                       e["config"].get("name")))
                       for e in inner.get("layers", [])]
    functional = bool(getattr(model, "_tw_functional", False))
    out = {"module": "keras.src.models.functional" if functional else "keras",
           "class_name": "Functional" if functional else "Sequential", "config": inner,
           "registered_name": "Functional" if functional else None,
           "build_config": config.get("build_config") or {"input_shape": None}}
    compile_cfg = config.get("compile_config")
    if compile_cfg:
        compile_cfg = dict(compile_cfg)
        opt = compile_cfg.get("optimizer")
        if isinstance(opt, dict) and "class_name" in opt:
            compile_cfg["optimizer"] = {"module": "keras.optimizers",
                                        "class_name": opt["class_name"],
                                        "config": opt.get("config", {}),
                                        "registered_name": None}
        compile_cfg.setdefault("steps_per_execution", 1)
        compile_cfg.setdefault("jit_compile", False)
        out["compile_config"] = compile_cfg
    return out


def metadata_json(twinflow_version: str) -> bytes:
    """Keras 3's ``metadata.json`` (plus twinflow's version).

    Args:
        twinflow_version: twinflow's version string.

    Returns:
        The JSON bytes.
    """
    now = datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")
    return json.dumps({"keras_version": KERAS_VERSION, "date_saved": now,
                       "twinflow_version": twinflow_version}).encode()


# ---------------------------------------------------------------------------------------------
# Weights

def _optimizer_vars(model) -> list:
    """The optimizer's variables in Keras' order, or [] when it has no state yet."""
    opt = model._tw_optimizer if getattr(model, "_tw_compiled", False) else None
    if opt is None:
        return []
    inner = getattr(opt, "inner_optimizer", opt)
    if not inner._tw_tracked:
        return []
    out = [inner.iterations]
    lr = inner._learning_rate
    if hasattr(lr, "assign"):
        out.append(lr)
    for var in model.trainable_variables:
        idx = inner._tw_index.get(id(var))
        if idx is None:
            return []
        out.extend(inner._tw_slots[idx][n] for n in inner._slot_names())
    return out


def weights_h5(model) -> bytes:
    """``model.weights.h5`` of an archive: the layers' weights and the optimizer's state.

    Args:
        model: a built Sequential or functional model.

    Returns:
        The HDF5 bytes.
    """
    h5py = _h5._h5py()
    entries = _h5._entries(model)
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as h5:
        _h5.write_entries(h5, entries)
        opt_vars = _optimizer_vars(model)
        if opt_vars:
            _h5.write_variables(h5.create_group("optimizer").create_group("vars"), opt_vars)
    return buffer.getvalue()


def largest_dataset(data: bytes) -> int:
    """The element count of the largest array in ``model.weights.h5`` (0 if unreadable).

    Args:
        data: the HDF5 bytes.

    Returns:
        The count.
    """
    h5py = _h5._h5py()
    sizes = [0]
    try:
        with h5py.File(io.BytesIO(data), "r") as h5:
            h5.visititems(lambda _, o: sizes.append(int(o.size))
                          if isinstance(o, h5py.Dataset) else None)
    except OSError:
        return 0
    return max(sizes)


def load_weights_h5(model, data: bytes, label: str, compile_state: bool) -> None:
    """Assigns an archive's ``model.weights.h5`` to ``model`` (checked before anything is
    assigned), and the optimizer's state when the counts match.

    Args:
        model: the rebuilt model.
        data: the HDF5 bytes.
        label: the archive's name, for messages.
        compile_state: also restore the optimizer's variables.
    """
    h5py = _h5._h5py()
    try:
        h5 = h5py.File(io.BytesIO(data), "r")
    except OSError as e:
        raise DataLossError(None, None, f"{label}: {KERAS_WEIGHTS} is not readable HDF5 "
                            f"({e})") from None
    with h5:
        try:
            updates = _h5.check_entries(h5, _h5._entries(model), label)
        except ValueError as e:
            raise ValueError(f"Cannot load {label!r} into the rebuilt model {model.name!r}; "
                             f"nothing was restored:\n  {e}") from None
        opt_updates = []
        group = h5.get("optimizer/vars")
        if compile_state and group is not None and getattr(model, "_tw_compiled", False):
            opt = model._tw_optimizer
            inner = getattr(opt, "inner_optimizer", opt)
            inner.build(list(model.trainable_variables))
            want = _optimizer_vars(model)
            if len(group) == len(want) and all(
                    isinstance(group.get(str(i)), h5py.Dataset) and
                    tuple(group[str(i)].shape) == tuple(v.shape.as_list())
                    for i, v in enumerate(want)):
                opt_updates = [(v, np.asarray(group[str(i)][()], dtype=v.dtype.np))
                               for i, v in enumerate(want)]
            else:
                warnings.warn(f"{label}: the saved optimizer state ({len(group)} variables) "
                              f"does not match the {type(inner).__name__} optimizer "
                              f"({len(want)} variables); the optimizer starts afresh",
                              stacklevel=3)
    for v, value in updates + opt_updates:
        v.assign(value)


# ---------------------------------------------------------------------------------------------
# Legacy whole-model HDF5 files (``model.save('m.h5')`` in tf.keras 2 and Keras 3)

def read_legacy_h5(path: str) -> tuple:
    """The model config (twinflow's form) and the file bytes of a legacy ``.h5`` model.

    Args:
        path: the file.

    Returns:
        ``(config, data)``; ``config["compile_config"]`` comes from ``training_config``.
    """
    h5py = _h5._h5py()
    with open(path, "rb") as f:
        data = f.read()
    try:
        with h5py.File(io.BytesIO(data), "r") as h5:
            raw = h5.attrs.get("model_config")
            training = h5.attrs.get("training_config")
    except OSError as e:
        raise DataLossError(None, None, f"{path}: not a readable HDF5 model file ({e})") \
            from None
    if raw is None:
        raise ValueError(f"{path} holds no model_config: it is a weights-only HDF5 file; "
                         "build the model and call model.load_weights() instead")
    config = json.loads(raw.decode() if isinstance(raw, bytes) else str(raw))
    out = keras_config_to_twinflow(config)
    if training is not None:
        t = json.loads(training.decode() if isinstance(training, bytes) else str(training))
        opt = t.get("optimizer_config")
        out["compile_config"] = {
            "optimizer": {"class_name": opt["class_name"], "config": _clean_args(
                opt["config"])} if _obj(opt) else "rmsprop",
            "loss": t.get("loss"), "metrics": None, "loss_weights": t.get("loss_weights"),
            "weighted_metrics": None}
    return out, data


def load_legacy_weights(model, data: bytes, label: str) -> None:
    """Assigns the ``model_weights`` group of a legacy ``.h5`` file, layer by layer in the
    file's ``layer_names`` order (checked before anything is assigned).

    Args:
        model: the rebuilt model.
        data: the file's bytes.
        label: the file's name, for messages.
    """
    h5py = _h5._h5py()
    layers = [la for la in model.layers if la.weights]
    updates = []
    with h5py.File(io.BytesIO(data), "r") as h5:
        group = h5["model_weights"] if "model_weights" in h5 else h5
        names = [n.decode() if isinstance(n, bytes) else str(n)
                 for n in group.attrs.get("layer_names", [])]
        saved = []
        for n in names:
            g = group[n]
            wn = [w.decode() if isinstance(w, bytes) else str(w)
                  for w in g.attrs.get("weight_names", [])]
            if wn:
                saved.append((n, [g[w] for w in wn]))
        if len(saved) != len(layers):
            raise ValueError(f"{label}: {len(saved)} layers with weights in the file, "
                             f"{len(layers)} in the rebuilt model")
        for layer, (n, arrays) in zip(layers, saved):
            if len(arrays) != len(layer.weights):
                raise ValueError(f"{label}: layer {n!r} has {len(arrays)} weights in the "
                                 f"file, {layer.name!r} has {len(layer.weights)}")
            for v, a in zip(layer.weights, arrays):
                if tuple(a.shape) != tuple(v.shape.as_list()):
                    raise ValueError(f"{label}: weight {a.name} has shape {a.shape}, "
                                     f"{v.name} has {tuple(v.shape.as_list())}")
                updates.append((v, np.asarray(a[()], dtype=v.dtype.np)))
    for v, value in updates:
        v.assign(value)
