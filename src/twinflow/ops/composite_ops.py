"""Helpers shared by the composite tensors: ``tw.type_spec_from_value``."""
from __future__ import annotations

import numpy as np

from ..eager.execute import convert_to_tensor
from ..eager.func_graph import TensorSpec
from ..framework.type_spec import CompositeTensor, TypeSpec
from ..graph.tensor import Tensor


def type_spec_from_value(value) -> TypeSpec:
    """The TypeSpec of a value: a composite's own spec, or a tensor's TensorSpec.

    Args:
        value: a tensor, composite tensor, NumPy array or Python value convertible to a tensor.

    Returns:
        The TypeSpec.

    Raises:
        TypeError: the value has no TypeSpec.
    """
    if isinstance(value, CompositeTensor):
        return value._type_spec
    if isinstance(value, (Tensor, np.ndarray)):
        return TensorSpec.from_tensor(value)
    try:
        return TensorSpec.from_tensor(convert_to_tensor(value))
    except (TypeError, ValueError) as e:
        raise TypeError(f"Could not build a TypeSpec for {value!r} with type "
                        f"{type(value).__name__}: {e}") from None
