"""Merging layers (Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot) and
their functional forms (``layers.add([a, b])``...).

Each takes a list of tensors of broadcast-compatible shapes; masks of the inputs are combined
(a position is kept where every input keeps it; Concatenate concatenates the masks).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core import dtypes
from ...graph.tensor import Tensor
from ...ops import array_ops, linalg_ops, math_ops, nn_ops, reduction_ops
from .base import Layer


class _Merge(Layer):
    """Base class: checks the list of inputs, combines masks, calls ``_merge``.

    Args:
        **kwargs: Layer arguments.
    """

    _min_inputs = 1

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check(self, inputs) -> list:
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: "
                             f"inputs={inputs} (not a list of tensors)")
        if len(inputs) < self._min_inputs:
            raise ValueError(f"A `{type(self).__name__}` layer should be called on a list of "
                             f"at least {self._min_inputs} inputs. Received {len(inputs)} "
                             "inputs.")
        batches = {x.shape.as_list()[0] for x in inputs
                   if x.shape.rank and x.shape.as_list()[0] is not None}
        if len(batches) > 1:
            raise ValueError(f"Cannot merge tensors with different batch sizes. Received "
                             f"tensors with shapes {[x.shape for x in inputs]}")
        return list(inputs)

    def call(self, inputs) -> Tensor:
        return self._merge(self._check(inputs))

    def _merge(self, inputs: list) -> Tensor:
        raise NotImplementedError

    def compute_mask(self, inputs, mask=None) -> Any:
        if mask is None or all(m is None for m in mask):
            return None
        masks = [array_ops.expand_dims(m, 0) for m in mask if m is not None]
        return reduction_ops.reduce_all(array_ops.concat(masks, axis=0), axis=0)


def _fold(fn, inputs: list) -> Tensor:
    out = inputs[0]
    for x in inputs[1:]:
        out = fn(out, x)
    return out


class Add(_Merge):
    """The element-wise sum of the inputs."""

    def _merge(self, inputs: list) -> Tensor:
        return _fold(math_ops.add, inputs)


class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    def _merge(self, inputs: list) -> Tensor:
        if len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. "
                             f"Received: {len(inputs)} inputs")
        return math_ops.subtract(inputs[0], inputs[1])


class Multiply(_Merge):
    """The element-wise product of the inputs."""

    def _merge(self, inputs: list) -> Tensor:
        return _fold(math_ops.multiply, inputs)


class Average(_Merge):
    """The element-wise mean of the inputs."""

    def _merge(self, inputs: list) -> Tensor:
        return _fold(math_ops.add, inputs) * (1.0 / len(inputs))


class Maximum(_Merge):
    """The element-wise maximum of the inputs."""

    def _merge(self, inputs: list) -> Tensor:
        return _fold(math_ops.maximum, inputs)


class Minimum(_Merge):
    """The element-wise minimum of the inputs."""

    def _merge(self, inputs: list) -> Tensor:
        return _fold(math_ops.minimum, inputs)


class Concatenate(_Merge):
    """Concatenates the inputs along ``axis``.

    Args:
        axis: the axis.
        **kwargs: Layer arguments.
    """

    def __init__(self, axis: int = -1, **kwargs) -> None:
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _merge(self, inputs: list) -> Tensor:
        return array_ops.concat(inputs, axis=self.axis)

    def compute_mask(self, inputs, mask=None) -> Any:
        if mask is None or all(m is None for m in mask):
            return None
        full = []
        for x, m in zip(inputs, mask):
            if m is None:
                m = array_ops.ones_like(x, dtype=dtypes.bool_)
            elif m.shape.rank is not None and x.shape.rank is not None and \
                    m.shape.rank < x.shape.rank:
                m = array_ops.broadcast_to(array_ops.expand_dims(m, -1), array_ops.shape(x))
            full.append(m)
        # As Keras: the concatenated per-element masks, reduced over the last axis.
        return reduction_ops.reduce_any(array_ops.concat(full, axis=self.axis), axis=-1)

    _config_keys = ("axis",)


def batch_dot(x: Tensor, y: Tensor, axes) -> Tensor:
    """The dot product of each pair of samples over ``axes`` (Keras' ``batch_dot``).

    Args:
        x: a tensor with a batch dimension.
        y: a tensor with the same batch size.
        axes: the contracted axis of each (a pair; 0 is the batch).

    Returns:
        A tensor of shape ``(batch, *rest_of_x, *rest_of_y)`` (``(batch, 1)`` for matrices).
    """
    rx, ry = x.shape.rank, y.shape.rank
    ax, ay = axes
    if ax == 0 or ay == 0:
        raise ValueError("Dot: cannot contract over the batch axis (0).")
    xd, yd = x.shape.as_list(), y.shape.as_list()
    if xd[ax] is not None and yd[ay] is not None and xd[ax] != yd[ay]:
        raise ValueError(f"Dot: incompatible input shapes {x.shape} and {y.shape} on axes "
                         f"{list(axes)} ({xd[ax]} != {yd[ay]}).")
    x_rest = [i for i in range(1, rx) if i != ax]
    y_rest = [i for i in range(1, ry) if i != ay]
    xt = array_ops.transpose(x, [0] + x_rest + [ax])
    yt = array_ops.transpose(y, [0, ay] + y_rest)
    n = xd[ax] if xd[ax] is not None else yd[ay]
    xs = [xd[i] for i in x_rest]
    ys = [yd[i] for i in y_rest]
    if any(d is None for d in xs + ys) or n is None:
        raise ValueError(f"Dot needs the non-batch dimensions known; got {x.shape} and "
                         f"{y.shape}.")
    px = 1
    for d in xs:
        px *= d
    py = 1
    for d in ys:
        py *= d
    out = linalg_ops.matmul(array_ops.reshape(xt, [-1, px, n]),
                            array_ops.reshape(yt, [-1, n, py]))
    shape = xs + ys
    return array_ops.reshape(out, [-1] + (shape if shape else [1]))


class Dot(_Merge):
    """The dot product of two inputs' samples over ``axes``.

    Args:
        axes: an axis for both inputs, or a pair (one per input).
        normalize: L2-normalize both along the axes first (cosine proximity).
        **kwargs: Layer arguments.
    """

    def __init__(self, axes, normalize: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        if not isinstance(axes, int) and not (isinstance(axes, (list, tuple)) and
                                              len(axes) == 2):
            raise ValueError(f"Invalid format for argument `axes`: expected an integer or a "
                             f"list of 2 integers. Received: axes={axes}")
        self.axes = axes if isinstance(axes, int) else list(axes)
        self.normalize = bool(normalize)
        self.supports_masking = False

    def _merge(self, inputs: list) -> Tensor:
        if len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: "
                             f"{len(inputs)} inputs")
        x, y = inputs
        pair = [self.axes, self.axes] if isinstance(self.axes, int) else self.axes
        axes = [a % t.shape.rank if a < 0 else a for a, t in zip(pair, (x, y))]
        if self.normalize:
            x = nn_ops.l2_normalize(x, axis=axes[0])
            y = nn_ops.l2_normalize(y, axis=axes[1])
        return batch_dot(x, y, axes)

    def compute_mask(self, inputs, mask=None) -> Any:
        return None

    _config_keys = ("axes", "normalize")


def _functional(cls: type, inputs: list, **kwargs) -> Any:
    return cls(**kwargs)(inputs)


def _functional_form(cls: type, inputs_doc: str, result: str) -> Callable[..., Any]:
    """The function ``name(inputs, **kwargs)`` that is ``cls(**kwargs)(inputs)``."""
    def form(inputs: list, **kwargs) -> Any:
        return _functional(cls, inputs, **kwargs)
    form.__name__ = form.__qualname__ = cls.__name__.lower()
    form.__module__ = __name__
    form.__doc__ = (f"``{cls.__name__}()(inputs)``.\n\n    Args:\n        inputs: {inputs_doc}\n"
                    f"        **kwargs: layer arguments.\n\n    Returns:\n        {result}\n    ")
    return form


add = _functional_form(Add, "the tensors.", "Their sum.")
subtract = _functional_form(Subtract, "two tensors.", "Their difference.")
multiply = _functional_form(Multiply, "the tensors.", "Their product.")
average = _functional_form(Average, "the tensors.", "Their mean.")
maximum = _functional_form(Maximum, "the tensors.", "Their element-wise maximum.")
minimum = _functional_form(Minimum, "the tensors.", "Their element-wise minimum.")


def concatenate(inputs: list, axis: int = -1, **kwargs) -> Any:
    """``Concatenate(axis)(inputs)``.

    Args:
        inputs: the tensors.
        axis: the axis.
        **kwargs: layer arguments.

    Returns:
        The concatenation.
    """
    return _functional(Concatenate, inputs, axis=axis, **kwargs)


def dot(inputs: list, axes, normalize: bool = False, **kwargs) -> Any:
    """``Dot(axes, normalize)(inputs)``.

    Args:
        inputs: two tensors.
        axes: the contracted axes.
        normalize: L2-normalize first.
        **kwargs: layer arguments.

    Returns:
        The batched dot product.
    """
    return _functional(Dot, inputs, axes=axes, normalize=normalize, **kwargs)
