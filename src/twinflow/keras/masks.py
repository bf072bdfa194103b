"""Keras masks: which steps of a batch of sequences are padding.

A mask travels beside the tensor it belongs to, in a side table keyed by tensor identity
(twinflow tensors are immutable and have no attribute slots); an entry goes when its tensor
is garbage-collected. Layers read and write it through ``get_keras_mask``/``set_keras_mask``;
losses read the predictions' mask to leave padded steps out.
"""
from __future__ import annotations

import threading
import weakref

from ..graph.tensor import Tensor

_MASKS: dict = {}            # id(tensor) -> (weakref to the tensor, mask)
_MASKS_LOCK = threading.Lock()


def _forget(key: int, ref) -> None:
    with _MASKS_LOCK:
        entry = _MASKS.get(key)
        if entry is not None and entry[0] is ref:
            del _MASKS[key]


def set_keras_mask(tensor, mask) -> None:
    """Attaches ``mask`` (a boolean tensor, or None to clear) to ``tensor``.

    Args:
        tensor: the tensor.
        mask: its mask.
    """
    if not isinstance(tensor, Tensor):
        return
    key = id(tensor)
    with _MASKS_LOCK:
        if mask is None:
            _MASKS.pop(key, None)
            return
        ref = weakref.ref(tensor, lambda r, k=key: _forget(k, r))
        _MASKS[key] = (ref, mask)


def get_keras_mask(tensor) -> Tensor | None:
    """The mask attached to ``tensor``, or None.

    Args:
        tensor: the tensor.

    Returns:
        The mask or None.
    """
    if not _MASKS:
        return None
    entry = _MASKS.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]
