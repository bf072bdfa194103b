"""Compiled loops for runs of plain arithmetic inside a fused block (``jit_compile=True`` with
the optional ``numba`` extra installed).

NumPy makes one pass over a block per op; a pass of a cheap op (a multiply) costs about as
much as reading and writing the block, so GELU's eight cheap ops cost twice its ``tanh``. Here
each run of consecutive arithmetic steps (``+ - * /`` and negation on float32/float64) of a
flat fused loop becomes one numba function that computes the run element by element: one
pass, its intermediates in registers. Steps that are not plain arithmetic (``tanh``, ``exp``,
casts, comparisons, reductions...) stay NumPy calls between the runs::

    def seg0(n, u0, t0, tO, c0, c1, c2):   # Mul Mul .. Mul Mul_4, compiled by numba
        for i in range(n):
            x0 = u0[i]
            s0 = c0 * x0                    # Mul Mul
            ...
            tO[i] = s0
            t0[i] = s5

The arithmetic is the same IEEE operation on the same values in the same order as NumPy's
(no reassociation, no fused multiply-add: numba contracts nothing without ``fastmath``), so
the results are bit-for-bit the unfused program's. Values used after a run are stored in the
buffers the block's plan gave them; every access of a run is at the element it computes, so
the plan's buffer reuse stays valid.
"""
from __future__ import annotations

import importlib.util

import numpy as np

# ufunc -> the Python operator numba compiles to the same IEEE operation
BINARY = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/"}
UNARY = {np.negative: "-"}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def available() -> bool:
    """Whether numba can be imported (without importing it).

    Returns:
        True if the ``numba`` package is installed.
    """
    return importlib.util.find_spec("numba") is not None


def compilable(step) -> bool:
    """Whether a fused step is plain float arithmetic a compiled run can take.

    Args:
        step: a ``fusion.Step``.

    Returns:
        True for ``+ - * /`` and negation whose operands and result share a float dtype.
    """
    if step.kind != "ufunc" or np.dtype(step.dtype) not in _FLOATS:
        return False
    if step.fn not in BINARY and step.fn not in UNARY:
        return False
    return all(np.dtype(v.dtype) == np.dtype(step.dtype) for kind, v in step.args
               if kind == "c")


def runs(steps: tuple) -> list:
    """The runs of two or more consecutive compilable steps.

    Args:
        steps: the fused group's steps.

    Returns:
        ``[(first, stop)]`` index ranges.
    """
    out, start = [], None
    for j, s in enumerate((*steps, None)):
        if s is not None and compilable(s):
            start = j if start is None else start
            continue
        if start is not None and j - start >= 2:
            out.append((start, j))
        start = None
    return out


def run_source(name: str, steps: tuple, first: int, stop: int, arg_names: list,
               out_names: dict, whole: set, later: set) -> tuple:
    """The Python source of one run's loop (compiled by ``compile_run``).

    Args:
        name: the function's name.
        steps: all steps of the group.
        first, stop: the run's step range.
        arg_names: per step, per argument, the block code's name of that value
            (``u0``, ``t1``, ``c3``...).
        out_names: step index -> the array name its result is stored in.
        whole: argument array names that hold one element (size-1 inputs, read at ``[0]``).
        later: step indices whose result is used after the run (stored).

    Returns:
        (source text, names of the function's parameters after ``n``).
    """
    params: list = []
    loads: list = []
    body: list = []
    local: dict = {}

    def read(j: int, a: int) -> str:
        kind, v = steps[j].args[a]
        if kind == "t" and first <= v < j:
            return f"s{v}"
        src = arg_names[j][a]
        if src not in params:
            params.append(src)
            if kind != "c":
                local[src] = f"x{len(loads)}"
                loads.append(f"{local[src]} = {src}[{0 if src in whole else 'i'}]")
        return local.get(src, src)

    for j in range(first, stop):
        s = steps[j]
        if s.fn in BINARY:
            expr = f"{read(j, 0)} {BINARY[s.fn]} {read(j, 1)}"
        else:
            expr = f"{UNARY[s.fn]}{read(j, 0)}"
        body.append(f"s{j} = {expr}  # {s.op_type} {s.op_name}")
    stores = []
    for j in sorted(later):
        o = out_names[j]
        if o not in params:
            params.append(o)
        stores.append(f"{o}[i] = s{j}")
    ops = f"{steps[first].op_type} {steps[first].op_name} .. " \
          f"{steps[stop - 1].op_type} {steps[stop - 1].op_name}"
    lines = [f"def {name}(n, {', '.join(params)}):  # {ops}, compiled by numba",
             "    for i in range(n):"]
    lines += [f"        {x}" for x in loads + body + stores]
    return "\n".join(lines) + "\n", params


def compile_run(fn):
    """``fn`` compiled by numba (GIL released, IEEE division by zero as NumPy's).

    Args:
        fn: the Python function made from ``run_source``.

    Returns:
        The compiled dispatcher (it compiles on its first call).
    """
    import numba  # noqa: PLC0415  (optional, and slow to import: only under jit_compile)
    return numba.njit(nogil=True, error_model="numpy", cache=False)(fn)
