"""Codegen: lowers a Program to straight-line Python source and compiles it.

One line per op, in graph order (so stateful ops run in program order, once per call)::

    def __make__(k0, c1):                  # kernels and constants become closure cells
        def matmul_fn(a0, a1):
            r0 = k0(a0, a1)                # MatMul (MatMul) user.py:12 in f: x = tf.matmul(x, y)
            r1 = k1(r0, c1)                # AddV2 (AddV2) user.py:13 in f: x = x + b
            return (r1,)
        return matmul_fn

Large intermediate arrays made and used only by NumPy ufuncs are overwritten in place
(``out=``) at their last use. A kernel is bound with its attrs folded in when the op declares
``lower(op)`` (returning a callable of the input arrays alone, or None); otherwise attrs are
passed as keyword arguments. A lowered callable with ``fresh_result = True`` promises, as a
ufunc does, to return a new array nobody else references, so its result may be overwritten too.
An op declaring ``lower_consume(op)`` (whose kernel never keeps nor returns a view of its last
input) gets that callable instead when its last input is such a private array at its last use:
the callable may overwrite or keep it (a variable update writes into the dead gradient buffer).
Result names are recycled once their value is dead, which drops the last reference to an
intermediate array early so NumPy can reuse its memory for the next result. The source is
registered with ``linecache`` so tracebacks and pdb show the generated line.
"""
from __future__ import annotations

import itertools
import keyword
import linecache
import os

import numpy as np

from ..core.errors import InvalidArgumentError, OpError
from .program import Program

_counter = itertools.count()
_LITERALS = (bool, int, str, type(None))
# Below this many elements a fresh result is cheaper than passing ``out=``.
REUSE_MIN_ELEMENTS = 1 << 12


class CompiledProgram:
    """A Program compiled to a Python function of arrays returning a tuple of arrays.

    Attributes:
        program: the (optimized) Program it was generated from.
        run: the generated function: ``run(*input_arrays) -> tuple of output arrays``.
        source: the generated Python source.
        filename: the pseudo file name of the source (as shown in tracebacks).
    """

    def __init__(self, program: Program, run, source: str, filename: str,
                 line_ops: dict) -> None:
        self.program = program
        self.run = run
        self.source = source
        self.filename = filename
        self._line_ops = line_ops

    def __call__(self, *arrays) -> tuple:
        try:
            return self.run(*arrays)
        except Exception as e:  # noqa: BLE001  (re-raised with the op and user source line)
            raise self.error(e) from e

    def error(self, e: BaseException) -> BaseException:
        """``e`` raised inside the generated code, re-raised naming the op and user line."""
        op = self.failed_op(e)
        if op is None or not isinstance(e, (OpError, TypeError, ValueError, IndexError,
                                             ArithmeticError, AttributeError, KeyError,
                                             np.linalg.LinAlgError)):
            return e
        msg = str(e) if isinstance(e, OpError) else f"{type(e).__name__}: {e}"
        msg = f"{msg}\n  while running {op._error_context()}"
        cls = type(e) if isinstance(e, OpError) else InvalidArgumentError
        try:
            return cls(None, op, msg)
        except TypeError:
            return InvalidArgumentError(None, op, msg)

    def failed_op(self, e: BaseException):
        """The op whose generated line raised ``e`` (None if not inside generated code)."""
        tb = e.__traceback__
        op = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                op = self._line_ops.get(tb.tb_lineno, op)
            tb = tb.tb_next
        return op


def _comment(op) -> str:
    src = op.source
    where = ""
    if src is not None:
        where = f" {os.path.basename(src.filename)}:{src.lineno} in {src.function}"
        if src.line:
            where += f": {src.line}"
    text = f"{op.name} ({op.type}){where}"
    return text.replace("\n", " ")


def _literal(v) -> str | None:
    if type(v) in _LITERALS:
        return repr(v)
    if type(v) is float and np.isfinite(v):
        return repr(v)
    return None


def _kernel_of(op) -> tuple:
    """(callable, attrs to pass as keywords) for an op: its lowering if it has one."""
    lower = getattr(op.opdef, "lower", None)
    if lower is not None:
        k = lower(op)
        if k is not None:
            return k, {}
    if op.opdef.kernel is None:
        raise InvalidArgumentError(None, op, f"Op {op.type} has no kernel and cannot run "
                                             f"(node {op.name})")
    return op.opdef.kernel, op.attrs


def _reusable_buffers(ops: list, kernels: dict, live_out: set) -> tuple:
    """({op index: input tensor whose array the op may overwrite with ``out=``},
    {op index: its ``lower_consume`` callable, for ops that may take over their last input}).

    Safe only for arrays nobody else can see: produced by a NumPy ufunc or a ``fresh_result``
    lowering (always a fresh array), consumed only by ufuncs (which never return views of their
    inputs) or ``lower_consume`` ops, not an output, and large enough for the saved allocation
    to matter.
    """
    ufunc = {i for i, (k, attrs) in kernels.items() if isinstance(k, np.ufunc) and not attrs
             and k.nout == 1}
    fresh = ufunc | {i for i, (k, attrs) in kernels.items()
                     if not attrs and getattr(k, "fresh_result", False)}
    consuming = {i for i in kernels if getattr(ops[i].opdef, "lower_consume", None) is not None
                 and ops[i].inputs}
    safe = ufunc | consuming
    index = {id(op): i for i, op in enumerate(ops)}
    consumers: dict = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            consumers.setdefault(id(t), []).append(i)
    last: dict = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            last[id(t)] = i

    def owned(t) -> bool:
        p = index.get(id(t.op))
        if p not in fresh or id(t) in live_out or not t.shape.is_fully_defined():
            return False
        if int(np.prod(t.shape.as_list())) < REUSE_MIN_ELEMENTS:
            return False
        return all(c in safe for c in consumers.get(id(t), ()))

    consume: dict = {}
    for i in sorted(consuming):
        t = ops[i].inputs[-1]
        if last.get(id(t)) == i and owned(t):
            k = ops[i].opdef.lower_consume(ops[i])
            if k is not None:
                consume[i] = k
    out: dict = {}
    for i in sorted(ufunc):
        op = ops[i]
        res = op.outputs[0]
        if not res.shape.is_fully_defined():
            continue
        for t in op.inputs:
            if last.get(id(t)) == i and t.dtype is res.dtype and t.shape == res.shape \
                    and owned(t):
                out[i] = t
                break
    return out, consume


def compile_program(prog: Program, name: str = "fn") -> CompiledProgram:
    """Generates and compiles the straight-line Python function running ``prog``.

    Args:
        prog: the Program (usually optimized).
        name: the generated function's name (sanitized to an identifier).

    Returns:
        The CompiledProgram.

    Raises:
        InvalidArgumentError: a placeholder that is not an input of the Program is needed.
    """
    fname = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "fn"
    if keyword.iskeyword(fname) or fname[0].isdigit():
        fname = "f_" + fname
    ops = prog.graph.get_operations()
    names: dict = {}
    params = [f"a{i}" for i in range(len(prog.inputs))]
    for t, p in zip(prog.inputs, params):
        names.setdefault(id(t), p)
    last_use: dict = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            last_use[id(t)] = i
    live_out = {id(t) for t in prog.outputs}
    closure: dict = {}      # cell name -> value
    by_id: dict = {}        # id(kernel) -> cell name
    body: list = []
    line_ops: dict = {}
    free: list = []
    fresh = itertools.count()
    header_lines = 2  # "def __make__(...)" and "def fn(...)" precede the body

    def cell(value, prefix: str) -> str:
        # Kernels are shared by identity (100 matmuls use one cell); constants never are.
        hit = by_id.get(id(value)) if prefix == "k" else None
        if hit is not None:
            return hit
        cname = f"{prefix}{len(closure)}"
        closure[cname] = value
        if prefix == "k":
            by_id[id(value)] = cname
        return cname

    kernels = {i: _kernel_of(op) for i, op in enumerate(ops)
               if op.type not in ("Placeholder", "Const")}
    reusable, consume = _reusable_buffers(ops, kernels, live_out)
    for i, op in enumerate(ops):
        if op.type == "Placeholder":
            t = op.outputs[0]
            if id(t) not in names:
                if id(t) in last_use or id(t) in live_out:
                    raise InvalidArgumentError(
                        None, op, f"You must feed a value for placeholder tensor '{op.name}' "
                        f"with dtype {op.attrs['dtype'].name} and shape {op.attrs['shape']}")
            continue
        if op.type == "Const":
            names[id(op.outputs[0])] = cell(_as_scalar(op.attrs["value"]), "c")
            continue
        kernel, attrs = (consume[i], {}) if i in consume else kernels[i]
        kwargs = ""
        if attrs:
            parts = []
            for k, v in attrs.items():
                lit = _literal(v)
                parts.append(f"{k}={lit if lit is not None else cell(v, 'c')}")
            kwargs = ", ".join(parts)
        opdef = op.opdef
        kname = cell(kernel, "k")
        args = [names[id(t)] for t in op.inputs]
        call_args = ", ".join(args + ([kwargs] if kwargs else []))
        freed = set()
        for t in op.inputs:
            tid = id(t)
            n = names[tid]
            if last_use.get(tid) == i and tid not in live_out and n.startswith("r") \
                    and n not in freed:
                freed.add(n)
                free.append(n)
        targets = []
        reuse = reusable.get(i)
        if reuse is not None and last_use.get(id(reuse)) == i:
            n = names[id(reuse)]
            if n in free:
                free.remove(n)
            call_args += f", out={n}"
            names[id(op.outputs[0])] = n
            targets.append(n)
        for t in op.outputs[len(targets):]:
            if id(t) not in last_use and id(t) not in live_out:
                targets.append("_")
                continue
            n = free.pop() if free else f"r{next(fresh)}"
            names[id(t)] = n
            targets.append(n)
        call = f"{kname}({call_args})"
        if not op.outputs:
            stmt = call
        elif opdef.multi_output:
            stmt = f"{', '.join(targets)}{',' if len(targets) == 1 else ''} = {call}"
        else:
            stmt = f"{targets[0]} = {call}"
        body.append(f"        {stmt}  # {_comment(op)}")
        line_ops[header_lines + len(body)] = op
    rets = [names[id(t)] for t in prog.outputs]
    ret = f"({', '.join(rets)}{',' if len(rets) == 1 else ''})"
    lines = [f"def __make__({', '.join(closure)}):",
             f"    def {fname}({', '.join(params)}):"]
    lines += body
    lines.append(f"        return {ret}")
    lines.append(f"    return {fname}")
    source = "\n".join(lines) + "\n"
    filename = f"<twinflow-codegen-{next(_counter)}:{fname}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns: dict = {}
    exec(compile(source, filename, "exec"), ns)  # noqa: S102  (the generated program)
    run = ns["__make__"](*closure.values())
    return CompiledProgram(prog, run, source, filename, line_ops)


def _as_scalar(value):
    """0-d constants become NumPy scalars: arithmetic on them takes NumPy's scalar fast path."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biufc":
        return value[()]
    return value
