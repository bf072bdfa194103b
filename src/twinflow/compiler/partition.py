"""Placing a Program's ops on devices and partitioning it into one Program per device.

* ``place`` resolves each op's requested device (``op.device``, merged over the caller's
  ``tw.device`` scope; '' means the caller's device) to a logical Device. Ops inside If/While
  sub-graphs run with their op.
* ``partition`` copies each op into its device's graph. An edge between devices becomes a
  ``_Send`` in the producer's partition and a ``_Recv`` in the consumer's
  (``graph/transfer_ops.py``); a control edge likewise, with a token. Constants are copied into
  every partition that reads them and the call's inputs are fed to every partition that
  reads them (host memory is shared), so only computed values travel.
* Ops using one variable run in program order across devices: a stateful op touching a
  resource that an op on another device touched before waits for it (a control edge), as
  TensorFlow's automatic control dependencies order them. Other stateful ops are ordered
  within their device only.
* ``PartitionedProgram`` optimizes and compiles each partition separately (the passes run per
  partition) and runs them concurrently, each on its device's executor, meeting in one
  ``Rendezvous`` per call.
"""
from __future__ import annotations

from ..core import dtypes
from ..core.context import ctx
from ..core.devices import Device, Rendezvous, is_aborted, merge, run_with_rendezvous, runtime
from ..core.shapes import TensorShape
from ..graph.core_ops import Placeholder
from ..graph.graph import Graph
from ..graph.transfer_ops import Recv, Send
from .codegen import compile_program
from .pipeline import optimize
from .program import Program


def place(prog: Program, default_spec: str) -> dict:
    """The device of every op of ``prog``.

    Args:
        prog: the Program.
        default_spec: the caller's device scope ('' for none).

    Returns:
        {id(op): Device}.

    Raises:
        InvalidArgumentError: an op asks for a missing device and soft placement is off.
    """
    out = {}
    for op in prog.graph.get_operations():
        spec = merge(default_spec, op.device) if op.device else default_spec
        out[id(op)] = runtime.resolve(spec, op.type)
    return out


class Partition:
    """One device's share of a partitioned Program.

    Attributes:
        device: the Device running it.
        program: its Program (placeholders fed from the call's inputs ``input_index``;
            outputs are the call's outputs ``output_index``).
        optimized: the Program after the compiler passes.
        pass_stats: what each pass changed in this partition.
        compiled: its CompiledProgram.
    """

    def __init__(self, device: Device) -> None:
        self.device = device
        self.graph = Graph()
        self.inputs: list = []
        self.input_index: list = []
        self.outputs: list = []
        self.output_index: list = []
        self.program: Program | None = None
        self.optimized: Program | None = None
        self.pass_stats: dict = {}
        self.compiled = None

    def add(self, opdef, inputs: list, attrs: dict, specs: list, name: str, like=None):
        op = self.graph.create_op(opdef, inputs, attrs, specs, name)
        op.device = self.device.name
        if like is not None:
            op.source = like.source
        return op


class _Partitioner:
    def __init__(self, prog: Program, placement: dict) -> None:
        self.prog = prog
        self.placement = placement
        self.parts: dict = {}       # Device -> Partition (in order of first use)
        self.local: dict = {}       # (id(original tensor), Device) -> tensor of that partition
        self.new_ops: dict = {}     # id(original op) -> its copy
        self.tokens: dict = {}      # (id(original op), Device) -> the control _Recv op
        self.feed = {id(t): i for i, t in enumerate(prog.inputs)}

    def part(self, dev: Device) -> Partition:
        p = self.parts.get(dev)
        if p is None:
            p = self.parts[dev] = Partition(dev)
        return p

    def tensor(self, t, dev: Device):
        """Original tensor ``t`` as seen by ``dev``'s partition (copied, fed or received)."""
        key = (id(t), dev)
        got = self.local.get(key)
        if got is not None:
            return got
        op, p = t.op, self.part(dev)
        if op.type == "Const":
            got = p.add(op.opdef, [], op.attrs, [(t.dtype, t.shape)], op.name, op).outputs[0]
        elif op.type == "Placeholder":  # (one nobody feeds stays one: codegen reports it)
            got = p.add(Placeholder, [], op.attrs, [(t.dtype, t.shape)], op.name, op).outputs[0]
            if id(t) in self.feed:
                p.inputs.append(got)
                p.input_index.append(self.feed[id(t)])
        else:  # sent by the producer's partition right after it ran (``send``)
            attrs = _edge(t.name, self.placement[id(op)], dev)
            got = p.add(Recv, [], {"tensor_type": t.dtype, "shape": t.shape, **attrs},
                        [(t.dtype, t.shape)], f"{op.name}/_recv", op).outputs[0]
        self.local[key] = got
        return got

    def send(self, op, src: Device, readers: dict) -> None:
        """``_Send``s of ``op``'s outputs (just copied into ``src``'s partition) to the other
        devices that read them, placed right after the op so no later work delays them."""
        for t in op.outputs:
            for dev in readers.get(id(t), ()):
                if dev is not src:
                    self.part(src).add(Send, [self.local[(id(t), src)]],
                                       _edge(t.name, src, dev), [], f"{op.name}/_send", op)

    def token(self, op, dev: Device):
        """A ``_Recv`` in ``dev``'s partition that completes after original ``op`` ran."""
        key = (id(op), dev)
        got = self.tokens.get(key)
        if got is None:
            src = self.placement[id(op)]
            attrs = _edge(f"^{op.name}", src, dev)
            send = self.part(src).add(Send, [], attrs, [], f"{op.name}/_send_control", op)
            send.control_inputs = [self.new_ops[id(op)]]
            got = self.tokens[key] = self.part(dev).add(
                Recv, [], {"tensor_type": dtypes.bool_, "shape": TensorShape([]), **attrs},
                [(dtypes.bool_, TensorShape([]))], f"{op.name}/_recv_control", op)
        return got

    def readers(self) -> dict:
        """{id(tensor): devices reading it}, for the tensors computed (not fed or constant)."""
        out: dict = {}
        ops = self.prog.graph.get_operations()
        uses = [(t, self.placement[id(op)]) for op in ops if op.type != "Const"
                for t in op.inputs]
        uses += [(t, self.placement[id(t.op)]) for t in self.prog.outputs]
        for t, dev in uses:
            if t.op.type not in ("Const", "Placeholder"):
                devs = out.setdefault(id(t), [])
                if dev not in devs:
                    devs.append(dev)
        return out

    def run(self) -> list:
        last_user: dict = {}   # id(resource-producing op) -> the last stateful op using it
        readers = self.readers()
        for op in self.prog.graph.get_operations():
            if op.type in ("Const", "Placeholder"):
                continue   # copied or fed where they are read
            dev = self.placement[id(op)]
            ins = [self.tensor(t, dev) for t in op.inputs]
            controls = []
            for c in op.control_inputs:
                if c.type in ("Const", "Placeholder") or id(c) not in self.new_ops:
                    continue
                same = self.placement[id(c)] is dev
                controls.append(self.new_ops[id(c)] if same else self.token(c, dev))
            if op.stateful:
                for t in op.inputs:
                    if t.dtype is not dtypes.resource:
                        continue
                    prev = last_user.get(id(t.op))
                    if prev is not None and self.placement[id(prev)] is not dev:
                        controls.append(self.token(prev, dev))
                    last_user[id(t.op)] = op
            new = self.part(dev).add(op.opdef, ins, op.attrs,
                                     [(o.dtype, o.shape) for o in op.outputs], op.name, op)
            new.control_inputs = controls
            self.new_ops[id(op)] = new
            for o, n in zip(op.outputs, new.outputs):
                self.local[(id(o), dev)] = n
            self.send(op, dev, readers)
        for i, t in enumerate(self.prog.outputs):
            dev = self.placement[id(t.op)]
            p = self.part(dev)
            p.outputs.append(self.tensor(t, dev))
            p.output_index.append(i)
        parts = list(self.parts.values())
        for p in parts:
            p.program = Program(p.graph, p.inputs, p.outputs)
        return parts


def _edge(what: str, src: Device, dst: Device) -> dict:
    """The attrs naming one edge between partitions (its rendezvous key is ``tensor_name``)."""
    return {"tensor_name": f"{what};{src.short_name}->{dst.short_name}",
            "send_device": src.name, "recv_device": dst.name}


def partition(prog: Program, placement: dict) -> list:
    """Splits ``prog`` into one Program per device, joined by ``_Send``/``_Recv`` ops.

    Args:
        prog: the Program.
        placement: {id(op): Device} (``place``).

    Returns:
        The Partitions, in order of their devices' first op.
    """
    return _Partitioner(prog, placement).run()


class PartitionedProgram:
    """A Program run as one partition per device, concurrently.

    Args:
        prog: the (unoptimized) Program.
        placement: {id(op): Device}.
        passes: the compiler passes each partition gets.
        name: a name for the generated code.
    """

    def __init__(self, prog: Program, placement: dict, passes, name: str,
                 home: Device | None = None) -> None:
        self.partitions = partition(prog, placement)
        # The caller's device: its partition runs on the calling thread, which would only
        # wait otherwise (as a one-device program does).
        self.home = home
        self.output_devices: list = [None] * len(prog.outputs)
        for p in self.partitions:
            p.optimized, p.pass_stats = optimize(p.program, passes)
            p.compiled = compile_program(p.optimized, f"{name}_{p.device.device_type}_"
                                                      f"{p.device.index}")
            for i in p.output_index:
                self.output_devices[i] = p.device
        self.n_outputs = len(prog.outputs)

    def run(self, *arrays) -> tuple:
        """Runs every partition on its device's executor and gathers the outputs.

        Args:
            *arrays: the call's input arrays.

        Returns:
            The output arrays, in the Program's order.
        """
        rv = Rendezvous()
        jobs = [(p, p.device.executor.submit(run_with_rendezvous, rv, p.compiled.run,
                                             *[arrays[i] for i in p.input_index]))
                for p in self.partitions if p.device is not self.home]
        done = []   # (partition, outputs or None, error or None)
        for p in self.partitions:
            if p.device is self.home:
                try:
                    done.append((p, run_with_rendezvous(rv, p.compiled.run,
                                                        *[arrays[i] for i in p.input_index]),
                                 None))
                except Exception as e:  # noqa: BLE001  (reported with the others' below)
                    done.append((p, None, e))
        for p, job in jobs:
            job.done.wait()
            done.append((p, job.result, job.error))
        outs: list = [None] * self.n_outputs
        failed = None
        for p, result, error in done:
            if error is not None:
                if failed is None or (is_aborted(failed[1]) and not is_aborted(error)):
                    failed = (p, error)
                continue
            for i, v in zip(p.output_index, result):
                outs[i] = v
        if failed is not None:
            p, e = failed
            raise p.compiled.error(e) from e
        return tuple(outs)


class _Plan:
    """How one placed Program runs for one caller scope: ``run`` and its outputs' devices
    (None for CPU:0); ``partitioned`` is None when every op landed on one device."""

    __slots__ = ("run", "output_names", "partitioned")

    def __init__(self, run, output_names: list, partitioned) -> None:
        self.run, self.output_names, self.partitioned = run, output_names, partitioned


class PlacedRunner:
    """Runs a Program some of whose ops name a device: places it for the calling thread's
    ``tw.device`` scope (once per scope), then runs the whole compiled program when every op
    lands on one device and a ``PartitionedProgram`` otherwise.

    Args:
        prog: the (unoptimized) Program.
        compiled: the whole Program compiled (the one-device plan).
        passes: the compiler passes for partitions.
        name: a name for the generated code.
    """

    def __init__(self, prog: Program, compiled, passes, name: str) -> None:
        self.prog, self.compiled, self.passes, self.name = prog, compiled, passes, name
        self._plans: dict = {}

    def plan(self, spec: str) -> _Plan:
        """The plan for callers in device scope ``spec``.

        Args:
            spec: the merged device string of the caller's scope ('' for none).

        Returns:
            The plan.
        """
        # (turning placement logging on places the graph again, so that it is logged)
        key = (spec, runtime.soft_placement, runtime.generation, runtime.log_placement)
        got = self._plans.get(key)
        if got is not None:
            return got
        placement = place(self.prog, spec)
        if runtime.log_placement:
            for op in self.prog.graph.get_operations():
                runtime.log(f"{op.name}: ({op.type}): {placement[id(op)].name}")
        devices = set(placement.values())
        n = len(self.prog.outputs)
        if len(devices) <= 1:
            dev = devices.pop() if devices else runtime.resolve(spec, self.name)
            name = None if dev is runtime.default else dev.name
            got = _Plan(self.compiled.run, [name] * n, None)
        else:
            pp = PartitionedProgram(self.prog, placement, self.passes, self.name,
                                    runtime.resolve(spec, self.name))
            names = [None if d is runtime.default else d.name for d in pp.output_devices]
            got = _Plan(pp.run, names, pp)
        self._plans[key] = got   # (two threads may both build it: either plan is right)
        return got

    def run(self, *arrays) -> tuple:
        """Runs the program for the calling thread's device scope.

        Args:
            *arrays: the input arrays.

        Returns:
            The output arrays.
        """
        return self.plan(ctx.device_stack[-1]).run(*arrays)
