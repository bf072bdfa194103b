"""``tw.queue``: queues of tensors shared between threads (re-exports ``ops/queue_ops.py``)."""
from .ops.queue_ops import (  # noqa: F401
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)

__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "RandomShuffleQueue"]
