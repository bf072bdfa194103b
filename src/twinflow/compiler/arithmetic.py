"""Arithmetic simplification: identities that remove or cheapen stateless ops.

* ``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0`` -> ``x`` (when broadcasting does not
  change x's shape or dtype);
* ``pow(x, 2)`` -> ``x * x``; ``pow(x, 3)`` -> ``x * x * x``;
* ``transpose(transpose(x, p), q)`` -> ``x`` when the permutations cancel;
* ``neg(neg(x))`` -> ``x``; ``identity(x)`` and a cast to x's own dtype -> ``x``;
* ``reshape(x, s)`` and ``broadcast_to(x, s)`` -> ``x`` when x's static shape already is the
  result's (gradient helpers and shape-generic code leave such no-ops behind);
* a constant operand of an elementwise binary op whose elements are all the same (bit for bit)
  -> a 0-d constant, when the other operand already has the result's shape: NumPy broadcasts
  a column such as the ``[batch, 1]`` of ``1 / batch`` that a mean's gradient multiplies by
  row by row (about 4x slower than by a scalar), and fusion folds 0-d constants into its
  steps. Each element meets the same value, so the results are the same bits.
"""
from __future__ import annotations

import numpy as np

from ..graph.registry import REGISTRY
from .program import Program, Rewriter, const_value, rewrite_each


def _all_equal(v, scalar) -> bool:
    return v is not None and getattr(v, "dtype", None) is not None and v.dtype.kind in "iufc" \
        and np.size(v) > 0 and bool(np.all(v == scalar))


def _same(t, like) -> bool:
    """True if ``t`` can stand for ``like`` (same dtype and the same known shape)."""
    if t.dtype is not like.dtype:
        return False
    a, b = t.shape.as_tuple(), like.shape.as_tuple()
    return a is not None and a == b and None not in a


def _keeps(x, unit, out) -> bool:
    """True if ``x op unit`` has x's dtype and shape (a scalar unit never broadcasts x)."""
    if x.dtype is not out.dtype:
        return False
    if unit.shape.rank == 0 and x.shape == out.shape:
        return True
    return _same(x, out)


def _perm(op, inputs: list):
    if op.attrs.get("conjugate"):
        return None
    if "perm" in op.attrs:
        perm = op.attrs["perm"]
        rank = inputs[0].shape.rank
        if perm is None and rank is not None:
            return list(range(rank))[::-1]
        return perm
    if len(inputs) == 2:
        return const_value(inputs[1])
    return None


def _simplify(op, rw: Rewriter):
    """The new tensor the op's (single) output reduces to, or None to keep the op."""
    t = op.type
    ins = [rw.get(x) for x in op.inputs]
    out = op.outputs[0] if op.outputs else None
    if t in ("Mul", "AddV2", "Add", "Sub") and len(ins) == 2:
        unit = 1 if t == "Mul" else 0
        a, b = ins
        if _all_equal(const_value(b), unit) and _keeps(a, b, out):
            return a
        if t != "Sub" and _all_equal(const_value(a), unit) and _keeps(b, a, out):
            return b
        return None
    if t == "Pow" and len(ins) == 2 and "Mul" in REGISTRY:
        x, e = ins
        ev = const_value(e)
        if ev is None or np.size(ev) != 1 or not _same(x, out) or x.dtype.is_bool:
            return None
        n = ev.reshape(()).item()
        if n not in (2, 3):
            return None
        mul = REGISTRY["Mul"]
        sq = rw.new_op(mul, [x, x], {}, [(x.dtype, x.shape)], op, f"{op.name}/square")
        r = sq.outputs[0]
        if n == 3:
            r = rw.new_op(mul, [r, x], {}, [(x.dtype, x.shape)], op, f"{op.name}/cube").outputs[0]
        return r
    if t == "Transpose" and ins and ins[0].op.type == "Transpose":
        inner = ins[0].op
        p2, p1 = _perm(op, ins), _perm(inner, inner.inputs)
        if p1 is None or p2 is None:
            return None
        p1, p2 = np.asarray(p1).reshape(-1), np.asarray(p2).reshape(-1)
        if p1.shape == p2.shape and np.array_equal(p1[p2], np.arange(p1.size)):
            x = inner.inputs[0]
            return x if _same(x, out) else None
        return None
    if t == "Neg" and ins and ins[0].op.type == "Neg":
        x = ins[0].op.inputs[0]
        return x if _same(x, out) else None
    if t == "Identity" and len(ins) == 1 and ins[0].dtype is out.dtype:
        return ins[0] if ins[0].shape == out.shape else None
    if t == "Cast" and len(ins) == 1 and ins[0].dtype is out.dtype and _same(ins[0], out):
        return ins[0]
    if t in ("Reshape", "BroadcastTo") and len(ins) == 2 and _same(ins[0], out):
        return ins[0]
    return None


def simplify_arithmetic(prog: Program) -> tuple:
    """Applies the identities above to every stateless single-output op.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of ops simplified).
    """
    def rule(op, rw) -> bool:
        if op.stateful or op.control_inputs or len(op.outputs) != 1 \
                or op.type == "Placeholder":
            return False
        new = _simplify(op, rw)
        if new is None:
            scalar = _scalar_operands(op, rw)
            if scalar is None:
                return False
            new = rw.copy(op, inputs=scalar).outputs[0]
        rw.alias(op.outputs[0], new)
        return True
    return rewrite_each(prog, rule)


def _uniform(v) -> bool:
    """Whether array ``v`` (of 1+ dims) holds one value, bit for bit (``-0.0`` is not 0)."""
    if not isinstance(v, np.ndarray) or v.ndim == 0 or v.size == 0 or v.dtype.kind not in "biuf" \
            or v.dtype.itemsize not in (1, 2, 4, 8):
        return False
    bits = np.ascontiguousarray(v).reshape(-1).view(f"u{v.dtype.itemsize}")
    return bool((bits == bits[0]).all())


def _scalar_operands(op, rw):
    """The inputs of an elementwise binary ufunc op with a uniform constant made 0-d, or None
    when no input is such a constant."""
    if len(op.inputs) != 2 or op.attrs or op.opdef.multi_output:
        return None
    k = op.opdef.kernel
    u = k if isinstance(k, np.ufunc) else getattr(k, "__wrapped__", None)
    if not isinstance(u, np.ufunc) or u.nin != 2 or u.nout != 1:
        return None
    ins = [rw.get(x) for x in op.inputs]
    out = op.outputs[0]
    for i in (0, 1):
        v, other = const_value(ins[i]), ins[1 - i]
        if _uniform(v) and v.dtype == other.dtype.np and _same(other, out):
            new = list(ins)
            new[i] = rw.const(v.reshape(-1)[:1].reshape(()), ins[i].op)
            return new
    return None
