"""Op schemas: what an op accepts, declared once and checked by one validator in both modes.

A schema is written in the notation of TensorFlow's op definitions (``tf-2.21-ops.txt``)::

    "a:T, b:T -> product:T | T:type in [half,float,double,int32,int64,complex64,complex128];
     transpose_a:bool=False; transpose_b:bool=False"

* inputs ``name:T`` (dtype from type attr ``T``; inputs naming the same attr share one dtype),
  ``name:int32`` (a fixed dtype), ``name:N*T`` (any number of inputs sharing ``T``) or
  ``name:any`` (not checked), ``name:Tlist`` (any number of inputs, each of its own dtype,
  listed by the ``list(type)`` attr ``Tlist``: a queue's ``components:Tcomponents``);
* outputs, the same way (documentation and export);
* attrs ``name:kind[?][=default] [constraints]``: kinds ``type int float bool string shape
  list(int) list(float) list(type) tensor func any``; ``?`` also allows None. Constraints:
  ``in [A,B]`` (allowed values or dtypes), ``>=N`` (TensorFlow's minimum: the value of an int,
  the length of a list), and twinflow's ``each>=N`` (every element of a list), ``axis(x)`` /
  ``axis(x)+1`` (an axis, or list of axes, of input ``x``, whose rank plus 1 bounds it: for
  ``ExpandDims``). A ``list(int)`` attr also takes one int.
* ``name@tf_name`` records TensorFlow's name where twinflow's differs (``keepdims@keep_dims``):
  export reads ``tf_name``.

Twinflow's inputs and attrs are not always TensorFlow's (an axis is a Python attr here, an input
there); the schema describes twinflow's op with TensorFlow's names where they exist.

``graph/validator.py`` builds from a schema, once per op, the check ``bind`` runs before the
kernel (eager) or before ``infer`` (graph): the same error class and message in both modes.
Shapes are ``infer``'s business; attrs and dtypes are the schema's. ``graph/checks.py`` holds
the checks every op shares (the one axis normaliser, dtype-match check and kernel-error
wrapper).
"""
from __future__ import annotations

import ast
import re

from ..core import dtypes

__all__ = ["OpSchema", "InputSpec", "AttrSpec", "parse_schema", "same_dtype_schema",
           "allowed_np_dtypes"]

# TensorFlow's op definitions name some dtypes differently from the Python API.
_TF_DTYPE_NAMES = {"float": "float32", "double": "float64", "half": "float16"}
_ATTR_KINDS = ("type", "int", "float", "bool", "string", "shape", "list(int)", "list(float)",
               "list(type)", "list(shape)", "list(string)", "tensor", "func", "any")


class InputSpec:
    """One input (or output) of a schema.

    Attributes:
        name: twinflow's name.
        tf_name: TensorFlow's name.
        type_attr: the type attr its dtype comes from (``T``), or None.
        fixed: a fixed DType, or None.
        variadic: ``N*T``: any number of inputs.
    """

    __slots__ = ("name", "tf_name", "type_attr", "fixed", "variadic")

    def __init__(self, name: str, tf_name: str, type_attr: str | None, fixed, variadic: bool):
        self.name, self.tf_name, self.type_attr = name, tf_name, type_attr
        self.fixed, self.variadic = fixed, variadic

    def __repr__(self) -> str:
        return f"InputSpec({self.name}:{'N*' if self.variadic else ''}" \
               f"{self.type_attr or (self.fixed.name if self.fixed else 'any')})"


class AttrSpec:
    """One attr of a schema (see the module docstring for the notation).

    Attributes:
        name, tf_name: twinflow's and TensorFlow's names.
        kind: one of ``type int float bool string shape list(...) tensor func any``.
        optional: None is allowed.
        default: the default (as written), or ``AttrSpec.REQUIRED``.
        allowed: the allowed values (DTypes for ``type``), or None.
        minimum: an int's minimum, a list's minimum length, or None.
        each_min: every element's minimum (lists), or None.
        axis_of: the input whose rank bounds this axis attr, or None; ``axis_extra`` is added
            to that rank.
    """

    REQUIRED = object()
    __slots__ = ("name", "tf_name", "kind", "optional", "default", "allowed", "minimum",
                 "each_min", "axis_of", "axis_extra")

    def __init__(self, name: str, tf_name: str, kind: str) -> None:
        self.name, self.tf_name, self.kind = name, tf_name, kind
        self.optional = False
        self.default = AttrSpec.REQUIRED
        self.allowed = self.minimum = self.each_min = self.axis_of = None
        self.axis_extra = 0

    def __repr__(self) -> str:
        return f"AttrSpec({self.name}:{self.kind})"


class OpSchema:
    """A parsed schema: inputs, outputs and attrs (see the module docstring).

    Attributes:
        text: the schema as written.
        inputs, outputs: InputSpecs.
        attrs: AttrSpecs by twinflow name (type attrs included).
        check_shapes: run ``infer`` eagerly too (for ops whose kernel accepts shapes ``infer``
            refuses, so that eager and graph refuse the same calls).
    """

    __slots__ = ("text", "inputs", "outputs", "attrs", "check_shapes")

    def __init__(self, text: str, inputs: list, outputs: list, attrs: dict,
                 check_shapes: bool = False) -> None:
        self.text, self.inputs, self.outputs, self.attrs = text, inputs, outputs, attrs
        self.check_shapes = check_shapes

    def __repr__(self) -> str:
        return f"OpSchema({self.text!r})"


def _as_dtype_name(name: str):
    return dtypes.as_dtype(_TF_DTYPE_NAMES.get(name, name))


def _split_names(token: str) -> tuple[str, str]:
    name, _, tf_name = token.strip().partition("@")
    return name, tf_name or name


def _parse_io(text: str, type_attrs: set, list_type_attrs: set) -> list:
    specs = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        names, _, kind = item.partition(":")
        name, tf_name = _split_names(names)
        kind = kind.strip()
        variadic = kind.startswith("N*")
        if variadic:
            kind = kind[2:]
        if kind in list_type_attrs:  # TensorFlow's ``components:Tcomponents``
            specs.append(InputSpec(name, tf_name, kind, None, True))
        elif kind in type_attrs:
            specs.append(InputSpec(name, tf_name, kind, None, variadic))
        elif kind == "any":
            specs.append(InputSpec(name, tf_name, None, None, variadic))
        else:
            specs.append(InputSpec(name, tf_name, None, _as_dtype_name(kind), variadic))
    return specs


_CONSTRAINT = re.compile(r"\s*(?:in\s*\[(?P<allowed>[^\]]*)\]|each>=(?P<each>-?\d+)|"
                         r">=(?P<min>-?\d+)|axis\((?P<axis>\w+)\)(?P<extra>\+1)?)")


def _parse_attr(item: str, input_names: list) -> AttrSpec:
    names, _, rest = item.partition(":")
    name, tf_name = _split_names(names)
    rest = rest.strip()
    m = re.match(r"(list\(\w+\)|\w+)(\?)?(?:=(\S+))?", rest)
    if m is None or m.group(1) not in _ATTR_KINDS:
        raise ValueError(f"schema attr {item!r}: unknown kind")
    spec = AttrSpec(name, tf_name, m.group(1))
    spec.optional = bool(m.group(2))
    if m.group(3) is not None:
        try:
            spec.default = ast.literal_eval(m.group(3))
        except (ValueError, SyntaxError):
            spec.default = m.group(3)
        if spec.kind == "type" and isinstance(spec.default, str):
            spec.default = _as_dtype_name(spec.default)
    rest = rest[m.end():]
    while rest.strip():
        c = _CONSTRAINT.match(rest)
        if c is None:
            raise ValueError(f"schema attr {item!r}: cannot read {rest.strip()!r}")
        rest = rest[c.end():]
        if c.group("allowed") is not None:
            vals = [v.strip().strip("'\"") for v in c.group("allowed").split(",")]
            spec.allowed = (frozenset(_as_dtype_name(v) for v in vals) if "type" in spec.kind
                            else frozenset(vals))
        elif c.group("each") is not None:
            spec.each_min = int(c.group("each"))
        elif c.group("min") is not None:
            spec.minimum = int(c.group("min"))
        else:
            if c.group("axis") not in input_names:
                raise ValueError(f"schema attr {item!r}: no input {c.group('axis')!r}")
            spec.axis_of = input_names.index(c.group("axis"))
            spec.axis_extra = 1 if c.group("extra") else 0
    return spec


def parse_schema(text: str, check_shapes: bool = False) -> OpSchema:
    """Parses a schema written as in TensorFlow's op definitions (module docstring).

    Args:
        text: ``"inputs -> outputs | attrs"`` (the ``| attrs`` part may be left out).
        check_shapes: also run ``infer`` in eager mode (see OpSchema).

    Returns:
        The OpSchema.
    """
    sig, _, attr_text = text.partition("|")
    ins, arrow, outs = sig.partition("->")
    if not arrow:
        raise ValueError(f"schema {text!r}: expected 'inputs -> outputs | attrs'")
    items = [s.strip() for s in attr_text.split(";") if s.strip()]
    type_attrs = {_split_names(s.partition(":")[0])[0] for s in items
                  if s.partition(":")[2].strip().startswith("type")}
    list_type_attrs = {_split_names(s.partition(":")[0])[0] for s in items
                       if s.partition(":")[2].strip().startswith("list(type)")}
    inputs = _parse_io(ins, type_attrs, list_type_attrs)
    outputs = _parse_io(outs, type_attrs, list_type_attrs)
    attrs = {}
    for item in items:
        spec = _parse_attr(item, [i.name for i in inputs])
        attrs[spec.name] = spec
    if sum(i.variadic for i in inputs) > 1:
        raise ValueError(f"schema {text!r}: at most one variadic input")
    return OpSchema(" ".join(text.split()), inputs, outputs, attrs, check_shapes)


def allowed_np_dtypes(schema: OpSchema) -> frozenset | None:
    """The NumPy dtypes an op whose inputs all share one type attr takes (``AddV2``, ``MatMul``),
    for eager fast paths that skip ``validate`` once they have checked that the inputs share a
    dtype in this set and have no attrs to check; None: any dtype; an empty set: always call
    ``validate`` (the inputs do not share one type attr)."""
    tas = {s.type_attr for s in schema.inputs}
    if len(tas) != 1 or None in tas or any(s.fixed for s in schema.inputs):
        return frozenset()
    allowed = schema.attrs[tas.pop()].allowed
    # The ml_dtypes types are left out (they always take ``validate``): their NumPy dtypes
    # exist only once ml_dtypes is loaded, and registration must not load it.
    return None if allowed is None else frozenset(
        d.np for d in allowed if d.kind not in "Oq" and d not in dtypes.ML_DTYPES)


def same_dtype_schema(name: str) -> OpSchema:
    """The schema ``same_dtype=True`` stands for: every input of one (any) dtype."""
    return parse_schema("xs:N*T -> y:any | T:type")
