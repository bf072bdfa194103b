"""``KerasOperation``: a ``keras.ops`` function as a node of a functional model.

Keras 3 records ``keras.ops`` calls on symbolic tensors (``ops.not_equal(inputs, 0)`` for an
``Embedding(mask_zero=True)`` mask, ``ops.sum(x, axis=1)``...) as operation nodes of the
model's graph, saved as ``{"module": "keras.src.ops.numpy", "class_name": "NotEqual"}``.
Loading such a file rebuilds each node as this layer, which calls the twinflow
``keras.ops`` function of the same name (looked up by name, never evaluated).
"""
from __future__ import annotations

from typing import Any

from ...core import dtypes
from ...ops import dispatch as _dispatch
from ...train.module import camel_to_snake
from ..layers.base import Layer, unique_layer_name
from ..layers.keras_tensor import KerasTensor, has_keras_tensor, register_symbolic_op


class KerasOperation(Layer):
    """Calls ``keras.ops.<op>`` on its inputs (a Keras 3 operation node).

    Args:
        op: the function's name in ``keras.ops`` (``'not_equal'``).
        op_config: the operation's own arguments (``axis``...), passed as keywords.
        **kwargs: Layer arguments.
    """

    _tw_operation = True  # not among ``model.layers`` (Keras 3 lists it in ``operations``)

    def __init__(self, op: str, op_config: dict | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.op = str(op)
        self.op_config = dict(op_config or {})

    def call(self, inputs, *args, **kwargs) -> Any:
        kwargs.pop("training", None)  # given to every layer whose call takes **kwargs
        kwargs.pop("mask", None)
        if self.op == "get_item" and args and isinstance(args[0], list):
            args = (tuple(args[0]),) + args[1:]  # an index saved as JSON is a list
        return _function(self.op)(inputs, *args, **kwargs, **self.op_config)

    def _convert_inputs(self, inputs):
        return inputs  # an operation computes in its inputs' dtypes (no layer autocast)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(op=self.op, op_config=self.op_config)
        return cfg


_FUNCTIONS: dict = {}


def register_functions(table: dict) -> None:
    """Declares the functions ``KerasOperation`` may call (``keras.ops``' namespace).

    Args:
        table: name -> function.
    """
    _FUNCTIONS.update(table)


def _function(name: str):
    fn = _FUNCTIONS.get(name)
    if fn is None:
        raise ValueError(f"The saved model uses the Keras operation {name!r}, which "
                         "twinflow's keras.ops does not provide")
    return fn


def operation_entry(class_name: str, config: dict) -> dict:
    """The twinflow layer entry of a Keras 3 operation node.

    Args:
        class_name: the operation's class (``'NotEqual'``).
        config: its config (``name`` and the operation's arguments).

    Returns:
        ``{"class_name": "KerasOperation", "config": {...}}``.
    """
    cfg = dict(config)
    name = cfg.pop("name", None)
    return {"class_name": "KerasOperation",
            "config": {"name": name, "op": camel_to_snake(class_name), "op_config": cfg}}


def _record(op: str, args: tuple, kwargs: dict):
    """``keras.ops.<op>`` on KerasTensors as a new KerasOperation node (Keras 3's
    ``Operation.symbolic_call``): keyword arguments without KerasTensors are the operation's
    own config (``axis``, ``keepdims``); the rest are the node's call arguments."""
    _function(op)  # unknown names fail here, before any node exists
    config = {k: v for k, v in kwargs.items() if not has_keras_tensor((v,), {})}
    call_kwargs = {k: v for k, v in kwargs.items() if k not in config}
    layer = KerasOperation(op, op_config=config, name=unique_layer_name(op))
    if not args:
        raise TypeError(f"keras.ops.{op} on KerasTensors needs its first argument "
                        "positionally")
    return layer(*args, **call_kwargs)


register_symbolic_op(_record)

# twinflow ops given a KerasTensor (``tw.nn.relu(x)``, ``tw.reduce_sum(x, axis=-1)``) become the
# keras.ops operation that computes the same, so the model saves in Keras 3's form.
_ELEMENTWISE = {"AddV2": "add", "Add": "add", "Sub": "subtract", "Mul": "multiply",
                "RealDiv": "true_divide", "Div": "divide", "DivNoNan": "divide_no_nan",
                "Pow": "power", "Neg": "negative", "FloorDiv": "floor_divide",
                "FloorMod": "mod", "Abs": "absolute", "Rsqrt": "rsqrt", "Erf": "erf"}
_REDUCTIONS = {"reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max",
               "reduce_min": "min", "reduce_prod": "prod", "reduce_all": "all",
               "reduce_any": "any", "reduce_logsumexp": "logsumexp", "reduce_std": "std",
               "reduce_variance": "var"}


def _elementwise(dense, *args, **kwargs):
    op_name = getattr(dense, "op_name", "")
    op = _ELEMENTWISE.get(op_name) or camel_to_snake(op_name)
    if op not in _FUNCTIONS:
        raise TypeError(f"twinflow op {op_name} cannot take a KerasTensor: it has no keras.ops "
                        "equivalent to record in a functional model. Use a Lambda layer")
    return _record(op, args, kwargs)


def _reduction(op: str):
    def handler(input_tensor, axis=None, keepdims=False):
        return _record(op, (input_tensor,), {"axis": axis, "keepdims": bool(keepdims)})
    return handler




def _axis_op(op: str):
    def handler(x, axis):  # tw.concat(values, axis) -> keras.ops.concatenate(xs, axis=axis)
        return _record(op, (x,), {"axis": axis})
    return handler


def _dtype_op(x, dtype):
    return _record("cast", (x,), {"dtype": dtypes.as_dtype(dtype).name})


_ARRAY_OPS = {"concat": _axis_op("concatenate"), "stack": _axis_op("stack"),
              "expand_dims": _axis_op("expand_dims"), "cast": _dtype_op,
              "abs": lambda x: _record("absolute", (x,), {}),
              "where": lambda c, x, y: _record("where", (c, x, y), {})}
_dispatch.register("elementwise", KerasTensor.__name__, _elementwise)
for _tf_name, _handler in _ARRAY_OPS.items():
    _dispatch.register(_tf_name, KerasTensor.__name__, _handler)
for _tf_name, _op in _REDUCTIONS.items():
    _dispatch.register(_tf_name, KerasTensor.__name__, _reduction(_op))
del _tf_name, _op, _handler


def keras_module(op: str) -> str:
    """The Keras 3 module whose class implements operation ``op`` (what ``.keras`` files name).

    Args:
        op: the ``keras.ops`` function's name.

    Returns:
        ``'keras.src.ops.numpy'``, ``'keras.src.ops.nn'``...
    """
    module = getattr(_FUNCTIONS.get(op), "__module__", "") or ""
    return "keras.src.ops." + module.rsplit(".", 1)[-1] if module.startswith(
        "twinflow.keras.ops.") else "keras.src.ops.numpy"
