"""Elementwise ops as table rows: one ``Unary`` or ``Binary`` row per op.

A family module (``unary.py``, ``binary.py``, ``comparison.py``, ``complex.py``) lists its ops in
a table::

    UNARY = [
        Unary("Exp", "exp", np.exp, INEXACT, quiet=True,
              doc="e ** x.",
              api=("e ** x elementwise (``tw.exp``).", "a floating-point or complex tensor.",
                   "The exponential."),
              grad=lambda op, dy: dy * _c(op.outputs[0])),
        ...
    ]
    _OPS = declare(UNARY)                                # the registered OpDefs, in row order
    (Neg, ..., Exp, ...) = _OPS
    (negative, ..., exp, ...) = public_functions(UNARY, _OPS, __name__)  # rows with an ``fn``

The names are spelled out (readers and linters see them; ``tests/ops/math/test_elementwise.py``
checks each is bound to its row).

A row holds the TensorFlow op name, the public function's name, the NumPy kernel, the dtype kinds
the op accepts, its gradient rule (written with twinflow ops, as any ``grad``), what it computes
and the public function's docstring. ``declare`` registers each row as an ordinary OpDef: the
same ``infer`` (dtype kinds checked, result dtype) and ``kernel`` (NumPy would silently promote
``np.exp`` of ints, so the kernel checks the kind and raises ``TypeError``; ``bind`` then re-runs
``infer``, whose message names the op and dtype) that a hand-written declaration would have.
``public_functions`` makes ``fn(x, name=None)`` / ``fn(x, y, name=None)`` that convert their
arguments and ``bind`` the op. Ops whose public function does more (``abs`` choosing
``ComplexAbs``, ``truediv`` casting integers) have ``fn=None`` and a hand-written function next to
the table.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...core import dtypes
from ...core.dtypes import STORAGE_ONLY
from ...core.errors import InvalidArgumentError
from ...eager.execute import bind, bind_binary
from ...eager.tensor import EagerTensor as _ET
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from .. import fast_elementwise as fe
from ..core import binary_infer, convert, convert_pair, quietly
from ..dispatch import NOT_FOUND, CompositeArgument, dispatch, user_dispatch

FLOAT = "f"
INEXACT = "fc"
REAL = "iuf"
NUMERIC = "iufc"
INT = "iu"
BOOL = "b"
COMPLEX = "c"
_KIND_NAMES = {
    FLOAT: "bfloat16, half, float, double",
    INEXACT: "bfloat16, half, float, double, complex64, complex128",
    REAL: "integer and floating-point types",
    NUMERIC: "numeric types",
    INT: "int8, int16, int32, int64, uint8, uint16, uint32, uint64",
    BOOL: "bool",
    COMPLEX: "complex64, complex128",
}


# ----- shape/dtype rules and kernel wrappers ----------------------------------------------------

def check_kind(op_name: str, x, kinds: str) -> None:
    if x.dtype.kind not in kinds or x.dtype in STORAGE_ONLY:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
            f"values: {_KIND_NAMES[kinds]}; {op_name} does not accept {x.dtype.name} tensors "
            "(use tw.cast)")


def unary_rule(op_name: str, kinds: str, out=None):
    """An ``infer`` for an elementwise unary op accepting dtype kinds ``kinds``.

    ``out``: None keeps the input dtype, "real" maps complex to its real dtype, or a DType.
    """
    def infer(x):
        check_kind(op_name, x, kinds)
        if out is None:
            return x.dtype, x.shape
        if out == "real":
            return x.dtype.real_dtype, x.shape
        return out, x.shape
    return infer


def binary_rule(op_name: str, kinds: str, out=None):
    """An ``infer`` for a broadcasting binary op (inputs of one dtype, kinds ``kinds``)."""
    def infer(x, y):
        check_kind(op_name, x, kinds)
        check_kind(op_name, y, kinds)
        dtype, shape = binary_infer(x, y)
        return (dtype if out is None else out), shape
    return infer


def _bfloat16_kernel(fn, kinds: str, *xs):
    """``fn`` on bfloat16 arrays (NumPy kind ``V``): computed in float32 and rounded to
    bfloat16, as TensorFlow's CPU kernels do. Other ``V`` arrays are refused."""
    dt = xs[0].dtype
    if "f" not in kinds or any(x.dtype != dt or x.dtype != dtypes.bfloat16.np for x in xs):
        raise TypeError(f"unsupported dtypes {', '.join(str(x.dtype) for x in xs)}")
    out = quietly(fn, *(x.astype(np.float32) for x in xs))
    return out.astype(dt) if out.dtype == np.float32 else out


def unary_kernel(fn, kinds: str, quiet: bool = False):
    """Wraps a NumPy function as a kernel that refuses dtype kinds outside ``kinds``
    (bfloat16 inputs compute in float32: ``_bfloat16_kernel``).

    ``quiet``: run it without NumPy's floating-point warnings (see ``quietly``).
    """
    if quiet:
        def kernel(x):
            if x.dtype.kind not in kinds:
                return _bfloat16_kernel(fn, kinds, x)
            return quietly(fn, x)
    else:
        def kernel(x):
            if x.dtype.kind not in kinds:
                return _bfloat16_kernel(fn, kinds, x)
            return fn(x)
    kernel.__wrapped__ = fn
    return kernel


def binary_kernel(fn, kinds: str, quiet: bool = False):
    """Like ``unary_kernel`` for two inputs."""
    if quiet:
        def kernel(x, y):
            if x.dtype.kind not in kinds or y.dtype.kind not in kinds:
                return _bfloat16_kernel(fn, kinds, x, y)
            return quietly(fn, x, y)
    else:
        def kernel(x, y):
            if x.dtype.kind not in kinds or y.dtype.kind not in kinds:
                return _bfloat16_kernel(fn, kinds, x, y)
            return fn(x, y)
    kernel.__wrapped__ = fn
    return kernel


def unary_rules(op_name: str, fn, kinds: str, quiet: bool = False, out=None) -> tuple:
    """``(infer, kernel)`` of an elementwise unary op, both held to the dtype kinds ``kinds``
    (``unary_rule``, ``unary_kernel``)."""
    return unary_rule(op_name, kinds, out), unary_kernel(fn, kinds, quiet)


def binary_rules(op_name: str, fn, kinds: str, quiet: bool = False, out=None) -> tuple:
    """``(infer, kernel)`` of a broadcasting binary op (``binary_rule``, ``binary_kernel``)."""
    return binary_rule(op_name, kinds, out), binary_kernel(fn, kinds, quiet)


def no_grad(op, dy):
    """The gradient rule of an op that is not differentiable: None for every input."""
    return [None] * len(op.inputs)


def check_int_divisor(op_name: str, y) -> None:
    if y.dtype.kind in INT and not np.all(y):
        raise ZeroDivisionError(f"{op_name}: Integer division by zero")


# ----- codegen hint for scalars -------------------------------------------------------------------

def lower_to(fn, ufunc=None):
    """Codegen hint for scalar ops: in a compiled graph dtypes are already checked, so the
    Python operator runs the op on NumPy's scalar fast path (several times faster than a ufunc
    call on 0-d arrays). Array ops keep the ufunc, which codegen can give an ``out=`` buffer,
    except (with ``ufunc``) a large operand plus a short trailing one (a bias of a few channels),
    which ``short_axis_lowering`` runs over long rows."""
    def lower(op):
        rank = op.outputs[0].shape.rank
        if rank == 0:
            return fn
        if ufunc is not None and rank and short_axis_shapes(op):
            return short_axis_lowering(ufunc)
        return None
    return lower


def short_axis_shapes(op) -> bool:
    """Whether a binary op's static shapes make ``fast_elementwise.short_axis_binary`` apply:
    one input of the full result shape, large, the other a short tail of it of the same dtype."""
    x, y = (t.shape for t in op.inputs)
    out = op.outputs[0].shape
    if not (out.is_fully_defined() and x.is_fully_defined() and y.is_fully_defined()) \
            or op.inputs[0].dtype != op.inputs[1].dtype:
        return False
    full, short = (x, y) if x.num_elements() >= y.num_elements() else (y, x)
    if full.as_tuple() != out.as_tuple() or full.num_elements() < fe.SHORT_MIN_ELEMENTS \
            or short.num_elements() > fe.SHORT_MAX or short.rank > full.rank:
        return False
    dims = short.as_tuple()
    while dims and dims[0] == 1:
        dims = dims[1:]
    return bool(dims) and full.as_tuple()[full.rank - len(dims):] == dims


@functools.cache
def short_axis_lowering(ufunc):
    """The codegen kernel of ``ufunc`` for a short trailing operand: over long rows when the
    arrays allow it at run time (C-contiguous...), else the ufunc. Its result is always a fresh
    array (``fresh_result``: codegen may overwrite it)."""
    def kernel(x, y):
        out = fe.short_axis_binary(ufunc, x, y)
        return ufunc(x, y) if out is None else out
    kernel.__name__ = f"{ufunc.__name__}_short_axis"
    kernel.fresh_result = True
    return kernel




# ----- table rows -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Unary:
    """One elementwise unary op (see the module docstring).

    Fields: ``op`` TensorFlow's op name; ``fn`` the public function generated for it (None: the
    module writes its own); ``kernel`` the NumPy function; ``kinds`` the dtype kinds accepted
    (``FLOAT``, ``INEXACT``...); ``doc`` what the op computes; ``grad`` the gradient rule,
    written with twinflow ops (default ``no_grad``: not differentiable, as comparisons);
    ``api`` the public docstring's (summary, x, returns);
    ``quiet`` run the kernel without NumPy's floating-point warnings (see ``quietly``); ``out``
    the result dtype (None: x's, "real": x's real dtype, or a DType); ``raw`` use the kernel as
    is (a ufunc that already refuses what ``infer`` refuses).
    """

    op: str
    fn: str | None
    kernel: Callable
    kinds: str | None
    doc: str
    grad: Callable = no_grad
    api: tuple = ()
    quiet: bool = False
    out: object = None
    raw: bool = False


@dataclass(frozen=True)
class Binary(Unary):
    """One broadcasting elementwise binary op: ``Unary``'s fields, plus ``infix`` (the Python
    operator codegen writes for scalar results, see ``lower_to``), ``same_dtype`` (both inputs
    of one dtype, checked by ``bind``) and ``fast`` (the public function takes the eager fast
    path of ``x + y`` for two eager tensors: gradient rules add and multiply tensors a lot).
    ``kinds`` None accepts every dtype."""

    infix: Callable | None = None
    same_dtype: bool = True
    fast: bool = False


def _rules(row) -> tuple:
    """(infer, kernel) of a row."""
    if not isinstance(row, Binary):
        kernel = row.kernel if row.raw else unary_kernel(row.kernel, row.kinds, row.quiet)
        return unary_rule(row.op, row.kinds, row.out), kernel
    if row.kinds is None:  # any dtype: only broadcasting (and same_dtype) is checked
        if row.out is None:
            return binary_infer, row.kernel
        out = row.out

        def infer(x, y):
            return out, binary_infer(x, y)[1]
        return infer, row.kernel
    kernel = row.kernel if row.raw else binary_kernel(row.kernel, row.kinds, row.quiet)
    return binary_rule(row.op, row.kinds, row.out), kernel


def declare(rows: list) -> tuple:
    """Registers the op of every row (an ordinary OpDef, as ``register_op`` makes).

    Args:
        rows: ``Unary`` and/or ``Binary`` rows.

    Returns:
        The OpDefs, in row order.
    """
    out = []
    for row in rows:
        infer, kernel = _rules(row)
        ns = {"__doc__": row.doc, "infer": infer, "kernel": kernel, "grad": row.grad}
        binary = isinstance(row, Binary)
        if binary and row.infix is not None:
            ns["lower"] = lower_to(row.infix, row.kernel if row.fast else None)
        decl = type(row.op, (), ns)
        out.append(register_op(row.op, same_dtype=binary and row.same_dtype)(decl))
    return tuple(out)


def _docstring(row) -> str:
    summary, *args, returns = row.api
    lines = "".join(f"        {n}: {a}\n" for n, a in zip(("x", "y"), args))
    return (f"{summary}\n\n    Args:\n{lines}        name: op name in graph mode.\n\n"
            f"    Returns:\n        {returns}\n    ")


# A composite argument (RaggedTensor...) makes ``convert`` raise CompositeArgument: the function
# then runs through ``dispatch`` (for a RaggedTensor: the op over its flat values).

def _unary_function(opdef):
    def fn(x: TensorLike, name: str | None = None) -> Tensor:
        try:
            cx = convert(x)
        except CompositeArgument as e:
            return dispatch("elementwise", e, (x,), {}, dense=fn)
        except (TypeError, ValueError):  # a user type with a registered dispatch target?
            out = user_dispatch(fn, (x,), {} if name is None else {"name": name}, 1)
            if out is NOT_FOUND:
                raise
            return out
        return bind(opdef, (cx,), name=name)
    fn.op_name = opdef.name  # what composite dispatch reports and looks at
    fn._tw_elementwise = 1
    return fn


def _binary_function(opdef, fast: bool = False):
    def fn(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
        if fast and type(x) is _ET and type(y) is _ET and name is None:
            return bind_binary(opdef, x, y)  # as ``x + y`` does
        try:
            cx, cy = convert_pair(x, y)
        except CompositeArgument as e:
            return dispatch("elementwise", e, (x, y), {}, dense=fn)
        except (TypeError, ValueError):  # a user type with a registered dispatch target?
            out = user_dispatch(fn, (x, y), {} if name is None else {"name": name}, 2)
            if out is NOT_FOUND:
                raise
            return out
        return bind(opdef, (cx, cy), name=name)
    fn.op_name = opdef.name  # what composite dispatch reports and looks at
    fn._tw_elementwise = 2
    return fn


def public_functions(rows: list, opdefs: tuple, module: str) -> tuple:
    """The public function of every row with an ``fn`` name: convert the argument(s), then
    ``bind`` the row's op.

    Args:
        rows: the rows given to ``declare``.
        opdefs: what ``declare`` returned for them.
        module: the ``__name__`` of the module the functions belong to.

    Returns:
        The functions, in row order (rows whose ``fn`` is None have none).
    """
    out = []
    for row, opdef in zip(rows, opdefs):
        if row.fn is None:
            continue
        if isinstance(row, Binary):
            fn = _binary_function(opdef, row.fast)
        else:
            fn = _unary_function(opdef)
        fn.__name__ = fn.__qualname__ = row.fn
        fn.__module__ = module
        fn.__doc__ = _docstring(row)
        out.append(fn)
    return tuple(out)


def bind_unless(opdef, x: TensorLike, name: str | None, skip: Callable, otherwise=None) -> Tensor:
    """``bind(opdef, (x,))``, except for tensors of a dtype ``skip(dtype)`` accepts: those come
    back as ``otherwise(x)`` (``x`` itself by default), as ``tw.math.real`` of a real tensor."""
    x = convert(x)
    if skip(x.dtype):
        return x if otherwise is None else otherwise(x)
    return bind(opdef, (x,), name=name)
