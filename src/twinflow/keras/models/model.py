"""The ``Model`` class: a Layer with layers, training (mixins) and weights I/O."""
from __future__ import annotations

import os
import re
from typing import Any

from ...core import nest
from ...core.shapes import TensorShape
from ...graph.tensor import Tensor
from ...saved_model import keras_export as _export
from ...train import checkpoint as _ckpt
from ...train.state import run_write_callbacks
from .. import h5_weights as _h5_weights
from .. import metrics as _metrics
from .. import saving as _saving
from ..layers.base import Layer
from ..layers.keras_tensor import KerasTensor, set_keras_mask, symbolic_call
from .functional import FunctionalMixin
from .loops import LoopsMixin
from .summary import SummaryMixin
from .trainer import TrainerMixin


def _given_or_layers(end: str) -> property:
    """``Model.input``/``Model.output``: a functional model's own ends, as given to
    ``Model(inputs, outputs)``, until assigned; otherwise ``Layer``'s."""
    assigned = f"_user_{end}"

    def get(self) -> Any:
        if self._tw_functional and assigned not in self.__dict__:
            return getattr(self, f"_tw_{end}s")
        return getattr(Layer, end).fget(self)

    def assign(self, value) -> None:
        self.__dict__[assigned] = value
    return property(get, assign, doc=f"A functional model's {end}(s), as given to "
                                     "``Model(inputs, outputs)``.")


class Model(FunctionalMixin, SummaryMixin, TrainerMixin, LoopsMixin, Layer):
    """A layer with training: ``compile``, ``fit``, ``evaluate``, ``predict``, weights I/O.

    ``Model(inputs, outputs)`` builds a functional model from KerasTensors; subclasses define
    layers in ``__init__`` and the forward pass in ``call(inputs, training=None)``.

    Args:
        inputs: the functional model's Input(s).
        outputs: the KerasTensor(s) computed from them.
        name: the model name.
        **kwargs: Layer arguments.
    """

    _tw_sequential = False  # Sequential models list output shapes in summary()

    def __init__(self, *args, **kwargs) -> None:
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        super().__init__(name=kwargs.pop("name", None), trainable=kwargs.pop("trainable", True),
                         **{k: v for k, v in kwargs.items() if k in ("dtype",)})
        self._tw_functional = inputs is not None and outputs is not None
        self._tw_layer_list: list = []
        self._tw_compiled_metrics: list = []
        self._tw_compiled = self._tw_run_eagerly = self._tw_stop = False
        # What compile() and fit() set (the optimizer, the loss, the step functions...).
        for attr in ("optimizer", "loss", "loss_fn", "loss_tracker", "train_fn", "test_fn",
                     "predict_fn", "history"):
            setattr(self, f"_tw_{attr}", None)
        if self._tw_functional:
            self._init_functional(inputs, outputs)

    # ----- functional -----
    def call(self, inputs, training=None, mask=None) -> Any:
        """The forward pass (functional models run their layer graph; subclasses override).

        Args:
            inputs: the input tensor(s).
            training: whether the model is training (Dropout, BatchNormalization).
            mask: masks of the inputs (same structure, None entries allowed): attached to
                them, so the layers that take masks see them (Keras 3's functional call).

        Returns:
            The output tensor(s).
        """
        if self._tw_functional:
            if mask is not None:
                masks = nest.flatten(mask) if isinstance(mask, (list, tuple, dict)) else [mask]
                for x, m in zip(nest.flatten(inputs), masks):
                    if m is not None and isinstance(x, Tensor):
                        set_keras_mask(x, m)
            return self._run_functional(inputs, training)
        raise NotImplementedError(f"Model {type(self).__name__} must implement call() (or be "
                                  "built as Model(inputs, outputs)).")

    def _maybe_build(self, inputs) -> None:
        if type(self).build is Model.build:
            shapes = nest.map_structure(lambda t: getattr(t, "shape", None), inputs)
            self._tw_input_shape = shapes
            self.built = True
            _ckpt.apply_deferred(self)
            return
        super()._maybe_build(inputs)

    def build(self, input_shape) -> None:
        """Builds a subclassed model by calling it on symbolic inputs of ``input_shape``.

        Args:
            input_shape: the input shape including the batch dimension.
        """
        if self._tw_functional or input_shape is None:
            self.built = True
            return
        spec = KerasTensor(TensorShape(input_shape))
        symbolic_call(lambda x: self(x), (spec,), {})
        self.built = True

    def quantize(self, mode: str | None = None, config=None, filters=None, **kwargs) -> None:
        """Quantizes every layer that can be (``Dense``, ``EinsumDense``, ``Embedding``).

        Args:
            mode: ``'int8'`` or ``'int4'`` (optional with ``config``).
            config: a ``keras.quantizers.QuantizationConfig``.
            filters: a regex, a list of regexes (matched against layer names) or a callable
                ``layer -> bool``: only matching layers are quantized.
            **kwargs: ``type_check`` (default True).
        """
        type_check = kwargs.pop("type_check", True)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to quantize: {kwargs}")
        if not self.built:
            raise ValueError("Cannot quantize a model that isn't yet built.")
        pats = [filters] if isinstance(filters, str) else filters
        done = 0
        stack = list(self._tracked_layers())
        while stack:
            layer = stack.pop(0)
            if callable(pats) and not pats(layer) or isinstance(pats, list) and not any(
                    re.search(p, layer.name) for p in pats):
                stack.extend(layer._tracked_layers())
                continue
            try:
                layer.quantize(mode, type_check=type_check, config=config)
                done += 1
            except NotImplementedError as e:
                if "does not have a `quantize()`" not in str(e):
                    raise
                stack.extend(layer._tracked_layers())
        if not done:
            raise ValueError(f"No layer of the model could be quantized in mode {mode!r}")

    # ----- layers -----
    @property
    def layers(self) -> list:
        """The model's layers (functional: including InputLayers; not the operations, such as
        ``a + b`` on KerasTensors, which Keras 3 leaves out too)."""
        if self._tw_functional:
            return [x for x in self._tw_layer_list
                    if not getattr(x, "_tw_operation", False)]
        return [x for x in self._tracked_layers() if isinstance(x, Layer)
                and not isinstance(x, _metrics.Metric)]

    @property
    def operations(self) -> list:
        """A functional model's layers and operation nodes, in graph order (Keras 3)."""
        return list(self._tw_layer_list) if self._tw_functional else self.layers

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A layer by name or index.

        Args:
            name: the layer name.
            index: the layer index.

        Returns:
            The layer.
        """
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: "
                         f"{[x.name for x in self.layers]}.")

    def _tracked_layers(self) -> list:
        base = super()._tracked_layers()
        listed = [x for x in self._tw_layer_list if not any(x is b for b in base)]
        return listed + base

    def _trackable_children(self) -> dict:
        out: dict = {}
        for i, layer in enumerate(self._tw_layer_list):
            out[f"layer-{i}"] = layer
        out.update(super()._trackable_children())
        return out

    input = _given_or_layers("input")
    output = _given_or_layers("output")

    @property
    def inputs(self):
        """A functional model's input KerasTensors, as a flat list (Keras 3); None otherwise."""
        return nest.flatten(self._tw_inputs) if self._tw_functional else None

    @property
    def outputs(self):
        """A functional model's output KerasTensors, as a flat list (Keras 3); None otherwise."""
        return nest.flatten(self._tw_outputs) if self._tw_functional else None

    # ----- weights I/O -----
    def save_weights(self, filepath: str, overwrite: bool = True, save_format=None,
                     options=None) -> None:
        """Writes the model's variables: a path ending in ``.weights.h5`` gets Keras 3's HDF5
        file (needs h5py); any other path a twinflow checkpoint (``filepath.npz`` + index).

        Args:
            filepath: the ``.weights.h5`` file or the checkpoint prefix.
            overwrite: False raises FileExistsError when the file (or checkpoint) exists
                (Keras 3 asks on the terminal instead).
            save_format: tf.keras 2's format name; the path decides (``.weights.h5``: HDF5).
            options: a ``tw.train.CheckpointOptions`` (checkpoint format only): its write
                callbacks run after the write.
        """
        path = os.fspath(filepath)
        options = _ckpt.check_options(options)
        if not overwrite and (os.path.exists(path) or os.path.exists(path + ".index.json")):
            raise FileExistsError(f"save_weights(overwrite=False): {path} exists")
        if path.endswith(".h5"):
            if options is not None:
                raise ValueError("save_weights: `options` apply to checkpoints, not to "
                                 f"`.weights.h5` files (got {options!r})")
            if not path.endswith(".weights.h5"):
                raise ValueError("The filename must end in `.weights.h5`. Received: "
                                 f"filepath={path}")
            _h5_weights.save_weights(self, path)
            return
        arrays = {p: v.numpy() for p, v in _ckpt.collect_variables(self).items()}
        prefix = _ckpt.write_arrays(path, arrays)
        directory = os.path.dirname(prefix) or "."
        _ckpt.update_checkpoint_state(directory, prefix)
        run_write_callbacks(options, prefix)

    def load_weights(self, filepath: str, skip_mismatch: bool = False, by_name: bool = False,
                     options=None) -> _ckpt.LoadStatus | None:
        """Restores variables saved by ``save_weights`` (deferred for unbuilt layers), or
        from a Keras 3 ``.weights.h5`` file (the model must be built; returns None).

        Args:
            filepath: the checkpoint prefix (or a directory with a ``checkpoint`` file), or
                a ``.weights.h5`` file.
            skip_mismatch: not supported: a mismatching weight raises either way.
            by_name: tf.keras 2's HDF5 loading by layer name: True raises
                NotImplementedError (weights are matched by their paths).
            options: a ``tw.train.CheckpointOptions`` (checked as ``Checkpoint.read``).

        Returns:
            A load status (None for ``.weights.h5`` files).
        """
        if by_name:
            raise NotImplementedError("load_weights(by_name=True) is not supported: twinflow "
                                      "matches weights by their paths")
        _ckpt.check_options(options)
        path = os.fspath(filepath)
        if path.endswith(".weights.h5"):
            _h5_weights.load_weights(self, path)
            return None
        if os.path.isdir(path):
            path = _ckpt.latest_checkpoint(path) or path
        values = _ckpt.read_arrays(path)
        return _ckpt.restore_into(self, values)

    def save(self, filepath: str, overwrite: bool = True, save_format=None, **kwargs) -> None:
        """Saves the whole model: architecture, weights, compile config and optimizer state.

        A path ending in ``.keras`` gets one zip file (Keras 3's format: ``config.json``,
        ``model.weights.npz``, ``metadata.json``), any other path a directory of those files.
        Both are written atomically and hold no pickled or executable data. Reload with
        ``tw.keras.models.load_model``.

        Args:
            filepath: the ``.keras`` file or the directory.
            overwrite: replace an existing file (False raises if it exists).
            save_format: deprecated in Keras 3: allowed (and unused) with a ``.keras`` or
                ``.h5`` path; with any other path it raises ValueError, as Keras 3.
            **kwargs: ``include_optimizer=True`` only (the optimizer state is always
                saved; False raises NotImplementedError); anything else raises ValueError,
                as Keras 3.
        """
        if save_format and not str(filepath).endswith((".keras", ".h5", ".hdf5")):
            raise ValueError("The `save_format` argument is deprecated in Keras 3. Please "
                             "remove this argument and pass a file path with either `.keras` "
                             f"or `.h5` extension. Received: save_format={save_format}")
        if not kwargs.pop("include_optimizer", True):
            raise NotImplementedError("Model.save(include_optimizer=False) is not supported: "
                                      "the optimizer state is always saved")
        if kwargs:
            raise ValueError(f"The following argument(s) are not supported: {list(kwargs)}")
        _saving.save_model(self, filepath, overwrite=overwrite)

    def export(self, filepath: str, format: str = "tf_saved_model", verbose: bool = True,
               input_signature=None) -> None:
        """Writes the model for serving as a SavedModel (TensorFlow's format): an endpoint
        ``serve`` and the signature ``serving_default``; ``tw.saved_model.load`` (or
        TensorFlow's) restores it without this code.

        Args:
            filepath: the SavedModel directory (replaced atomically).
            format: ``"tf_saved_model"`` (the only one).
            verbose: accepted for Keras compatibility.
            input_signature: TensorSpecs of the inputs (default: the model's, batch unknown).
        """
        if format != "tf_saved_model":
            raise ValueError(f"Unrecognized format={format!r}: twinflow exports "
                             "format='tf_saved_model' (tw.onnx exports ONNX)")
        _export.export_model(self, filepath, input_signature)

    def _default_save_signature(self):
        """The serving function ``tw.saved_model.save(model, dir)`` saves by default."""
        return _export.serving_function(self)

    def to_json(self, **kwargs) -> str:
        """The architecture as JSON (``tw.keras.models.model_from_json`` rebuilds it).

        Args:
            **kwargs: passed to ``json.dumps``.

        Returns:
            The JSON text.
        """
        return _saving.model_to_json(self, **kwargs)

    def get_config(self) -> dict:
        """The model's config: layers and their connections for functional models.

        Returns:
            A JSON-serializable dict.
        """
        if self._tw_functional:
            return _saving.functional_config(self)
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Model:
        """Rebuilds a model from ``get_config()``'s output (functional: layers and graph).

        Args:
            config: the config.
            custom_objects: name -> class or function for custom objects.

        Returns:
            The model.
        """
        with _saving.custom_object_scope(custom_objects):
            return cls._from_config(config)

    @classmethod
    def _from_config(cls, config: dict) -> Model:
        """``from_config`` with the custom objects in scope (Sequential has its own)."""
        if "input_layers" in config and "layers" in config:
            return _saving.functional_from_config(cls, config)
        return cls(**config)

    def __deepcopy__(self, memo):
        raise TypeError("Keras models cannot be deep-copied; use "
                        "tw.keras.models.clone_model")
