"""A compiled graph called as one op, so that a GradientTape outside a tw.function
differentiates through the call.

``GraphCallable`` compiles a Program. Under a tape, a call becomes one
``StatefulPartitionedCall`` op whose kernel runs a *forward* variant of the program that also
returns the intermediate values the backward pass needs; its gradient calls a *backward*
program, traced once from the forward graph with the same gradient rules ``backprop`` uses
eagerly. The backward program is itself a GraphCallable, so higher-order gradients work.
"""
from __future__ import annotations

from ..autodiff.tape import _sum as sum_gradients
from ..autodiff.tape import backprop
from ..compiler.codegen import compile_program
from ..compiler.partition import PlacedRunner
from ..compiler.pipeline import optimize, passes_for
from ..compiler.program import Program, Rewriter, copy_program
from ..core import dtypes
from ..core.context import ctx, graph_mode
from ..core.devices import runtime
from ..eager.execute import bind
from ..graph.core_ops import Placeholder
from ..graph.graph import Graph
from ..graph.registry import register_op
from ..ops.core import ZerosLike
from ..ops.indexed_slices import IndexedSlices


def _diff(dt) -> bool:
    return dt.is_differentiable


class GraphCallable:
    """A Program compiled once; runnable on arrays, as an op, and differentiable.

    Args:
        program: the Program (its inputs are fed on every call, in order).
        name: a name for the generated code and error messages.
    """

    def __init__(self, program: Program, name: str, jit_compile: bool = False) -> None:
        self.program = program
        self.name = name
        self.jit_compile = bool(jit_compile)
        self.optimized, self.pass_stats = optimize(program, passes_for(jit_compile))
        self.compiled = compile_program(self.optimized, name)
        self.run = self.compiled.run
        # Ops placed with tw.device: runs per caller scope, partitioned across devices.
        self.placed: PlacedRunner | None = None
        if any(op.device for op in program.graph.get_operations()):
            self.placed = PlacedRunner(program, self.compiled, passes_for(jit_compile), name)
            self.run = self.placed.run
        self._tape_forward: GraphCallable | None = None
        self._profiled = None
        self._profiled_program = None
        # Set on the forward variant: how its gradient is computed.
        self.backward: GraphCallable | None = None
        self.n_user = len(program.outputs)
        self.dy_index: list = []
        self.grad_index: list = []
        self.passthrough: list = []
        # Why no backward pass could be built (reported when a gradient is requested).
        self.grad_error: Exception | None = None

    def __repr__(self) -> str:
        return f"<GraphCallable {self.name}>"

    @property
    def profiled_run(self):
        """``run`` with one profiler event per op (``core/profiler.py``): what a call runs
        while a profiler records; compiled on first use. A graph placed on several devices
        runs its partitions as usual (the call is one event of its caller)."""
        if self._profiled is None:
            if self.placed is not None:
                self._profiled = self.run
            else:
                self._profiled_program = compile_program(self.optimized, self.name, trace=True)
                self._profiled = self._profiled_program.run
        return self._profiled

    def explain(self, e: BaseException) -> BaseException:
        """``e`` raised by ``run`` or ``profiled_run``, naming the op and the user's line.

        Args:
            e: the exception.

        Returns:
            The exception to raise.
        """
        new = self.compiled.error(e)
        if new is e and self._profiled_program is not None:
            new = self._profiled_program.error(e)
        return new

    def output_devices(self) -> list | None:
        """The device names of the outputs of a call from this thread (None: all CPU:0).

        Returns:
            One name (or None for CPU:0) per output, or None.
        """
        spec = ctx.device_stack[-1]
        if self.placed is not None:
            return self.placed.plan(spec).output_names
        if not spec:
            return None
        dev = runtime.resolve(spec, self.name)
        return None if dev is runtime.default else [dev.name] * len(self.program.outputs)

    def tape_forward(self) -> GraphCallable:
        """The variant to run under a tape: also returns what the backward pass needs."""
        if self._tape_forward is None:
            self._tape_forward = _build_pair(self.program, self.name, self.jit_compile)
        return self._tape_forward


def _extract(ops: list, feeds: list, fetches: list) -> Program:
    """A Program of ``ops`` (in order) where ``feeds`` become new placeholders."""
    rw = Rewriter(Program(Graph(), feeds, fetches))  # finish() maps its feeds and fetches
    for i, t in enumerate(feeds):
        if not rw.has(t):  # the same tensor fed twice: both inputs read one placeholder
            ph = rw.graph.create_op(Placeholder, [], {"dtype": t.dtype, "shape": t.shape},
                                    [(t.dtype, t.shape)], name=f"{t.op.name}_in{i}")
            rw.alias(t, ph.outputs[0])
    for op in ops:
        if not op.outputs or not all(rw.has(t) for t in op.outputs):
            rw.copy(op)
    return rw.finish()


def _build_pair(program: Program, name: str, jit_compile: bool = False) -> GraphCallable:
    """Traces the backward pass of ``program``; returns the forward GraphCallable.

    The forward variant also outputs the intermediates X the backward pass reads. For
    higher-order gradients the backward also takes gradients flowing into X; as that can
    make it read more intermediates, X grows until it is closed under this.
    """
    extra: list = []   # (op index, output index) of each intermediate output, in order
    for _ in range(32):
        prog = copy_program(program)
        fwd_ops = prog.graph.get_operations()
        x_tensors = [fwd_ops[i].outputs[j] for i, j in extra]
        fwd, bwd, feeds, grads, grad_index, dy_index = _backward(prog, x_tensors)
        pos = {id(t): (i, j) for i, op in enumerate(fwd_ops) for j, t in enumerate(op.outputs)}
        more = [pos[id(t)] for t in feeds if id(t) in pos and pos[id(t)] not in extra]
        if not more:
            break
        extra += more
    forward = GraphCallable(_extract(fwd, prog.inputs, prog.outputs + x_tensors),
                            f"{name}_forward", jit_compile)
    dys = [t for t in feeds if id(t) not in pos]
    backward = GraphCallable(_extract(bwd, x_tensors + dys, grads), f"{name}_backward",
                             jit_compile)
    forward.backward = backward
    forward.n_user = len(prog.outputs)
    forward.dy_index = dy_index
    forward.grad_index = grad_index
    direct = _direct_sources(prog.inputs, fwd_ops)
    forward.passthrough = [(len(prog.outputs) + k, direct[id(t)])
                           for k, t in enumerate(x_tensors) if id(t) in direct]
    return forward


def _direct_sources(ins: list, fwd_ops: list) -> dict:
    """id of each differentiable input and variable read -> the index of its input."""
    out = {id(t): j for j, t in enumerate(ins) if _diff(t.dtype)}
    for j, t in enumerate(ins):
        if t.dtype is dtypes.resource:
            for op in fwd_ops:
                if op.type == "ReadVariableOp" and op.inputs and op.inputs[0] is t \
                        and _diff(op.outputs[0].dtype):
                    out[id(op.outputs[0])] = j
    return out


def _backward(prog: Program, x_tensors: list) -> tuple:
    """Adds the backward pass of ``prog`` (targets: outputs and ``x_tensors``) to its graph.

    Returns:
        (forward ops, backward ops, forward tensors the backward reads followed by the dy
        placeholders, input gradients, their input indices, indices of the forward-variant
        outputs that get a dy).
    """
    g = prog.graph
    fwd_ops = g.get_operations()
    ins = prog.inputs
    targets = list(prog.outputs) + list(x_tensors)
    # An intermediate that is an input (or a read of an input variable) gets no dy here: the
    # call op's gradient adds the gradient reaching it to the input's directly, so an
    # IndexedSlices gradient of the input is not densified by a zero dy.
    direct = _direct_sources(ins, fwd_ops)
    n_out = len(prog.outputs)
    dy_index = [i for i, t in enumerate(targets) if _diff(t.dtype)
                and not (i >= n_out and id(t) in direct)]
    dys = []
    for i in dy_index:
        t = targets[i]
        op = g.create_op(Placeholder, [], {"dtype": t.dtype, "shape": t.shape},
                         [(t.dtype, t.shape)], name=f"dy_{i}")
        dys.append(op.outputs[0])
    # A variable's gradient is the sum of the gradients of every read of it.
    sources: list = []
    owners: list = []   # input index of each source
    for j, t in enumerate(ins):
        if _diff(t.dtype):
            sources.append(t)
            owners.append(j)
        elif t.dtype is dtypes.resource and any(
                op.type != "ReadVariableOp" and any(x is t for x in op.inputs)
                for op in fwd_ops):
            # Control flow (If/While) reads the variable inside sub-graphs: differentiate with
            # respect to the handle itself (its partials include the direct reads too).
            sources.append(t)
            owners.append(j)
        elif t.dtype is dtypes.resource:
            for op in fwd_ops:
                if op.type == "ReadVariableOp" and op.inputs and op.inputs[0] is t \
                        and _diff(op.outputs[0].dtype):
                    sources.append(op.outputs[0])
                    owners.append(j)
    with graph_mode(g):
        grads = backprop(fwd_ops, [targets[i] for i in dy_index], sources, dys) \
            if sources and dy_index else [None] * len(sources)
        per_input: dict = {}
        for j, gr in zip(owners, grads):
            if gr is not None:
                per_input.setdefault(j, []).append(gr)
        in_grads = {j: sum_gradients(gs) for j, gs in per_input.items()}
    # An IndexedSlices gradient (gather's) leaves the backward program as its three
    # components and is rebuilt by the call op's gradient, so it stays sparse as in TF.
    grad_index: list = []
    grad_tensors: list = []
    for j in sorted(in_grads):
        gr = in_grads[j]
        if type(gr) is IndexedSlices and gr.dense_shape is not None:
            grad_index.append((j, 3))
            grad_tensors += [gr.values, gr.indices, gr.dense_shape]
        else:
            grad_index.append((j, 1))
            grad_tensors.append(gr._as_tensor() if type(gr) is IndexedSlices else gr)
    bwd_ops = g.get_operations()[len(fwd_ops):]
    fwd_ids = {id(t) for op in fwd_ops for t in op.outputs}
    needed: list = []
    seen: set = set()
    for t in [t for op in bwd_ops for t in op.inputs] + grad_tensors:
        if id(t) in fwd_ids and id(t) not in seen:
            seen.add(id(t))
            needed.append(t)
    return fwd_ops, bwd_ops, needed + dys, grad_tensors, grad_index, dy_index


@register_op("StatefulPartitionedCall", stateful=True, multi_output=True)
class StatefulPartitionedCall:
    """Calls a compiled function (attr ``f``, a GraphCallable) on its inputs."""

    def infer(*inputs, f):
        return [(t.dtype, t.shape) for t in f.program.outputs]

    def kernel(*inputs, f):
        return f.run(*inputs)

    def grad(op, *dys):
        f = op.attrs["f"]
        if f.backward is None:
            why = f": {f.grad_error}" if f.grad_error is not None else ""
            raise LookupError(f"No gradient for this call of tw.function {f.name}{why}")
        outs = op.outputs
        dy_list = [dys[i] if dys[i] is not None else bind(ZerosLike, [outs[i]])
                   for i in f.dy_index]
        res = call(f.backward, list(outs[f.n_user:]) + dy_list)
        grads: list = [None] * len(op.inputs)
        k = 0
        for j, n in f.grad_index:
            grads[j] = IndexedSlices(*res[k:k + 3]) if n == 3 else res[k]
            k += n
        for i, j in f.passthrough:  # an input returned as an intermediate: dy is its gradient
            if dys[i] is not None:
                grads[j] = sum_gradients([g for g in (grads[j], dys[i]) if g is not None])
        return grads


def call(f: GraphCallable, inputs: list) -> list:
    """Runs ``f`` on eager tensors as one op (recorded on active tapes); returns its outputs.

    Args:
        f: the GraphCallable.
        inputs: one eager tensor per input of ``f.program``.

    Returns:
        The output tensors (without the forward variant's extra intermediates).
    """
    if ctx.tapes and f.grad_error is None:
        try:
            fwd = f.tape_forward()
        except (LookupError, NotImplementedError, TypeError, ValueError) as e:
            # Calls must still run when the body has no gradient; asking for one then fails.
            f.grad_error = e
        else:
            outs = bind(StatefulPartitionedCall, inputs, {"f": fwd})
            return outs[:fwd.n_user]
    return bind(StatefulPartitionedCall, inputs, {"f": f})
