"""The tf.keras 2 backend functions built on ``keras.ops``: convolutions and pooling with
``data_format``, batch normalization, the backend cross-entropies (element-wise, as the legacy
backend defines them), image/volume resizing and padding, ``rnn``, random variables, sparse
helpers, ``name_scope`` and ``result_type``. ``keras.backend`` re-exports them."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..control.map_fn import scan as _scan
from ..core import dtypes, nest
from ..core import dtypes as _core_dtypes  # result_type's argument is named dtypes
from ..eager.execute import convert_to_tensor
from ..graph import graph as _graph
from ..graph.tensor import Tensor
from ..ops import array_ops, math_ops, nn_ops, random_ops, reduction_ops
from ..ops.sparse import ops as _sparse_ops
from ..ops.sparse.tensor import SparseTensor
from ..ops.variables import Variable
from .declare import with_args
from .losses import more as _loss_fns
from .ops import _common
from .ops import image as _image
from .ops import nn as _knn
from .settings import epsilon, floatx, image_data_format


def _format(data_format: str | None) -> str:
    data_format = data_format or image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format}")
    return data_format


def _t(x) -> Tensor:
    return x.read_value() if isinstance(x, Variable) else convert_to_tensor(x)


def batch_normalization(x, mean, var, beta, gamma, axis: int = -1,
                        epsilon: float = 1e-3) -> Tensor:
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta``.

    Args:
        x: the input.
        mean: the mean (broadcastable to ``x``).
        var: the variance.
        beta: the offset (or None).
        gamma: the scale (or None).
        axis: the normalized axis (the statistics broadcast along it).
        epsilon: added to the variance.

    Returns:
        The normalized tensor.
    """
    return nn_ops.batch_normalization(_t(x), _t(mean), _t(var),
                                      None if beta is None else _t(beta),
                                      None if gamma is None else _t(gamma), epsilon)


def binary_crossentropy(target, output, from_logits: bool = False) -> Tensor:
    """Element-wise binary cross-entropy (no mean, unlike the loss).

    Args:
        target: labels.
        output: probabilities, or logits with ``from_logits``.
        from_logits: whether ``output`` are logits.

    Returns:
        A tensor shaped like ``output``.
    """
    t, o = _common.promote(_common.as_float(target), _common.as_float(output))
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=t, logits=o)
    eps = epsilon()
    o = math_ops.clip_by_value(o, eps, 1.0 - eps)
    return -(t * math_ops.log(o + eps) + (1.0 - t) * math_ops.log(1.0 - o + eps))


def binary_focal_crossentropy(target, output, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False) -> Tensor:
    """Element-wise binary focal cross-entropy.

    Args:
        target: labels.
        output: probabilities, or logits with ``from_logits``.
        apply_class_balancing: weigh class 1 by ``alpha``, class 0 by ``1 - alpha``.
        alpha: the class-1 weight.
        gamma: the focusing exponent.
        from_logits: whether ``output`` are logits.

    Returns:
        A tensor shaped like ``output``.
    """
    t, o = _common.promote(_common.as_float(target), _common.as_float(output))
    p = math_ops.sigmoid(o) if from_logits else o
    p_t = t * p + (1.0 - t) * (1.0 - p)
    out = math_ops.pow(1.0 - p_t, gamma) * binary_crossentropy(t, o, from_logits)
    if apply_class_balancing:
        out = (t * alpha + (1.0 - t) * (1.0 - alpha)) * out
    return out


def categorical_crossentropy(target, output, from_logits: bool = False,
                             axis: int = -1) -> Tensor:
    """Cross-entropy of one-hot targets over ``axis``.

    Args:
        target: one-hot labels.
        output: probabilities, or logits with ``from_logits``.
        from_logits: whether ``output`` are logits.
        axis: the class axis.

    Returns:
        One value per sample.
    """
    t, o = _common.promote(_common.as_float(target), _common.as_float(output))
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=t, logits=o, axis=axis)
    o = o / reduction_ops.reduce_sum(o, axis=axis, keepdims=True)
    eps = epsilon()
    o = math_ops.clip_by_value(o, eps, 1.0 - eps)
    return -reduction_ops.reduce_sum(t * math_ops.log(o), axis=axis)


def categorical_focal_crossentropy(target, output, alpha: float = 0.25, gamma: float = 2.0,
                                   from_logits: bool = False, axis: int = -1) -> Tensor:
    """Categorical focal cross-entropy over ``axis`` (the loss function's math).

    Args:
        target: one-hot labels.
        output: probabilities, or logits with ``from_logits``.
        alpha: the class weight.
        gamma: the focusing exponent.
        from_logits: whether ``output`` are logits.
        axis: the class axis.

    Returns:
        One value per sample.
    """
    return _loss_fns.categorical_focal_crossentropy(target, output, alpha, gamma, from_logits,
                                                    axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits: bool = False,
                                    axis: int = -1, ignore_class: int | None = None) -> Tensor:
    """Cross-entropy of integer targets.

    Args:
        target: class ids.
        output: probabilities, or logits with ``from_logits``.
        from_logits: whether ``output`` are logits.
        axis: the class axis (moved last).
        ignore_class: a class id whose entries give 0.

    Returns:
        One value per target.
    """
    o = _common.as_float(output)
    rank = o.shape.rank
    if axis not in (-1, rank - 1):
        perm = [i for i in range(rank) if i != axis % rank] + [axis % rank]
        o = array_ops.transpose(o, perm)
    labels = math_ops.cast(_t(target), dtypes.int64)
    if labels.shape.rank == o.shape.rank:
        labels = array_ops.squeeze(labels, axis=[-1])
    if not from_logits:
        eps = epsilon()
        o = math_ops.log(math_ops.clip_by_value(o, eps, 1.0 - eps))
    if ignore_class is None:
        return nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=o)
    keep = math_ops.not_equal(labels, ignore_class)
    safe = math_ops.where(keep, labels, array_ops.zeros_like(labels))
    loss = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=safe, logits=o)
    return math_ops.where(keep, loss, array_ops.zeros_like(loss))


def _causal(x, kernel, dilation, data_format: str, rank: int):
    left = dilation * (kernel.shape.as_list()[0] - 1)
    pads = [[0, 0], [left, 0], [0, 0]] if data_format == "channels_last" else \
        [[0, 0], [0, 0], [left, 0]]
    del rank
    return array_ops.pad(x, pads)


def _conv(rank: int) -> Callable:
    def conv(x, kernel, strides=1, padding: str = "valid", data_format: str | None = None,
             dilation_rate=1) -> Tensor:
        data_format = _format(data_format)
        x, kernel = _common.as_float(x), _common.as_float(kernel)
        if padding == "causal":
            if rank != 1:
                raise ValueError("padding='causal' is only for conv1d")
            d = dilation_rate if isinstance(dilation_rate, int) else dilation_rate[0]
            x, padding = _causal(x, kernel, d, data_format, rank), "valid"
        if padding not in ("valid", "same"):
            raise ValueError(f"Invalid padding: {padding}")
        return _knn.conv(x, kernel, strides, padding, data_format, dilation_rate)
    conv.__name__ = conv.__qualname__ = f"conv{rank}d"
    conv.__doc__ = f"""{rank}-D convolution (``padding``: ``'valid'``, ``'same'``{
        ", ``'causal'``" if rank == 1 else ""}).

    Args:
        x: the input, ``data_format`` laid out.
        kernel: ``(*kernel_size, in_channels, filters)``.
        strides: the strides.
        padding: the padding mode.
        data_format: ``'channels_last'`` or ``'channels_first'`` (default: the setting).
        dilation_rate: the dilation.

    Returns:
        The output.
    """
    return conv


conv1d = _conv(1)
conv2d = _conv(2)
conv3d = _conv(3)


# The convolution and pooling functions' arguments (``with_args`` picks each one's).
_CONV_ARGS = {
    "x": "the input.",
    "depthwise_kernel": "``(kh, kw, in_channels, multiplier)``.",
    "pointwise_kernel": "``(1, 1, in_channels * multiplier, filters)``.",
    "strides": "the strides.",
    "padding": "``'valid'`` or ``'same'``.",
    "data_format": "the layout.",
    "dilation_rate": "the dilation.",
    "pool_size": "the window.",
    "pool_mode": "``'max'`` or ``'avg'``.",
}


@with_args(_CONV_ARGS, kernel="``(kh, kw, filters, in_channels)``.",
           output_shape="the output's shape (``data_format`` laid out).")
def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding: str = "valid",
                     data_format: str | None = None, dilation_rate=(1, 1)) -> Tensor:
    """The transpose of ``conv2d`` (its gradient with respect to its input).

    Returns:
        The output, of ``output_shape``.
    """
    data_format = _format(data_format)
    x = _common.as_float(x)
    shape = [int(d) for d in (output_shape.numpy() if isinstance(output_shape, Tensor)
                              else output_shape)]
    if data_format == "channels_first":
        x = array_ops.transpose(x, [0, 2, 3, 1])
        shape = [shape[0], shape[2], shape[3], shape[1]]
    y = nn_ops.conv2d_transpose(x, _common.as_float(kernel), shape, list(
        (strides, strides) if isinstance(strides, int) else strides), padding.upper(),
        dilations=dilation_rate)
    return array_ops.transpose(y, [0, 3, 1, 2]) if data_format == "channels_first" else y


@with_args(_CONV_ARGS)
def depthwise_conv2d(x, depthwise_kernel, strides=(1, 1), padding: str = "valid",
                     data_format: str | None = None, dilation_rate=(1, 1)) -> Tensor:
    """Depthwise 2-D convolution.

    Returns:
        The output.
    """
    return _knn.depthwise_conv(x, depthwise_kernel, strides, padding, _format(data_format),
                               dilation_rate)


@with_args(_CONV_ARGS)
def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1),
                     padding: str = "valid", data_format: str | None = None,
                     dilation_rate=(1, 1)) -> Tensor:
    """Depthwise then pointwise 2-D convolution.

    Returns:
        The output.
    """
    return _knn.separable_conv(x, depthwise_kernel, pointwise_kernel, strides, padding,
                               _format(data_format), dilation_rate)


def _pool(rank: int) -> Callable:
    def pool(x, pool_size, strides=(1,) * rank, padding: str = "valid",
             data_format: str | None = None, pool_mode: str = "max") -> Tensor:
        if pool_mode not in ("max", "avg"):
            raise ValueError(f"Invalid pool_mode: {pool_mode}. Expected 'max' or 'avg'")
        fn = _knn.max_pool if pool_mode == "max" else _knn.average_pool
        return fn(x, pool_size, strides, padding, _format(data_format))
    pool.__name__ = pool.__qualname__ = f"pool{rank}d"
    pool.__doc__ = f"""{rank}-D max or average pooling.

    Returns:
        The pooled tensor.
    """
    return with_args(_CONV_ARGS)(pool)


pool2d = _pool(2)
pool3d = _pool(3)


def resize_images(x, height_factor: int, width_factor: int, data_format: str,
                  interpolation: str = "nearest") -> Tensor:
    """Scales the rows and columns of a batch of images by integer factors.

    Args:
        x: ``(batch, h, w, c)`` or ``(batch, c, h, w)``.
        height_factor: the row factor.
        width_factor: the column factor.
        data_format: the layout.
        interpolation: ``'nearest'`` (repeats), ``'bilinear'``, ``'bicubic'``...

    Returns:
        The resized images.
    """
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Invalid `data_format` argument: {data_format}")
    rows = 2 if data_format == "channels_first" else 1
    x = _t(x)
    if interpolation == "nearest":
        out = array_ops.repeat(x, height_factor, axis=rows)
        return array_ops.repeat(out, width_factor, axis=rows + 1)
    h, w = x.shape.as_list()[rows:rows + 2]
    if h is None or w is None:
        raise ValueError("resize_images with interpolation other than 'nearest' needs known "
                         "image sizes")
    return _image.resize(x, (h * height_factor, w * width_factor), interpolation=interpolation,
                         data_format=data_format)


def resize_volumes(x, depth_factor: int, height_factor: int, width_factor: int,
                   data_format: str) -> Tensor:
    """Repeats the three spatial axes of a batch of volumes by integer factors.

    Args:
        x: a 5-D tensor.
        depth_factor: the depth factor.
        height_factor: the height factor.
        width_factor: the width factor.
        data_format: the layout.

    Returns:
        The resized volumes.
    """
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Invalid data_format: {data_format}")
    first = 2 if data_format == "channels_first" else 1
    out = _t(x)
    for i, factor in enumerate((depth_factor, height_factor, width_factor)):
        out = array_ops.repeat(out, factor, axis=first + i)
    return out


def _spatial_padding(x, padding, data_format, n: int) -> Tensor:
    padding = [list(p) for p in padding]
    if len(padding) != n or any(len(p) != 2 for p in padding):
        raise ValueError(f"Expected `padding` to be a tuple of {n} tuples of 2 integers. "
                         f"Received: padding={padding}")
    spatial = [[0, 0], [0, 0]] + padding if _format(data_format) == "channels_first" else \
        [[0, 0]] + padding + [[0, 0]]
    return array_ops.pad(_t(x), spatial)


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format: str | None = None) -> Tensor:
    """Zero-pads the two spatial axes of a 4-D tensor.

    Args:
        x: the images.
        padding: ``((top, bottom), (left, right))``.
        data_format: the layout.

    Returns:
        The padded tensor.
    """
    return _spatial_padding(x, padding, data_format, 2)


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)),
                       data_format: str | None = None) -> Tensor:
    """Zero-pads the three spatial axes of a 5-D tensor.

    Args:
        x: the volumes.
        padding: three ``(before, after)`` pairs.
        data_format: the layout.

    Returns:
        The padded tensor.
    """
    return _spatial_padding(x, padding, data_format, 3)


def rnn(step_function: Callable, inputs, initial_states, go_backwards: bool = False,
        mask=None, constants=None, unroll: bool = False, input_length=None,
        time_major: bool = False, zero_output_for_mask: bool = False,
        return_all_outputs: bool = True) -> tuple:
    """Runs ``step_function(input_t, states) -> (output_t, new_states)`` over the time axis.

    A known number of steps is unrolled (eagerly, and into the graph inside
    ``tw.function``); an unknown one runs as a ``scan`` (one While op). ``unroll`` and
    ``input_length`` are Keras' hints and change nothing here.

    Args:
        step_function: the step.
        inputs: ``(batch, time, ...)`` (``(time, batch, ...)`` with ``time_major``).
        initial_states: the list of initial states.
        go_backwards: run from the last step to the first.
        mask: ``(batch, time)`` booleans: masked steps keep the previous states and output.
        constants: extra tensors passed after the states at every step.
        unroll: accepted (twinflow always unrolls here).
        input_length: accepted (the length is read from ``inputs``).
        time_major: whether the time axis is first.
        zero_output_for_mask: masked steps output zeros instead of the previous output.
        return_all_outputs: whether ``outputs`` has every step (else only the last).

    Returns:
        ``(last_output, outputs, new_states)``.
    """
    x = _t(inputs)
    if not time_major:
        x = array_ops.transpose(x, [1, 0] + list(range(2, x.shape.rank)))
    steps = x.shape.as_list()[0]
    states = list(initial_states)
    constants = list(constants or [])
    m = None
    if mask is not None:
        m = math_ops.cast(_t(mask), dtypes.bool_)
        m = array_ops.transpose(m, [1, 0]) if m.shape.rank == 2 else m
    if steps is None:   # a loop (one While op in a graph) over the unknown time axis
        last, stacked, states = _rnn_loop(step_function, x, states, constants, m,
                                          go_backwards, zero_output_for_mask)
        if not return_all_outputs:
            stacked = array_ops.expand_dims(last, 0)
        if not time_major:
            stacked = array_ops.transpose(stacked, [1, 0] + list(range(2, stacked.shape.rank)))
        return last, stacked, states
    order = range(steps - 1, -1, -1) if go_backwards else range(steps)
    outputs, prev = [], None
    for i in order:
        out, new = step_function(x[i], states + constants)
        new = list(nest.flatten(new)) if isinstance(new, (list, tuple)) else [new]
        if m is not None:
            keep = m[i]

            def pick(a, b, keep=keep):
                k = array_ops.reshape(keep, [-1] + [1] * (a.shape.rank - 1))
                return math_ops.where(array_ops.broadcast_to(k, array_ops.shape(a)), a, b)
            new = [pick(s, p) for s, p in zip(new, states)]
            fallback = array_ops.zeros_like(out) if prev is None or zero_output_for_mask \
                else prev
            out = pick(out, fallback)
        states, prev = new, out
        outputs.append(out)
    stacked = array_ops.stack(outputs if return_all_outputs else outputs[-1:])
    if not time_major:
        stacked = array_ops.transpose(stacked, [1, 0] + list(range(2, stacked.shape.rank)))
    return outputs[-1], stacked, states


def _masked(keep, new, old):
    k = array_ops.reshape(keep, [-1] + [1] * (new.shape.rank - 1))
    return math_ops.where(array_ops.broadcast_to(k, array_ops.shape(new)), new, old)


def _rnn_loop(step_function, x, states, constants, m, go_backwards, zero_output):
    """``rnn`` over a time axis of unknown length, as a ``scan`` (time-major ``x``)."""
    if go_backwards:
        x = array_ops.reverse(x, [0])
        m = None if m is None else array_ops.reverse(m, [0])
    first, _ = step_function(x[0], states + constants)   # the output's shape and dtype
    zeros = array_ops.zeros_like(first)
    n = len(states)

    def step(acc, elems):
        prev, old = acc[0], list(acc[1:])
        x_t = elems[0]
        out, new = step_function(x_t, old + constants)
        new = list(nest.flatten(new)) if isinstance(new, (list, tuple)) else [new]
        if m is not None:
            keep = elems[1]
            new = [_masked(keep, s, p) for s, p in zip(new, old)]
            out = _masked(keep, out, zeros if zero_output else prev)
        return tuple([out] + new)
    elems = (x,) if m is None else (x, m)
    result = _scan(step, elems, initializer=tuple([zeros] + [_t(s) for s in states]))
    outs = result[0]
    return outs[-1], outs, [r[-1] for r in result[1:1 + n]]


_RANDOM_ARGS = {"shape": "its shape.", "dtype": "the dtype (default ``floatx()``).",
                "name": "the variable's name.",
                "seed": "the seed (default: drawn from NumPy's generator, as Keras)."}


def _random_variable(op: Callable, shape, a: float, b: float, dtype, name, seed) -> Variable:
    seed = int(np.random.randint(10**8)) if seed is None else seed
    return Variable(op(list(shape), a, b, dtype=dtype or floatx(), seed=seed), name=name)


@with_args(_RANDOM_ARGS, mean="the mean.", scale="the standard deviation.")
def random_normal_variable(shape, mean: float, scale: float, dtype=None,
                           name: str | None = None, seed: int | None = None) -> Variable:
    """A variable of normal samples.

    Returns:
        The variable.
    """
    return _random_variable(random_ops.random_normal, shape, mean, scale, dtype, name, seed)


@with_args(_RANDOM_ARGS, low="the lower bound.", high="the upper bound.")
def random_uniform_variable(shape, low: float, high: float, dtype=None,
                            name: str | None = None, seed: int | None = None) -> Variable:
    """A variable of uniform samples in ``[low, high)``.

    Returns:
        The variable.
    """
    return _random_variable(random_ops.random_uniform, shape, low, high, dtype, name, seed)


def is_sparse(tensor) -> bool:
    """Whether ``tensor`` is a SparseTensor.

    Args:
        tensor: anything.

    Returns:
        The answer.
    """
    return isinstance(tensor, SparseTensor)


def to_dense(tensor) -> Tensor:
    """A SparseTensor made dense (other tensors unchanged).

    Args:
        tensor: the tensor.

    Returns:
        A dense tensor.
    """
    return _sparse_ops.to_dense(tensor) if isinstance(tensor, SparseTensor) else tensor


def name_scope(name: str):
    """A name scope for the ops created under it (``with K.name_scope('block'):``).

    Args:
        name: the scope's name.

    Returns:
        A context manager.
    """
    return _graph.name_scope(name)


def result_type(*dtypes) -> str:
    """The dtype Keras gives a result computed from values of these dtypes (JAX-like
    promotion; Python types count as weak).

    Args:
        *dtypes: dtypes, dtype names, or Python types ``int``/``float``/``bool``.

    Returns:
        The dtype's name.
    """
    py = {bool: "bool", int: "int32", float: floatx()}
    strong = [d for d in dtypes if d not in py]
    if not strong:
        if not dtypes:
            return floatx()
        kinds = [d for d in (float, int, bool) if d in dtypes]
        return py[kinds[0]]
    out = _common.result_type(*strong)
    if float in dtypes and not out.is_floating and not out.is_complex:
        out = _core_dtypes.as_dtype(floatx())
    return out.name
