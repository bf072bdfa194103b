"""``keras.layers.InputSpec``: what a layer accepts (rank, dtype, shape, fixed axes). A layer
whose ``input_spec`` is set checks every call against it, as Keras does."""
from __future__ import annotations

from typing import Any

from ...core import nest
from ..configurable import Configurable


class InputSpec(Configurable):
    """The rank, dtype and shape constraints of one input of a layer.

    Args:
        dtype: the expected dtype name, or None.
        shape: the expected shape (None entries: any size), or None.
        ndim: the exact rank, or None.
        max_ndim: the largest rank, or None.
        min_ndim: the smallest rank, or None.
        axes: ``{axis: size}`` for axes whose size is fixed.
        allow_last_axis_squeeze: accept a trailing axis of size 1 more or less.
        name: the input's name.
        optional: the input may be None.
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze: bool = False, name=None,
                 optional: bool = False) -> None:
        self.dtype = None if dtype is None else getattr(dtype, "name", str(dtype))
        if shape is not None:
            self.shape = tuple(shape)
            self.ndim = len(self.shape)
        else:
            self.shape, self.ndim = None, ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.name, self.optional = name, optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            self.axes = {int(k): v for k, v in (axes or {}).items()}
        except (ValueError, TypeError):
            raise TypeError(f"Argument `axes` must be a dict with integer keys. Received: "
                            f"axes={axes}") from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            top = (self.ndim if self.ndim is not None else self.max_ndim) - 1
            if max(self.axes) > top:
                raise ValueError(f"Axis {max(self.axes)} is greater than the maximum allowed "
                                 f"value: {top}")

    def __repr__(self) -> str:
        parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                         ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                         ("min_ndim", self.min_ndim), ("axes", self.axes))
                 if v]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self) -> dict:
        """The spec's arguments.

        Returns:
            A dict.
        """
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}


def _shape_of(x) -> tuple | None:
    """``x``'s static shape as a tuple; None when it has none or its rank is unknown."""
    shape = getattr(x, "shape", None)
    if shape is None or getattr(shape, "rank", 0) is None:
        return None
    return tuple(shape.as_list() if hasattr(shape, "as_list") else shape)


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """Raises ValueError when ``inputs`` break the layer's ``input_spec``.

    Args:
        input_spec: an InputSpec or a list of them (one per input).
        inputs: the call's inputs.
        layer_name: for the error message.

    Returns:
        None.
    """
    if not input_spec:
        return
    specs = list(nest.flatten(input_spec))
    flat = list(nest.flatten(inputs)) if not isinstance(inputs, dict) else list(inputs.values())
    if len(flat) != len(specs):
        raise ValueError(f'Layer "{layer_name}" expects {len(specs)} input(s), but it '
                         f"received {len(flat)} input tensors.")
    for i, (spec, x) in enumerate(zip(specs, flat)):
        if spec is None:
            continue
        if x is None:
            if spec.optional:
                continue
            raise ValueError(f'Input {i} of layer "{layer_name}" is None, which the layer\'s '
                             "input spec does not allow.")
        _check(spec, x, i, layer_name)


def _check(spec: InputSpec, x: Any, i: int, layer_name: str) -> None:
    shape = _shape_of(x)
    if shape is None:
        return
    rank = len(shape)
    where = f'Input {i} of layer "{layer_name}" is incompatible with the layer:'
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
        raise ValueError(f"{where} expected ndim={spec.ndim}, found ndim={rank}. Full shape "
                         f"received: {shape}")
    if spec.max_ndim is not None and rank > spec.max_ndim:
        raise ValueError(f"{where} expected max_ndim={spec.max_ndim}, found ndim={rank}")
    if spec.min_ndim is not None and rank < spec.min_ndim:
        raise ValueError(f"{where} expected min_ndim={spec.min_ndim}, found ndim={rank}. Full "
                         f"shape received: {shape}")
    dtype = getattr(getattr(x, "dtype", None), "name", None) or str(getattr(x, "dtype", ""))
    if spec.dtype is not None and dtype and dtype != spec.dtype:
        raise ValueError(f"{where} expected dtype={spec.dtype}, found dtype={dtype}")
    for axis, size in spec.axes.items():
        got = shape[axis] if -rank <= axis < rank else None
        if size is not None and got not in (size, None):
            raise ValueError(f"{where} expected axis {axis} of input shape to have value "
                             f"{size}, but received input with shape {shape}")
    if spec.shape is not None:
        want = spec.shape
        got_shape = shape
        if spec.allow_last_axis_squeeze:
            if got_shape and got_shape[-1] == 1:
                got_shape = got_shape[:-1]
            if want and want[-1] == 1:
                want = want[:-1]
        for w, g in zip(want, got_shape):
            if w is not None and g is not None and w != g:
                raise ValueError(f"{where} expected shape={spec.shape}, found shape={shape}")
