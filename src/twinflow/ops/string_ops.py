"""String ops (``tw.strings``): length, case, join, regex, strip, substr, conversions, format.

String tensors hold ``bytes`` in NumPy object arrays, as TensorFlow's hold byte strings; every
kernel returns object arrays of ``bytes`` for string outputs. Strings have no gradients.
"""
from __future__ import annotations

import re

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape, broadcast_shapes
from ..eager.execute import bind, constant_value
from ..graph.registry import register_op
from ..graph.tensor import DTypeLike, Tensor, TensorLike
from .core import convert, normalize_axis
from .core import invalid_argument as _err
from .debugging_ops import format_tensor

__all__ = ["length", "upper", "lower", "join", "reduce_join", "regex_full_match",
           "regex_replace", "strip", "substr", "as_string", "to_number", "format", "split"]


def _b(v) -> bytes:
    return v.encode() if isinstance(v, str) else bytes(v)


def _map(fn, x, out=object) -> np.ndarray:
    """``fn`` applied to every element of ``x``, as an array of dtype ``out``."""
    x = np.asarray(x)
    res = np.empty(x.shape, dtype=out)
    flat = res.reshape(-1)
    for i, v in enumerate(x.reshape(-1)):
        flat[i] = fn(v)
    return res


def _check_string(x, what: str) -> None:
    if not x.dtype.is_string:
        raise _err(f"{what} needs a string tensor, got {x.dtype.name}")


def string_map_infer(dtype: dtypes.DType, what: str):
    """``infer`` of an op mapping each string of ``x`` to one ``dtype`` value (``what``: the
    public name in the error for a non-string ``x``)."""
    def infer(x, **attrs):
        _check_string(x, what)
        return dtype, x.shape
    return infer


def _string_infer(x, **attrs):
    _check_string(x, "this op")
    return dtypes.string, x.shape


def _no_grad(op, *dys):
    return (None,) * len(op.inputs) if len(op.inputs) > 1 else None


def _strings(x, name: str = "input") -> Tensor:
    t = convert(x)
    if not t.dtype.is_string:
        raise TypeError(f"{name} must be a string tensor, got {t.dtype.name}")
    return t


# ----- length, case, strip ----------------------------------------------------------------------

def _utf8(v: bytes) -> str:
    return _b(v).decode("utf-8")


@register_op("StringLength")
class StringLength:
    """The length of each string in bytes (``unit='BYTE'``) or UTF-8 characters."""

    infer = string_map_infer(dtypes.int32, "tw.strings.length")

    def kernel(x, *, unit):
        if unit == "UTF8_CHAR":
            return _map(lambda v: len(_utf8(v)), x, np.int32)
        return _map(lambda v: len(_b(v)), x, np.int32)

    grad = _no_grad


def _case_op(name: str, method: str):
    """Declares StringUpper / StringLower (``str.<method>`` on each string; ``bytes.<method>``,
    ASCII only, unless ``encoding='utf-8'``) and returns it with its public function."""
    def kernel(x, *, encoding):
        if encoding:
            return _map(lambda v: getattr(_utf8(v), method)().encode(), x)
        return _map(lambda v: getattr(_b(v), method)(), x)
    word = method.capitalize() + "-cases"  # Upper-cases / Lower-cases
    ns = {"__doc__": f"{word} each string (ASCII only unless ``encoding='utf-8'``).",
          "infer": _string_infer, "kernel": kernel, "grad": _no_grad}
    opdef = register_op(name)(type(name, (), ns))

    def fn(input: TensorLike, encoding="", name: str | None = None) -> Tensor:
        return bind(opdef, [_strings(input)], {"encoding": encoding}, name=name)
    fn.__name__ = fn.__qualname__ = method
    fn.__doc__ = f"""{word} each string (``tw.strings.{method}``).

    Args:
        input: a string tensor.
        encoding: "" (ASCII letters only) or "utf-8".
        name: op name.

    Returns:
        A string tensor of ``input``'s shape.
    """
    return opdef, fn


StringUpper, upper = _case_op("StringUpper", "upper")
StringLower, lower = _case_op("StringLower", "lower")


@register_op("StringStrip")
class StringStrip:
    """Removes leading and trailing whitespace from each string."""

    infer = _string_infer

    def kernel(x):
        return _map(lambda v: _b(v).strip(), x)

    grad = _no_grad


# ----- joining ----------------------------------------------------------------------------------

def _broadcast_all(inputs) -> TensorShape:
    shape = TensorShape([])
    for t in inputs:
        s = broadcast_shapes(shape, t.shape)
        if s is None:
            raise _err(f"tw.strings.join: input shapes {[str(i.shape) for i in inputs]} do "
                       "not broadcast")
        shape = s
    return shape


@register_op("StringJoin")
class StringJoin:
    """Joins the strings of N tensors elementwise (scalars broadcast) with ``separator``."""

    def infer(*inputs, separator):
        for t in inputs:
            _check_string(t, "tw.strings.join")
        return dtypes.string, _broadcast_all(inputs)

    def kernel(*inputs, separator):
        arrs = np.broadcast_arrays(*[np.asarray(a) for a in inputs])
        sep = _b(separator)
        out = np.empty(arrs[0].shape if arrs else (), dtype=object)
        flat = out.reshape(-1)
        cols = [a.reshape(-1) for a in arrs]
        for i in range(flat.size):
            flat[i] = sep.join(_b(c[i]) for c in cols)
        return out

    grad = _no_grad


@register_op("ReduceJoin")
class ReduceJoin:
    """Joins the strings along ``axis`` (all axes when None) with ``separator``."""

    def infer(x, *, axis, keepdims, separator):
        _check_string(x, "tw.strings.reduce_join")
        if x.shape.rank is None:
            return dtypes.string, TensorShape(None)
        axes = normalize_axis(axis, x.shape.rank, "tw.strings.reduce_join")
        dims = x.shape.as_list()
        out = [1 if i in axes else d for i, d in enumerate(dims)] if keepdims else \
            [d for i, d in enumerate(dims) if i not in axes]
        return dtypes.string, TensorShape(out)

    def kernel(x, *, axis, keepdims, separator):
        x = np.asarray(x)
        axes = tuple(range(x.ndim)) if axis is None else \
            tuple(sorted(a % x.ndim for a in np.asarray(axis).reshape(-1).tolist()))
        keep = [i for i in range(x.ndim) if i not in axes]
        moved = np.transpose(x, keep + list(axes))
        lead = moved.shape[:len(keep)]
        rows = moved.reshape(lead + (-1,)) if moved.size or not axes else \
            np.empty(lead + (0,), dtype=object)
        sep = _b(separator)
        out = np.empty(lead, dtype=object)
        flat, rflat = out.reshape(-1), rows.reshape(-1, rows.shape[-1])
        for i in range(flat.size):
            flat[i] = sep.join(_b(v) for v in rflat[i])
        if keepdims:
            out = out.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
        return out

    grad = _no_grad


# ----- regular expressions ----------------------------------------------------------------------

@register_op("StaticRegexFullMatch")
class StaticRegexFullMatch:
    """Whether each whole string matches ``pattern`` (Python ``re`` syntax, close to RE2's)."""

    infer = string_map_infer(dtypes.bool_, "tw.strings.regex_full_match")

    def kernel(x, *, pattern):
        rx = re.compile(_b(pattern))
        return _map(lambda v: rx.fullmatch(_b(v)) is not None, x, np.bool_)

    grad = _no_grad


@register_op("StaticRegexReplace")
class StaticRegexReplace:
    """Replaces the matches of ``pattern`` by ``rewrite`` (``\\1`` names a group)."""

    infer = _string_infer

    def kernel(x, *, pattern, rewrite, replace_global):
        rx = re.compile(_b(pattern))
        count = 0 if replace_global else 1
        return _map(lambda v: rx.sub(_b(rewrite), _b(v), count=count), x)

    grad = _no_grad


# ----- substr -----------------------------------------------------------------------------------

@register_op("Substr")
class Substr:
    """The substring ``[pos, pos + len)`` of each string (pos and len broadcast with input).

    A negative ``pos`` counts from the end; a ``pos`` beyond the string raises
    InvalidArgumentError; a ``len`` past the end is truncated.
    """

    def infer(x, pos, len_, *, unit):
        _check_string(x, "tw.strings.substr")
        if not (pos.dtype.is_integer and len_.dtype.is_integer):
            raise _err("tw.strings.substr: pos and len must be integers")
        shape = broadcast_shapes(x.shape, pos.shape)
        shape = None if shape is None else broadcast_shapes(shape, len_.shape)
        if shape is None:
            raise _err(f"tw.strings.substr: shapes {x.shape}, {pos.shape}, {len_.shape} do "
                       "not broadcast")
        return dtypes.string, shape

    def kernel(x, pos, len_, *, unit):
        xs, ps, ls = np.broadcast_arrays(np.asarray(x), np.asarray(pos), np.asarray(len_))
        out = np.empty(xs.shape, dtype=object)
        flat = out.reshape(-1)
        for i, (s, p, n) in enumerate(zip(xs.reshape(-1), ps.reshape(-1), ls.reshape(-1))):
            s = _utf8(s) if unit == "UTF8_CHAR" else _b(s)
            p, n = int(p), int(n)
            if not -len(s) <= p <= len(s):
                raise _err(f"pos {p} out of range for string b'{_b(s).decode(errors='replace')}'"
                           f" at index {i}")
            if p < 0:
                p += len(s)
            piece = s[p:p + max(n, 0)]
            flat[i] = piece.encode() if isinstance(piece, str) else piece
        return out

    grad = _no_grad


# ----- conversions ------------------------------------------------------------------------------

def _as_string_format(dt, precision, scientific, shortest, width, fill) -> str:
    spec = "%"
    if fill:
        if fill not in (" ", "+", "-", "0", "#"):
            raise _err(f"Fill argument not supported: \"{fill}\"")
        spec += fill
    if width > -1:
        spec += str(width)
    if precision > -1:
        spec += f".{precision}"
    if dt.kind in "iu":
        return spec + "d"
    if shortest:
        return spec + "g"
    return spec + ("e" if scientific else "f")


@register_op("AsString")
class AsString:
    """Formats each number as a string (printf-style, as TensorFlow's AsString)."""

    def infer(x, *, precision, scientific, shortest, width, fill):
        if x.dtype.is_complex or x.dtype is dtypes.resource or x.dtype is dtypes.variant:
            raise _err(f"tw.strings.as_string does not take {x.dtype.name}")
        return dtypes.string, x.shape

    def kernel(x, *, precision, scientific, shortest, width, fill):
        x = np.asarray(x)
        if x.dtype.kind == "O":
            return _map(_b, x)
        if x.dtype.kind == "b":
            return _map(lambda v: b"true" if v else b"false", x)
        fmt = _as_string_format(x.dtype, precision, scientific, shortest, width, fill)
        conv = int if x.dtype.kind in "iu" else float
        return _map(lambda v: (fmt % conv(v)).encode(), x)

    grad = _no_grad


@register_op("StringToNumber")
class StringToNumber:
    """Parses each string as a number of ``out_type`` (InvalidArgumentError if it is not one)."""

    def infer(x, *, out_type):
        _check_string(x, "tw.strings.to_number")
        return out_type, x.shape

    def kernel(x, *, out_type):
        parse = int if out_type.is_integer else float

        def one(v):
            s = _b(v).strip()
            try:
                return parse(s.decode())
            except (ValueError, UnicodeDecodeError):
                raise _err(f"StringToNumberOp could not correctly convert string: "
                           f"{_b(v).decode(errors='replace')}") from None
        out = _map(one, x, object)
        if out_type.is_integer:
            info = np.iinfo(out_type.np)
            bad = [v for v in out.reshape(-1) if not info.min <= v <= info.max]
            if bad:
                raise _err(f"StringToNumberOp could not correctly convert string: {bad[0]} "
                           f"(out of range for {out_type.name})")
        return out.astype(out_type.np)

    grad = _no_grad


# ----- format and split -------------------------------------------------------------------------

@register_op("StringFormat")
class StringFormat:
    """A scalar string: ``template`` with each ``placeholder`` replaced by an input, formatted
    as ``tw.print`` shows it (``summarize`` elements per dimension)."""

    def infer(*inputs, template, placeholder, summarize):
        n = template.count(placeholder)
        if n != len(inputs):
            raise _err(f"Number of placeholders in the template ({n}) does not match the "
                       f"number of inputs ({len(inputs)})")
        return dtypes.string, TensorShape([])

    def kernel(*inputs, template, placeholder, summarize):
        parts = template.split(placeholder)
        text = parts[0]
        for v, rest in zip(inputs, parts[1:]):
            text += format_tensor(v, summarize) + rest
        return np.asarray(text.encode(), dtype=object)

    grad = _no_grad


def _split_one(v: bytes, sep, maxsplit: int) -> list:
    s = _b(v)
    if sep is None:
        return s.split(None, maxsplit) if maxsplit >= 0 else s.split()
    return s.split(_b(sep), maxsplit)


@register_op("StringSplitV2")
class StringSplitV2:
    """The tokens of a scalar string split at ``sep`` (whitespace runs when None), 1-D.

    Scalars only: ``tw.strings.split`` of a tensor uses ``StringSplitRagged`` (ops/ragged).
    """

    def infer(x, *, sep, maxsplit):
        _check_string(x, "tw.strings.split")
        if x.shape.rank not in (None, 0):
            raise _err("StringSplitV2 splits scalars; tw.strings.split of a tensor returns a "
                       "RaggedTensor")
        v = constant_value(x)
        n = None if v is None else len(_split_one(np.asarray(v)[()], sep, maxsplit))
        return dtypes.string, TensorShape([n])

    def kernel(x, *, sep, maxsplit):
        if np.ndim(x):
            raise _err("StringSplitV2 splits scalars; tw.strings.split of a tensor returns a "
                       "RaggedTensor")
        toks = _split_one(np.asarray(x)[()], sep, maxsplit)
        out = np.empty(len(toks), dtype=object)
        out[:] = toks
        return out

    grad = _no_grad


# ----- public functions ------------------------------------------------------------------------

def length(input: TensorLike, unit="BYTE", name: str | None = None) -> Tensor:
    """The length of each string (``tw.strings.length``).

    Args:
        input: a string tensor.
        name: op name.
        unit: "BYTE" or "UTF8_CHAR".

    Returns:
        An int32 tensor of ``input``'s shape.
    """
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    return bind(StringLength, [_strings(input)], {"unit": unit}, name=name)


def strip(input: TensorLike, name: str | None = None) -> Tensor:
    """Strips leading and trailing whitespace (``tw.strings.strip``).

    Args:
        input: a string tensor.
        name: op name.

    Returns:
        A string tensor of ``input``'s shape.
    """
    return bind(StringStrip, [_strings(input)], name=name)


def join(inputs, separator="", name: str | None = None) -> Tensor:
    """Joins a list of string tensors elementwise (``tw.strings.join``).

    Args:
        inputs: a list of string tensors of one shape (scalars broadcast).
        separator: the string put between the pieces.
        name: op name.

    Returns:
        The joined strings.
    """
    ts = [_strings(t, "inputs") for t in inputs]
    return bind(StringJoin, ts, {"separator": separator}, name=name)


def reduce_join(inputs, axis: TensorLike | None = None, keepdims: bool = False, separator="",
                name: str | None = None) -> Tensor:
    """Joins the strings along ``axis`` (``tw.strings.reduce_join``).

    Args:
        inputs: a string tensor.
        axis: an int or list of ints; None joins everything.
        keepdims: keep the joined axes with length 1.
        separator: the string put between the pieces.
        name: op name.

    Returns:
        The joined strings.
    """
    x = _strings(inputs, "inputs")
    ax = None if axis is None else tuple(int(a) for a in np.asarray(axis).reshape(-1))
    return bind(ReduceJoin, [x], {"axis": ax, "keepdims": bool(keepdims),
                                  "separator": separator}, name=name)


def regex_full_match(input: TensorLike, pattern, name: str | None = None) -> Tensor:
    """Whether each whole string matches ``pattern`` (``tw.strings.regex_full_match``).

    Args:
        input: a string tensor.
        pattern: a regular expression (a Python string; Python ``re`` syntax).
        name: op name.

    Returns:
        A bool tensor of ``input``'s shape.
    """
    return bind(StaticRegexFullMatch, [_strings(input)], {"pattern": _pattern(pattern)},
                name=name)


def regex_replace(input: TensorLike, pattern, rewrite, replace_global: bool = True,
                  name: str | None = None) -> Tensor:
    """Replaces the matches of ``pattern`` by ``rewrite`` (``tw.strings.regex_replace``).

    Args:
        input: a string tensor.
        pattern: a regular expression (Python string).
        rewrite: the replacement; ``\\1`` inserts group 1.
        replace_global: replace every match (else only the first).
        name: op name.

    Returns:
        A string tensor of ``input``'s shape.
    """
    return bind(StaticRegexReplace, [_strings(input)],
                {"pattern": _pattern(pattern), "rewrite": _pattern(rewrite),
                 "replace_global": bool(replace_global)}, name=name)


def _pattern(p) -> str:
    if isinstance(p, Tensor):
        v = constant_value(p)
        if v is None:
            raise ValueError("the pattern must be known when the graph is built")
        p = np.asarray(v)[()]
    return p.decode() if isinstance(p, bytes) else str(p)


def substr(input: TensorLike, pos, len, unit="BYTE", name: str | None = None) -> Tensor:
    """The substrings ``[pos, pos + len)`` (``tw.strings.substr``).

    Args:
        input: a string tensor.
        pos: int start positions (broadcast with ``input``; negative counts from the end).
        len: int lengths (broadcast; truncated at the end of the string).
        name: op name.
        unit: "BYTE" or "UTF8_CHAR".

    Returns:
        The substrings.
    """
    x = _strings(input)
    p = convert(pos, dtype_hint=dtypes.int32)
    n = convert(len, dtype=p.dtype if not isinstance(len, Tensor) else None)
    return bind(Substr, [x, p, n], {"unit": unit}, name=name)


def as_string(input: TensorLike, precision=-1, scientific: bool = False, shortest: bool = False,
              width=-1, fill="", name: str | None = None) -> Tensor:
    """Formats numbers as strings (``tw.strings.as_string``, ``tw.as_string``).

    Args:
        input: a numeric or bool tensor.
        precision: digits after the point (floats; -1: printf's default of 6).
        scientific: use exponent notation.
        shortest: use the shorter of fixed and exponent notation.
        width: pad to this width (-1: no padding).
        fill: the padding flag: " ", "0", "-", "+" or "#".
        name: op name.

    Returns:
        A string tensor of ``input``'s shape.
    """
    if scientific and shortest:
        raise InvalidArgumentError(None, None, "Cannot select both scientific and shortest "
                                               "notation")
    return bind(AsString, [convert(input)], {"precision": int(precision),
                                              "scientific": bool(scientific),
                                              "shortest": bool(shortest), "width": int(width),
                                              "fill": fill}, name=name)


def to_number(input: TensorLike, out_type: DTypeLike = dtypes.float32,
              name: str | None = None) -> Tensor:
    """Parses strings as numbers (``tw.strings.to_number``).

    Args:
        input: a string tensor.
        out_type: float32 (default), float64, int32 or int64.
        name: op name.

    Returns:
        A tensor of ``out_type`` and ``input``'s shape.
    """
    dt = dtypes.as_dtype(out_type)
    if dt not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError(f"to_number: out_type must be float32, float64, int32 or int64, got "
                        f"{dt.name}")
    return bind(StringToNumber, [_strings(input)], {"out_type": dt}, name=name)


def format(template, inputs, placeholder="{}", summarize=3, name: str | None = None) -> Tensor:
    """Formats tensors into a template (``tw.strings.format``).

    Args:
        template: a Python string with one ``placeholder`` per input.
        inputs: a tensor or a list of tensors (or Python values).
        placeholder: the placeholder text.
        summarize: elements shown at each end of each dimension (-1 or None: all).
        name: op name.

    Returns:
        A scalar string tensor.
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    ts = [convert(t) for t in inputs]
    StringFormat.infer(*ts, template=template, placeholder=placeholder, summarize=summarize)
    return bind(StringFormat, ts, {"template": template, "placeholder": placeholder,
                                   "summarize": summarize}, name=name)


def split(input: TensorLike, sep=None, maxsplit=-1, name: str | None = None) -> Tensor:
    """Splits a scalar string into its tokens (``tw.strings.split``).

    The scalar case; ``tw.strings.split`` (``ops.ragged.strings.split``) also takes tensors
    and returns RaggedTensors for them.

    Args:
        input: a scalar string tensor.
        sep: the separator; None splits at runs of whitespace and drops empty tokens.
        maxsplit: at most this many splits (-1: no limit).
        name: op name.

    Returns:
        A 1-D string tensor of the tokens.
    """
    s = None if sep is None else _pattern(sep)
    return bind(StringSplitV2, [_strings(input)], {"sep": s, "maxsplit": int(maxsplit)},
                name=name)
