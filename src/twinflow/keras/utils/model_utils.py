"""``keras.utils.get_source_inputs``: the ``Input`` tensors a functional tensor comes from."""
from __future__ import annotations

from ..layers.keras_tensor import KerasTensor


def get_source_inputs(tensor) -> list:
    """The input KerasTensors (from ``keras.Input``) that ``tensor`` is computed from.

    Args:
        tensor: a KerasTensor of a functional graph.

    Returns:
        A list of KerasTensors, in first-found order, without repeats.
    """
    if not isinstance(tensor, KerasTensor):
        raise ValueError(f"get_source_inputs: expected a KerasTensor, got {tensor!r}")
    out: list = []
    seen: set = set()
    stack = [tensor]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        node = t._node
        if node is None or not node.parents:
            out.append(t)
        else:
            stack.extend(reversed(node.parents))
    return out
