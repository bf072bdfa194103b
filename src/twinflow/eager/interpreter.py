"""A reference executor: runs the ops of a Graph one by one with their kernels.

Used by ``tw.compat.v1.Session`` and as the oracle that compiled graphs are tested against.
"""
from __future__ import annotations

from ..core.errors import InvalidArgumentError
from ..graph.graph import Operation
from ..graph.tensor import SymbolicTensor


def ops_needed(fetch_ops: list, feeds: dict) -> list:
    """The ops that ``fetch_ops`` depend on, in a valid execution order (feeds cut the walk)."""
    order: list = []
    seen: set = set()
    stack = [(op, False) for op in reversed(fetch_ops)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        deps = [t.op for t in op.inputs if id(t) not in feeds] + list(op.control_inputs)
        for d in reversed(deps):
            if id(d) not in seen:
                stack.append((d, False))
    return order


def run_graph(fetches: list, feeds: dict) -> list:
    """Evaluates symbolic tensors (or runs Operations) given placeholder values.

    Args:
        fetches: SymbolicTensors or Operations of one graph.
        feeds: {id(symbolic tensor): value} for placeholders (or any tensor to override).

    Returns:
        One value per fetch (None for Operations).
    """
    fetch_ops = [f.op if isinstance(f, SymbolicTensor) else f for f in fetches]
    values: dict = dict(feeds)
    for op in ops_needed(fetch_ops, feeds):
        if op.type == "Placeholder":
            if all(id(t) in values for t in op.outputs):
                continue
            raise InvalidArgumentError(
                None, op, f"You must feed a value for placeholder tensor '{op.name}' with "
                f"dtype {op.attrs['dtype'].name} and shape {op.attrs['shape']}")
        args = [values[id(t)] for t in op.inputs]
        out = run_op(op, args)
        if op.opdef.multi_output:
            for t, v in zip(op.outputs, out):
                values[id(t)] = v
        else:
            values[id(op.outputs[0])] = out
    return [values[id(f)] if isinstance(f, SymbolicTensor) else None for f in fetches]


def run_op(op: Operation, args: list):
    try:
        return op.opdef.kernel(*args, **op.attrs)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(None, op, f"{e}\n  while running {op._error_context()}") from e
    except (TypeError, ValueError, IndexError, ArithmeticError) as e:
        shapes = [getattr(a, "shape", None) for a in args]
        raise InvalidArgumentError(
            None, op, f"{op.type} failed on inputs of shapes {shapes}: {e}\n  while running "
            f"{op._error_context()}") from e
