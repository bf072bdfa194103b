"""``KerasOperation``: a ``keras.ops`` function as a node of a functional model.

Keras 3 records ``keras.ops`` calls on symbolic tensors (``ops.not_equal(inputs, 0)`` for an
``Embedding(mask_zero=True)`` mask, ``ops.sum(x, axis=1)``...) as operation nodes of the
model's graph, saved as ``{"module": "keras.src.ops.numpy", "class_name": "NotEqual"}``.
Loading such a file rebuilds each node as this layer, which calls the twinflow
``keras.ops`` function of the same name (looked up by name, never evaluated).
"""
from __future__ import annotations

from typing import Any

from ...train.module import camel_to_snake
from ..layers.base import Layer


class KerasOperation(Layer):
    """Calls ``keras.ops.<op>`` on its inputs (a Keras 3 operation node).

    Args:
        op: the function's name in ``keras.ops`` (``'not_equal'``).
        op_config: the operation's own arguments (``axis``...), passed as keywords.
        **kwargs: Layer arguments.
    """

    def __init__(self, op: str, op_config: dict | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.op = str(op)
        self.op_config = dict(op_config or {})

    def call(self, inputs, *args) -> Any:
        return _function(self.op)(inputs, *args, **self.op_config)

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
