"""``tw.make_tensor_proto`` and ``tw.make_ndarray``: values as TensorFlow's TensorProto
message and back (the message of ``tw.io.serialize_tensor``; ``protobuf`` loaded on use)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..eager.execute import constant
from ..graph.tensor import Tensor
from .codecs import _DT_ENUM, _ENUM_DT, _parse, _serialize
from .protos import message_class

__all__ = ["make_tensor_proto", "make_ndarray"]


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False,
                      allow_broadcast=False) -> object:
    """A TensorProto message holding ``values``.

    Args:
        values: a Python value, NumPy array or eager tensor.
        dtype: the dtype (default: inferred as ``tw.constant`` does).
        shape: the shape; a scalar is repeated to fill it, a shorter list is padded with its
            last value (as TensorFlow's reader does).
        verify_shape: if True, ``values`` must have exactly ``shape``.
        allow_broadcast: if True, only a scalar (or one value) may fill ``shape``.

    Returns:
        The TensorProto message.
    """
    dt = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(values, Tensor):
        dt = values.dtype if dt is None else dt  # (a quantized tensor's numpy() is its ints)
        values = values.numpy()
    arr = np.asarray(constant(values, dt).numpy())
    if dt is None:
        dt = dtypes.string if arr.dtype == object else dtypes.as_dtype(arr.dtype)
    if dt not in _DT_ENUM:
        raise TypeError(f"make_tensor_proto does not support dtype {dt.name}")
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        size = int(np.prod(shape))
        if verify_shape and arr.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
        if allow_broadcast and arr.shape != shape and arr.shape not in ((), (1,)):
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
        if arr.size > size:
            raise ValueError(f"Too many elements provided. Takes at most {size}, but got "
                             f"{arr.size}.")
        flat = arr.reshape(-1)
        if flat.size == 0 and size:
            raise ValueError(f"No values to fill shape {shape}")
        if flat.size < size:
            flat = np.concatenate([flat, np.repeat(flat[-1:], size - flat.size)])
        arr = flat.reshape(shape)
    return message_class("TensorProto").FromString(_serialize(arr, dt))


def make_ndarray(tensor) -> np.ndarray:
    """The NumPy array a TensorProto message holds.

    Args:
        tensor: a TensorProto message (twinflow's or TensorFlow's).

    Returns:
        The array (strings as an object array of bytes).
    """
    if not hasattr(tensor, "SerializeToString") or not hasattr(tensor, "tensor_shape"):
        raise TypeError(f"make_ndarray expects a TensorProto, got {type(tensor).__name__}")
    dt = _ENUM_DT.get(tensor.dtype)
    if dt is None:
        raise TypeError(f"Unsupported tensor type: {tensor.dtype}")
    return _parse(tensor.SerializeToString(), dt)
