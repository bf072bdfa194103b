"""Op schemas: what an op accepts, declared once and checked by one validator in both modes.

A schema is written in the notation of TensorFlow's op definitions (``tf-2.21-ops.txt``)::

    "a:T, b:T -> product:T | T:type in [half,float,double,int32,int64,complex64,complex128];
     transpose_a:bool=False; transpose_b:bool=False"

* inputs ``name:T`` (dtype from type attr ``T``; inputs naming the same attr share one dtype),
  ``name:int32`` (a fixed dtype), ``name:N*T`` (any number of inputs sharing ``T``) or
  ``name:any`` (not checked);
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

``validator(schema, op_name)`` builds, once per op, the check ``bind`` runs before the kernel
(eager) or before ``infer`` (graph): the same error class and message in both modes. Shapes
are ``infer``'s business; attrs and dtypes are the schema's.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Callable

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError, OpError, ResourceExhaustedError

__all__ = ["OpSchema", "InputSpec", "AttrSpec", "parse_schema", "validator",
           "normalize_axis", "check_dtypes_match", "dtype_mismatch_error", "KERNEL_ERRORS",
           "kernel_error", "shape_error"]

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


def _parse_io(text: str, type_attrs: set) -> list:
    specs = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        names, _, kind = item.partition(":")
        name, tf_name = _split_names(names)
        kind = kind.strip()
        variadic = kind.startswith("N*")
        if variadic:
            kind = kind[2:]
        if kind in type_attrs:
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
    inputs = _parse_io(ins, type_attrs)
    outputs = _parse_io(outs, type_attrs)
    attrs = {}
    for item in items:
        spec = _parse_attr(item, [i.name for i in inputs])
        attrs[spec.name] = spec
    if sum(i.variadic for i in inputs) > 1:
        raise ValueError(f"schema {text!r}: at most one variadic input")
    return OpSchema(" ".join(text.split()), inputs, outputs, attrs, check_shapes)


# ---------------------------------------------------------------------------------------------
# The shared checks: one axis normaliser, one dtype-match check, one kernel-error wrapper.

def _op_suffix(op_name: str | None) -> str:
    """`` [Op:Name]`` for an op type name (``ConcatV2``); nothing for a function name."""
    return f" [Op:{op_name}]" if op_name and op_name[0].isupper() else ""


def _fn_prefix(op_name: str | None) -> str:
    """``name: `` for a function name (``concat``); nothing for an op type name."""
    return f"{op_name}: " if op_name and not op_name[0].isupper() else ""


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def normalize_axis(axis, rank: int | None, op_name: str | None, *, what: str = "axis",
                   extra: int = 0):
    """Checks and normalises an axis (an int) or axes (a list, tuple or 1-D array of ints).

    Args:
        axis: the axis or axes.
        rank: the rank of the tensor it indexes, or None when unknown (no range check).
        op_name: the op, named in the error ([Op:Name] suffix); None to leave it out.
        what: the argument's name in messages.
        extra: added to ``rank`` for the range (1 for ExpandDims: a new axis may follow).

    Returns:
        A non-negative int, or a tuple of them, in the form given (unchanged when rank is None).

    Raises:
        TypeError: a float, bool, string or other non-integer axis (as TensorFlow).
        InvalidArgumentError: an axis outside ``[-(rank + extra), rank + extra)``.
    """
    if isinstance(axis, np.ndarray) and axis.ndim == 0:
        axis = axis.item() if axis.dtype.kind in "iu" else axis
    single = not isinstance(axis, (list, tuple, np.ndarray))
    axes = [axis] if single else list(np.asarray(axis).reshape(-1).tolist()
                                      if isinstance(axis, np.ndarray) else axis)
    for a in axes:
        if not _is_int(a):
            raise TypeError(f"{_fn_prefix(op_name)}{what} must be an int or a list of ints, got "
                            f"{a!r} of type "
                            f"{type(a).__name__}{_op_suffix(op_name)}")
    if rank is None:
        return int(axes[0]) if single else tuple(int(a) for a in axes)
    r = rank + extra
    out = []
    for a in axes:
        if not -r <= a < r:
            raise InvalidArgumentError(
                None, None, f"{_fn_prefix(op_name)}{what} {int(a)} is out of range for an input "
                f"with {rank} dimensions: "
                f"expected {what} in [{-r}, {r}){_op_suffix(op_name)}")
        out.append(int(a) % r if r else int(a))
    return out[0] if single else tuple(out)


def dtype_mismatch_error(op_name: str, tensors, index: int, expected) -> InvalidArgumentError:
    """TensorFlow's error for input ``index`` of ``op_name`` not having dtype ``expected``.

    Args:
        op_name: the op.
        tensors: all of its inputs (their dtypes are listed).
        index: the offending input (zero-based).
        expected: the DType it should have had.

    Returns:
        The InvalidArgumentError (to raise).
    """
    got = tensors[index].dtype
    return InvalidArgumentError(
        None, None, f"cannot compute {op_name} as input #{index}(zero-based) was expected to be "
        f"a {expected.name} tensor but is a {got.name} tensor (dtypes "
        f"{[t.dtype.name for t in tensors]}; twinflow, like TensorFlow, does not promote "
        f"dtypes: use tw.cast) [Op:{op_name}]")


def check_dtypes_match(op_name: str, tensors, indices=None) -> None:
    """Raises TensorFlow's error unless ``tensors`` (or those at ``indices``) share one dtype.

    Args:
        op_name: the op, named in the error.
        tensors: the op's inputs (eager or symbolic tensors).
        indices: the positions that must match (default: all).
    """
    idx = range(len(tensors)) if indices is None else indices
    first = None
    for i in idx:
        d = tensors[i].dtype
        if first is None:
            first = d
        elif d is not first:
            raise dtype_mismatch_error(op_name, tensors, i, first)


def _not_allowed(op_name: str, attr: str, value: str, allowed) -> InvalidArgumentError:
    names = ", ".join(sorted(str(getattr(a, "name", a)) for a in allowed))
    return InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of {value} is not in the list of allowed values: "
        f"{names}{_op_suffix(op_name)}")


# ---------------------------------------------------------------------------------------------
# The validator.

def _check_int(op: str, spec: AttrSpec, v) -> None:
    if not _is_int(v) and not (isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iu"):
        raise TypeError(f"Value for attr '{spec.name}' must be an int, got {v!r} of type "
                        f"{type(v).__name__} [Op:{op}]")
    if spec.minimum is not None and v < spec.minimum:
        raise InvalidArgumentError(None, None, f"Value for attr '{spec.name}' of {int(v)} must "
                                               f"be at least minimum {spec.minimum} [Op:{op}]")


def _check_list(op: str, spec: AttrSpec, v) -> None:
    elems = [v] if _is_int(v) and spec.kind == "list(int)" else v
    if not isinstance(elems, (list, tuple, np.ndarray)):
        raise TypeError(f"Value for attr '{spec.name}' must be a list, got {v!r} of type "
                        f"{type(v).__name__} [Op:{op}]")
    elems = list(np.asarray(elems).reshape(-1)) if isinstance(elems, np.ndarray) else elems
    for e in elems:
        if spec.kind == "list(int)" and not _is_int(e) or spec.kind == "list(float)" and (
                not isinstance(e, (int, float, np.integer, np.floating)) or
                isinstance(e, bool)):
            raise TypeError(f"Value for attr '{spec.name}' must be a {spec.kind}, got {v!r} "
                            f"(element {e!r} of type {type(e).__name__}) [Op:{op}]")
    if spec.minimum is not None and len(elems) < spec.minimum:
        raise InvalidArgumentError(None, None, f"Attr '{spec.name}' of '{op}' Op with length "
                                               f"{len(elems)} shorter than minimum length "
                                               f"{spec.minimum} [Op:{op}]")
    if spec.each_min is not None and any(e < spec.each_min for e in elems):
        raise InvalidArgumentError(None, None, f"Value for attr '{spec.name}' of {list(elems)} "
                                               f"must have every element >= {spec.each_min} "
                                               f"[Op:{op}]")


def _check_scalar(op: str, spec: AttrSpec, v) -> None:
    k = spec.kind
    if k == "bool":
        ok = isinstance(v, (bool, np.bool_))
    elif k == "float":
        ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    elif k == "string":
        ok = isinstance(v, (str, bytes))
    else:  # type
        ok = isinstance(v, dtypes.DType)
    if not ok:
        raise TypeError(f"Value for attr '{spec.name}' must be a {k}, got {v!r} of type "
                        f"{type(v).__name__} [Op:{op}]")
    if spec.allowed is not None and v not in spec.allowed:
        shown = v.name if k == "type" else repr(v)
        raise _not_allowed(op, spec.name, shown, spec.allowed)
    if spec.minimum is not None and v < spec.minimum:
        raise InvalidArgumentError(None, None, f"Value for attr '{spec.name}' of {v} must be at "
                                               f"least minimum {spec.minimum} [Op:{op}]")


def _attr_checker(op: str, spec: AttrSpec) -> Callable | None:
    """The check of one attr's value, or None if the schema says nothing checkable."""
    if spec.axis_of is not None:
        idx, extra = spec.axis_of, spec.axis_extra

        def check_axis(v, inputs):
            if v is None and spec.optional:
                return
            rank = inputs[idx].shape.rank if idx < len(inputs) else None
            normalize_axis(v, rank, op, what=spec.name, extra=extra)
        return check_axis
    k = spec.kind
    if k == "int":
        fn = _check_int
    elif k in ("list(int)", "list(float)"):
        fn = _check_list
    elif k in ("bool", "float", "string", "type"):
        fn = _check_scalar
    else:
        return None

    def check(v, inputs):
        if v is None and spec.optional:
            return
        fn(op, spec, v)
    return check


def _rank(t) -> int | None:
    try:
        return t._value.ndim  # an eager tensor: its array's rank, without a TensorShape
    except AttributeError:
        return t.shape.rank


def _axes_ok(v, t, extra: int) -> bool:
    """Whether ``v`` is surely a valid axis (int) or tuple of axes of tensor ``t``."""
    r = _rank(t)
    if r is None:
        return False
    r += extra
    if type(v) is int:
        return -r <= v < r
    if type(v) is not tuple:
        return False
    for a in v:
        if type(a) is not int or not -r <= a < r:
            return False
    return True


def _ints_ok(v, each_min: int | None, min_len: int | None) -> bool:
    """Whether ``v`` is surely a valid list(int) attr value."""
    if type(v) is not tuple and type(v) is not list:
        return False
    if min_len is not None and len(v) < min_len:
        return False
    for a in v:
        if type(a) is not int or each_min is not None and a < each_min:
            return False
    return True


def _first_dtype(op: str, inputs, i: int, d, first, attr: str, allowed):
    """Input ``i`` of dtype ``d`` for type attr ``attr`` (seen so far as ``first``, or None)."""
    if first is None:
        if allowed is not None and d not in allowed:
            raise _not_allowed(op, attr, d.name, allowed)
        return d
    raise dtype_mismatch_error(op, inputs, i, first)


def _dtype_lines(schema: OpSchema, env: dict) -> list:
    """Source lines checking the input dtypes (names in ``env``)."""
    specs = schema.inputs
    var = next((k for k, s in enumerate(specs) if s.variadic), None)
    n_after = 0 if var is None else len(specs) - var - 1
    lines, seen = [], set()
    for ta, spec in schema.attrs.items():
        if spec.kind == "type":
            env[f"A_{ta}"] = spec.allowed
            # DType hashes by name in Python: compare their enum values (ints) instead
            env[f"E_{ta}"] = None if spec.allowed is None else frozenset(
                d._enum for d in spec.allowed)
    statically_first = {s.type_attr for s in (specs if var is None else specs[:var])}
    lines += [f"    T_{ta} = None" for ta in sorted({s.type_attr for s in specs} - {None}
                                                    - statically_first)]
    for k, spec in enumerate(specs):
        if spec.variadic:
            lines += _variadic_lines(schema, k, n_after, seen, env)
            continue
        idx = f"len(inputs) - {len(specs) - k}" if var is not None and k > var else str(k)
        if spec.fixed is not None:
            env[f"F{k}"] = spec.fixed
            lines.append(f"    if inputs[{idx}].dtype is not F{k}: "
                         f"raise _mismatch(OP, inputs, {idx}, F{k})")
        elif spec.type_attr is not None:
            ta = spec.type_attr
            if ta not in seen and ta in statically_first:
                lines.append(f"    T_{ta} = inputs[{idx}].dtype")
                if schema.attrs[ta].allowed is not None:
                    lines.append(f"    if T_{ta}._enum not in E_{ta}: "
                                 f"raise _not_allowed(OP, {ta!r}, T_{ta}.name, A_{ta})")
            else:
                lines += [f"    d = inputs[{idx}].dtype",
                          f"    if d is not T_{ta}: T_{ta} = _first_dtype(OP, inputs, {idx}, d, "
                          f"T_{ta}, {ta!r}, A_{ta})"]
            seen.add(ta)
    return lines


def _variadic_lines(schema: OpSchema, k: int, n_after: int, seen: set, env: dict) -> list:
    """Source lines checking the variadic input (at ``k``) of a schema."""
    spec = schema.inputs[k]
    end = f"len(inputs) - {n_after}" if n_after else "len(inputs)"
    if spec.fixed is not None:
        env[f"F{k}"] = spec.fixed
        return [f"    for i in range({k}, {end}):",
                f"        if inputs[i].dtype is not F{k}: raise _mismatch(OP, inputs, i, F{k})"]
    ta = spec.type_attr
    if ta is None:
        return []
    lines = []
    start = k
    if ta not in seen:  # the first of them sets the type attr
        lines += [f"    if {end} > {k}:", f"        T_{ta} = inputs[{k}].dtype"]
        if schema.attrs[ta].allowed is not None:
            lines.append(f"        if T_{ta}._enum not in E_{ta}: "
                         f"raise _not_allowed(OP, {ta!r}, T_{ta}.name, A_{ta})")
        start = k + 1
        seen.add(ta)
    return lines + [f"    for i in range({start}, {end}):",
                    "        d = inputs[i].dtype",
                    f"        if d is not T_{ta}: T_{ta} = _first_dtype(OP, inputs, i, d, T_{ta}, "
                    f"{ta!r}, A_{ta})"]


def _fast_test(spec: AttrSpec, name: str) -> str:
    """A Python expression true when attr value ``v`` is surely fine (else the full check)."""
    k = spec.kind
    if spec.axis_of is not None:
        none = "v is None or " if spec.optional else ""
        return f"{none}_axes_ok(v, inputs[{spec.axis_of}], {spec.axis_extra})"
    minimum = "" if spec.minimum is None else f" and v >= {spec.minimum}"
    if k == "bool":
        return "v is True or v is False"
    if k == "int":
        return f"type(v) is int{minimum}"
    if k == "list(int)":
        return f"_ints_ok(v, {spec.each_min}, {spec.minimum})"
    if k == "float":
        return f"type(v) is float{minimum}"
    if k == "string":
        return f"v in S_{name}" if spec.allowed is not None else "type(v) is str"
    if k == "type":
        return (f"type(v) is DType and v._enum in S_{name}" if spec.allowed is not None
                else "type(v) is DType")
    return "False"


def validator(schema: OpSchema, op_name: str) -> Callable | None:
    """The one check ``bind`` runs for an op, built once at registration.

    The check is generated as Python source specialised to the schema (dtype comparisons and
    attr tests inline), so that the eager hot path pays ~0.1-0.3 us for it; a value the inline
    test does not pass goes through the full check, which raises the error.

    Args:
        schema: the op's schema.
        op_name: the op's name (for messages).

    Returns:
        ``validate(inputs, attrs)``, raising TypeError or InvalidArgumentError (messages end
        in ``[Op:Name]``), or None when the schema has nothing to check.
    """
    env = {"OP": op_name, "_M": AttrSpec.REQUIRED, "_mismatch": dtype_mismatch_error,
           "_not_allowed": _not_allowed, "_first_dtype": _first_dtype, "_axes_ok": _axes_ok,
           "_ints_ok": _ints_ok, "DType": dtypes.DType}
    lines = _dtype_lines(schema, env)
    if not any("inputs[" in ln for ln in lines):
        lines = []
    n_required = max([sum(not s.variadic for s in schema.inputs)] + [
        a.axis_of + 1 for a in schema.attrs.values() if a.axis_of is not None])
    for name, spec in schema.attrs.items():
        slow = _attr_checker(op_name, spec)
        if slow is None or spec.kind == "type" and name in {
                s.type_attr for s in schema.inputs}:
            continue
        ident = re.sub(r"\W", "_", name)
        env[f"C_{ident}"] = slow
        if spec.allowed is not None:
            env[f"S_{ident}"] = spec.allowed if spec.kind != "type" else frozenset(
                d._enum for d in spec.allowed)
        lines += [f"    v = attrs.get({name!r}, _M)",
                  f"    if v is not _M and not ({_fast_test(spec, ident)}): C_{ident}(v, inputs)"]
    if not lines:
        return None
    guard = f"    if len(inputs) < {n_required}: return\n" if n_required else ""
    src = "def validate(inputs, attrs):\n" + guard + "\n".join(lines) + "\n"
    exec(compile(src, f"<schema of {op_name}>", "exec"), env)  # noqa: S102  (our own source)
    validate = env["validate"]
    validate.source = src
    return validate


def allowed_np_dtypes(schema: OpSchema) -> frozenset | None:
    """The NumPy dtypes an op whose inputs all share one type attr takes (``AddV2``, ``MatMul``),
    for eager fast paths that skip ``validate`` once they have checked that the inputs share a
    dtype in this set and have no attrs to check; None: any dtype; an empty set: always call
    ``validate`` (the inputs do not share one type attr)."""
    tas = {s.type_attr for s in schema.inputs}
    if len(tas) != 1 or None in tas or any(s.fixed for s in schema.inputs):
        return frozenset()
    allowed = schema.attrs[tas.pop()].allowed
    return None if allowed is None else frozenset(d.np for d in allowed if d.np.kind != "O")


def same_dtype_schema(name: str) -> OpSchema:
    """The schema ``same_dtype=True`` stands for: every input of one (any) dtype."""
    return parse_schema("xs:N*T -> y:any | T:type")


# ---------------------------------------------------------------------------------------------
# Kernel errors.

# What a kernel may raise on bad input: re-raised as InvalidArgumentError naming the op (by
# ``bind`` eagerly and by compiled graphs).
KERNEL_ERRORS = (OpError, TypeError, ValueError, IndexError, ArithmeticError,
                 np.linalg.LinAlgError, AttributeError, KeyError, MemoryError)


def shape_error(op_name: str, e: Exception) -> OpError:
    """The error for ``infer`` of ``op_name`` refusing its inputs with ``e``: the same class
    (InvalidArgumentError unless ``e`` is another OpError) and message in both modes.

    Args:
        op_name: the op.
        e: what ``infer`` raised.

    Returns:
        The error, its message ending in ``[Op:op_name]``.
    """
    msg = str(e)
    if "[Op:" not in msg:
        msg = f"{msg} [Op:{op_name}]"
    cls = type(e) if isinstance(e, OpError) else InvalidArgumentError
    try:
        return cls(None, None, msg)
    except TypeError:
        return InvalidArgumentError(None, None, msg)


def _describe_inputs(inputs) -> str:
    return ", ".join(f"{t.dtype.name}{list(t.shape.as_tuple() or ())}" for t in inputs)


def kernel_error(opdef, inputs, attrs: dict, e: Exception) -> Exception:
    """The error to raise for ``e``, raised by ``opdef``'s kernel on ``inputs``.

    The op's ``infer`` is asked first: it usually explains the problem better than NumPy.

    Args:
        opdef: the op.
        inputs: its input tensors (with ``.dtype`` and ``.shape``).
        attrs: its attrs.
        e: what the kernel raised.

    Returns:
        An OpError (``e`` itself when it already names its op) naming the op, inputs and attrs.
    """
    if isinstance(e, OpError) and "[Op:" in str(e):
        return e
    if isinstance(e, MemoryError):
        return ResourceExhaustedError(None, None, f"OOM in {opdef.name} on inputs "
                                                  f"({_describe_inputs(inputs)}): {e} "
                                                  f"[Op:{opdef.name}]")
    try:
        opdef.infer(*inputs, **attrs)
    except (ValueError, TypeError) as rule_error:  # InvalidArgumentError is a ValueError
        return shape_error(opdef.name, rule_error)
    if isinstance(e, OpError):  # a kernel's own error: its class and message stand
        return shape_error(opdef.name, e)
    shown = {k: v for k, v in attrs.items() if not isinstance(v, np.ndarray)}
    return InvalidArgumentError(
        None, None, f"{opdef.name} failed on inputs ({_describe_inputs(inputs)})"
        f"{' with ' + repr(shown) if shown else ''}: {e} [Op:{opdef.name}]")
