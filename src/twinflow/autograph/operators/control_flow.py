"""Runtime operators for converted ``if``/``while``/``for`` statements.

Each takes the statement's pieces as functions of the variables the statement assigns and
returns their new values. A condition (or iterable) that is not a symbolic tensor runs plain
Python; a symbolic one builds one If or While op (``twinflow.control``).

In a graph loop, each variable must be a tensor (or nest of tensors, TensorArray), or a Python
value the loop does not change. Python numbers become tensors; an empty Python list that the
body appends to is carried as a TensorArray; a variable first assigned inside the loop is
initialised with zeros of the type the body gives it (found by tracing the body once more).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...control.cond import build_branches
from ...control.subgraph import trace
from ...control.tensor_array import TensorArray
from ...control.while_loop import while_loop
from ...core import dtypes, nest
from ...core.errors import OperatorNotAllowedInGraphError
from ...core.shapes import TensorShape
from ...eager.execute import constant, convert_to_tensor
from ...graph.graph import user_source_location
from ...graph.tensor import SymbolicTensor, Tensor
from ...ops import array_ops, math_ops
from .data_structures import GraphList
from .variables import Undefined, UndefinedReturnValue, is_undefined

_SCALARS = (bool, int, float, complex, np.generic)


def _is_sym(x) -> bool:
    return isinstance(x, SymbolicTensor)


def _where() -> str:
    loc = user_source_location()
    return f" at {loc}" if loc else ""


def _check_condition(c, what: str):
    if c.dtype is not dtypes.bool_:
        raise TypeError(f"the condition of {what}{_where()} is a {c.dtype.name} tensor; a "
                        "tensor condition must be a bool scalar. Fix: compare it, e.g. "
                        "`if x > 0:` or `if tw.reduce_any(x != 0):`.")
    if c.shape.rank not in (None, 0):
        raise ValueError(f"the condition of {what}{_where()} has shape {c.shape}; a tensor "
                         "condition must be a scalar. Fix: reduce it with tw.reduce_all(...) "
                         "or tw.reduce_any(...).")


def _describe(v) -> str:
    if isinstance(v, Tensor):
        return f"a {v.dtype.name} tensor of shape {v.shape}"
    if is_undefined(v):
        return "undefined"
    return f"the Python {type(v).__name__} {v!r}"


# ---------------------------------------------------------------------------------------------
# if

_SPECIAL_NAMES = {"retval_": "the return value", "do_return": "the `return` flag"}


def _flat_names(names, structure) -> list:
    out = []
    names = [_SPECIAL_NAMES.get(n, n) for n in names]
    for n, v in zip(names, structure):
        k = len(nest.flatten(v))
        out.extend([n] if k == 1 else [f"{n}[{i}]" for i in range(k)])
    return out


def if_stmt(cond, body: Callable, orelse: Callable, vals: tuple, names: tuple):
    """A converted ``if`` statement.

    Args:
        cond: the condition.
        body: function of the assigned variables, returning their values after the if-branch.
        orelse: the same for the else-branch.
        vals: the variables' current values.
        names: their names.

    Returns:
        The variables' values after the statement.
    """
    if not _is_sym(cond):
        return body(*vals) if cond else orelse(*vals)
    _check_condition(cond, "an `if` statement")
    where = _where()
    first: list = []

    def true_fn():
        r = body(*vals)
        first.append(r)
        return r

    def resolve(i, vs, graphs):
        flat_names = _flat_names(names, first[0]) if first else []
        name = flat_names[i] if i < len(flat_names) else f"#{i}"
        quoted = name if name.startswith("the ") else f"'{name}'"
        tensors = [isinstance(v, Tensor) for v in vs]
        undefined = [is_undefined(v) for v in vs]
        if all(undefined):
            # Undefined after either branch (e.g. bound only on a path that returned, as in
            # an `elif` chain of returns): still undefined, an error only if it is read.
            return "py", vs[0]
        if any(undefined) and not all(undefined):
            if any(isinstance(v, UndefinedReturnValue) for v in vs) and any(tensors):
                like = vs[tensors.index(True)]
                fills = []
                for g, v in zip(graphs, vs):
                    if isinstance(v, UndefinedReturnValue):
                        with g.as_default():
                            dims = [d or 0 for d in like.shape.as_list()] \
                                if like.shape.rank is not None else []
                            v = constant(np.zeros(dims, like.dtype.np))
                    fills.append(v)
                return "tensors", fills
            which = "true" if not undefined[0] else "false"
            return "py", Undefined(name, (
                f"'{name}' is assigned in the {which} branch of the `if` statement{where} "
                "but not in the other one. The condition is a tensor, known only when the "
                f"graph runs, so '{name}' has no value after the `if`. Fix: assign '{name}' "
                "before the `if`, or in both branches."))
        if any(tensors):
            return None
        if all(v is vs[0] for v in vs):
            return "py", vs[0]
        if all(isinstance(v, _SCALARS) for v in vs):
            if all(type(v) is type(vs[0]) and v == vs[0] for v in vs):
                return "py", vs[0]
            return "tensors", vs
        raise TypeError(
            f"{quoted} is {_describe(vs[0])} in the true branch and {_describe(vs[1])} in the "
            f"false branch of the `if` statement{where}. The condition is a tensor, so both "
            "branches become one graph op and their results must be tensors of one dtype. "
            f"Fix: give '{name}' a tensor value in both branches (or the same Python value).")

    return build_branches(cond, [true_fn, lambda: orelse(*vals)], "if statement",
                          names=lambda: _flat_names(names, first[0]) if first else None,
                          branch_names=["cond_true", "cond_false"], resolve=resolve,
                          op_name="cond")


# ---------------------------------------------------------------------------------------------
# Loops

def while_stmt(test: Callable, body: Callable, vals: tuple, names: tuple):
    """A converted ``while`` statement.

    Args:
        test: function of the loop variables returning the condition.
        body: function of the loop variables returning their next values.
        vals: the loop variables' current values.
        names: their names.

    Returns:
        The loop variables' values after the loop.
    """
    vals = tuple(vals)
    while True:
        t = test(*vals)
        if _is_sym(t):
            _check_condition(t, "a `while` loop")
            _, out = _graph_loop(lambda ex, v: test(*v), lambda ex, v: ((), body(*v)), (),
                                 vals, names, "while")
            return out
        if not t:
            return vals
        vals = tuple(body(*vals))


def for_stmt(iter_, extra_test: Callable | None, body: Callable, vals: tuple, names: tuple):
    """A converted ``for`` statement.

    Args:
        iter_: the iterable.
        extra_test: None, or a function of the loop variables that must hold to go on
            (``break``/``return`` flags).
        body: function of (iterate, loop variables) returning the loop variables.
        vals: the loop variables' current values.
        names: their names.

    Returns:
        The loop variables' values after the loop.
    """
    vals = tuple(vals)
    if isinstance(iter_, GraphList):
        raise TypeError(f"cannot iterate over list '{iter_.name}'{_where()}: it was grown in a "
                        "loop over tensors; iterate over tw.stack(...) of it instead.")
    if _is_sym(iter_):
        return _graph_for(iter_, extra_test, body, vals, names)
    custom = getattr(type(iter_), "__ag_for_stmt__", None)
    if custom is not None:
        # Iterables with their own graph loop (a tw.data Dataset) implement
        # ``__ag_for_stmt__(self, extra_test, body, vals, names) -> vals``.
        return tuple(custom(iter_, extra_test, body, vals, names))
    for x in iter_:
        if extra_test is not None:
            t = extra_test(*vals)
            if _is_sym(t):
                raise OperatorNotAllowedInGraphError(
                    f"a `break` or `return` in the Python `for` loop{_where()} depends on a "
                    "tensor. A loop over a Python iterable is unrolled while tracing and cannot "
                    "stop at a value known only when the graph runs. Fix: loop over "
                    "tw.range(...) (or a tensor) so the loop becomes a graph loop.")
            if not t:
                break
        vals = tuple(body(x, *vals))
    return vals


def _graph_for(iter_, extra_test, body, vals, names):
    if iter_.shape.rank == 0:
        raise TypeError(f"cannot iterate over a scalar tensor{_where()}")
    n = array_ops.shape(iter_)[0]
    if iter_.op.type == "Range":
        start, _, delta = iter_.op.inputs

        def element(k):
            return start + math_ops.cast(k, start.dtype) * delta
    else:
        ta = TensorArray(iter_.dtype, size=n, element_shape=iter_.shape[1:]).unstack(iter_)

        def element(k):
            return ta.read(k)

    def cond(ex, v):
        c = ex[0] < n
        if extra_test is None:
            return c
        e = extra_test(*v)
        if _is_sym(e):
            return math_ops.logical_and(c, e)
        return c if e else math_ops.logical_and(c, False)

    def step(ex, v):
        k = ex[0]
        return (k + 1,), body(element(k), *v)

    _, out = _graph_loop(cond, step, (convert_to_tensor(0),), vals, names, "for")
    return out


def _kind(v) -> str:
    if is_undefined(v):
        return "undef"
    if isinstance(v, (Tensor, TensorArray, GraphList)):
        return "var"
    if isinstance(v, list):
        return "list"
    if isinstance(v, _SCALARS) or isinstance(v, np.ndarray):
        return "var"
    if isinstance(v, (tuple, dict)) and any(isinstance(x, (Tensor, TensorArray))
                                            for x in nest.flatten(v)):
        return "var"
    return "const"


def _to_loop_value(v):
    if isinstance(v, (_SCALARS, np.ndarray)) and not isinstance(v, Tensor):
        return convert_to_tensor(v)
    if isinstance(v, tuple) or isinstance(v, dict):
        return nest.map_structure(
            lambda x: convert_to_tensor(x) if isinstance(x, (_SCALARS, np.ndarray)) else x, v)
    return v


def _grown_error(name: str, before: int, kind: str, where: str) -> Exception:
    return ValueError(
        f"Python list '{name}' ({before} elements before the loop) is grown inside a "
        f"`{kind}` loop over tensors{where}. The graph loop runs a number of times known only "
        "when the graph runs, so a Python list cannot hold its results. Fix: start from an "
        f"empty list (`{name} = []`) so AutoGraph carries it as a TensorArray, or use "
        "tw.TensorArray(..., dynamic_size=True) and .write()/.stack() explicitly.")


def _graph_loop(cond_fn, body_fn, extras: tuple, vals: tuple, names: tuple, kind: str):
    """Builds one While over ``extras`` (hidden tensors) and the loop variables ``vals``."""
    where = _where()
    kinds = [_kind(v) for v in vals]
    vals = [_to_loop_value(v) if k == "var" else v for v, k in zip(vals, kinds)]
    invariants: dict = {}
    if "undef" in kinds or "list" in kinds:
        probe = [list(v) if k == "list" else v for v, k in zip(vals, kinds)]
        out = _dry_run(body_fn, extras, probe, kinds)
        for j, (k, v) in enumerate(zip(kinds, vals)):
            o = out[j]
            if k == "undef" and isinstance(o, Tensor):
                dims = [d or 0 for d in o.shape.as_list()] if o.shape.rank is not None else []
                vals[j] = constant(np.zeros(dims, o.dtype.np))
                invariants[j] = o.shape
                kinds[j] = "var"
            elif k == "list" and isinstance(o, list) and len(o) > len(v):
                if v:
                    raise _grown_error(names[j], len(v), kind, where)
                e = convert_to_tensor(o[0]) if not isinstance(o[0], Tensor) else o[0]
                vals[j] = GraphList.empty(names[j], e.dtype, e.shape)
                kinds[j] = "var"
            elif k == "list":
                kinds[j] = "const"
    var_idx = [j for j, k in enumerate(kinds) if k == "var"]
    n_ex = len(extras)

    def full(lv):
        v = list(vals)
        for j, x in zip(var_idx, lv[n_ex:]):
            v[j] = x
        return tuple(v), tuple(lv[:n_ex])

    def cond(*lv):
        v, ex = full(lv)
        c = cond_fn(ex, v)
        if not isinstance(c, Tensor):
            c = convert_to_tensor(bool(c))
        return c

    def body(*lv):
        v, ex = full(lv)
        _LOOP_OPTIONS.append({"ids": {id(x): k for k, x in enumerate(lv)}, "set": {}})
        try:
            new_ex, out = body_fn(ex, v)
        finally:
            requested.update(_LOOP_OPTIONS.pop()["set"])
        out = tuple(out)
        for j, k in enumerate(kinds):
            if k == "const" and out[j] is not vals[j]:
                if isinstance(vals[j], list) and isinstance(out[j], list):
                    continue
                raise TypeError(
                    f"'{names[j]}' is {_describe(vals[j])} before the `{kind}` loop{where} and "
                    f"the loop body changes it to {_describe(out[j])}. In a loop over tensors "
                    "only tensors can change from one iteration to the next. Fix: make "
                    f"'{names[j]}' a tensor before the loop, or do not change it in the loop.")
            if k == "const" and isinstance(vals[j], list) and len(out[j]) != len(vals[j]):
                raise _grown_error(names[j], len(vals[j]), kind, where)
            if k == "var" and is_undefined(out[j]):
                raise ValueError(f"'{names[j]}' has a value before the `{kind}` loop{where} "
                                 "but the loop body leaves it undefined.")
        return list(new_ex) + [out[j] for j in var_idx]

    loop_vars = list(extras) + [vals[j] for j in var_idx]
    inv = [_shape_of(x) for x in extras] + [
        invariants[j] if j in invariants else nest.map_structure(_shape_of, vals[j])
        for j in var_idx]
    flat_names = ["iteration counter"] * n_ex
    for j in var_idx:
        k = len(nest.flatten(vals[j]))
        flat_names += [names[j]] if k == 1 else [f"{names[j]}[{i}]" for i in range(k)]
    requested: dict = {}
    try:
        res = while_loop(cond, body, loop_vars, shape_invariants=inv, name=kind,
                         _names=flat_names)
    except ValueError:
        if not requested:
            raise
        # set_loop_options(shape_invariants=...) ran in the body: trace again with them.
        for k, shape in requested.items():
            inv[k] = shape
        res = while_loop(cond, body, loop_vars, shape_invariants=inv, name=kind,
                         _names=flat_names)
    out = list(vals)
    for j, x in zip(var_idx, res[n_ex:]):
        out[j] = x
    for j, k in enumerate(kinds):
        if k == "undef":
            out[j] = Undefined(names[j], (
                f"'{names[j]}' is assigned only inside the `{kind}` loop over tensors{where} "
                "(as a Python value), so it has no value after the loop. Fix: assign it a "
                "tensor before the loop."))
    return tuple(res[:n_ex]), tuple(out)


# One entry per loop body being traced: its loop variables' ids, and the shape invariants
# requested with tw.autograph.experimental.set_loop_options.
_LOOP_OPTIONS: list = []


def set_shape_invariants(pairs) -> None:
    """Records ``(loop variable, shape)`` pairs for the loop whose body is being traced.

    Args:
        pairs: (tensor, TensorShape or list) pairs; each tensor must be a loop variable as it
            is at the start of the body.
    """
    if not _LOOP_OPTIONS:
        return
    top = _LOOP_OPTIONS[-1]
    for t, shape in pairs:
        k = top["ids"].get(id(t))
        if k is None:
            raise ValueError(f"set_loop_options: {t!r} is not a loop variable of the loop being "
                             "traced (call it at the start of the loop body, on the variable "
                             "itself)")
        top["set"][k] = shape if isinstance(shape, TensorShape) else TensorShape(shape)


def _shape_of(x):
    if isinstance(x, (TensorArray, GraphList)):
        return x._loop_tensor().shape
    return x.shape if isinstance(x, Tensor) else None


def _dry_run(body_fn, extras, probe, kinds) -> list:
    """Traces the body once in a scratch graph to see what it assigns (never run)."""
    var_pos = [j for j, k in enumerate(kinds) if k == "var"]
    leaves = list(extras) + [probe[j] for j in var_pos]
    flat = []
    for x in leaves:
        flat.extend(nest.flatten(x))
    flat_t = [x._loop_tensor() if isinstance(x, (TensorArray, GraphList)) else x for x in flat]
    specs = [(t.dtype, t.shape) for t in flat_t]

    def run(*phs):
        it = iter(phs)
        rebuilt = []
        for x in leaves:
            parts = [p._from_loop_tensor(next(it)) if isinstance(p, (TensorArray, GraphList))
                     else next(it) for p in nest.flatten(x)]
            rebuilt.append(nest.pack_sequence_as(x, parts))
        ex = tuple(rebuilt[:len(extras)])
        v = list(probe)
        for j, x in zip(var_pos, rebuilt[len(extras):]):
            v[j] = x
        _, out = body_fn(ex, tuple(v))
        return list(out)

    _, out = trace(run, specs, "probe")
    return out
