"""Convolution layers: Conv1D/2D (dilation, groups, causal padding), Conv1D/2DTranspose,
SeparableConv1D/2D, DepthwiseConv1D/2D. 1-D layers run the 2-D ops on a height-1 image;
``channels_first`` inputs are transposed to channels-last and back. Weight names and layouts
are Keras 3's."""
from __future__ import annotations

from ...core.shapes import TensorShape
from ...graph.tensor import Tensor
from ...ops import array_ops, nn_ops
from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import Layer
from .ranked import Ranked
from .reshaping import _data_format, _tuple


def _padding(padding: str, allow_causal: bool) -> str:
    p = str(padding).lower()
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    if p not in allowed:
        raise ValueError(f"The `padding` argument must be one of {allowed}. Received: "
                         f"padding={padding!r}")
    return p


def _positive(name: str, values: tuple) -> tuple:
    if any(v <= 0 for v in values):
        raise ValueError(f"The `{name}` argument must be positive integers. Received: "
                         f"{name}={values}")
    return values


def _depthwise_weight_args(depthwise_initializer, bias_initializer, depthwise_regularizer,
                           bias_regularizer, depthwise_constraint, bias_constraint) -> dict:
    """The depthwise_* arguments of Depthwise/Separable layers as ``_Conv``'s kernel_* ones."""
    return dict(kernel_initializer=depthwise_initializer, bias_initializer=bias_initializer,
                kernel_regularizer=depthwise_regularizer, bias_regularizer=bias_regularizer,
                kernel_constraint=depthwise_constraint, bias_constraint=bias_constraint)


def _rename_kernel_config(cfg: dict) -> None:
    """``_Conv``'s kernel_* config keys under Keras's depthwise_* names (in place)."""
    cfg["depthwise_initializer"] = cfg.pop("kernel_initializer")
    cfg["depthwise_regularizer"] = cfg.pop("kernel_regularizer")


# The Args sections of the concrete layers, one per family (see ``Ranked``).
_GEOMETRY_ARGS = """kernel_size: the window size, {size}.
strides: the step, {size}.
padding: {padding}.
data_format: ``'channels_last'`` or ``'channels_first'``.
dilation_rate: the dilation, {size}."""


def _weight_args(*weights: tuple[str, str]) -> str:
    """The Args lines of the activation, bias and (prefix, description) weights."""
    lines = ["activation: an activation.", "use_bias: whether to add a bias."]
    lines += [f"{w}_initializer: initializer of {what}." for w, what in weights]
    lines += [f"{w}_regularizer: a penalty on {what}." for w, what in weights]
    lines.append("activity_regularizer: a penalty on the output, added to ``losses``.")
    lines += [f"{w}_constraint: stored on {what}." for w, what in weights]
    return "\n".join(lines + ["**kwargs: Layer arguments."])


_FILTERS = "filters: the number of output channels.\n"
_BIAS = ("bias", "the bias")
_CONV_ARGS = (_FILTERS + _GEOMETRY_ARGS + "\ngroups: split the channels into this many "
              "independent groups.\n" + _weight_args(("kernel", "the kernel"), _BIAS))
_TRANSPOSE_ARGS = (_FILTERS + _GEOMETRY_ARGS.replace("the step", "the upsampling factors") +
                   "\noutput_padding: extra output size at the end, {size} (less than the "
                   "strides).\n**kwargs: activation, use_bias, initializers, regularizers, "
                   "constraints and Layer arguments.")
_DEPTHWISE_ARGS = (_GEOMETRY_ARGS + "\ndepth_multiplier: filters per input channel.\n" +
                   _weight_args(("depthwise", "the kernel"), _BIAS))
_SEPARABLE_ARGS = (_FILTERS + _GEOMETRY_ARGS + "\ndepth_multiplier: depthwise filters per "
                   "input channel.\n" + _weight_args(("depthwise", "the depthwise kernel"),
                                                     ("pointwise", "the pointwise kernel"), _BIAS))
class _Conv(Ranked, Layer):
    """Shared arguments, weights and data-format handling of the convolution layers."""

    _rank = 2
    _transpose = False

    @classmethod
    def _allows_causal(cls) -> bool:
        return cls._rank == 1 and not cls._transpose

    @classmethod
    def _doc_fields(cls) -> dict:
        causal = "``'valid'``, ``'same'`` or ``'causal'``"
        return {"padding": causal if cls._allows_causal() else "``'valid'`` or ``'same'``"}

    def __init__(self, filters, kernel_size, strides=1, padding: str = "valid",
                 data_format=None, dilation_rate=1, groups: int = 1, activation=None,
                 use_bias: bool = True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        n = self._rank
        if filters is not None and (isinstance(filters, bool) or not isinstance(filters, int)
                                    or filters <= 0):
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.filters = filters
        self.kernel_size = _positive("kernel_size", _tuple(kernel_size, n, "kernel_size"))
        self.strides = _positive("strides", _tuple(strides, n, "strides"))
        self.padding = _padding(padding, allow_causal=self._allows_causal())
        self.data_format = _data_format(data_format)
        self.dilation_rate = _positive("dilation_rate", _tuple(dilation_rate, n,
                                                               "dilation_rate"))
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. Received: "
                             f"groups={groups}.")
        if filters is not None and filters % groups:
            raise ValueError(f"The number of filters must be evenly divisible by the number "
                             f"of groups. Received: groups={groups}, filters={filters}.")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"`strides > 1` not supported in conjunction with "
                             f"`dilation_rate > 1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")
        self.groups = groups
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self._set_weight_args("kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        self._set_weight_args("bias", bias_initializer, bias_regularizer, bias_constraint)

    def _channels(self, input_shape) -> int:
        dims = TensorShape(input_shape).as_list()
        if len(dims) != self._rank + 2:
            raise ValueError(f"{type(self).__name__} expects inputs of rank {self._rank + 2}; "
                             f"received shape {input_shape}")
        c = dims[-1] if self.data_format == "channels_last" else dims[1]
        if c is None:
            raise ValueError(f"{type(self).__name__}: the channel dimension of the inputs "
                             f"should be defined. Received input shape {input_shape}")
        return c

    def _bias(self, size: int) -> None:
        self.bias = self._add_weight_for("bias", "bias", (size,)) if self.use_bias else None

    def _build_kernel(self, shape: tuple, bias_size: int) -> None:
        """Creates ``kernel`` (kernel_* arguments) and the bias; marks the layer built."""
        self.kernel = self._add_weight_for("kernel", "kernel", shape)
        self._bias(bias_size)
        self.built = True

    def _as_2d(self, kernel):
        # 1-D layers run the 2-D ops on a height-1 image: the kernel gets a height-1 axis too.
        return kernel if self._rank == 2 else array_ops.expand_dims(kernel, 0)

    def _op_padding(self) -> str:
        return "SAME" if self.padding == "same" else "VALID"

    def _to_last(self, x):
        if self.data_format == "channels_first":
            return array_ops.transpose(x, [0] + list(range(2, self._rank + 2)) + [1])
        return x

    def _from_last(self, y):
        if self.data_format == "channels_first":
            return array_ops.transpose(y, [0, self._rank + 1] + list(range(1, self._rank + 1)))
        return y

    def call(self, inputs) -> Tensor:
        x = self._to_last(inputs)
        if self._rank == 1:
            y = array_ops.squeeze(self._conv(array_ops.expand_dims(x, 1)), axis=[1])
        else:
            y = self._conv(x)
        if self.use_bias:
            y = nn_ops.bias_add(y, self.bias)
        act = self.activation
        y = y if act is _activations.linear else act(y)
        return self._from_last(y)

    def _geometry(self) -> tuple:
        """Strides, dilations and kernel size as 2-D lists (1-D layers: height 1)."""
        if self._rank == 1:
            return [1, self.strides[0]], [1, self.dilation_rate[0]], [1, self.kernel_size[0]]
        return list(self.strides), list(self.dilation_rate), list(self.kernel_size)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(filters=self.filters, kernel_size=self.kernel_size, strides=self.strides,
                   padding=self.padding, data_format=self.data_format,
                   dilation_rate=self.dilation_rate, groups=self.groups,
                   activation=_activations.serialize(self.activation), use_bias=self.use_bias)
        cfg.update(self._kernel_bias_config())
        return cfg


class _BaseConv(_Conv):
    _args_doc = _CONV_ARGS

    def build(self, input_shape) -> None:
        c = self._channels(input_shape)
        if c % self.groups:
            raise ValueError(f"The number of input channels must be evenly divisible by the "
                             f"number of groups. Received groups={self.groups}, but the input "
                             f"has {c} channels (full input shape is {input_shape}).")
        self._build_kernel(self.kernel_size + (c // self.groups, self.filters), self.filters)

    def _conv(self, x):
        strides, dilations, _ = self._geometry()
        k = self._as_2d(self.kernel)
        if self.padding == "causal":
            left = dilations[1] * (self.kernel_size[0] - 1)
            x = array_ops.pad(x, [[0, 0], [0, 0], [left, 0], [0, 0]])
        pad = self._op_padding()
        if self.groups == 1:
            return nn_ops.conv2d(x, k, strides=strides, padding=pad, dilations=dilations)
        if k.shape[2] == 1:
            # one input channel per group (ConvNeXt's 7x7): a depthwise convolution, whose
            # output channel c * multiplier + m is group c's filter m, as here
            k = array_ops.reshape(k, list(k.shape[:2]) + [self.groups, -1])
            return nn_ops.depthwise_conv2d(x, k, strides=[1] + strides + [1], padding=pad,
                                           dilations=dilations)
        xs = array_ops.split(x, self.groups, axis=-1)
        ks = array_ops.split(k, self.groups, axis=-1)
        return array_ops.concat([nn_ops.conv2d(a, b, strides=strides, padding=pad,
                                               dilations=dilations)
                                 for a, b in zip(xs, ks)], axis=-1)


class Conv1D(_BaseConv, rank=1):
    """1-D convolution over ``(batch, steps, channels)`` (``padding='causal'`` pads the left
    only, for sequence models)."""


class Conv2D(_BaseConv, rank=2):
    """2-D convolution over ``(batch, height, width, channels)`` images."""


def _transpose_length(size, k, stride, dilation, padding, output_padding):
    k = k + (k - 1) * (dilation - 1)
    if output_padding is None:
        return size * stride + max(k - stride, 0) if padding == "valid" else size * stride
    pad = k // 2 if padding == "same" else 0
    return (size - 1) * stride + k - 2 * pad + output_padding


class _ConvTranspose(_Conv):
    _transpose = True
    _args_doc = _TRANSPOSE_ARGS

    def __init__(self, filters, kernel_size, strides=1, padding: str = "valid",
                 output_padding=None, data_format=None, dilation_rate=1, **kwargs) -> None:
        if kwargs.get("groups", 1) != 1:
            raise NotImplementedError(f"{type(self).__name__}: groups != 1 is not supported")
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)
        self.output_padding = None if output_padding is None else \
            _tuple(output_padding, self._rank, "output_padding")
        if self.output_padding is not None:
            for p, s in zip(self.output_padding, self.strides):
                if p >= s:
                    raise ValueError(f"Strides {self.strides} must be greater than output "
                                     f"padding {self.output_padding}.")

    def build(self, input_shape) -> None:
        c = self._channels(input_shape)
        self._build_kernel(self.kernel_size + (self.filters, c), self.filters)

    def _conv(self, x):
        strides, dilations, ksize = self._geometry()
        k = self._as_2d(self.kernel)
        dims = x.shape.as_list()
        shape = array_ops.shape(x)
        pads = [None, None] if self.output_padding is None else \
            ([0] + list(self.output_padding) if self._rank == 1 else list(self.output_padding))
        sizes = []
        for i in range(2):
            size = dims[1 + i] if dims[1 + i] is not None else shape[1 + i]
            if self._rank == 1 and i == 0:
                sizes.append(1)
                continue
            sizes.append(_transpose_length(size, ksize[i], strides[i], dilations[i],
                                           self.padding, pads[i]))
        out_shape = array_ops.stack([shape[0], sizes[0], sizes[1], self.filters])
        pad = self._op_padding()
        y = nn_ops.conv2d_transpose(x, k, out_shape, strides=strides, padding=pad,
                                    dilations=dilations)
        if all(isinstance(s, int) for s in sizes):
            y = array_ops.reshape(y, [-1, sizes[0], sizes[1], self.filters])
        return y

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.pop("groups")
        cfg["output_padding"] = self.output_padding
        return cfg


class Conv1DTranspose(_ConvTranspose, rank=1):
    """Transposed 1-D convolution (the gradient of Conv1D; upsamples sequences)."""


class Conv2DTranspose(_ConvTranspose, rank=2):
    """Transposed 2-D convolution (the gradient of Conv2D; upsamples images)."""


class _Depthwise(_Conv):
    """Depthwise convolution: each input channel convolved with its own ``depth_multiplier``
    filters."""

    _args_doc = _DEPTHWISE_ARGS

    def __init__(self, kernel_size, strides=1, padding: str = "valid", depth_multiplier: int = 1,
                 data_format=None, dilation_rate=1, activation=None, use_bias: bool = True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs) -> None:
        super().__init__(None, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         activity_regularizer=activity_regularizer,
                         **_depthwise_weight_args(depthwise_initializer, bias_initializer,
                                                  depthwise_regularizer, bias_regularizer,
                                                  depthwise_constraint, bias_constraint),
                         **kwargs)
        if isinstance(depth_multiplier, bool) or not isinstance(depth_multiplier, int) or \
                depth_multiplier <= 0:
            raise ValueError(f"Invalid value for argument `depth_multiplier`. Expected a "
                             f"strictly positive value. Received "
                             f"depth_multiplier={depth_multiplier}.")
        self.depth_multiplier = depth_multiplier

    def build(self, input_shape) -> None:
        c = self._channels(input_shape)
        self._build_kernel(self.kernel_size + (c, self.depth_multiplier),
                           c * self.depth_multiplier)

    def _conv(self, x):
        strides, dilations, _ = self._geometry()
        k = self._as_2d(self.kernel)
        pad = self._op_padding()
        return nn_ops.depthwise_conv2d(x, k, strides=[1] + strides + [1], padding=pad,
                                       dilations=dilations)

    def get_config(self) -> dict:
        cfg = super().get_config()
        for k in ("filters", "groups"):
            cfg.pop(k)
        cfg["depth_multiplier"] = self.depth_multiplier
        _rename_kernel_config(cfg)
        return cfg


class DepthwiseConv1D(_Depthwise, rank=1):
    """Depthwise 1-D convolution (``kernel``: ``(k, channels, depth_multiplier)``)."""


class DepthwiseConv2D(_Depthwise, rank=2):
    """Depthwise 2-D convolution (``kernel``: ``(kh, kw, channels, depth_multiplier)``)."""


class _Separable(_Conv):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution."""

    _args_doc = _SEPARABLE_ARGS

    def __init__(self, filters, kernel_size, strides=1, padding: str = "valid",
                 data_format=None, dilation_rate=1, depth_multiplier: int = 1, activation=None,
                 use_bias: bool = True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs) -> None:
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         activity_regularizer=activity_regularizer,
                         **_depthwise_weight_args(depthwise_initializer, bias_initializer,
                                                  depthwise_regularizer, bias_regularizer,
                                                  depthwise_constraint, bias_constraint),
                         **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self._set_weight_args("pointwise", pointwise_initializer, pointwise_regularizer,
                              pointwise_constraint)

    def build(self, input_shape) -> None:
        c = self._channels(input_shape)
        m = self.depth_multiplier
        self.depthwise_kernel = self._add_weight_for("kernel", "depthwise_kernel",
                                                     self.kernel_size + (c, m))
        self.pointwise_kernel = self._add_weight_for("pointwise", "pointwise_kernel",
                                                     (1,) * self._rank + (c * m, self.filters))
        self._bias(self.filters)
        self.built = True

    def _conv(self, x):
        strides, dilations, _ = self._geometry()
        dk, pk = self._as_2d(self.depthwise_kernel), self._as_2d(self.pointwise_kernel)
        pad = self._op_padding()
        return nn_ops.separable_conv2d(x, dk, pk, strides=[1] + strides + [1], padding=pad,
                                       dilations=dilations)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.pop("groups")
        cfg["depth_multiplier"] = self.depth_multiplier
        _rename_kernel_config(cfg)
        cfg["pointwise_initializer"] = _initializers.serialize(self.pointwise_initializer)
        cfg["pointwise_regularizer"] = _regularizers.serialize(self.pointwise_regularizer)
        return cfg


class SeparableConv1D(_Separable, rank=1):
    """Depthwise-separable 1-D convolution."""


class SeparableConv2D(_Separable, rank=2):
    """Depthwise-separable 2-D convolution."""
