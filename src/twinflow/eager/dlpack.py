"""``tw.experimental.dlpack``: zero-copy exchange of tensors with other libraries (PyTorch,
JAX, CuPy on host memory, NumPy) through DLPack capsules, via NumPy's DLPack support."""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from .tensor import EagerTensor


class _Capsule:
    """Wraps a bare DLPack capsule so that ``np.from_dlpack`` accepts it (host memory)."""

    def __init__(self, capsule) -> None:
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self) -> tuple:
        return (1, 0)  # kDLCPU


def to_dlpack(tf_tensor):
    """A DLPack capsule sharing ``tf_tensor``'s memory.

    Args:
        tf_tensor: an eager tensor (numeric or bool).

    Returns:
        A ``PyCapsule`` named ``"dltensor"`` (consumable once).

    Raises:
        InvalidArgumentError: a symbolic or string tensor (DLPack has no strings).
    """
    if not isinstance(tf_tensor, EagerTensor):
        raise InvalidArgumentError(None, None, f"to_dlpack needs an eager tensor, got "
                                   f"{tf_tensor!r}")
    arr = np.asarray(tf_tensor._value)
    if arr.dtype == object:
        raise InvalidArgumentError(None, None, "to_dlpack: string tensors cannot be shared "
                                   "through DLPack")
    try:
        return arr.__dlpack__()
    except BufferError:  # (a read-only view: export a copy)
        return np.array(arr).__dlpack__()


def from_dlpack(dlcapsule) -> EagerTensor:
    """A tensor sharing the memory of a DLPack capsule (or of any object with
    ``__dlpack__``, such as a PyTorch CPU tensor or a NumPy array).

    Args:
        dlcapsule: the capsule or object.

    Returns:
        An eager tensor.

    Raises:
        InvalidArgumentError: the memory is not on the host, or the dtype is unsupported.
    """
    src = dlcapsule if hasattr(dlcapsule, "__dlpack__") else _Capsule(dlcapsule)
    try:
        arr = np.from_dlpack(src)
    except (BufferError, TypeError, RuntimeError, ValueError) as e:
        raise InvalidArgumentError(None, None, f"from_dlpack: {e} (twinflow takes host "
                                   "memory of numeric and bool dtypes)") from e
    return EagerTensor(arr)
