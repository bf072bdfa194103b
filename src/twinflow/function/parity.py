"""``tw.debugging.experimental.check_parity``: run a function eagerly and as a graph, and name
the first op whose results differ.

The eager run records every op it executes (type, the user's source line, output values); the
function is then traced (``tw.function``'s graph, before compiler passes) and the graph is run
op by op (each op's kernel on its inputs' values). Graph ops are matched to eager ops by type
and source line, in order; the first pair whose outputs differ (dtype, shape, or values beyond
``rtol``/``atol``) is reported. Finally the compiled function (optimized and code-generated,
what ``tw.function`` really runs) is called and its outputs compared with eager's, which
catches differences made by compiler passes or inside control-flow branches. An error raised
in one mode but not the other is a difference too (eager skipping a check the graph makes).

Each run starts from the same state: the values of the variables the graph captures are saved
before the eager run and put back after each run, so a variable update is compared, and the
check leaves the variables as they were. Stateful random ops draw new numbers
in every run, so they are not compared: the graph run uses the eager run's draws for them (so
the ops after them are compared on the same inputs), and the compiled function's outputs are
not compared when the graph draws random numbers (``report.random_ops`` counts them).
"""
from __future__ import annotations

import dataclasses
import os
import sys
from collections import defaultdict, deque
from typing import Any

import numpy as np

from ..compiler.fetch import ops_needed
from ..core import nest
from ..core.context import ctx, pop_tape, push_tape
from ..eager.tensor import EagerTensor
from ..graph.graph import user_source_location
from ..graph.tensor import Tensor
from ..ops.variables import Variable
from .function import Function, _leaf_value

_SKIP = frozenset({"Placeholder", "Const", "NoOp", "Identity"})


@dataclasses.dataclass
class ParityDifference:
    """The first place where eager and graph execution disagree.

    Args:
        op_name: the graph op's name (``""`` for a difference in the final outputs).
        op_type: its type (``Mul``...), or ``"outputs"``.
        source: the user's source line that created it (``file:line in fn: code``).
        max_abs_diff: the largest absolute difference (``inf`` for dtype/shape mismatches).
        eager: the eager value (or the error eager raised, as text).
        graph: the graph value (or the error the graph raised, as text).
        note: what differed, in words.
    """

    op_name: str
    op_type: str
    source: str
    max_abs_diff: float
    eager: Any
    graph: Any
    note: str


@dataclasses.dataclass
class ParityReport:
    """What ``check_parity`` found.

    Args:
        agree: True when every compared op and the outputs agree.
        ops_compared: how many graph ops were matched to an eager op and compared.
        first_difference: a ParityDifference, or None when they agree.
    """

    agree: bool
    ops_compared: int
    first_difference: ParityDifference | None = None
    random_ops: int = 0

    def __bool__(self) -> bool:
        return self.agree

    def __str__(self) -> str:
        if self.agree:
            random = f"; {self.random_ops} random ops given eager's draws" \
                if self.random_ops else ""
            return f"eager and graph agree ({self.ops_compared} ops compared{random})"
        d = self.first_difference
        after = f"(after comparing {self.ops_compared} ops)"
        if d.op_type == "trace":
            return f"eager and graph differ while tracing, at {d.source}: {d.note} {after}"
        if d.op_type == "error":
            return f"eager and graph differ at {d.source}: {d.note} {after}"
        where = f"at op {d.op_name!r} ({d.op_type}), created at {d.source}" if d.op_name \
            else f"in the outputs ({d.source})"
        diff = "" if d.max_abs_diff == float("inf") else f"; max abs diff {d.max_abs_diff:g}"
        return f"eager and graph differ {where}: {d.note}{diff} {after}"


class _Recorder:
    """Stands on the tape stack during the eager run and keeps every op it is shown."""

    graph = None
    _watch_accessed_variables = False

    def __init__(self) -> None:
        self.ops: list = []

    def record(self, op) -> None:
        loc = user_source_location()
        name = op.opdef.name
        key = (name, loc.filename, loc.lineno) if loc else (name, None, None)
        self.ops.append((key, [_value(t) for t in op.outputs], str(loc) if loc else "?"))

    def _watch_key(self, *args) -> None:
        """Recorders watch nothing (no gradient is taken)."""


def _value(t):
    if isinstance(t, EagerTensor):
        return t._value
    if isinstance(t, Variable):
        return t.numpy()
    return t


def _compare(eager, graph, rtol: float, atol: float) -> tuple | None:
    """None when equal, else (max_abs_diff, note)."""
    e, g = np.asarray(eager), np.asarray(graph)
    if e.dtype != g.dtype:
        return float("inf"), f"dtype {e.dtype} eagerly but {g.dtype} in the graph"
    if e.shape != g.shape:
        return float("inf"), f"shape {e.shape} eagerly but {g.shape} in the graph"
    if e.dtype.kind not in "fciub":
        if e.dtype.kind == "O" or e.dtype.kind in "SU":
            same = e.shape == g.shape and all(a == b for a, b in zip(e.ravel(), g.ravel()))
            return None if same else (float("inf"), "values differ")
        return None
    if e.dtype.kind == "b":
        diff = np.count_nonzero(e != g)
        return None if diff == 0 else (1.0, f"{diff} of {e.size} values differ")
    ef, gf = e.astype(np.complex128 if e.dtype.kind == "c" else np.float64), \
        g.astype(np.complex128 if g.dtype.kind == "c" else np.float64)
    nan_e, nan_g = np.isnan(ef), np.isnan(gf)
    if np.any(nan_e != nan_g):
        return float("nan"), "NaN in one mode only"
    ok = ~nan_e
    if np.allclose(ef[ok], gf[ok], rtol=rtol, atol=atol, equal_nan=True):
        return None
    with np.errstate(invalid="ignore"):
        diff = np.abs(ef[ok] - gf[ok])
    worst = float(np.nanmax(np.where(np.isinf(diff), np.inf, diff))) if diff.size else 0.0
    bad = int(np.count_nonzero(~np.isclose(ef[ok], gf[ok], rtol=rtol, atol=atol)))
    return worst, f"{bad} of {e.size} values differ beyond rtol={rtol:g}, atol={atol:g}"


def _error_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}".split("\n")[0][:300]


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_line(tb) -> str:
    """The innermost frame of a traceback outside twinflow: where the user's code was."""
    where = "?"
    while tb is not None:
        code = tb.tb_frame.f_code
        if not code.co_filename.startswith(_PKG_DIR):
            where = f"{code.co_filename}:{tb.tb_lineno} in {code.co_name}"
        tb = tb.tb_next
    return where


def _run_eagerly(fn, args, kwargs) -> tuple:
    recorder = _Recorder()
    c = ctx
    previous = c.functions_eagerly
    c.functions_eagerly = True  # this thread only: tw.functions fn calls run as Python
    push_tape(recorder)
    try:
        out = fn(*args, **kwargs)
        return recorder.ops, out, None
    except Exception as e:  # noqa: BLE001  (an eager error is part of the report)
        return recorder.ops, None, e
    finally:
        pop_tape(recorder)
        c.functions_eagerly = previous


_RANDOM_MARKS = ("Random", "Multinomial", "TruncatedNormal", "Shuffle", "Stateful")


def _is_random(op) -> bool:
    return op.opdef.stateful and any(m in op.type for m in _RANDOM_MARKS)


def _key(op) -> tuple:
    loc = op.source
    return (op.type, loc.filename, loc.lineno) if loc else (op.type, None, None)


def _captured_variables(cf) -> list:
    return [(o._value, np.array(o._value.numpy(), copy=True)) for o, _ in cf.graph.captures
            if isinstance(getattr(o, "_value", None), Variable)]


def _restore(saved: list) -> None:
    for v, value in saved:
        v.assign(value)


def _run_graph_ops(cf, args, kwargs, queues=None, drawn=None) -> tuple:
    """[(op, output values)] of the traced graph, run op by op; and the error, if one.

    A random op matched to an eager op (in ``queues``) takes the eager op's outputs; its id is
    added to ``drawn``."""
    fg = cf.graph
    flat = nest.flatten(list(args)) + nest.flatten(kwargs)
    leaves = [flat[i] for i in cf._tensor_positions]
    values: dict = {}
    for ph, x in zip(cf._arg_inputs, leaves):
        values[id(ph)] = _leaf_value(x)
    for outer, inner in fg.captures:
        values[id(inner)] = outer._value
    done = []
    for op in ops_needed(fg.get_operations(), values):
        if op.type == "Placeholder":
            continue
        if queues is not None and _is_random(op) and queues[_key(op)]:
            outs = queues[_key(op)].popleft()[0]
            drawn.add(id(op))
            for t, v in zip(op.outputs, outs):
                values[id(t)] = v
            done.append((op, outs))
            continue
        try:
            out = op.opdef.kernel(*[values[id(t)] for t in op.inputs], **op.attrs)
        except Exception as e:  # noqa: BLE001  (a graph error is part of the report)
            return done, (op, e)
        outs = list(out) if op.opdef.multi_output else [out]
        for t, v in zip(op.outputs, outs):
            values[id(t)] = v
        done.append((op, outs))
    return done, None


def _leaves_of(out) -> list:
    return [np.asarray(_value(x)) for x in nest.flatten(out)
            if isinstance(x, (Tensor, Variable, np.ndarray)) or np.isscalar(x)]


def check_parity(fn, *args: Any, rtol: float = 1e-5, atol: float = 1e-8,
                 **kwargs: Any) -> ParityReport:
    """Runs ``fn`` eagerly and as a graph and reports the first op whose results differ.

    Args:
        fn: a Python function or a ``tw.function`` (its Python function is used for the eager
            run, with ``run_functions_eagerly`` for functions it calls).
        *args: the arguments to call it with (tensors, arrays, Python values).
        rtol: relative tolerance for float results.
        atol: absolute tolerance for float results.
        **kwargs: keyword arguments for ``fn``.

    The variables the function captures are left as they were; stateful random ops are not
    compared (the graph run takes the eager draws), and ``report.random_ops`` counts them.

    Returns:
        A ParityReport: ``report.agree``, ``report.first_difference`` (op name and type, the
        source line that created it, the max abs diff, both values), ``str(report)``.
    """
    if ctx.graph is not None:
        raise RuntimeError("check_parity runs a function eagerly and as a graph; call it "
                           "eagerly, not while a graph is being built")
    python_fn = fn.python_function if isinstance(fn, Function) else fn
    compiled = Function(python_fn, autograph=not isinstance(fn, Function) or fn.autograph)
    try:
        cf, trace_error = compiled.get_concrete_function(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001  (tracing errors are part of the report)
        cf, trace_error, trace_tb = None, e, sys.exc_info()[2]
    saved = _captured_variables(cf) if cf is not None else []
    eager_ops, eager_out, eager_error = _run_eagerly(python_fn, args, kwargs)
    _restore(saved)
    if cf is None:
        e = trace_error
        if eager_error is not None:
            return ParityReport(True, 0)
        return ParityReport(False, 0, ParityDifference(
            "", "trace", _user_line(trace_tb), float("inf"), "returned",
            _error_text(e), f"the graph raises while tracing ({_error_text(e)}) but eager "
            "execution returns"))
    queues: dict = defaultdict(deque)
    for key, outs, where in eager_ops:
        queues[key].append((outs, where))
    drawn: set = set()
    graph_ops, graph_error = _run_graph_ops(cf, args, kwargs, queues, drawn)
    _restore(saved)
    random_ops = sum(_is_random(op) for op in cf.graph.get_operations())
    compared = 0
    for op, outs in graph_ops:
        if op.type in _SKIP or id(op) in drawn:
            continue
        loc = op.source
        key = _key(op)
        if not queues[key]:
            continue  # no eager counterpart (control flow, graph-only ops)
        eager_outs, where = queues[key].popleft()
        compared += 1
        for i, (e, g) in enumerate(zip(eager_outs, outs)):
            diff = _compare(e, g, rtol, atol)
            if diff is not None:
                note = diff[1] + (f" (output {i})" if len(outs) > 1 else "")
                if op.opdef.stateful:
                    note += "; a stateful op (it reads or changes state outside the function)"
                return ParityReport(False, compared, ParityDifference(
                    op.name, op.type, str(loc) if loc else where, diff[0], e, g, note))
    if (eager_error is None) != (graph_error is None):
        if graph_error is not None:
            op, e = graph_error
            return ParityReport(False, compared, ParityDifference(
                op.name, op.type, str(op.source), float("inf"), "returned", _error_text(e),
                f"the graph raises here ({_error_text(e)}) but eager execution returns"))
        return ParityReport(False, compared, ParityDifference(
            "", "error", _user_line(eager_error.__traceback__), float("inf"),
            _error_text(eager_error), "returned",
            f"eager execution raises ({_error_text(eager_error)}) but the graph returns"))
    if eager_error is not None:
        return ParityReport(True, compared, None, random_ops)  # both raise
    real = compiled(*args, **kwargs)
    _restore(saved)
    if random_ops:  # new draws: the outputs cannot be compared
        return ParityReport(True, compared, None, random_ops)
    for i, (e, g) in enumerate(zip(_leaves_of(eager_out), _leaves_of(real))):
        diff = _compare(e, g, rtol, atol)
        if diff is not None:
            return ParityReport(False, compared, ParityDifference(
                "", "outputs", f"output {i} of {getattr(python_fn, '__name__', 'fn')}",
                diff[0], e, g, diff[1] + " in the compiled function's outputs (inside a "
                "control-flow branch or made by a compiler pass)"))
    return ParityReport(True, compared, None, random_ops)
