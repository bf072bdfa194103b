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

Control flow is inlined: a While/StatelessWhile becomes a ``while True:`` block and an
If/StatelessIf an ``if``/``else`` block of the enclosing function, holding the (optimized) code
of its cond/body or branches, one line per op as above. Loop variables are plain locals and
captures are read where they are. A While records its History (the loop values entering each
iteration) only when something reads that output (a gradient, or a fetch). Buffer reuse stays
safe in a loop body: a block never recycles nor overwrites the names it receives (loop
variables, captures), only the arrays its own ops made in the same iteration. Nesting deeper
than ``MAX_INLINE_DEPTH`` (Python limits statically nested blocks) and Case ops keep calling
their sub-graphs' compiled closures through the op's ``lower`` hook.
"""
from __future__ import annotations

import itertools
import keyword
import linecache
import operator
import os
import weakref
from time import perf_counter_ns

import numpy as np

from ..core.errors import InvalidArgumentError, OpError
from ..core.profiler import record_op
from ..eager.execute import KERNEL_ERRORS
from ..graph.checks import kernel_error, with_message
from .loops import History, iteration_limit
from .pipeline import optimize
from .program import Program
from .schedule import concurrent_groups, run_group

_counter = itertools.count()
_LITERALS = (bool, int, str, type(None))
# Below this many elements a fresh result is cheaper than passing ``out=``.
REUSE_MIN_ELEMENTS = 1 << 12
# CPython refuses more than 20 statically nested loops/try blocks in one function.
MAX_INLINE_DEPTH = 8
_WHILE = ("While", "StatelessWhile")
_IF = ("If", "StatelessIf")
# "def __make__(...)" and "def fn(...)" precede the body
_HEADER_LINES = 2
# A kernel that is a Python operator is written as one: ``r0 = a0 * c1`` skips a call, which
# is most of the cost of a scalar op (an op lowers to these only for NumPy scalars).
_INFIX = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
          operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">="}


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
        if op is None or not isinstance(e, (OpError, *KERNEL_ERRORS)):
            return e
        e = kernel_error(op.opdef, op.inputs, op.attrs, e)  # the same wrapping as eager bind
        return with_message(e, f"{e}\n  while running {op._error_context()}", op)

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


def _assign(targets: list, values: list) -> str:
    if len(targets) == 1:
        return f"{targets[0]} = {values[0]}"
    return f"{', '.join(targets)} = {', '.join(values)}"


def _optimized(g) -> Program:
    """A sub-graph (If branch, While cond/body) as an optimized Program of its inputs."""
    return optimize(Program(g, g.inputs, g.outputs))[0]


class _Emitter:
    """Writes the generated function's body: one block of statements per (sub-)program.

    Names: ``a*`` parameters, ``c*``/``k*`` closure cells (constants, kernels), ``r*`` values.
    Every block takes new ``r*`` names from one counter and recycles only names it made itself.
    """

    def __init__(self, trace: bool = False) -> None:
        self.trace = trace          # time every op for the profiler (core/profiler.py)
        self.graph_name = "fn"      # the function's name, for the per-op listeners
        self.closure: dict = {}     # cell name -> value
        self.by_id: dict = {}       # id(kernel) -> cell name
        self.body: list = []
        self.line_ops: dict = {}    # line number -> op
        self.fresh = itertools.count()

    def cell(self, value, prefix: str) -> str:
        # Kernels are shared by identity (100 matmuls use one cell); constants never are.
        hit = self.by_id.get(id(value)) if prefix == "k" else None
        if hit is not None:
            return hit
        cname = f"{prefix}{len(self.closure)}"
        self.closure[cname] = value
        if prefix == "k":
            self.by_id[id(value)] = cname
        return cname

    def emit(self, line: str, op=None) -> None:
        self.body.append(line)
        if op is not None:
            self.line_ops[_HEADER_LINES + len(self.body)] = op

    def block(self, prog: Program, args: list, ind: str, depth: int) -> list:
        """Emits ``prog`` at indentation ``ind`` with ``args`` naming its inputs.

        Returns:
            The names (or cells) holding its outputs.

        Raises:
            InvalidArgumentError: a placeholder that is not an input of the Program is needed.
        """
        ops = prog.graph.get_operations()
        names: dict = {}
        for t, a in zip(prog.inputs, args):
            names.setdefault(id(t), a)
        last_use: dict = {}
        for i, op in enumerate(ops):
            for t in op.inputs:
                last_use[id(t)] = i
        live_out = {id(t) for t in prog.outputs}
        inline = {i for i, op in enumerate(ops)
                  if depth < MAX_INLINE_DEPTH and (op.type in _WHILE or op.type in _IF)}
        kernels = {i: _kernel_of(op) for i, op in enumerate(ops)
                   if op.type not in ("Placeholder", "Const") and i not in inline}
        reusable, consume = _reusable_buffers(ops, kernels, live_out)
        grouped = {} if self.trace else concurrent_groups(ops, {
            i for i, (k, attrs) in kernels.items() if not attrs and i not in reusable
            and i not in consume and len(ops[i].outputs) == 1})
        group_of = {j: run for run in grouped.values() for j in run}
        pending: list = []  # (target, kernel cell, args) of the group being emitted
        mine: set = set()   # names this block made: only these may be recycled
        free: list = []

        def new_name() -> str:
            n = free.pop() if free else f"r{next(self.fresh)}"
            mine.add(n)
            return n

        def used(t) -> bool:
            return id(t) in last_use or id(t) in live_out

        def release(i: int, op) -> None:
            for t in op.inputs:
                tid = id(t)
                n = names[tid]
                if last_use.get(tid) == i and tid not in live_out and n in mine \
                        and n not in free:
                    free.append(n)

        for i, op in enumerate(ops):
            if op.type == "Placeholder":
                t = op.outputs[0]
                if id(t) not in names and used(t):
                    raise InvalidArgumentError(
                        None, op, f"You must feed a value for placeholder tensor '{op.name}' "
                        f"with dtype {op.attrs['dtype'].name} and shape {op.attrs['shape']}")
                continue
            if op.type == "Const":
                names[id(op.outputs[0])] = self.cell(_as_scalar(op.attrs["value"]), "c")
                continue
            if i in inline:
                ins = [names[id(t)] for t in op.inputs]
                # Outputs are named before the inputs are released: the inlined code reads
                # its inputs (captures) after it has assigned some outputs (loop variables).
                emit_op = self.while_loop if op.type in _WHILE else self.if_else
                outs = emit_op(op, ins, ind, depth, new_name, used)
                release(i, op)
                for t, n in zip(op.outputs, outs):
                    if n is not None:
                        names[id(t)] = n
                continue
            kernel, attrs = (consume[i], {}) if i in consume else kernels[i]
            kwargs = ""
            if attrs:
                parts = []
                for k, v in attrs.items():
                    lit = _literal(v)
                    parts.append(f"{k}={lit if lit is not None else self.cell(v, 'c')}")
                kwargs = ", ".join(parts)
            args = [names[id(t)] for t in op.inputs]
            infix = _INFIX.get(kernel) if type(kernel) is type(operator.add) \
                and not attrs and len(args) == 2 else None
            kname = self.cell(kernel, "k") if infix is None else ""
            call_args = ", ".join(args + ([kwargs] if kwargs else []))
            release(i, op)
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
                if not used(t):
                    targets.append("_")
                    continue
                n = new_name()
                names[id(t)] = n
                targets.append(n)
            if i in group_of:   # one line runs the whole group (compiler/schedule.py)
                pending.append((targets[0], kname, call_args, op))
                if i == group_of[i][-1]:
                    self.emit_group(pending, ind)
                    pending = []
                continue
            call = f"{kname}({call_args})" if infix is None else \
                f"{args[0]} {infix} {args[1]}"
            if not op.outputs:
                stmt = call
            elif op.opdef.multi_output:
                stmt = f"{', '.join(targets)}{',' if len(targets) == 1 else ''} = {call}"
            else:
                stmt = f"{targets[0]} = {call}"
            if self.trace:
                self.emit(f"{ind}_t0 = {self.cell(perf_counter_ns, 'k')}()", op)
            self.emit(f"{ind}{stmt}  # {_comment(op)}", op)
            if self.trace:
                outs = ", ".join("None" if t == "_" else t for t in targets)
                self.emit(f"{ind}{self.cell(record_op, 'k')}({op.name!r}, {op.type!r}, _t0, "
                          f"({outs}{',' if len(targets) == 1 else ''}), "
                          f"{self.graph_name!r})", op)
        return [names[id(t)] for t in prog.outputs]

    def emit_group(self, members: list, ind: str) -> None:
        """One line calling ``schedule.run_group`` on the kernels of independent ops."""
        targets = ", ".join(t for t, _, _, _ in members)
        calls = ", ".join(f"{k}, ({a}{',' if ',' not in a else ''})" for _, k, a, _ in members)
        first = members[0][3]
        names = " | ".join(f"{op.name} ({op.type})" for _, _, _, op in members)
        where = _comment(first)[len(f"{first.name} ({first.type})"):]
        self.emit(f"{ind}{targets} = {self.cell(run_group, 'k')}({calls})  # concurrent: "
                  f"{names}{where}", first)

    def while_loop(self, op, ins: list, ind: str, depth: int, new_name, used) -> list:
        """A While as ``while True:`` over the inlined cond and body; returns output names."""
        a = op.attrs
        n, has = a["n_vars"], int(a["has_max"])
        caps = ins[n + has:]
        note = f"  # {_comment(op)}"
        loop = [new_name() for _ in range(n)]
        if loop:
            self.emit(f"{ind}{_assign(loop, ins[:n])}{note}", op)
        # Only a gradient (or a fetch) reads the History: record it only then.
        steps = new_name() if used(op.outputs[n]) else None
        if steps is not None:
            self.emit(f"{ind}{steps} = []{note}", op)
        if has:
            count, limit = new_name(), new_name()
            lim = self.cell(iteration_limit, "k")
            self.emit(f"{ind}{count}, {limit} = 0, {lim}({ins[n]}){note}", op)
        self.emit(f"{ind}while True:{note}", op)
        inner = ind + "    "
        if has:
            # Counted before the condition runs, as loops.run_while does (the cond may have
            # effects).
            self.emit(f"{inner}if {count} == {limit}:", op)
            self.emit(f"{inner}    break", op)
            self.emit(f"{inner}{count} += 1", op)
        c = self.block(_optimized(a["cond"]), loop + caps, inner, depth + 1)
        self.emit(f"{inner}if not {c[0]}:", op)
        self.emit(f"{inner}    break", op)
        if steps is not None:
            self.emit(f"{inner}{steps}.append(({', '.join(loop)},))", op)
        b = self.block(_optimized(a["body"]), loop + caps, inner, depth + 1)
        if loop:
            self.emit(f"{inner}{_assign(loop, b)}", op)
        if steps is not None:
            self.emit(f"{ind}{steps} = {self.cell(History, 'k')}({steps}){note}", op)
        return loop + [steps]

    def if_else(self, op, ins: list, ind: str, depth: int, new_name, used) -> list:
        """An If as ``if``/``else`` over the inlined branches; returns output names."""
        outs = [new_name() if used(t) else None for t in op.outputs]
        self.emit(f"{ind}if {ins[0]}:  # {_comment(op)}", op)
        for k, g in enumerate((op.attrs["then_branch"], op.attrs["else_branch"])):
            if k:
                self.emit(f"{ind}else:", op)
            start = len(self.body)
            res = self.block(_optimized(g), ins[1:], ind + "    ", depth + 1)
            pairs = [(o, r) for o, r in zip(outs, res) if o is not None]
            if pairs:
                self.emit(f"{ind}    {_assign(*map(list, zip(*pairs)))}", op)
            if len(self.body) == start:
                self.emit(f"{ind}    pass", op)
        return outs


def compile_program(prog: Program, name: str = "fn", trace: bool = False) -> CompiledProgram:
    """Generates and compiles the straight-line Python function running ``prog``.

    Args:
        prog: the Program (usually optimized).
        name: the generated function's name (sanitized to an identifier).
        trace: record one profiler event per op run (``core/profiler.py``): the variant a
            function's call runs while a profiler records.

    Returns:
        The CompiledProgram.

    Raises:
        InvalidArgumentError: a placeholder that is not an input of the Program is needed.
    """
    fname = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "fn"
    if keyword.iskeyword(fname) or fname[0].isdigit():
        fname = "f_" + fname
    params = [f"a{i}" for i in range(len(prog.inputs))]
    em = _Emitter(trace)
    em.graph_name = name
    rets = em.block(prog, params, "        ", 0)
    closure, line_ops = em.closure, em.line_ops
    while fname in closure:  # a function named like a kernel cell (k3) would shadow it
        fname = "f_" + fname
    ret = f"({', '.join(rets)}{',' if len(rets) == 1 else ''})"
    lines = [f"def __make__({', '.join(closure)}):",
             f"    def {fname}({', '.join(params)}):"]
    lines += em.body
    lines.append(f"        return {ret}")
    lines.append(f"    return {fname}")
    source = "\n".join(lines) + "\n"
    filename = f"<twinflow-codegen-{next(_counter)}:{fname}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    # (the module name lets eager/execute.py's warnings filter see the program as twinflow's)
    ns: dict = {"__name__": "twinflow.codegen_program"}
    exec(compile(source, filename, "exec"), ns)  # noqa: S102  (the generated program)
    run = ns["__make__"](*closure.values())
    # The source stays in linecache (for tracebacks) while the function can run, not longer.
    weakref.finalize(run, linecache.cache.pop, filename, None)
    return CompiledProgram(prog, run, source + _helper_sources(closure), filename, line_ops)


def _helper_sources(closure: dict) -> str:
    """The source of generated kernels the program calls (fused blocks), shown after it."""
    parts = [f"\n# {cell} (compiled separately):\n{k.__source__}"
             for cell, k in closure.items() if hasattr(k, "__source__")]
    return "".join(parts)


def _as_scalar(value):
    """0-d constants become NumPy scalars: arithmetic on them takes NumPy's scalar fast path."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biufc":
        return value[()]
    return value
