"""``tw.keras.backend``: session-level settings (floatx, epsilon, image data format), reading
and writing variables, and the tf.keras 2 backend functions (``K.mean``, ``K.dot``...) as thin
wrappers of twinflow ops with Keras' argument names and defaults."""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autodiff import gradients as _gradients
from ..control import cond as _cond
from ..control import map_fn as _map_fn
from ..core import dtypes
from ..eager.execute import convert_to_tensor
from ..graph.tensor import Tensor
from ..ops import array_ops, linalg_ops, math_ops, nn_ops, random_ops, reduction_ops
from ..ops.variables import Variable
from . import activations as _activations
from .backend_nn import (  # noqa: F401  (tw.keras.backend names)
    batch_normalization,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    conv1d,
    conv2d,
    conv2d_transpose,
    conv3d,
    depthwise_conv2d,
    is_sparse,
    name_scope,
    pool2d,
    pool3d,
    random_normal_variable,
    random_uniform_variable,
    resize_images,
    resize_volumes,
    result_type,
    rnn,
    separable_conv2d,
    sparse_categorical_crossentropy,
    spatial_2d_padding,
    spatial_3d_padding,
    to_dense,
)
from .layers.base import clear_session
from .layers.keras_tensor import KerasTensor
from .layers.merging import batch_dot as _batch_dot
from .ops.ctc import (  # noqa: F401  (tw.keras.backend names)
    ctc_batch_cost,
    ctc_label_dense_to_sparse,
)
from .ops.ctc import legacy_ctc_decode as _legacy_ctc_decode
from .settings import (  # noqa: F401  (tw.keras.backend names)
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)

_UID: dict = {}


def get_uid(prefix: str = "") -> int:
    """A per-prefix counter, from 1.

    Args:
        prefix: the counter's name.

    Returns:
        The next value.
    """
    _UID[prefix] = _UID.get(prefix, 0) + 1
    return _UID[prefix]


def get_value(x) -> Any:
    """The value of a variable or tensor as NumPy.

    Args:
        x: a variable, tensor, or array.

    Returns:
        A NumPy array (or scalar).
    """
    if isinstance(x, (Variable, Tensor)):
        return x.numpy()
    return np.asarray(x)


def batch_get_value(tensors: list) -> list:
    """``get_value`` of each.

    Args:
        tensors: variables or tensors.

    Returns:
        A list of NumPy values.
    """
    return [get_value(t) for t in tensors]


def set_value(x: Variable, value) -> None:
    """Assigns ``value`` to the variable ``x``.

    Args:
        x: a variable.
        value: a value of its shape.
    """
    if not isinstance(x, Variable):
        raise TypeError(f"set_value needs a variable, got {type(x).__name__}")
    x.assign(np.asarray(value, dtype=x.dtype.np))


def batch_set_value(tuples) -> None:
    """``set_value`` for each ``(variable, value)`` pair.

    Args:
        tuples: the pairs.
    """
    for x, value in tuples:
        set_value(x, value)


def int_shape(x) -> tuple | None:
    """The static shape as a tuple of ints and Nones.

    Args:
        x: a tensor, variable, KerasTensor or array.

    Returns:
        The shape, or None when the rank is unknown.
    """
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    if hasattr(shape, "rank"):
        return None if shape.rank is None else tuple(shape.as_list())
    return tuple(shape)


def ndim(x) -> int | None:
    """The rank.

    Args:
        x: a tensor, variable or array.

    Returns:
        The number of dimensions.
    """
    shape = int_shape(x)
    return None if shape is None else len(shape)


def dtype(x) -> str:
    """The dtype's name.

    Args:
        x: a tensor or variable.

    Returns:
        E.g. ``'float32'``.
    """
    return dtypes.as_dtype(x.dtype).name


def count_params(x) -> int:
    """The number of scalars in ``x``.

    Args:
        x: a variable or tensor of known shape.

    Returns:
        The count.
    """
    return int(np.prod(int_shape(x)))


def is_keras_tensor(x) -> bool:
    """Whether ``x`` is a symbolic Keras tensor (from ``Input`` or a layer call on one).

    Args:
        x: anything.

    Returns:
        True for KerasTensors.
    """
    return isinstance(x, KerasTensor)


def eval(x) -> Any:  # noqa: A001  (Keras' name)
    """The value of a variable or tensor (``get_value``).

    Args:
        x: a variable or tensor.

    Returns:
        A NumPy value.
    """
    return get_value(x)


def variable(value, dtype=None, name: str | None = None, constraint=None) -> Variable:
    """A new variable.

    Args:
        value: the initial value.
        dtype: its dtype (default ``floatx()`` for floats).
        name: its name.
        constraint: stored on the variable.

    Returns:
        The variable.
    """
    arr = np.asarray(value)
    dt = dtype or (floatx() if arr.dtype.kind == "f" else None)
    return Variable(arr if dt is None else arr.astype(dtypes.as_dtype(dt).np), name=name,
                    constraint=constraint)


def constant(value, dtype=None, shape=None, name: str | None = None) -> Tensor:
    """A constant tensor.

    Args:
        value: the value.
        dtype: its dtype (default ``floatx()``).
        shape: broadcast to this shape.
        name: ignored when eager.

    Returns:
        The tensor.
    """
    arr = np.asarray(value, dtype=dtypes.as_dtype(dtype or floatx()).np)
    if shape is not None:
        arr = np.broadcast_to(arr, tuple(shape)).copy()
    return convert_to_tensor(arr)


def ctc_decode(y_pred, input_length, greedy: bool = True, beam_width: int = 100,
               top_paths: int = 1) -> tuple:
    """tf.keras 2's CTC decoding of softmax outputs (the blank is the last class).

    Args:
        y_pred: ``(batch, max_time, num_classes)`` softmax outputs.
        input_length: ``(batch,)`` lengths.
        greedy: greedy decoding, else TensorFlow 1's beam search (merging repeats).
        beam_width: the beam width.
        top_paths: how many paths.

    Returns:
        ``(list of (batch, max_time) decodings padded with -1, log-probabilities)``.
    """
    return _legacy_ctc_decode(y_pred, input_length, greedy, beam_width, top_paths)


def _make(name: str, impl: Callable, doc: str) -> Callable:
    # A new function object: the ops' own functions must keep their names and docs.
    sig = inspect.signature(impl)
    if not getattr(impl, "__name__", "") == "<lambda>":
        # An op function: Keras's signature lacks the op's trailing ``name`` argument.
        sig = sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "name"])

    def fn(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)  # Keras's argument names: a wrong one is a TypeError
        return impl(*bound.args, **bound.kwargs)
    fn.__signature__ = sig
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + "\n\nArgs:\n    *args: as in tf.keras.backend (tensors, axes...).\n" \
        "\nReturns:\n    The result tensor.\n"
    fn.__module__ = __name__
    return fn


def _reduce(op):
    return lambda x, axis=None, keepdims=False: op(x, axis=axis, keepdims=keepdims)


_FUNCTIONS = {
    "abs": (math_ops.abs, "``|x|``."),
    "exp": (math_ops.exp, "``e**x``."), "log": (math_ops.log, "Natural logarithm."),
    "sqrt": (math_ops.sqrt, "Square root."), "square": (math_ops.square, "``x**2``."),
    "sign": (math_ops.sign, "The sign."), "round": (math_ops.round, "Round half to even."),
    "sin": (math_ops.sin, "Sine."), "cos": (math_ops.cos, "Cosine."),
    "tanh": (math_ops.tanh, "Hyperbolic tangent."), "sigmoid": (math_ops.sigmoid, "Sigmoid."),
    "softplus": (lambda x: nn_ops.softplus(x), "``log(1 + e**x)``."),
    "softsign": (lambda x: nn_ops.softsign(x), "``x / (1 + |x|)``."),
    "pow": (lambda x, a: math_ops.pow(x, a), "``x**a``."),
    "maximum": (math_ops.maximum, "Element-wise maximum."),
    "minimum": (math_ops.minimum, "Element-wise minimum."),
    "equal": (math_ops.equal, "``x == y``."), "not_equal": (math_ops.not_equal, "``x != y``."),
    "greater": (math_ops.greater, "``x > y``."),
    "greater_equal": (math_ops.greater_equal, "``x >= y``."),
    "less": (math_ops.less, "``x < y``."), "less_equal": (math_ops.less_equal, "``x <= y``."),
    "sum": (_reduce(reduction_ops.reduce_sum), "Sum over ``axis``."),
    "mean": (_reduce(reduction_ops.reduce_mean), "Mean over ``axis``."),
    "max": (_reduce(reduction_ops.reduce_max), "Maximum over ``axis``."),
    "min": (_reduce(reduction_ops.reduce_min), "Minimum over ``axis``."),
    "prod": (_reduce(reduction_ops.reduce_prod), "Product over ``axis``."),
    "std": (_reduce(reduction_ops.reduce_std), "Standard deviation over ``axis``."),
    "var": (_reduce(reduction_ops.reduce_variance), "Variance over ``axis``."),
    "any": (lambda x, axis=None, keepdims=False: reduction_ops.reduce_any(
        math_ops.cast(x, dtypes.bool_), axis=axis, keepdims=keepdims), "Logical or."),
    "all": (lambda x, axis=None, keepdims=False: reduction_ops.reduce_all(
        math_ops.cast(x, dtypes.bool_), axis=axis, keepdims=keepdims), "Logical and."),
    "argmax": (lambda x, axis=-1: reduction_ops.argmax(x, axis=axis), "Index of the maximum."),
    "argmin": (lambda x, axis=-1: reduction_ops.argmin(x, axis=axis), "Index of the minimum."),
    "cumsum": (lambda x, axis=0: math_ops.cumsum(x, axis=axis), "Cumulative sum."),
    "cumprod": (lambda x, axis=0: math_ops.cumprod(x, axis=axis), "Cumulative product."),
    "cast": (lambda x, dtype: math_ops.cast(x, dtype), "Casts to ``dtype``."),
    "clip": (lambda x, min_value, max_value: math_ops.clip_by_value(
        x, min_value, max_value), "Clips to ``[min_value, max_value]``."),
    "concatenate": (lambda tensors, axis=-1: array_ops.concat(list(tensors), axis=axis),
                    "Concatenation along ``axis``."),
    "stack": (lambda x, axis=0: array_ops.stack(list(x), axis=axis), "Stacks along ``axis``."),
    "reshape": (lambda x, shape: array_ops.reshape(x, shape), "Reshapes."),
    "permute_dimensions": (lambda x, pattern: array_ops.transpose(x, list(pattern)),
                           "Transposes by ``pattern``."),
    "transpose": (lambda x: array_ops.transpose(x), "Reverses the axes."),
    "expand_dims": (lambda x, axis=-1: array_ops.expand_dims(x, axis), "Inserts an axis."),
    "squeeze": (lambda x, axis: array_ops.squeeze(x, axis=[axis]), "Removes a size-1 axis."),
    "flatten": (lambda x: array_ops.reshape(x, [-1]), "Flattens to 1-D."),
    "batch_flatten": (lambda x: array_ops.reshape(x, [-1, int(np.prod(
        x.shape.as_list()[1:]))]), "Flattens all but the first axis."),
    "tile": (lambda x, n: array_ops.tile(x, n), "Tiles ``n`` times per axis."),
    "repeat_elements": (lambda x, rep, axis: array_ops.repeat(x, rep, axis=axis),
                        "Repeats each element along ``axis``."),
    "repeat": (lambda x, n: array_ops.tile(array_ops.expand_dims(x, 1), [1, n, 1]),
               "``(batch, dim) -> (batch, n, dim)``."),
    "reverse": (lambda x, axes: array_ops.reverse(x, [axes] if isinstance(axes, int)
                                                   else list(axes)), "Reverses ``axes``."),
    "gather": (lambda reference, indices: array_ops.gather(reference, indices),
               "Rows of ``reference``."),
    "shape": (lambda x: array_ops.shape(x), "The dynamic shape."),
    "ones": (lambda shape, dtype=None, name=None: array_ops.ones(
        shape, dtype=dtype or floatx()), "Ones."),
    "zeros": (lambda shape, dtype=None, name=None: array_ops.zeros(
        shape, dtype=dtype or floatx()), "Zeros."),
    "ones_like": (lambda x, dtype=None, name=None: array_ops.ones_like(x, dtype=dtype),
                  "Ones shaped like ``x``."),
    "zeros_like": (lambda x, dtype=None, name=None: array_ops.zeros_like(x, dtype=dtype),
                   "Zeros shaped like ``x``."),
    "eye": (lambda size, dtype=None, name=None: array_ops.eye(size, dtype=dtype or floatx()),
            "The identity matrix."),
    "arange": (lambda start, stop=None, step=1, dtype="int32": array_ops.range(
        start, stop, step, dtype=dtype) if stop is not None else array_ops.range(
        start, dtype=dtype), "``range`` as a tensor."),
    "one_hot": (lambda indices, num_classes: array_ops.one_hot(indices, num_classes),
                "One-hot vectors."),
    "dot": (lambda x, y: linalg_ops.matmul(x, y) if x.shape.rank == 2 and y.shape.rank == 2
            else linalg_ops.tensordot(x, y, [[x.shape.rank - 1], [y.shape.rank - 2]]),
            "Matrix (tensor) product over x's last and y's second-to-last axis."),
    "batch_dot": (lambda x, y, axes=None: _batch_dot(
        x, y, [x.shape.rank - 1, y.shape.rank - (1 if y.shape.rank == 2 else 2)]
        if axes is None else (
            [axes, axes] if isinstance(axes, int) else list(axes))),
        "Per-sample dot products."),
    "l2_normalize": (lambda x, axis=None: nn_ops.l2_normalize(x, axis=axis),
                     "Unit L2 norm along ``axis``."),
    "relu": (lambda x, alpha=0.0, max_value=None, threshold=0.0: _relu(
        x, alpha, max_value, threshold), "Rectified linear unit."),
    "elu": (lambda x, alpha=1.0: nn_ops.elu(x) if alpha == 1.0 else math_ops.where(
        math_ops.greater(x, 0.0), x, alpha * (math_ops.exp(x) - 1.0)), "ELU."),
    "softmax": (lambda x, axis=-1: nn_ops.softmax(x, axis=axis), "Softmax."),
    "hard_sigmoid": (lambda x: math_ops.clip_by_value(x * (1.0 / 6.0) + 0.5, 0.0, 1.0),
                     "``clip(x / 6 + 0.5, 0, 1)`` (Keras 3)."),
    "bias_add": (lambda x, bias, data_format=None: nn_ops.bias_add(x, bias),
                 "Adds a bias along the last axis."),
    "in_top_k": (lambda predictions, targets, k: nn_ops.in_top_k(targets, predictions, k),
                 "Whether each target is among the top ``k`` predictions."),
    "stop_gradient": (lambda variables: array_ops.stop_gradient(variables),
                      "The value without gradient."),
    "random_normal": (lambda shape, mean=0.0, stddev=1.0, dtype=None, seed=None:
                      random_ops.random_normal(shape, mean, stddev, dtype=dtype or floatx(),
                                               seed=seed), "Normal samples."),
    "random_uniform": (lambda shape, minval=0.0, maxval=1.0, dtype=None, seed=None:
                       random_ops.random_uniform(shape, minval, maxval,
                                                 dtype=dtype or floatx(), seed=seed),
                       "Uniform samples."),
    # tf.keras 2 backend functions on variables, control flow and dtypes
    "update": (lambda x, new_x: x.assign(new_x), "Assigns ``new_x`` to the variable ``x``."),
    "update_add": (lambda x, increment: x.assign_add(increment), "``x += increment``."),
    "update_sub": (lambda x, decrement: x.assign_sub(decrement), "``x -= decrement``."),
    "moving_average_update": (lambda x, value, momentum: x.assign(
        x * momentum + convert_to_tensor(value, x.dtype) * (1.0 - momentum)),
        "``x = x * momentum + value * (1 - momentum)``."),
    "switch": (lambda condition, then_expression, else_expression: convert_to_tensor(_cond.cond(
        condition, _thunk(then_expression), _thunk(else_expression)))
        if getattr(condition, "shape", None) is None or condition.shape.rank == 0 else
        math_ops.where(condition, _value(then_expression), _value(else_expression)),
        "``then_expression`` if ``condition`` else ``else_expression`` (element-wise for a "
        "tensor condition)."),
    "foldl": (lambda fn, elems, initializer=None, name=None: _map_fn.foldl(
        fn, elems, initializer=initializer), "Folds ``fn`` over ``elems`` from the left."),
    "foldr": (lambda fn, elems, initializer=None, name=None: _map_fn.foldr(
        fn, elems, initializer=initializer), "Folds ``fn`` over ``elems`` from the right."),
    "map_fn": (lambda fn, elems, name=None, dtype=None: _map_fn.map_fn(fn, elems, dtype=dtype),
               "``fn`` applied to each slice of ``elems``."),
    "gradients": (lambda loss, variables: _gradients.gradients(loss, variables),
                  "Gradients of ``loss`` wrt ``variables`` (in a graph)."),
    "dropout": (lambda x, level, noise_shape=None, seed=None: nn_ops.dropout(
        x, rate=level, noise_shape=noise_shape, seed=seed), "Dropout with rate ``level``."),
    "cast_to_floatx": (lambda x: convert_to_tensor(np.asarray(x, dtype=floatx())),
                       "``x`` as a ``floatx()`` tensor."),
    "is_float_dtype": (lambda dtype: dtypes.as_dtype(dtype).is_floating,
                       "Whether ``dtype`` is a float dtype."),
    "is_int_dtype": (lambda dtype: dtypes.as_dtype(dtype).is_integer,
                     "Whether ``dtype`` is an integer dtype."),
    "standardize_dtype": (lambda dtype: dtypes.as_dtype(dtype or floatx()).name,
                          "The dtype's name (``'float32'``...)."),
    "temporal_padding": (lambda x, padding=(1, 1): array_ops.pad(
        x, [[0, 0], list(padding), [0, 0]]), "Zero-pads the time axis of a 3-D tensor."),
    "truncated_normal": (lambda shape, mean=0.0, stddev=1.0, dtype=None, seed=None:
                         random_ops.truncated_normal(shape, mean, stddev,
                                                     dtype=dtype or floatx(), seed=seed),
                         "Truncated normal samples."),
    "random_bernoulli": (lambda shape, p=0.0, dtype=None, seed=None: math_ops.cast(
        math_ops.less(random_ops.random_uniform(shape, seed=seed), p), dtype or floatx()),
        "Bernoulli samples (1 with probability ``p``)."),
}


def _thunk(v):
    return v if callable(v) else (lambda: v)


def _value(v):
    return v() if callable(v) else v


def _relu(x, alpha, max_value, threshold):
    return _activations.relu(x, alpha=alpha, max_value=max_value, threshold=threshold)


for _name, (_fn, _doc) in _FUNCTIONS.items():
    globals()[_name] = _make(_name, _fn, _doc)

_NN_NAMES = [
    "ctc_batch_cost",
    "ctc_decode",
    "ctc_label_dense_to_sparse",
    "batch_normalization",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "depthwise_conv2d",
    "is_sparse",
    "name_scope",
    "pool2d",
    "pool3d",
    "random_normal_variable",
    "random_uniform_variable",
    "resize_images",
    "resize_volumes",
    "result_type",
    "rnn",
    "separable_conv2d",
    "sparse_categorical_crossentropy",
    "spatial_2d_padding",
    "spatial_3d_padding",
    "to_dense",
]
__all__ = ["clear_session", "floatx", "set_floatx", "epsilon", "set_epsilon",
           "image_data_format", "set_image_data_format", "backend", "get_uid", "get_value",
           "batch_get_value", "set_value", "batch_set_value", "int_shape", "ndim", "dtype",
           "count_params", "is_keras_tensor", "eval", "variable", "constant"] + \
    _NN_NAMES + sorted(_FUNCTIONS)
