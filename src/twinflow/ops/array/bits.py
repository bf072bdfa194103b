"""Byte-level ops: ``tw.bitcast`` (a tensor's bytes viewed as another dtype) and
``tw.fingerprint`` (TensorFlow's FarmHash fingerprints of rows)."""
from __future__ import annotations

import struct

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..core import _fmt, convert
from ..core import invalid_argument as _err
from ..ragged.fingerprint import fingerprint64

__all__ = ["bitcast", "fingerprint"]


_BITCAST_TYPES = ("half,bfloat16,float,double,int64,int32,uint8,uint16,uint32,uint64,int8,"
                  "int16,complex64,complex128")


@register_op("Bitcast", check_shapes=True,
             schema=f"input:T -> output:any | T:type in [{_BITCAST_TYPES}]; "
                    f"type:type in [{_BITCAST_TYPES}]")
class Bitcast:
    """Reinterprets the bytes of ``input`` as ``type`` (little-endian, as NumPy's view)."""

    def infer(input, type):
        src, dst = np.dtype(input.dtype.np).itemsize, np.dtype(type.np).itemsize
        shape = input.shape
        if src == dst or shape.rank is None:
            return type, shape if src == dst else TensorShape(None)
        dims = shape.as_list()
        if src > dst:
            return type, TensorShape(dims + [src // dst])
        if not dims or (dims[-1] is not None and dims[-1] != dst // src):
            raise _err(f"Cannot bitcast from {input.dtype.name} to {type.name}: the last "
                       f"dimension of shape {_fmt(shape)} must be {dst // src}")
        return type, TensorShape(dims[:-1])

    def kernel(input, type):
        src, dst = input.dtype.itemsize, np.dtype(type.np).itemsize
        a = np.ascontiguousarray(input)
        if src > dst:
            return a.view(type.np).reshape(a.shape + (src // dst,))
        return a.view(type.np).reshape(a.shape[:-1] if src < dst else a.shape)


def bitcast(input: TensorLike, type: DTypeLike, name: str | None = None) -> Tensor:
    """Reinterprets a tensor's bytes as another dtype, without copying values.

    Args:
        input: a numeric tensor.
        type: the dtype to view it as. A smaller itemsize adds a last dimension; a larger one
            needs the last dimension to be the ratio, and removes it.
        name: the op name.

    Returns:
        The reinterpreted tensor.
    """
    return bind(Bitcast, [convert(input)], {"type": dtypes.as_dtype(type)}, name=name)


@register_op("Fingerprint", check_shapes=True,
             schema="data:T -> fingerprint:uint8 | T:type; method:string in [farmhash64]")
class Fingerprint:
    """FarmHash fingerprints (8 bytes) of each row of ``data``, as TensorFlow's."""

    def infer(data, method):
        if data.shape.rank == 0:
            raise _err(f"Fingerprint: data must have rank >= 1, got shape {_fmt(data.shape)}")
        first = None if data.shape.rank is None else data.shape[0]
        return dtypes.uint8, TensorShape([first, 8])

    def kernel(data, method):
        rows = data.reshape(data.shape[0], -1)
        out = np.zeros((rows.shape[0], 8), np.uint8)
        for i, row in enumerate(rows):
            if data.dtype == object:
                parts = [x if isinstance(x, bytes) else str(x).encode() for x in row]
                raw = parts[0] if len(parts) == 1 else b"".join(
                    struct.pack("<Q", fingerprint64(p)) for p in parts)
            else:
                raw = np.ascontiguousarray(row).astype(row.dtype.newbyteorder("<")).tobytes()
            out[i] = np.frombuffer(struct.pack("<Q", fingerprint64(raw)), np.uint8)
        return out


def fingerprint(data: TensorLike, method: str = "farmhash64", name: str | None = None) -> Tensor:
    """Stable 8-byte fingerprints of each row (first dimension) of ``data``.

    Args:
        data: a tensor of rank >= 1 (numbers or strings).
        method: ``"farmhash64"`` (TensorFlow's only method).
        name: the op name.

    Returns:
        A uint8 tensor ``[data.shape[0], 8]``, equal to TensorFlow's for the same data.
    """
    return bind(Fingerprint, [convert(data)], {"method": method}, name=name)
