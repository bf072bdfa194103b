"""``tw.raw_ops``: every registered op as a function of keyword arguments, by TensorFlow name.

``tw.raw_ops.MatMul(a=x, b=y, transpose_b=True)`` binds op ``MatMul`` directly (eagerly or into
the graph being built). What is an input and what an attr comes from the op's declaration: the
positional parameters of its ``infer`` are inputs, a ``*inputs`` parameter a list input, its
keyword-only parameters attrs. Keywords may use TensorFlow's names where twinflow's differ
(``Sum(input=..., reduction_indices=..., keep_dims=...)``, from the op's schema). An attr that
TensorFlow passes as a tensor (an axis) may be given as one; a type attr that follows from the
inputs (``T``) may be given and must agree with them.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..core import dtypes
from ..graph.registry import REGISTRY, load_all_op_families
from ..graph.tensor import Tensor
from .execute import bind, convert_to_tensor

_P = inspect.Parameter
_CACHE: dict = {}


class RawOp:
    """One op, called with keyword arguments only (as ``tf.raw_ops`` functions are)."""

    def __init__(self, opdef) -> None:
        self.opdef = opdef
        self.__name__ = opdef.name
        params = list(inspect.signature(opdef.infer).parameters.values())
        self._inputs = [p.name for p in params
                        if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)]
        var = [p.name for p in params if p.kind is _P.VAR_POSITIONAL]
        self._list = var[0] if var else None
        self._attrs = {p.name: p.default for p in params
                       if p.kind is _P.KEYWORD_ONLY and not p.name.startswith("_")}
        self._alias: dict = {}
        self._derived: dict = {}  # a type attr read from an input: attr -> input name
        schema = opdef.schema
        if schema is not None:
            for spec in schema.inputs:
                self._alias[spec.tf_name] = spec.name
                if spec.variadic and self._list is not None:
                    self._alias[spec.name] = self._list
                if spec.type_attr and spec.type_attr not in self._attrs:
                    self._derived.setdefault(spec.type_attr, spec.name)
            for a in schema.attrs.values():
                self._alias[a.tf_name] = a.name
        self.__doc__ = (opdef.doc or f"The {opdef.name} op.") + (
            f"\n\nInputs: {', '.join(self._inputs + ([self._list] if self._list else []))}"
            f"; attrs: {', '.join(self._attrs) or 'none'}.")

    def __repr__(self) -> str:
        return f"<tw.raw_ops.{self.opdef.name}>"

    def __call__(self, *args, **kwargs):
        if args:
            raise TypeError(f"raw_ops.{self.opdef.name}: raw_ops functions must be called with "
                            "keyword arguments")
        name = kwargs.pop("name", None)
        inputs: dict = {}
        attrs: dict = {}
        derived: dict = {}
        listed = None
        for key, value in kwargs.items():
            k = self._alias.get(key, key)
            if k in self._inputs:
                inputs[k] = value if isinstance(value, Tensor) else convert_to_tensor(value)
            elif k == self._list:
                listed = [v if isinstance(v, Tensor) else convert_to_tensor(v) for v in value]
            elif k in self._attrs:
                attrs[k] = _attr_value(value)
            elif k in self._derived:
                derived[k] = dtypes.as_dtype(value)
            else:
                raise TypeError(f"raw_ops.{self.opdef.name} got an unexpected keyword argument "
                                f"{key!r} (inputs: {self._inputs or [self._list]}, attrs: "
                                f"{list(self._attrs)})")
        missing = [i for i in self._inputs if i not in inputs]
        missing += [a for a, d in self._attrs.items() if d is _P.empty and a not in attrs]
        if missing:
            raise TypeError(f"raw_ops.{self.opdef.name} missing required argument(s): "
                            f"{', '.join(missing)}")
        ordered = [inputs[i] for i in self._inputs] + (listed or [])
        for attr, value in derived.items():
            src = self._derived[attr]
            t = inputs.get(src)
            if t is None and listed:
                t = listed[0]
            if t is not None and t.dtype != value:
                raise TypeError(f"raw_ops.{self.opdef.name}: {attr}={value.name} does not "
                                f"match input {src!r} of dtype {t.dtype.name}")
        return bind(self.opdef, ordered, attrs, name=name)


def _attr_value(value):
    """Tensors given for attrs (an axis, a shape) become Python values; lists become tuples
    (as the public functions pass list attrs)."""
    if isinstance(value, Tensor) and hasattr(value, "_value"):
        value = value._value
    if isinstance(value, np.ndarray) and value.dtype != object:
        value = value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return tuple(value)
    return value


def raw_op(name: str) -> RawOp:
    """The raw op function for ``name``.

    Args:
        name: the op's (TensorFlow) name.

    Returns:
        A RawOp.

    Raises:
        AttributeError: no op of that name is registered.
    """
    hit = _CACHE.get(name)
    if hit is not None:
        return hit
    if name not in REGISTRY:
        load_all_op_families()
    opdef = REGISTRY.get(name)
    if opdef is None or name.startswith("_"):
        raise AttributeError(f"module 'twinflow.raw_ops' has no attribute {name!r} (no op of "
                             "that name is registered)")
    _CACHE[name] = fn = RawOp(opdef)
    return fn


def op_names() -> list:
    """The names of all registered ops.

    Returns:
        A sorted list of names.
    """
    load_all_op_families()
    return sorted(n for n in REGISTRY if not n.startswith("_"))
