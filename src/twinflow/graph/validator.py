"""The validator of an op: Python source generated from its schema (``graph/schema.py``) and
compiled once at registration, run by ``bind`` in eager and graph mode."""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from .checks import _is_int, _not_allowed, dtype_mismatch_error, normalize_axis
from .schema import AttrSpec, OpSchema

__all__ = ["validator"]


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
    if ta is None or schema.attrs[ta].kind != "type":
        return []  # a list(type) attr: each input has its own dtype
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
