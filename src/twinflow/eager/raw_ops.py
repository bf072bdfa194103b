"""``tw.raw_ops``: every registered op as a function of keyword arguments, by TensorFlow name.

``tw.raw_ops.MatMul(a=x, b=y, transpose_b=True)`` binds op ``MatMul`` directly (eagerly or into
the graph being built), with ``tf.raw_ops``' keywords. What is an input and what an attr comes
from the op's declaration: the positional parameters of its ``infer`` are inputs (named, in
order, by its schema's inputs), a ``*inputs`` parameter a list input, its keyword-only
parameters attrs (those of its schema when ``infer`` takes ``**attrs``). Keywords may use
TensorFlow's names where twinflow's differ (``Sum(input=..., axis=..., keep_dims=...)``, from
the schema's ``@`` names). Besides:

* an attr that TensorFlow passes as a tensor (an axis) may be given as one, if its value is
  known without running a graph (eager, or a constant);
* an attr twinflow's op requires but TensorFlow defaults takes TensorFlow's default
  (``graph/tf_defaults.py``); a TensorFlow attr twinflow implements only at its default
  (``use_cudnn_on_gpu``, a conv/pool op's ``data_format``) is accepted at that value;
* window attrs (``strides``, ``ksize``, ``dilations``, ``explicit_paddings``) are TensorFlow's
  per-dimension lists, as GraphDef import reads them (``graph_def.window_attrs``);
* a type attr that follows from the inputs (``T``) or is an output's dtype (``Complex``'s
  ``Tout``) may be given and must agree with them.

``inspect.signature(tw.raw_ops.Conv2D)`` lists the keywords with TensorFlow's names and
defaults.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError, UnimplementedError
from ..graph.graph_def import (
    TF_EXPLICIT_PADDINGS,
    TF_TYPE_FROM_OUTPUT,
    TF_WINDOW_ATTRS,
    window_attrs,
)
from ..graph.registry import _SAME_DTYPE, REGISTRY, load_all_op_families
from ..graph.schema import AttrSpec
from ..graph.tensor import Tensor
from ..graph.tf_defaults import TF_DEFAULTS, tf_only_attrs
from .execute import bind, constant_value, convert_to_tensor

_P = inspect.Parameter
_REQUIRED = _P.empty
_CACHE: dict = {}
# TensorFlow's default of a type attr that is an output's dtype (``TF_TYPE_FROM_OUTPUT``):
# shown by the signature; left out, twinflow's op returns the dtype that follows from its
# inputs (TensorFlow would refuse a float64 Complex without Tout=complex128).
_OUTPUT_TYPE_DEFAULTS = {
    "Complex": dtypes.complex64, "ComplexAbs": dtypes.float32, "Real": dtypes.float32,
    "Imag": dtypes.float32, **{f"RFFT{d}": dtypes.complex64 for d in ("", "2D", "3D")},
    **{f"IRFFT{d}": dtypes.float32 for d in ("", "2D", "3D")},
}
# Keywords of tf.raw_ops that rename the op definition's (TensorFlow's api_def): op -> {op
# definition's name: the keyword}. Both are accepted; the signature shows the keyword.
_PY_NAMES = {
    **{op: {"reduction_indices": "axis"} for op in (
        "All", "Any", "Max", "Mean", "Min", "Prod", "Sum")},
    "ExpandDims": {"dim": "axis"}, "Split": {"split_dim": "axis"},
    "SplitV": {"split_dim": "axis"}, "Squeeze": {"squeeze_dims": "axis"},
    "Where": {"input": "condition"},
}


class RawOp:
    """One op, called with keyword arguments only (as ``tf.raw_ops`` functions are)."""

    def __init__(self, opdef) -> None:
        self.opdef = opdef
        self.__name__ = name = opdef.name
        params = list(inspect.signature(opdef.infer).parameters.values())
        self._inputs = [p.name for p in params
                        if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)]
        self._positional_defaults = {p.name: p.default for p in params}
        var = [p.name for p in params if p.kind is _P.VAR_POSITIONAL]
        self._list = var[0] if var else None
        self._attrs = {p.name: p.default for p in params
                       if p.kind is _P.KEYWORD_ONLY and not p.name.startswith("_")}
        self._fill: set = set()  # attrs whose default ``__call__`` passes (``infer`` has none)
        self._alias: dict = {}   # any accepted name -> twinflow's name
        self._tf_name: dict = {}  # twinflow's name -> TensorFlow's
        self._derived: dict = {}  # a type attr read from an input: attr -> input name
        self._type_fill: dict = {}  # those of them ``infer`` requires: attr -> input name
        self._int_lists: set = set()  # list(int) attrs (given one int: a list of it)
        self._tf_only = tf_only_attrs(name)
        self._from_output = TF_TYPE_FROM_OUTPUT.get(name)  # (type attr, output index)
        if name in TF_EXPLICIT_PADDINGS:
            self._attrs["explicit_paddings"] = []
        schema = opdef.schema
        if schema is not None and schema.text != _SAME_DTYPE:
            self._read_schema(schema, any(p.kind is _P.VAR_KEYWORD for p in params))
        for attr, default in self._attrs.items():
            tf_default = TF_DEFAULTS.get((name, self._tf_name.get(attr, attr)), _REQUIRED)
            if default is _REQUIRED and tf_default is not _REQUIRED:
                self._attrs[attr] = tf_default
                self._fill.add(attr)
        self.__signature__ = self._signature()
        self.__doc__ = (opdef.doc or f"The {name} op.") + f"\n\nKeywords: {self.__signature__}."

    def _read_schema(self, schema, takes_attrs: bool) -> None:
        # Inputs by position (``infer``'s parameter names need not be the schema's); the
        # schema's attrs are the op's when ``infer`` takes ``**attrs``.
        positional = iter(self._inputs)
        for spec in schema.inputs:
            target = self._list if spec.variadic else next(positional, None)
            if target is None:
                continue
            self._alias[spec.tf_name] = self._alias[spec.name] = target
            self._tf_name[target] = spec.tf_name
            ta = spec.type_attr
            if ta and ta not in self._derived:
                # a type attr TensorFlow infers from this input (passed if ``infer`` takes it)
                self._derived[ta] = target
                if ta in self._attrs:
                    del self._attrs[ta]
                    self._type_fill[ta] = target
        renamed = _PY_NAMES.get(self.opdef.name, {})
        for target, tf_name in list(self._tf_name.items()):
            if tf_name in renamed:
                self._alias[renamed[tf_name]] = target
                self._tf_name[target] = renamed[tf_name]
        for leftover in list(positional):  # positional in ``infer`` but an attr of the schema
            if leftover in schema.attrs:
                self._inputs.remove(leftover)
                self._attrs[leftover] = self._positional_defaults[leftover]
        typed = {s.type_attr for s in schema.inputs}
        for a in schema.attrs.values():
            if takes_attrs and a.name not in self._attrs and a.name not in typed:
                required = a.default is AttrSpec.REQUIRED
                self._attrs[a.name] = _P.empty if required else a.default
                self._fill.add(a.name)
            self._alias[a.tf_name] = a.name
            self._tf_name[a.name] = a.tf_name
            if a.kind == "list(int)":
                self._int_lists.add(a.name)
            if a.tf_name in renamed:
                self._alias[renamed[a.tf_name]] = a.name
                self._tf_name[a.name] = renamed[a.tf_name]

    def _signature(self) -> inspect.Signature:
        # tf.raw_ops' form: required keywords first (inputs, then attrs), then the defaulted.
        def param(n, default=_P.empty):
            return _P(self._tf_name.get(n, n), _P.KEYWORD_ONLY, default=default)
        items = [param(i) for i in self._inputs] + ([param(self._list)] if self._list else [])
        attrs = [param(a, d) for a, d in self._attrs.items() if not a.startswith("_")]
        attrs += [_P(k, _P.KEYWORD_ONLY, default=v) for k, v in self._tf_only.items()]
        if self._from_output is not None:
            default = _OUTPUT_TYPE_DEFAULTS.get(self.opdef.name, _P.empty)
            attrs.append(_P(self._from_output[0], _P.KEYWORD_ONLY, default=default))
        items += [p for p in attrs if p.default is _P.empty]
        items += [p for p in attrs if p.default is not _P.empty]
        items.append(_P("name", _P.KEYWORD_ONLY, default=None))
        unique = {}
        for p in items:  # (an attr may share an input's TensorFlow name: the input wins)
            unique.setdefault(p.name, p)
        return inspect.Signature(list(unique.values()))

    def __repr__(self) -> str:
        return f"<tw.raw_ops.{self.opdef.name}>"

    def __call__(self, *args, **kwargs):
        op = self.opdef.name
        if args:
            raise TypeError(f"raw_ops.{op}: raw_ops functions must be called with "
                            "keyword arguments")
        name = kwargs.pop("name", None)
        inputs: dict = {}
        attrs: dict = {}
        derived: dict = {}
        out_dtype = None
        listed = None
        for key, value in kwargs.items():
            k = self._alias.get(key, key)
            if k in self._inputs:
                inputs[k] = value if isinstance(value, Tensor) else convert_to_tensor(value)
            elif k == self._list:
                listed = [v if isinstance(v, Tensor) else convert_to_tensor(v) for v in value]
            elif k in self._attrs:
                attrs[k] = self._attr_value(k, key, value)
            elif k in self._derived:
                derived[k] = dtypes.as_dtype(value)
            elif key in self._tf_only:
                self._check_tf_only(key, value)
            elif self._from_output is not None and key == self._from_output[0]:
                out_dtype = dtypes.as_dtype(value)
            else:
                raise TypeError(f"raw_ops.{op} got an unexpected keyword argument {key!r} "
                                f"(it takes {self._keywords()})")
        missing = [self._tf_name.get(i, i) for i in self._inputs if i not in inputs]
        missing += [self._tf_name.get(a, a) for a, d in self._attrs.items()
                    if d is _REQUIRED and a not in attrs]
        if self._list is not None and listed is None:
            missing.append(self._tf_name.get(self._list, self._list))
        if missing:
            raise TypeError(f"raw_ops.{op} missing required argument(s): "
                            f"{', '.join(missing)} (it takes {self._keywords()})")
        for a in self._fill:
            if a not in attrs:
                attrs[a] = _attr_value(self._attrs[a])
        for a, src in self._type_fill.items():
            t = inputs[src] if src in inputs else listed[0] if listed else None
            if a in derived or t is not None:
                attrs[a] = derived[a] if a in derived else t.dtype
        self._tf_forms(attrs)
        ordered = [inputs[i] for i in self._inputs] + (listed or [])
        for attr, value in derived.items():
            src = self._derived[attr]
            t = inputs.get(src)
            if t is None and listed:
                t = listed[0]
            if t is not None and t.dtype != value:
                raise TypeError(f"raw_ops.{op}: {attr}={value.name} does not match input "
                                f"{self._tf_name.get(src, src)!r} of dtype {t.dtype.name}")
        out = bind(self.opdef, ordered, attrs, name=name)
        if out_dtype is not None:
            got = (out if isinstance(out, Tensor) else out[self._from_output[1]]).dtype
            if got != out_dtype:
                raise TypeError(f"raw_ops.{op}: {self._from_output[0]}={out_dtype.name}, but "
                                f"twinflow's {op} of these inputs returns {got.name}")
        return out

    def _keywords(self) -> str:
        return ", ".join(p for p in self.__signature__.parameters if p != "name")

    def _attr_value(self, attr: str, key: str, value):
        if isinstance(value, Tensor):  # (an input in TensorFlow: an axis, a block shape)
            known = constant_value(value)
            if known is None:
                raise UnimplementedError(
                    None, None, f"raw_ops.{self.opdef.name}: {key} must be known when the "
                    "graph is built (twinflow's op takes it as an attr), got a tensor "
                    f"computed in the graph: {value}")
            value = known
        value = _attr_value(value)
        if attr in self._int_lists and isinstance(value, int):
            return (value,)  # (TensorFlow's axes input may be a scalar)
        return value

    def _check_tf_only(self, key: str, value) -> None:
        default = self._tf_only[key]
        v = value.decode() if isinstance(value, bytes) else value
        if isinstance(default, dtypes.DType):
            v = dtypes.as_dtype(v)
        if v != default:
            raise UnimplementedError(
                None, None, f"raw_ops.{self.opdef.name}: {key}={value!r} is not supported: "
                f"twinflow's {self.opdef.name} implements only {key}={default!r}")

    def _tf_forms(self, attrs: dict) -> None:
        # TensorFlow's per-dimension window lists -> twinflow's per-spatial-dimension ones.
        op = self.opdef.name
        if op not in TF_WINDOW_ATTRS:
            return
        dims = 5 if "3D" in op else 4
        for k in TF_WINDOW_ATTRS[op]:
            v = attrs.get(k)
            if v is not None and (not isinstance(v, tuple) or len(v) != dims):
                raise InvalidArgumentError(None, None, f"raw_ops.{op}: {k} must list {dims} "
                                           f"values, one per dimension of the input, got {v!r}")
        if op in TF_EXPLICIT_PADDINGS:
            pads = attrs.pop("explicit_paddings", None) or ()  # TensorFlow's default: none
            explicit = attrs.get("padding") in ("EXPLICIT", b"EXPLICIT")
            if explicit != bool(pads) or pads and len(pads) != 2 * dims:
                raise InvalidArgumentError(
                    None, None, f"raw_ops.{op}: explicit_paddings must list {2 * dims} values "
                    f"(before and after, per dimension) with padding='EXPLICIT' and be empty "
                    f"otherwise, got {list(pads)} with padding={attrs.get('padding')!r}")
            if pads:
                attrs["explicit_paddings"] = pads
        window_attrs(op, attrs, to_tf=False)


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
