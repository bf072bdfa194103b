"""``tw.cond``, ``tw.case``, ``tw.switch_case``: eager Python branching, graph If/Case ops.

In a graph each branch is traced into a SubGraph; the op (``If``/``StatelessIf`` with attrs
``then_branch``/``else_branch``, or ``Case``/``StatelessCase`` with attr ``branches``) takes the
predicate (or branch index) and then the union of the tensors the branches capture, and runs one
branch when the graph runs. All branches take the same inputs (``branch.inputs`` lines up with
``op.inputs[1:]``) and return the same dtypes (``Tout``) with shapes ``output_shapes``.

The gradient of an If is an If of the branches' gradients: each gradient branch replays its
forward branch from the same inputs and backpropagates the output gradients through it, so the
gradient is itself an If (and differentiable again).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autodiff.tape import backprop
from ..compiler.codegen import CompiledProgram
from ..core import dtypes, nest
from ..core.errors import InvalidArgumentError
from ..eager.execute import bind, convert_to_tensor
from ..graph.graph import user_source_location
from ..graph.registry import register_stateful_pair
from ..graph.tensor import SymbolicTensor, Tensor
from ..ops import math_ops
from ..ops.debugging_ops import Assert
from .subgraph import SubGraph, compiled, finish, raise_explained, replay, trace
from .variant import carries_gradient, grad_spec, watch_variables, zeros_for


def _infer_branches(*inputs, Tout, output_shapes, **_):
    return list(zip(Tout, output_shapes))


def _run_branch(branch: CompiledProgram, inputs) -> tuple:
    """Runs the compiled ``branch``; an error names the op that failed."""
    try:
        return tuple(branch.run(*inputs))
    except Exception as e:  # noqa: BLE001  (re-raised naming the op that failed)
        raise_explained(e, branch)


def chosen_branch(index, n: int) -> int:
    """The branch a Case runs for ``index`` among ``n``: out of range is the last (default)
    one. Eager ``switch_case``, the Case kernel and its lowering all choose with this."""
    i = int(index)
    return i if 0 <= i < n else n - 1


def _if_kernel(pred, *inputs, then_branch, else_branch, Tout, output_shapes):
    return _run_branch(compiled(then_branch if pred else else_branch), inputs)


def _case_kernel(index, *inputs, branches, Tout, output_shapes):
    return _run_branch(compiled(branches[chosen_branch(index, len(branches))]), inputs)


def _if_lower(op):
    """Codegen hook: the If kernel with both branches compiled ahead."""
    then_f = compiled(op.attrs["then_branch"])
    else_f = compiled(op.attrs["else_branch"])

    def run_if(pred, *inputs):
        return _run_branch(then_f if pred else else_f, inputs)
    return run_if


def _case_lower(op):
    """Codegen hook: the Case kernel with every branch compiled ahead."""
    fs = [compiled(g) for g in op.attrs["branches"]]

    def run_case(index, *inputs):
        return _run_branch(fs[chosen_branch(index, len(fs))], inputs)
    return run_case


def _if_grad(op, *dys):
    return _branch_grads(op, [op.attrs["then_branch"], op.attrs["else_branch"]], dys)


def _case_grad(op, *dys):
    return _branch_grads(op, list(op.attrs["branches"]), dys)


If, StatelessIf = register_stateful_pair(
    "If", "Runs ``then_branch`` or ``else_branch`` (SubGraphs) on the inputs.",
    infer=_infer_branches, kernel=_if_kernel, grad=_if_grad, lower=_if_lower, multi_output=True)
Case, StatelessCase = register_stateful_pair(
    "Case", "Runs ``branches[index]`` (the last one if out of range).",
    infer=_infer_branches, kernel=_case_kernel, grad=_case_grad, lower=_case_lower,
    multi_output=True)


# ---------------------------------------------------------------------------------------------
# Building

def _has_state(g: SubGraph) -> bool:
    return any(op.opdef.stateful and op.type != "Placeholder" for op in g.get_operations())


def unify_inputs(graphs: list) -> list:
    """Makes every graph take the same inputs: its args, then the union of all captures.

    Args:
        graphs: SubGraphs with the same number of explicit args.

    Returns:
        The outside tensors the op must pass after the explicit inputs.
    """
    ext: list = []
    seen: set = set()
    for g in graphs:
        for t, _ in g.captures:
            if id(t) not in seen:
                seen.add(id(t))
                ext.append(t)
    for g in graphs:
        # Keyed by the outside tensor as recorded in ``captures`` (for a nested capture that
        # is the enclosing graph's placeholder, not the tensor first used).
        known = {id(t): ph for t, ph in g.captures}
        phs = []
        for t in ext:
            ph = known.get(id(t))
            if ph is None:
                ph = g.capture(t)
            phs.append(ph)
        g.inputs = g.inputs[:g.arg_count] + phs
        g.captures = [(t, ph) for t, ph in zip(ext, phs)]
        g._plan = None
    return ext


def _match_outputs(results: list, names: list | None, what: str) -> tuple:
    """Flattens each branch's result; Python numbers take the dtype of the other branches."""
    flats = [nest.flatten(r, expand_composites=True) for r in results]
    for r in results[1:]:
        try:
            nest.assert_same_structure(results[0], r, check_types=False, expand_composites=True)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{what}: all branches must return the same structure: {e}") \
                from None
    out_dtypes = []
    for i in range(len(flats[0])):
        dt = next((f[i].dtype for f in flats if isinstance(f[i], Tensor)), None)
        out_dtypes.append(dt)
    return flats, out_dtypes


def _describe(names, i) -> str:
    if names and i < len(names) and names[i]:
        return names[i] if names[i].startswith("the ") else f"'{names[i]}'"
    return f"output #{i}"


def build_branches(selector, fns: list, what: str, names=None,
                   branch_names: list | None = None, resolve: Callable | None = None,
                   op_name: str | None = None):
    """Traces ``fns`` (nullary) into SubGraphs and adds one If/Case op choosing among them.

    Args:
        selector: a boolean scalar tensor (two fns: If) or an int32 scalar (Case).
        fns: the branch functions.
        what: the public name for errors (``tw.cond``...).
        names: optional names of the flattened outputs (AutoGraph passes variable names),
            or a callable returning them once the branches are traced.
        branch_names: names of the SubGraphs.
        resolve: optional ``resolve(i, values, graphs)`` deciding what flattened output ``i``
            becomes from the branches' ``values``: ``("py", value)`` keeps a Python value out
            of the op, ``("tensors", values)`` makes it an output (None: the default rule).
        op_name: the op's name (default from ``what``).

    Returns:
        The outputs packed like the first branch's result.
    """
    branch_names = branch_names or [f"{what.split('.')[-1]}_branch{i}" for i in range(len(fns))]
    graphs, results = [], []
    for fn, bname in zip(fns, branch_names):
        g, r = trace(lambda fn=fn: fn(), [], bname)
        graphs.append(g)
        results.append(r)
    flats, out_dtypes = _match_outputs(results, None, what)
    if callable(names):
        names = names()
    n = len(flats[0])
    python_values: dict = {}
    columns = []
    for i in range(n):
        vs = [f[i] for f in flats]
        r = resolve(i, vs, graphs) if resolve is not None else None
        if r is not None and r[0] == "py":
            python_values[i] = r[1]
            continue
        if r is not None:
            vs = list(r[1])
        columns.append((i, vs))
    loc = user_source_location()
    where = f" at {loc}" if loc else ""
    per_graph: list = [[] for _ in graphs]
    for i, vs in columns:
        dt = next((v.dtype for v in vs if isinstance(v, Tensor)), None)
        for b, (g, v) in enumerate(zip(graphs, vs)):
            if not isinstance(v, Tensor):
                if v is None:
                    raise ValueError(
                        f"{what}: {_describe(names, i)} is None in branch {b} but not in "
                        f"another{where}; every branch must give it a tensor of one dtype.")
                with g.as_default():
                    v = convert_to_tensor(v, dtype=dt) if dt is not None else \
                        convert_to_tensor(v)
            per_graph[b].append(v)
    for g, outs in zip(graphs, per_graph):
        finish(g, outs)
    tout, shapes = [], []
    for k, (i, _) in enumerate(columns):
        first = graphs[0].outputs[k]
        dt, sh = first.dtype, first.shape
        for bi, g in enumerate(graphs[1:], 1):
            o = g.outputs[k]
            if o.dtype is not dt:
                raise TypeError(
                    f"{what}: {_describe(names, i)} has dtype {dt.name} in branch 0 but "
                    f"{o.dtype.name} in branch {bi}{where}. Every branch of a tensor "
                    f"condition must produce the same dtype: cast one with tw.cast(..., "
                    f"tw.{dt.name}).")
            sh = sh.most_specific_compatible_shape(o.shape) if sh != o.shape else sh
        tout.append(dt)
        shapes.append(sh)
    ext = unify_inputs(graphs)
    watch_variables(ext)
    is_if = len(fns) == 2 and selector.dtype is dtypes.bool_
    opdef, attrs = _branch_op(is_if, graphs, tout, shapes)
    outs = bind(opdef, [selector] + ext, attrs, name=op_name or what.split(".")[-1])
    it = iter(outs)
    flat = [python_values[i] if i in python_values else next(it) for i in range(n)]
    return nest.pack_sequence_as(results[0], flat, expand_composites=True)


def _branch_op(is_if: bool, graphs: list, tout: list, shapes: list) -> tuple:
    """The op running one of ``graphs`` and its attrs: (Stateless)If for a boolean choice
    between two, (Stateless)Case otherwise; stateless unless a branch has state."""
    stateful = any(_has_state(g) for g in graphs)
    if is_if:
        attrs = {"then_branch": graphs[0], "else_branch": graphs[1], "Tout": tout,
                 "output_shapes": shapes}
        return (If if stateful else StatelessIf), attrs
    attrs = {"branches": graphs, "Tout": tout, "output_shapes": shapes}
    return (Case if stateful else StatelessCase), attrs


def _branch_grads(op, branches: list, dys) -> list:
    """Gradients of an If/Case op: the same op over gradient branches."""
    selector, ins = op.inputs[0], op.inputs[1:]
    outs = op.outputs
    d_out = [i for i, t in enumerate(outs) if carries_gradient(t.dtype)]
    gspecs = [grad_spec(t, [g.inputs[i] for g in branches]) for i, t in enumerate(ins)]
    d_in = [i for i, sp in enumerate(gspecs) if sp is not None]
    if not d_out or not d_in:
        return [None] * len(op.inputs)
    seeds = []
    for i in d_out:
        dy = dys[i]
        seeds.append(dy if dy is not None else zeros_for(outs[i]))
    specs = [(t.dtype, t.shape) for t in ins] + [(t.dtype, t.shape) for t in seeds]
    in_specs = [gspecs[i] if ins[i].dtype is dtypes.resource else None for i in d_in]
    graphs = []
    for g in branches:
        gg, grads = trace(lambda *a, g=g: _vjp(g, a[:len(ins)], a[len(ins):], d_out, d_in,
                                               in_specs), specs, f"{g.name}_grad")
        finish(gg, grads)
        graphs.append(gg)
    ext = unify_inputs(graphs)
    tout = [gspecs[i][0] for i in d_in]
    shapes = [gspecs[i][1] for i in d_in]
    opdef, attrs = _branch_op(op.type in ("If", "StatelessIf"), graphs, tout, shapes)
    res = bind(opdef, [selector] + list(ins) + seeds + ext, attrs, name=op.type + "Grad")
    grads: list = [None] * len(op.inputs)
    for j, i in enumerate(d_in):
        grads[1 + i] = res[j]
    return grads


def _vjp(g: SubGraph, inputs, seeds, d_out: list, d_in: list, in_specs: list) -> list:
    """In the graph being built: replays ``g`` on ``inputs``, returns d(outputs)/d(inputs)."""
    outs, _, ops = replay(g, list(inputs))
    targets = [outs[i] for i in d_out]
    sources = [inputs[i] for i in d_in]
    grads = backprop(ops, targets, sources, list(seeds))
    return [gr if gr is not None else zeros_for(s, sp)
            for gr, s, sp in zip(grads, sources, in_specs)]


# ---------------------------------------------------------------------------------------------
# Public functions

def _check_callable(fn, what: str) -> None:
    if not callable(fn):
        raise TypeError(f"'{what}' must be callable.")


def _as_pred(pred, what: str):
    if isinstance(pred, Tensor):
        if pred.dtype is not dtypes.bool_:
            raise TypeError(f"{what}: pred must be a bool tensor, got {pred.dtype.name}")
        if pred.shape.rank not in (None, 0):
            raise ValueError(f"{what}: pred must be a scalar, got shape {pred.shape}")
    return pred


def cond(pred: Tensor | bool, true_fn: Callable | None = None, false_fn: Callable | None = None,
         name: str | None = None) -> Any:
    """``tw.cond``: ``true_fn()`` if ``pred`` else ``false_fn()``.

    Eagerly (or for a Python bool) this is a Python ``if``. While building a graph with a
    symbolic ``pred`` both functions are traced and one If op runs the right one.

    Args:
        pred: a scalar bool tensor or a Python bool.
        true_fn: callable returning a nested structure of tensors.
        false_fn: callable returning the same structure and dtypes.
        name: op name.

    Returns:
        What the chosen function returned.
    """
    _check_callable(true_fn, "true_fn")
    _check_callable(false_fn, "false_fn")
    pred = _as_pred(pred, "tw.cond")
    if not isinstance(pred, SymbolicTensor):
        return true_fn() if pred else false_fn()
    return build_branches(pred, [true_fn, false_fn], "tw.cond",
                          branch_names=[f"{name or 'cond'}_true", f"{name or 'cond'}_false"])


def switch_case(branch_index: Tensor | int, branch_fns: list | dict,
                default: Callable | None = None, name: str | None = None) -> Any:
    """``tw.switch_case``: runs ``branch_fns[branch_index]`` (``default`` if out of range).

    Args:
        branch_index: an int32 scalar tensor or Python int.
        branch_fns: a list of callables, or a dict {int: callable}, or list of (int, callable).
        default: callable for out-of-range indices (default: the last branch).
        name: op name.

    Returns:
        The chosen branch's result.
    """
    if isinstance(branch_fns, dict):
        items = sorted(branch_fns.items())
    else:
        items = [b if isinstance(b, tuple) else (i, b) for i, b in enumerate(branch_fns)]
    if not items:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    keys = [k for k, _ in items]
    if keys != list(range(len(keys))):
        raise ValueError(f"tw.switch_case: branch keys must be 0..{len(keys) - 1}, got {keys}")
    fns = [f for _, f in items]
    for k, f in enumerate(fns):
        _check_callable(f, f"branch_fns[{k}]")
    if default is not None:
        _check_callable(default, "default")
        fns = fns + [default]
    if isinstance(branch_index, Tensor):
        if branch_index.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"tw.switch_case: branch_index must be int32, got "
                            f"{branch_index.dtype.name}")
        if branch_index.shape.rank not in (None, 0):
            raise ValueError(f"tw.switch_case: branch_index must be a scalar, got shape "
                             f"{branch_index.shape}")
    elif isinstance(branch_index, bool) or not isinstance(branch_index, (int, np.integer)):
        raise TypeError(f"tw.switch_case: branch_index must be an integer, got "
                        f"{type(branch_index).__name__}")
    if not isinstance(branch_index, SymbolicTensor):
        return fns[chosen_branch(branch_index, len(fns))]()
    return build_branches(branch_index, fns, "tw.switch_case",
                          branch_names=[f"{name or 'switch_case'}_branch{i}"
                                        for i in range(len(fns))])


_EXCLUSIVE = "tw.case: more than one condition is True with exclusive=True"


def _check_exclusive(preds: list) -> None:
    """At most one of ``preds`` may hold: checked now eagerly, by an Assert op in a graph."""
    if not any(isinstance(p, SymbolicTensor) for p in preds):
        if sum(bool(p) for p in preds) > 1:
            raise InvalidArgumentError(None, None, _EXCLUSIVE)
        return
    count = math_ops.add_n([math_ops.cast(p, dtypes.int32) for p in preds])
    Assert(math_ops.less_equal(count, 1), [_EXCLUSIVE], name="case_exclusive")


def case(pred_fn_pairs: list | dict, default: Callable | None = None, exclusive: bool = False,
         strict: bool = False, name: str | None = None) -> Any:
    """``tw.case``: runs the fn of the first pred that is True, else ``default``.

    Args:
        pred_fn_pairs: a list of (bool scalar tensor, callable) pairs (or a dict).
        default: callable run when no pred holds (default: the last pair's fn).
        exclusive: when True, more than one True pred raises InvalidArgumentError (in a
            graph, when it runs).
        strict: changes nothing: the result always keeps the structure the fns return
            (TensorFlow's strict mode; its non-strict mode unpacks a one-element list eagerly
            but not in a ``tf.function``).
        name: op name.

    Returns:
        The chosen fn's result.
    """
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else \
        list(pred_fn_pairs)
    for k, pair in enumerate(pairs):
        if not isinstance(pair, tuple) or len(pair) != 2:
            what = "a tensor" if isinstance(pair, Tensor) else f"a {type(pair).__name__}"
            raise TypeError(f"tw.case: pred_fn_pairs[{k}] must be a (pred, fn) pair, got "
                            f"{what}")
        _check_callable(pair[1], f"pred_fn_pairs[{k}][1]")
    if default is not None:
        _check_callable(default, "default")
    if not pairs:
        if default is None:
            raise ValueError("tw.case needs at least one pair or a default")
        return default()
    if exclusive:
        _check_exclusive([p for p, _ in pairs])
    if default is None:
        *pairs, (_, default) = pairs
        if not pairs:
            return default()

    def chain(i: int):
        if i == len(pairs):
            return default()
        p, fn = pairs[i]
        return cond(p, fn, lambda: chain(i + 1), name=name or "case")
    return chain(0)


__all__ = ["cond", "case", "switch_case"]
