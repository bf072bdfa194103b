"""Printing: ``tw.print`` (PrintV2) and the tensor formatting it shares with ``tw.strings``."""
from __future__ import annotations

import pprint
import sys

import numpy as np

from ...core import nest
from ...eager.execute import bind
from ...graph.graph import Operation
from ...graph.registry import register_op
from ...graph.tensor import Tensor
from ..variables import Variable
from .numerics import _last_op


def _format_element(v, kind: str, itemsize: int) -> str:
    if kind == "f":
        f = float(v)
        if f != f:
            return "nan" if not np.signbit(v) else "-nan"
        if itemsize <= 4:
            s = f"{f:.6g}"
            return s if np.float32(s) == np.float32(v) else f"{f:.9g}"
        s = f"{f:.15g}"
        return s if float(s) == f else f"{f:.17g}"
    if kind == "b":
        return "1" if v else "0"
    if kind == "c":
        return f"({_format_element(v.real, 'f', itemsize // 2)},"\
               f"{_format_element(v.imag, 'f', itemsize // 2)})"
    if kind in "SUO":
        b = v.encode() if isinstance(v, str) else bytes(v)
        return '"' + b.decode("utf-8", "backslashreplace").encode("unicode_escape")\
            .decode("ascii").replace('"', '\\"') + '"'
    return str(v)


def format_tensor(value, summarize: int | None = 3) -> str:
    """A tensor's value as ``tf.print`` shows it: ``[[1 2]\\n [3 4]]``, ``...`` when elided.

    Args:
        value: a NumPy array or scalar.
        summarize: elements shown at each end of every dimension (-1 or None for 3: all).

    Returns:
        The text.
    """
    arr = np.asarray(value)
    if summarize is None:
        summarize = 3
    if summarize < 0:
        summarize = max(arr.size, 1)
    kind, itemsize = arr.dtype.kind, arr.dtype.itemsize
    out: list = []
    ndim = arr.ndim

    def spacing(dim: int) -> None:
        if dim == ndim - 1:
            out.append(" ")
        else:
            out.append("\n" * (ndim - dim - 1) + " " * (dim + 1))

    def one_dim(sub, dim: int) -> None:
        if dim == ndim:
            out.append(_format_element(sub, kind, itemsize))
            return
        out.append("[")
        n = sub.shape[0]
        start_of_end = max(summarize, n - summarize)
        for i in range(min(summarize, n)):
            if i > 0:
                spacing(dim)
            one_dim(sub[i], dim + 1)
        if n > 2 * summarize:
            spacing(dim)
            out.append("...")
        for i in range(start_of_end, n):
            spacing(dim)
            one_dim(sub[i], dim + 1)
        out.append("]")

    if ndim == 0:
        return _format_element(arr[()], kind, itemsize)
    one_dim(arr, 0)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# tw.print

_STDERR, _STDOUT = "stderr", "stdout"
_OBJECT = "object"  # a file-like object, kept in the op's private ``_stream`` attr


def _stream_spec(output_stream) -> str:
    if output_stream is None or output_stream is sys.stderr or output_stream == _STDERR:
        return _STDERR
    if output_stream is sys.stdout or output_stream == _STDOUT:
        return _STDOUT
    if isinstance(output_stream, str):
        if output_stream.startswith("file://"):
            return output_stream
        raise ValueError(f"Unsupported output stream {output_stream!r}: expected sys.stdout, "
                         "sys.stderr, 'file://path', a logging function or a logging level")
    if isinstance(output_stream, int):
        return f"log://{output_stream}"
    level = _LOG_FUNCTIONS.get(getattr(output_stream, "__name__", None))
    if callable(output_stream) and level is not None:
        return f"log://{level}"
    if hasattr(output_stream, "write"):
        return _OBJECT
    raise ValueError(f"Unsupported output stream {output_stream!r}")


# logging's levels (DEBUG, INFO...): logging loads on first use, not at ``import twinflow``.
_LOG_FUNCTIONS = {"debug": 10, "info": 20, "warning": 30, "warn": 30, "error": 40, "fatal": 50,
                  "critical": 50}


def _write(spec: str, text: str, stream) -> None:
    if spec == _STDERR:
        sys.stderr.write(text)
    elif spec == _STDOUT:
        sys.stdout.write(text)
    elif spec.startswith("file://"):
        with open(spec[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text)
    elif spec.startswith("log://"):
        import logging  # noqa: PLC0415  (on use: ``import twinflow`` does not load logging)
        logging.getLogger("twinflow").log(int(spec[len("log://"):]), text.rstrip("\n"))
    else:
        stream.write(text)


def _render(values, template: str, placeholder: str, summarize: int) -> str:
    if template == placeholder and len(values) == 1:
        v = np.asarray(values[0])
        if v.ndim == 0 and v.dtype.kind in "SUO":
            s = v.item()
            return s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s)
    parts = template.split(placeholder)
    out = [parts[0]]
    for v, rest in zip(values, parts[1:]):
        out.append(format_tensor(v, summarize))
        out.append(rest)
    return "".join(out)


@register_op("PrintV2", stateful=True, multi_output=True)
class PrintV2:
    """Formats its inputs into ``template`` (one ``placeholder`` per input) and writes it."""

    def infer(*inputs, template, placeholder, summarize, output_stream, end, _stream=None):
        return []

    def kernel(*values, template, placeholder, summarize, output_stream, end, _stream=None):
        _write(output_stream, _render(values, template, placeholder, summarize) + end, _stream)
        return ()


def _is_tensor_like(x) -> bool:
    return isinstance(x, (Tensor, Variable))


def print_v2(*inputs, output_stream=None, summarize: int | None = 3, sep: str = " ",
             end: str = "\n", name: str | None = None) -> Operation | None:
    """Prints tensors and Python values as ``tf.print`` does (``tw.print``).

    Args:
        *inputs: tensors, strings, Python values and nested structures of them.
        output_stream: ``sys.stderr`` (default), ``sys.stdout``, ``'file://path'`` (appended
            to), a logging function (``logging.info``) or a logging level, or a file object.
        summarize: elements printed at each end of every dimension; -1 for all.
        sep: text between inputs.
        end: text after the last input.
        name: the op name in graph mode.

    Returns:
        None eagerly; the print Operation while building a graph.
    """
    if summarize is None:
        summarize = 3
    tensors: list = []
    templates: list = []
    no_tensors = nest.map_structure(lambda x: "" if _is_tensor_like(x) else x, list(inputs)) \
        if inputs else []
    placeholder = "{}"
    text = " ".join(pprint.pformat(x) for x in no_tensors) + sep + end
    while placeholder in text:
        placeholder = "{" + placeholder + "}"
    for inp in inputs:
        if isinstance(inp, str):
            templates.append(inp)
            continue
        if _is_tensor_like(inp):
            tensors.append(inp)
            templates.append(placeholder)
            continue
        slots = []
        for x in nest.flatten(inp):
            if _is_tensor_like(x):
                tensors.append(x)
                slots.append(placeholder)
            else:
                slots.append(x)
        templates.append(pprint.pformat(nest.pack_sequence_as(inp, slots)))
    template = sep.join(templates).replace(f"'{placeholder}'", placeholder)
    ts = [x.read_value() if isinstance(x, Variable) else x for x in tensors]
    spec = _stream_spec(output_stream)
    attrs = {"template": template, "placeholder": placeholder, "summarize": int(summarize),
             "output_stream": spec, "end": end}
    if spec == _OBJECT:
        attrs["_stream"] = output_stream
    bind(PrintV2, ts, attrs, name=name)
    return _last_op()


