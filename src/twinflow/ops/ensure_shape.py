"""``tw.ensure_shape``: checks a tensor's shape and gives it that static shape."""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike


def _dims(shape: TensorShape) -> str:
    return "<unknown>" if shape.rank is None else str(
        ["?" if d is None else d for d in shape.as_list()]).replace("'", "")


@register_op("EnsureShape")
class EnsureShape:
    """``input`` unchanged, raising InvalidArgumentError if its shape does not fit ``shape``;
    the output's static shape is the two merged."""

    def infer(input, *, shape):  # noqa: A002  (TensorFlow's argument name)
        if not input.shape.is_compatible_with(shape):
            raise InvalidArgumentError(None, None, f"Shape of tensor {_dims(input.shape)} is "
                                       f"not compatible with expected shape {_dims(shape)}.")
        return input.dtype, input.shape.merge_with(shape)

    def kernel(input, *, shape):  # noqa: A002
        actual = TensorShape._from_tuple(np.shape(input))
        if not actual.is_compatible_with(shape):
            raise InvalidArgumentError(None, None, f"Shape of tensor {_dims(actual)} is not "
                                       f"compatible with expected shape {_dims(shape)}.")
        return input

    def grad(op, dy):
        return [dy]


def ensure_shape(x: TensorLike, shape, name: str | None = None) -> Tensor:
    """``x``, checked to have a shape compatible with ``shape`` (None dims match any size).

    Args:
        x: the tensor.
        shape: a TensorShape or a list of dims (None for unknown), or None (any shape).
        name: the op name.

    Returns:
        ``x`` with the merged static shape.

    Raises:
        InvalidArgumentError: the shapes are incompatible (at run time in a graph).
    """
    return bind(EnsureShape, [convert_to_tensor(x)],
                {"shape": shape if isinstance(shape, TensorShape) else TensorShape(shape)},
                name=name)
