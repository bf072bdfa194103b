"""EagerTensor: a Tensor holding a NumPy value.

An EagerTensor is one slot, ``_value`` (an ndarray or NumPy scalar, never mutated), so wrapping a
kernel's result costs one allocation. dtype and shape are derived on demand.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..graph.tensor import Tensor

_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
_from_numpy = dtypes.from_numpy
_BY_NP = dtypes._BY_NP



def _plain(v):
    """The array to show: the integers of a quantized tensor (a structured NumPy dtype)."""
    return v.view(v.dtype[0]) if type(v) is np.ndarray and v.dtype.names is not None else v

class EagerTensor(Tensor):
    """A concrete tensor: the result of running an op eagerly."""

    # ``_device`` is set only on tensors placed off the default device (an unset slot costs
    # nothing to create): ``device`` then names it.
    __slots__ = ("_value", "_device", "__weakref__")

    def __init__(self, value) -> None:
        self._value = value

    @property
    def dtype(self) -> dtypes.DType:
        d = _BY_NP.get(self._value.dtype)
        return d if d is not None else _from_numpy(self._value.dtype)

    @property
    def shape(self) -> TensorShape:
        return TensorShape._from_tuple(self._value.shape)

    def set_shape(self, shape) -> None:
        """Checks that ``shape`` is compatible with this tensor's (known) shape.

        Args:
            shape: a shape, possibly with unknown dimensions.
        """
        if not self.shape.is_compatible_with(TensorShape(shape)):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied "
                             f"shape {TensorShape(shape)}.")

    @property
    def name(self) -> str:
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    @property
    def device(self) -> str:
        """The full name of the device holding the tensor (the op's ``tw.device`` scope)."""
        try:
            return self._device
        except AttributeError:
            return _CPU0

    @property
    def backing_device(self) -> str:
        """Where the tensor's memory lives (its device: logical CPUs share the host's)."""
        return self.device

    def numpy(self):
        """The value as a NumPy array (a copy: changing it does not change the tensor)."""
        v = self._value
        if type(v) is np.ndarray:
            if v.dtype.names is not None:  # a quantized type: TensorFlow gives the integers
                v = v.view(v.dtype[0])
            # As TensorFlow: a scalar tensor gives a NumPy scalar (bytes for strings).
            return v.copy() if v.ndim else v[()]
        return v

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(self._value)
        return v if dtype is None else v.astype(dtype, copy=False)

    def __len__(self) -> int:
        shape = self._value.shape
        if not shape:
            raise TypeError("Scalar tensor has no `len()`")
        return shape[0]

    def __iter__(self):
        if not self._value.shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        if self._value.ndim == 1 and self._value.dtype.kind == "O":  # strings stay arrays
            return (EagerTensor(np.asarray(v, dtype=object)) for v in self._value)
        return (EagerTensor(v) for v in self._value)

    def __bool__(self) -> bool:
        return bool(self._scalar("bool"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self.dtype.is_integer and self._value.shape == ():
            return int(self._value)
        raise TypeError(f"Only integer scalar tensors can be used as an index, "
                        f"got shape {self.shape} dtype {self.dtype.name}")

    def _scalar(self, what: str):
        # NumPy's rules, as TensorFlow: bool() of an empty tensor is False, of one element
        # its value; int()/float()/complex() need a scalar (shape ()).
        v = self._value
        if what == "bool" and getattr(v, "size", 1) == 0:
            return False
        if getattr(v, "size", 1) != 1:
            raise InvalidArgumentError(
                f"{what}() of a tensor needs exactly one element; this one has shape "
                f"{self.shape}. Use tw.reduce_any/tw.reduce_all for a truth value of many.")
        if what != "bool" and np.ndim(v):
            raise TypeError(f"only 0-dimensional arrays can be converted to Python scalars: "
                            f"{what}() of a tensor of shape {self.shape}")
        return v.reshape(()) if isinstance(v, np.ndarray) else v

    def __format__(self, spec: str) -> str:
        # As TensorFlow: the NumPy value's format ("hello, {}".format(m) gives "hello, [[4.]]";
        # f"{tw.constant(0.1)}" gives 0.10000000149011612, the float32 as a Python float).
        return format(self.numpy(), spec)

    def __repr__(self) -> str:
        return (f"<tw.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={_numpy_repr(_plain(self._value))}>")

    def __str__(self) -> str:
        text = _numpy_str(_plain(self._value))
        if "\n" in text:
            text = "\n" + text
        return f"tw.Tensor({text}, shape={self.shape}, dtype={self.dtype.name})"

    def __reduce__(self):
        return EagerTensor, (np.asarray(self._value),)

    def cpu(self) -> EagerTensor:
        return self

    def gpu(self, gpu_index: int = 0):
        raise RuntimeError("No GPU: twinflow runs on the CPU only.")


def _numpy_str(v) -> str:
    if isinstance(v, np.ndarray) and v.dtype.kind in "SUO":
        if v.ndim == 0:
            return _as_bytes_repr(v[()])
        return str(_as_bytes_array(v)) if v.size else str(v)
    if isinstance(v, (bytes, str, np.bytes_, np.str_)):
        return _as_bytes_repr(v)
    return str(v)


def _numpy_repr(v) -> str:
    """TensorFlow's ``numpy=`` text: a scalar as its Python value's repr (``.item()``, so a
    float32 0.1 shows as 0.10000000149011612), an array as NumPy's repr."""
    if isinstance(v, (bytes, str, np.bytes_, np.str_)):
        return _as_bytes_repr(v)
    if np.ndim(v) == 0:
        if v.dtype.kind in "SUO":
            return _as_bytes_repr(v[()])
        return repr(v.item())
    if v.dtype.kind in "SU":
        v = _as_bytes_array(v)
    r = repr(v)
    return "\n" + r if "\n" in r else r


def _as_bytes_array(v):
    """An object array of bytes (how TensorFlow holds strings) from any string array."""
    out = np.empty(v.shape, dtype=object)
    out.ravel()[:] = [x.encode() if isinstance(x, str) else bytes(x) for x in v.ravel()]
    return out


def _as_bytes_repr(x) -> str:
    if isinstance(x, str):
        x = x.encode()
    return repr(bytes(x))


class ResourceHandle(EagerTensor):
    """An eager handle to a variable: its value is the Python Variable object itself."""

    __slots__ = ()

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.resource

    @property
    def shape(self) -> TensorShape:
        return TensorShape._from_tuple(())

    def __repr__(self) -> str:
        return f"<tw.Tensor: dtype=resource, handle to {self._value!r}>"

    __str__ = __repr__
