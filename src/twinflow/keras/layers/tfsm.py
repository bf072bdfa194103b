"""``keras.layers.TFSMLayer``: a TensorFlow SavedModel (as ``model.export`` or
``tw.saved_model.save`` write it) used as a layer, through ``tw.saved_model.load``."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...core.context import ctx
from ...graph.tensor import Tensor
from ...ops import array_ops
from ...ops.script_ops import numpy_function
from ...saved_model.load import load as _load
from .base import Layer


class TFSMLayer(Layer):
    """Calls an endpoint of a SavedModel; the SavedModel's variables become the layer's
    weights (trainable when ``trainable``). ``call_training_endpoint``, when given, is called
    when ``training=True``. Training the SavedModel's variables needs eager execution
    (``compile(run_eagerly=True)``); inside a traced function the endpoint has no gradient.

    Args:
        filepath: the SavedModel directory.
        call_endpoint: the function (or signature) called at inference ("serve").
        call_training_endpoint: the function called when ``training=True``, or None.
        trainable: whether the loaded variables are trainable weights.
        name: the layer name.
        dtype: the layer dtype.
    """

    def __init__(self, filepath: str, call_endpoint: str = "serve",
                 call_training_endpoint: str | None = None, trainable: bool = True,
                 name: str | None = None, dtype=None) -> None:
        super().__init__(trainable=trainable, name=name, dtype=dtype)
        self.filepath = filepath
        self.call_endpoint = call_endpoint
        self.call_training_endpoint = call_training_endpoint
        self._reloaded = _load(filepath)
        self._endpoint = self._find(call_endpoint)
        self._training_endpoint = None if call_training_endpoint is None else \
            self._find(call_training_endpoint)
        for v in getattr(self._reloaded, "variables", ()) or ():
            self._tw_weights.append(v)  # the layer's weights (frozen with the layer)
        self.built = True

    def _find(self, endpoint: str):
        fn = getattr(self._reloaded, endpoint, None)
        if callable(fn):
            return fn
        sigs = getattr(self._reloaded, "signatures", {}) or {}
        if endpoint in sigs:
            return sigs[endpoint]
        raise ValueError(f"The endpoint '{endpoint}' is neither an attribute of the reloaded "
                         f"SavedModel, nor an entry in the `signatures` field of the "
                         f"reloaded SavedModel. Select another endpoint via the "
                         f"`call_endpoint` argument. Available endpoints for this SavedModel: "
                         f"{sorted(set(sigs) | {a for a in dir(self._reloaded) if not a.startswith('_') and callable(getattr(self._reloaded, a))})}")  # noqa: E501

    def call(self, inputs, training=False, **kwargs) -> Any:
        # As Keras: the training endpoint when training and one was given, else the
        # inference endpoint.
        fn = self._training_endpoint if training and self._training_endpoint is not None \
            else self._endpoint
        if ctx.graph is None:
            return _single(fn(inputs, **kwargs))
        # Restored concrete functions run eagerly only: inside a traced graph (a functional
        # model, tw.function, Dataset.map) the endpoint runs as a NumPy-function op, which
        # has no gradient.
        if training and self.trainable_weights:
            raise NotImplementedError(
                "TFSMLayer cannot train the SavedModel's variables inside a traced function "
                "(such as fit's train step): use compile(run_eagerly=True), or "
                "TFSMLayer(..., trainable=False) to keep them fixed")
        if kwargs or not isinstance(inputs, Tensor):
            raise NotImplementedError("TFSMLayer inside a traced function takes one tensor "
                                      "input and no keyword arguments")
        outs = [o for cf in getattr(fn, "concrete_functions", [fn]) for o in cf.outputs]
        if len(outs) != 1:
            raise NotImplementedError("TFSMLayer inside a traced function supports endpoints "
                                      "with one output")
        spec = outs[0]
        out = numpy_function(lambda a: np.asarray(_single(fn(a)).numpy()), [inputs],
                             spec.dtype)
        return array_ops.reshape(out, [-1 if d is None else d for d in spec.shape.as_list()]) \
            if spec.shape.as_list().count(None) <= 1 else out

    _config_keys = ("filepath", "call_endpoint", "call_training_endpoint")


def _single(out):
    """A signature's one-entry output dict as its tensor."""
    if isinstance(out, dict) and len(out) == 1:
        return next(iter(out.values()))
    return out
