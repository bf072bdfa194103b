"""When Adam updates a variable with one fused op (``ops/optimizer_ops.py``).

``Adam.update_step`` (AdamW and the legacy Adam too) runs ``_KerasAdamUpdate``, with the same
bits as the op-by-op program, for a plain dense variable and a dense gradient of its dtype and
shape. Everything else keeps the op-by-op program, whose ops already handle it:

* a gradient that is not a dense tensor (``IndexedSlices`` from a gather or an embedding:
  the op-by-op program densifies it), or whose shape differs from the variable's or is not
  fully known (the ops broadcast it);
* a variable (or slot) of a strategy (``tw.distribute``: each write goes to every replica's
  copy), of a non-floating dtype, or whose shape is not fully known;
* ``tw.debugging.enable_check_numerics`` (each op's outputs are checked);
* a Keras mixed-precision ``autocast`` scope to another dtype around the update (the
  program's slot reads are cast).

``op_by_op()`` forces the op-by-op program in the calling thread (tests compare the two).
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from ...core.context import ctx
from ...graph.tensor import Tensor
from ...ops.variables import _AUTOCAST, Variable


class _State(threading.local):
    fused = True


_STATE = _State()


@contextlib.contextmanager
def op_by_op() -> Iterator[None]:
    """Within the block (this thread), Adam updates variables op by op, as before the fused op.

    Returns:
        A context manager.
    """
    old = _STATE.fused
    _STATE.fused = False
    try:
        yield
    finally:
        _STATE.fused = old


def _plain(var, dtype, shape) -> bool:
    return isinstance(var, Variable) and not getattr(var, "_tw_distributed", False) \
        and var.dtype is dtype and var._shape_static == shape


def applies(gradient, variable, m, v, vhat) -> bool:
    """Whether ``_KerasAdamUpdate`` may update ``variable`` from ``gradient``.

    Args:
        gradient: the gradient (already cast to the variable's dtype).
        variable: the trained variable.
        m: its first-moment slot.
        v: its second-moment slot.
        vhat: its amsgrad slot, or None.

    Returns:
        True for a dense floating-point gradient and plain variables of one static shape.
    """
    if not _STATE.fused or not isinstance(gradient, Tensor) or ctx.check_numerics:
        return False
    dtype, shape = gradient.dtype, gradient.shape
    if not dtype.is_floating or not shape.is_fully_defined() or \
            _AUTOCAST.dtype not in (None, dtype):
        return False
    return all(_plain(x, dtype, shape) for x in (variable, m, v) + (
        () if vhat is None else (vhat,)))
