"""The serving function of a Keras model, for ``model.export`` and ``tw.saved_model.save``
(duck-typed: this layer sits below ``keras/``)."""
from __future__ import annotations

from ..core import dtypes, nest
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..function.function import Function
from .save import save

__all__ = ["serving_function", "export_model"]


def _specs(model) -> list:
    inputs = getattr(model, "inputs", None)
    if inputs is not None:
        return [TensorSpec(t.shape, getattr(t, "dtype", None) or dtypes.float32,
                           getattr(t, "name", None) or f"input_{i}")
                for i, t in enumerate(nest.flatten(inputs))]
    shape = getattr(model, "_tw_input_shape", None)
    if shape is None:
        raise ValueError(f"{type(model).__name__} has not been built: call it on data (or "
                         "build it) before saving, or pass input_signature")
    shapes = [shape] if isinstance(shape, (tuple, TensorShape)) or shape is None or \
        shape and not isinstance(shape[0], (tuple, list, TensorShape)) else list(shape)
    dt = dtypes.as_dtype(getattr(model, "compute_dtype", None) or "float32")
    return [TensorSpec(TensorShape([None] + list(TensorShape(s).as_list()[1:])), dt,
                       f"input_{i}") for i, s in enumerate(shapes)]


def serving_function(model, input_signature=None) -> Function:
    """A ``tw.function`` calling ``model(inputs, training=False)``, traced for the model's
    input specs (batch dimension unknown).

    Args:
        model: a built Keras model.
        input_signature: TensorSpecs to use instead of the model's.

    Returns:
        The function (its concrete function is traced).
    """
    specs = list(input_signature) if input_signature is not None else _specs(model)
    single = len(specs) == 1

    def serve(*args):
        return model(args[0] if single else list(args), training=False)

    fn = Function(serve, name="serve", input_signature=specs, autograph=False)
    fn.get_concrete_function()
    return fn


class _ExportArchive:
    """What ``model.export`` saves: the model's variables and the ``serve`` endpoint."""

    def __init__(self, model, serve: Function) -> None:
        self.model = model
        self.serve = serve

    def _trackable_children(self) -> dict:
        return {"model": self.model}


def export_model(model, filepath: str, input_signature=None) -> None:
    """Writes ``model`` as a SavedModel with one endpoint ``serve`` and the signature
    ``serving_default`` (Keras 3's ``model.export``).

    Args:
        model: a built Keras model.
        filepath: the SavedModel directory.
        input_signature: TensorSpecs to use instead of the model's input specs.
    """
    serve = serving_function(model, input_signature)
    save(_ExportArchive(model, serve), filepath, signatures={"serving_default": serve})
