"""The checks every op shares: the one axis normaliser, the one dtype-match check (and its
message), and the one wrapper of kernel errors (used by eager ``bind`` and compiled graphs)."""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError, OpError, ResourceExhaustedError

__all__ = ["normalize_axis", "check_dtypes_match", "dtype_mismatch_error", "KERNEL_ERRORS",
           "kernel_error", "shape_error", "with_message"]


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
    return with_message(e, msg)


def with_message(e: Exception, msg: str, op=None) -> OpError:
    """An error of ``e``'s class (InvalidArgumentError unless ``e`` is an OpError) saying
    ``msg``, for ``op`` (a graph Operation, or None).

    Args:
        e: the original error.
        msg: the new message.
        op: the op it is about.

    Returns:
        The new error (to raise ``from e``).
    """
    cls = type(e) if isinstance(e, OpError) else InvalidArgumentError
    try:
        return cls(None, op, msg)
    except TypeError:  # an OpError subclass with another constructor
        return InvalidArgumentError(None, op, msg)


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
