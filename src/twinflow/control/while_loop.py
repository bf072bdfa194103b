"""``tw.while_loop``: a Python loop eagerly, one functional While op in graphs.

Graph form. ``While``/``StatelessWhile`` take the loop variables, then (if ``has_max``) the
maximum number of iterations, then the tensors that ``cond``/``body`` capture. Attrs: ``cond``
and ``body`` are SubGraphs whose inputs are the loop variables followed by the captures
(``cond`` returns one bool scalar, ``body`` the next loop variables); ``T``/``output_shapes``
describe the loop variables (shapes relaxed by ``shape_invariants``); ``n_vars`` counts them.

Outputs: the final loop variables, then one ``variant`` tensor, the loop's History: the loop
values entering each iteration. The gradient is a second While running over the iterations in
reverse; its body reads iteration k's values from the History, replays the forward body on them
and backpropagates. It is built with the same machinery, so it is differentiable again.
Codegen inlines a While as a Python ``while`` in the generated function and records the
History only when that output has a consumer (a gradient) or is fetched.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autodiff.tape import backprop
from ..compiler.codegen import CompiledProgram
from ..compiler.loops import History, iteration_limit, run_while
from ..core import dtypes, nest
from ..core.context import ctx
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..eager.func_graph import TensorSpec
from ..graph.graph import user_source_location
from ..graph.registry import register_op, register_stateful_pair
from ..graph.tensor import Tensor
from ..ops import math_ops
from ..ops.array_ops import stop_gradient
from .cond import unify_inputs
from .subgraph import compiled, finish, raise_explained, replay, trace
from .variant import carries_gradient, grad_spec, watch_variables, zeros_for

_SCALAR = TensorShape([])


# ---------------------------------------------------------------------------------------------
# History ops

@register_op("WhileHistoryRead", multi_output=True)
class WhileHistoryRead:
    """Values ``indices`` of the loop values entering iteration ``k`` of a History.

    With ``likes`` (one per index) a missing (None) value reads as zeros like it: that is how
    gradient Histories, which hold None for zeros, are read.
    """

    def infer(history, k, *likes, T, shapes, indices, n):
        return list(zip(T, shapes))

    def kernel(history, k, *likes, T, shapes, indices, n):
        step = history.steps[int(k)]
        if not likes:
            return tuple(step[i] for i in indices)
        if step is None:
            return tuple(_zeros_value(like) for like in likes)
        return tuple(_zeros_value(like) if step[i] is None else step[i]
                     for i, like in zip(indices, likes))

    def grad(op, *dys):
        present = [p for p, d in enumerate(dys) if d is not None]
        if not present:
            return [None] * len(op.inputs)
        idx = op.attrs["indices"]
        h = bind(WhileHistoryOneHot, [op.inputs[0], op.inputs[1]] + [dys[p] for p in present],
                 {"positions": tuple(idx[p] for p in present), "n": op.attrs["n"]})
        return [h] + [None] * (len(op.inputs) - 1)


def _zeros_value(like):
    z = getattr(like, "zeros_like", None)
    return z() if z is not None else np.zeros_like(like)


@register_op("WhileHistoryOneHot")
class WhileHistoryOneHot:
    """A History gradient: ``values`` (at ``positions``) at iteration ``k``, None elsewhere."""

    def infer(history, k, *values, positions, n):
        return dtypes.variant, _SCALAR

    def kernel(history, k, *values, positions, n):
        step = [None] * n
        for i, v in zip(positions, values):
            step[i] = v
        steps = [None] * len(history.steps)
        steps[int(k)] = step
        return History(steps)

    def grad(op, dy):
        values = op.inputs[2:]
        picks = bind(WhileHistoryRead, [dy, op.inputs[1]] + list(values), {
            "T": [t.dtype for t in values], "shapes": [t.shape for t in values],
            "indices": op.attrs["positions"], "n": op.attrs["n"]})
        return [None, None] + list(picks)


@register_op("WhileHistoryLength")
class WhileHistoryLength:
    """The number of iterations a History recorded (int32 scalar)."""

    def infer(history):
        return dtypes.int32, _SCALAR

    def kernel(history):
        return np.int32(len(history.steps))

    def grad(op, dy):
        return None


# ---------------------------------------------------------------------------------------------
# While

def _while_infer(*inputs, cond, body, T, output_shapes, n_vars, has_max, parallel_iterations):
    return list(zip(T, output_shapes)) + [(dtypes.variant, _SCALAR)]


def _run(cond: CompiledProgram, body: CompiledProgram, vals, caps, limit) -> tuple:
    try:
        return run_while(cond.run, body.run, tuple(vals), tuple(caps), limit)
    except Exception as e:  # noqa: BLE001  (re-raised naming the op that failed)
        raise_explained(e, cond, body)


def _while_kernel(*inputs, cond, body, T, output_shapes, n_vars, has_max, parallel_iterations):
    limit = iteration_limit(inputs[n_vars]) if has_max else None
    return _run(compiled(cond), compiled(body), inputs[:n_vars], inputs[n_vars + has_max:],
                limit)


def _while_lower(op):
    """Codegen hook: the While kernel with cond/body compiled ahead, for loops that codegen
    does not inline (nested too deeply).

    The History is always recorded (one list append per iteration): whether a gradient will
    read it is not visible from the op (it may be fetched by a forward program).
    """
    a = op.attrs
    n, has = a["n_vars"], int(a["has_max"])
    run_cond, run_body = compiled(a["cond"]), compiled(a["body"])

    def run_while_op(*inputs):
        limit = iteration_limit(inputs[n]) if has else None
        return _run(run_cond, run_body, inputs[:n], inputs[n + has:], limit)
    return run_while_op


def _while_grad(op, *dys):
    a = op.attrs
    n, has = a["n_vars"], int(a["has_max"])
    ins = op.inputs
    caps = ins[n + has:]
    hist, dyh = op.outputs[n], dys[n]
    d_vars = [j for j in range(n) if carries_gradient(a["T"][j])]
    cap_specs = [grad_spec(c, [a["cond"].inputs[n + m], a["body"].inputs[n + m]])
                 for m, c in enumerate(caps)]
    d_caps = [m for m, sp in enumerate(cap_specs) if sp is not None]
    if not d_vars and not d_caps:
        return [None] * len(ins)
    count = bind(WhileHistoryLength, [hist])
    g0 = [dys[j] if dys[j] is not None else zeros_for(op.outputs[j]) for j in d_vars]
    res_specs = [cap_specs[m] if caps[m].dtype is dtypes.resource else None for m in d_caps]
    gc0 = [zeros_for(caps[m], sp) for m, sp in zip(d_caps, res_specs)]
    body_g = a["body"]
    shapes = a["output_shapes"]
    nd = len(d_vars)

    def grad_cond(k, *_):
        return math_ops.greater_equal(k, 0)

    def grad_body(k, *acc):
        gs, gcs = list(acc[:nd]), list(acc[nd:])
        v = bind(WhileHistoryRead, [hist, k], {"T": list(a["T"]), "shapes": list(shapes),
                                               "indices": tuple(range(n)), "n": n})
        g = ctx.graph
        local_caps = [g.capture(c) for c in caps]
        outs, _, ops = replay(body_g, list(v) + local_caps)
        sources = [v[j] for j in d_vars] + [local_caps[m] for m in d_caps]
        grads = backprop(ops, [outs[j] for j in d_vars], sources, gs)
        specs = [None] * nd + res_specs
        grads = [gr if gr is not None else zeros_for(s, sp)
                 for gr, s, sp in zip(grads, sources, specs)]
        new_g = grads[:nd]
        if dyh is not None:
            extra = bind(WhileHistoryRead, [dyh, k] + [v[j] for j in d_vars], {
                "T": [a["T"][j] for j in d_vars], "shapes": [shapes[j] for j in d_vars],
                "indices": tuple(d_vars), "n": n})
            new_g = [math_ops.add_n([x, y]) for x, y in zip(new_g, extra)]
        new_gc = [math_ops.add_n([x, y]) for x, y in zip(gcs, grads[nd:])]
        return [k - 1] + new_g + new_gc

    loop_in = [count - 1] + g0 + gc0
    inv = [_SCALAR] + [shapes[j] for j in d_vars] + [cap_specs[m][1] for m in d_caps]
    res = build_while(grad_cond, grad_body, loop_in, inv, None, "while_grad",
                      a["parallel_iterations"])
    grads: list = [None] * len(ins)
    for i, j in enumerate(d_vars):
        grads[j] = res[1 + i]
    for i, m in enumerate(d_caps):
        grads[n + has + m] = res[1 + nd + i]
    return grads


While, StatelessWhile = register_stateful_pair(
    "While", "Runs ``body`` while ``cond`` holds (SubGraphs).", infer=_while_infer,
    kernel=_while_kernel, grad=_while_grad, lower=_while_lower, multi_output=True)


def _name_of(names, i) -> str:
    if names and i < len(names) and names[i]:
        return f"'{names[i]}'"
    return f"loop variable #{i}"


def build_while(cond_fn: Callable, body_fn: Callable, flat_vars: list, invariants: list,
                max_iter, name: str, parallel_iterations: int = 10,
                names: list | None = None) -> list:
    """Traces ``cond_fn``/``body_fn`` (on flat tensors) and adds one While op.

    Args:
        cond_fn: flat loop tensors -> bool scalar.
        body_fn: flat loop tensors -> list of next flat loop tensors.
        flat_vars: initial loop tensors.
        invariants: one TensorShape per loop tensor (the shape it keeps across iterations).
        max_iter: an int32 scalar tensor, or None.
        name: the op name.
        parallel_iterations: accepted (recorded as an attr).
        names: loop variable names for errors (AutoGraph passes them).

    Returns:
        The final loop tensors.
    """
    specs = [(t.dtype, s) for t, s in zip(flat_vars, invariants)]
    cond_g, c = trace(cond_fn, specs, f"{name}_cond")
    with cond_g.as_default():
        c = check_cond_result(c)
    finish(cond_g, [c])
    body_g, out = trace(body_fn, specs, f"{name}_body")
    if len(out) != len(flat_vars):
        raise ValueError(f"the body of a while loop returned {len(out)} tensors for "
                         f"{len(flat_vars)} loop variables")
    loc = user_source_location()
    where = f" (at {loc})" if loc else ""
    outs = []
    for i, (o, t, inv) in enumerate(zip(out, flat_vars, invariants)):
        if not isinstance(o, Tensor):
            with body_g.as_default():
                o = convert_to_tensor(o, dtype=t.dtype)
        if o.dtype is not t.dtype:
            raise TypeError(_dtype_change(names, i, t.dtype, o.dtype, where))
        if not inv.is_compatible_with(o.shape) or \
                inv.rank is not None and o.shape.rank is None:
            raise ValueError(
                f"{_name_of(names, i)} enters the loop with shape {inv} but has shape "
                f"{o.shape} after one iteration{where}. To allow the shape to vary across "
                "iterations, pass shape_invariants to tw.while_loop with a less specific "
                f"shape (e.g. {TensorShape([None] * (o.shape.rank or 0))}), or keep the "
                "shape fixed.")
        outs.append(o)
    # A dim known on entry that the body leaves unknown (a dynamic slice or concat) varies:
    # relax it and trace again, rather than declare a static shape the loop breaks.
    # (TensorFlow raises here; seed 002 plainly means the shape to vary.)
    relaxed = [inv if inv.rank is None or o.shape.rank is None
               else inv.most_specific_compatible_shape(o.shape)
               for o, inv in zip(outs, invariants)]
    if relaxed != list(invariants):
        return build_while(cond_fn, body_fn, flat_vars, relaxed, max_iter, name,
                           parallel_iterations, names)
    finish(body_g, outs)
    ext = unify_inputs([cond_g, body_g])
    watch_variables(ext)
    stateful = any(op.opdef.stateful and op.type != "Placeholder"
                   for g in (cond_g, body_g) for op in g.get_operations())
    inputs = list(flat_vars) + ([max_iter] if max_iter is not None else []) + ext
    attrs = {"cond": cond_g, "body": body_g, "T": [t.dtype for t in flat_vars],
             "output_shapes": list(invariants), "n_vars": len(flat_vars),
             "has_max": max_iter is not None, "parallel_iterations": int(parallel_iterations)}
    res = bind(While if stateful else StatelessWhile, inputs, attrs, name=name)
    return res[:len(flat_vars)]


# ---------------------------------------------------------------------------------------------
# The rules of a loop's arguments, checked once for every mode (eager, graph, map_fn/scan)

def check_parallel_iterations(value) -> int:
    """``parallel_iterations`` as TensorFlow accepts it: a positive Python integer.

    Args:
        value: the argument.

    Returns:
        It as an int.

    Raises:
        TypeError: it is not a positive integer (TensorFlow's error and message).
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    return int(value)


def check_loop_args(cond, body, loop_vars, parallel_iterations, maximum_iterations):
    """Checks the arguments of ``tw.while_loop`` the same way eagerly and in a graph.

    Args:
        cond: must be callable.
        body: must be callable.
        loop_vars: must not be empty.
        parallel_iterations: a positive integer.
        maximum_iterations: None, or an integer scalar (a negative one runs no iteration,
            ``compiler.loops.iteration_limit``).

    Returns:
        ``maximum_iterations`` as an integer scalar tensor, or None.

    Raises:
        TypeError: ``cond``/``body`` not callable, ``parallel_iterations`` not a positive
            integer, ``maximum_iterations`` not of an integer dtype.
        ValueError: no loop variables, ``maximum_iterations`` not a scalar.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if not nest.flatten(loop_vars):
        raise ValueError("'loop_vars' must be provided.")
    check_parallel_iterations(parallel_iterations)
    if maximum_iterations is None:
        return None
    m = convert_to_tensor(maximum_iterations, dtype_hint=dtypes.int32)
    if not m.dtype.is_integer:
        raise TypeError(f"'maximum_iterations' must be an integer scalar, got a "
                        f"{m.dtype.name} tensor.")
    if m.shape.rank not in (None, 0):
        raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: "
                         f"{tuple(m.shape.as_list())}")
    return m


def check_cond_result(c):
    """The condition of a loop must give a bool scalar (a Python value is taken as one).

    Args:
        c: what ``cond`` returned.

    Returns:
        ``c`` as a tensor.

    Raises:
        TypeError: a tensor that is not a bool scalar.
    """
    if not isinstance(c, Tensor):
        c = convert_to_tensor(bool(c))
    if c.dtype is not dtypes.bool_ or c.shape.rank not in (None, 0):
        raise TypeError(f"the condition of a while loop must be a bool scalar, got "
                        f"{c.dtype.name} of shape {c.shape}")
    return c


def check_body_result(loop_vars, result, names: list | None = None,
                      convert: bool = False) -> None:
    """The body must return the structure of the loop variables, each keeping its dtype.

    Args:
        loop_vars: the loop variables entering the iteration.
        result: what the body returned (normalized).
        names: loop variable names for errors (AutoGraph passes them).
        convert: also check that Python values returned for tensor loop variables convert
            to their dtype (a graph converts them when it builds the loop).

    Raises:
        ValueError: another structure.
        TypeError: a tensor loop variable changed dtype.
    """
    try:
        nest.assert_same_structure(loop_vars, result, check_types=False, expand_composites=True)
    except (ValueError, TypeError) as e:
        raise ValueError(f"the body of tw.while_loop must return the structure of "
                         f"loop_vars: {e}") from None
    for i, (a, b) in enumerate(zip(nest.flatten(loop_vars, expand_composites=True),
                                   nest.flatten(result, expand_composites=True))):
        if convert and isinstance(a, Tensor) and not isinstance(b, Tensor) and \
                not hasattr(b, "_loop_tensor"):
            convert_to_tensor(b, dtype=a.dtype)
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype is not b.dtype:
            loc = user_source_location()
            raise TypeError(_dtype_change(names, i, a.dtype, b.dtype,
                                          f" (at {loc})" if loc else ""))


def shape_invariants_for(flat: list, shape_invariants, names: list | None = None) -> list:
    """The shape each loop variable keeps across iterations (checked the same in every mode).

    Args:
        flat: the flat loop variables (tensors; other leaves, e.g. eager TensorArrays, keep
            any shape).
        shape_invariants: None (the entry shapes), or one shape per loop variable.
        names: loop variable names for errors.

    Returns:
        One TensorShape per loop variable.

    Raises:
        ValueError: not one invariant per loop variable, or one that does not hold on entry.
    """
    shapes = [t.shape if isinstance(t, Tensor) else TensorShape(None) for t in flat]
    if shape_invariants is None:
        return shapes
    inv_leaves = nest.flatten(shape_invariants)
    if len(inv_leaves) != len(flat):
        raise ValueError(f"shape_invariants has {len(inv_leaves)} entries for {len(flat)} "
                         "loop variables")
    invariants = []
    for i, (t, sh, s) in enumerate(zip(flat, shapes, inv_leaves)):
        s = s if isinstance(s, TensorShape) else TensorShape(s)
        if isinstance(t, Tensor) and t.dtype is dtypes.variant:
            s = sh
        if not s.is_compatible_with(sh):
            raise ValueError(f"{_name_of(names, i)} has shape {sh}, not compatible with its "
                             f"shape invariant {s}")
        invariants.append(s)
    return invariants


def _expanded_invariants(loop_vars, shape_invariants):
    """Shape invariants per component tensor: a composite loop variable (RaggedTensor...) keeps
    the shapes its TypeSpec allows (a ragged row's length may change) unless given; a given
    TypeSpec invariant gives its components' shapes."""
    if shape_invariants is None:
        if not any(nest.expands(x) for x in nest.flatten(loop_vars)):
            return None
        shape_invariants = nest.map_structure(
            lambda x: x._type_spec if nest.expands(x) else getattr(x, "shape", None), loop_vars)
    return [s.shape if isinstance(s, TensorSpec) else (TensorShape(None) if s is None else s)
            for s in nest.flatten(shape_invariants, expand_composites=True)]


def _dtype_change(names, i: int, before, after, where: str) -> str:
    return (f"{_name_of(names, i)} enters the loop as {before.name} but the loop body makes "
            f"it {after.name}{where}. A loop variable must keep its dtype across iterations: "
            f"cast it with tw.cast(..., tw.{before.name}), or give it the body's dtype before "
            "the loop.")


# ---------------------------------------------------------------------------------------------
# Public function

def _to_tensors(leaf):
    """A loop variable leaf as a tensor (TensorArrays travel as their flow tensor)."""
    conv = getattr(leaf, "_loop_tensor", None)
    if conv is not None:
        return conv()
    if isinstance(leaf, Tensor):
        return leaf
    return convert_to_tensor(leaf)


def _from_tensors(template_leaf, t):
    back = getattr(template_leaf, "_from_loop_tensor", None)
    return back(t) if back is not None else t


def _call(fn, packed, is_seq: bool):
    return fn(*packed) if is_seq else fn(packed)


def _normalize_body_result(result, loop_vars, is_seq: bool):
    if is_seq and len(loop_vars) == 1 and not isinstance(result, (list, tuple)):
        result = [result]
    if is_seq and isinstance(result, (list, tuple)) and type(result) is not type(loop_vars) \
            and not hasattr(loop_vars, "_fields"):
        result = type(loop_vars)(result)
    return result


def while_loop(cond: Callable, body: Callable, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               maximum_iterations=None, name: str | None = None, _names: list | None = None) -> Any:
    """``tw.while_loop``: repeats ``body`` while ``cond`` is True.

    Eagerly this is a Python ``while``. While building a graph, ``cond`` and ``body`` are
    traced once and one While op runs them (the loop is not unrolled).

    Args:
        cond: callable taking the loop variables, returning a bool scalar.
        body: callable taking the loop variables, returning their next values (same
            structure, dtypes, and shapes compatible with ``shape_invariants``).
        loop_vars: a tensor, or a (nested) list/tuple/dict of tensors and TensorArrays.
        shape_invariants: shapes the loop variables keep (None dims may vary). By default
            the entry shapes; a dim that the body leaves unknown becomes None (TensorFlow
            raises there), a known dim that changes raises.
        parallel_iterations: a positive integer (iterations run one after another).
        back_prop: False (deprecated in TensorFlow) holds the results constant: no gradient
            flows back through the loop (``tw.stop_gradient`` on each; eagerly too).
        swap_memory: a hint that changes nothing: TensorFlow's GPU-to-host swapping.
        maximum_iterations: stop after this many iterations at most (an integer scalar; a
            negative one runs no iteration, as in TensorFlow).
        name: op name.

    Returns:
        The final loop variables, in the structure of ``loop_vars``.
    """
    if not back_prop:
        return without_gradient(while_loop(cond, body, loop_vars, shape_invariants,
                                           parallel_iterations, True, swap_memory,
                                           maximum_iterations, name, _names))
    max_iter = check_loop_args(cond, body, loop_vars, parallel_iterations, maximum_iterations)
    is_seq = isinstance(loop_vars, (list, tuple)) and not hasattr(loop_vars, "_fields")
    if ctx.graph is None:
        # As TensorFlow, Python and NumPy loop values become tensors (the result of
        # tw.while_loop(c, b, (0, 0)) is a tuple of tensors, not of ints).
        vars_ = nest.map_structure(
            lambda x: convert_to_tensor(x) if isinstance(
                x, (bool, int, float, complex, np.ndarray, np.generic)) else x, loop_vars)
        # (Checked as in a graph; the loop's shapes may then vary freely, as TensorFlow's.)
        if shape_invariants is not None:
            shape_invariants_for(nest.flatten(vars_, expand_composites=True),
                                 _expanded_invariants(vars_, shape_invariants), _names)
        n = 0
        limit = None if max_iter is None else iteration_limit(max_iter.numpy())
        while limit is None or n < limit:
            c = _call(cond, vars_, is_seq)
            if n == 0:  # as a graph traces cond and body once, their results are checked once
                c = check_cond_result(c)
            if not c:
                break
            res = _normalize_body_result(_call(body, vars_, is_seq), loop_vars, is_seq)
            if n == 0:
                check_body_result(vars_, res, _names, convert=True)
            vars_ = res
            n += 1
        return vars_
    # Composites (RaggedTensor...) loop as their component tensors, which may change shape
    # where their TypeSpec leaves dims unknown (a ragged row's length).
    leaves = nest.flatten(loop_vars, expand_composites=True)
    flat = [_to_tensors(x) for x in leaves]
    invariants = shape_invariants_for(flat, _expanded_invariants(loop_vars, shape_invariants),
                                      _names)

    def pack(ts):
        return nest.pack_sequence_as(loop_vars, [_from_tensors(x, t) for x, t in zip(leaves, ts)],
                                     expand_composites=True)

    def cond_fn(*ts):
        return _call(cond, pack(ts), is_seq)

    def body_fn(*ts):
        packed = pack(ts)
        res = _normalize_body_result(_call(body, packed, is_seq), loop_vars, is_seq)
        check_body_result(packed, res, _names)
        return [_to_tensors(x) for x in nest.flatten(res, expand_composites=True)]

    outs = build_while(cond_fn, body_fn, flat, invariants, max_iter, name or "while",
                       parallel_iterations, _names)
    return pack(outs)


__all__ = ["while_loop"]


def without_gradient(results: Any) -> Any:
    """``results`` with ``tw.stop_gradient`` on each tensor (``back_prop=False``).

    Args:
        results: a structure of tensors (and TensorArrays, kept).

    Returns:
        The same structure.
    """
    return nest.map_structure(lambda t: stop_gradient(t) if isinstance(t, Tensor) else t,
                              results)
