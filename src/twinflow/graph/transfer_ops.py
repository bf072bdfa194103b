"""``_Send`` and ``_Recv``: the edges between the per-device partitions of a graph.

``compiler/partition.py`` cuts every edge whose ends sit on different devices into a ``_Send``
in the producer's partition and a ``_Recv`` in the consumer's, both naming the edge by
``tensor_name`` (as TensorFlow's partitioner does). At run time they meet in the call's
``Rendezvous`` (``core/devices.py``), which the thread running a partition holds. A ``_Send``
without input (and a ``_Recv`` of a bool token) carries a control edge only.
"""
from __future__ import annotations

import numpy as np

from ..core.devices import current_rendezvous
from .registry import register_op


@register_op("_Send", stateful=True, multi_output=True)
class Send:
    """Hands its input (or, without one, a control token) to the ``_Recv`` of the same
    ``tensor_name`` in another partition (attrs: ``tensor_name``, ``send_device``,
    ``recv_device``)."""

    def infer(*inputs, tensor_name, send_device, recv_device):
        return []

    def kernel(*values, tensor_name, send_device, recv_device):
        current_rendezvous().send(tensor_name, values[0] if values else np.True_)
        return ()


@register_op("_Recv", stateful=True)
class Recv:
    """The value sent by the ``_Send`` of the same ``tensor_name`` (waits for it) (attrs:
    ``tensor_type``, ``shape``, ``tensor_name``, ``send_device``, ``recv_device``)."""

    def infer(*, tensor_type, shape, tensor_name, send_device, recv_device):
        return tensor_type, shape

    def kernel(*, tensor_type, shape, tensor_name, send_device, recv_device):
        return current_rendezvous().recv(tensor_name)
