"""Activations: relu family, elu, selu, softplus, softsign, silu, gelu, crelu; their gradients are
ops too (``ReluGrad``...), so every rule stays differentiable."""
from __future__ import annotations

import numpy as np

from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.join import concat
from ..core import convert, unary_infer
from ..dispatch import CompositeArgument, dispatch
from ..math.binary import add, multiply, subtract
from ..math.unary import erf, exp, negative, sigmoid, sign, tanh

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _grad_infer(dy, x, **attrs):
    return dy.dtype, dy.shape


def _float_arg(x, op_name: str):
    """Converts ``x`` (its dtype is checked by ``op_name``'s schema, in both modes)."""
    return convert(x)


def _mask_nonpositive(g, y):
    """``g * (y <= 0)``, built from ReluGrad so that it stays differentiable."""
    return subtract(g, bind(ReluGrad, [g, y]))


# ----- activations ------------------------------------------------------------------------------

@register_op("Relu")
class Relu:
    """max(x, 0)."""

    infer = unary_infer

    def kernel(x):
        return np.maximum(x, x.dtype.type(0))

    def grad(op, dy):
        return bind(ReluGrad, [dy, op.outputs[0]])


@register_op("ReluGrad", same_dtype=True)
class ReluGrad:
    """dy where the Relu's output (or input) is positive, else 0."""

    infer = _grad_infer

    def kernel(dy, y):
        uint = _UINT_OF_FLOAT.get(dy.dtype)
        if uint is not None and dy.ndim and dy.shape == y.shape:
            # See lower: the same bits as np.where, without its mispredicted branches.
            return np.multiply(dy.view(uint), y > 0, dtype=uint).view(dy.dtype)
        return np.where(y > 0, dy, dy.dtype.type(0))

    def lower(op):
        """Codegen hint: np.where on a data-dependent mask mispredicts branches (5x slower than
        a multiply), so dy's bit patterns are multiplied by the 0/1 mask as unsigned ints: the
        same dy-or-+0.0 result, bit for bit (NaN and -0.0 included), without branches."""
        dy, y = op.inputs
        uint = _UINT_OF_FLOAT.get(dy.dtype.np)
        if uint is None or not dy.shape.rank or dy.shape.as_tuple() != y.shape.as_tuple():
            return None
        return _relu_grad_lowered(uint)

    def grad(op, ddx):
        return bind(ReluGrad, [ddx, op.inputs[1]]), None


_UINT_OF_FLOAT = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
                  np.dtype(np.float64): np.uint64}


def _relu_grad_lowered(uint):
    def relu_grad(dy, y):
        return np.multiply(dy.view(uint), y > 0, dtype=uint).view(dy.dtype)
    relu_grad.fresh_result = True
    return relu_grad


@register_op("Relu6")
class Relu6:
    """min(max(x, 0), 6)."""

    infer = unary_infer

    def kernel(x):
        return np.minimum(np.maximum(x, x.dtype.type(0)), x.dtype.type(6))

    def grad(op, dy):
        return bind(Relu6Grad, [dy, op.inputs[0]])


@register_op("Relu6Grad", same_dtype=True)
class Relu6Grad:
    """dy where 0 < x < 6, else 0."""

    infer = _grad_infer

    def kernel(dy, x):
        return np.where((x > 0) & (x < 6), dy, dy.dtype.type(0))

    def grad(op, ddx):
        return bind(Relu6Grad, [ddx, op.inputs[1]]), None


@register_op("LeakyRelu")
class LeakyRelu:
    """x if x > 0 else alpha * x."""

    def infer(x, *, alpha=0.2):  # (the schema checks the dtype)
        return x.dtype, x.shape

    def kernel(x, *, alpha=0.2):
        return np.where(x > 0, x, x * x.dtype.type(alpha))

    def grad(op, dy):
        return bind(LeakyReluGrad, [dy, op.inputs[0]], {"alpha": op.attrs["alpha"]})


@register_op("LeakyReluGrad", same_dtype=True)
class LeakyReluGrad:
    """dy if x > 0 else alpha * dy."""

    infer = _grad_infer

    def kernel(dy, x, *, alpha=0.2):
        return np.where(x > 0, dy, dy * dy.dtype.type(alpha))

    def grad(op, ddx):
        return bind(LeakyReluGrad, [ddx, op.inputs[1]], {"alpha": op.attrs["alpha"]}), None


@register_op("Elu")
class Elu:
    """x if x > 0 else exp(x) - 1."""

    infer = unary_infer  # (the schema checks the dtype)

    def kernel(x):
        return np.where(x > 0, x, np.expm1(np.minimum(x, x.dtype.type(0))))

    def grad(op, dy):
        return bind(EluGrad, [dy, op.outputs[0]])


@register_op("EluGrad", same_dtype=True)
class EluGrad:
    """Elu's gradient from its output y: dy if y > 0 else dy * (y + 1)."""

    infer = _grad_infer

    def kernel(dy, y):
        return np.where(y > 0, dy, dy * (y + y.dtype.type(1)))

    def grad(op, ddx):
        dy, y = op.inputs
        return bind(EluGrad, [ddx, y]), _mask_nonpositive(multiply(ddx, dy), y)


@register_op("Selu")
class Selu:
    """scale * (x if x > 0 else alpha * (exp(x) - 1)), with the self-normalizing constants."""

    infer = unary_infer  # (the schema checks the dtype)

    def kernel(x):
        t = x.dtype.type
        neg = t(_SELU_SCALE * _SELU_ALPHA) * np.expm1(np.minimum(x, t(0)))
        return np.where(x > 0, t(_SELU_SCALE) * x, neg)

    def grad(op, dy):
        return bind(SeluGrad, [dy, op.outputs[0]])


@register_op("SeluGrad", same_dtype=True)
class SeluGrad:
    """Selu's gradient from its output y: scale * dy if y > 0 else dy * (y + scale * alpha)."""

    infer = _grad_infer

    def kernel(dy, y):
        t = y.dtype.type
        return np.where(y > 0, dy * t(_SELU_SCALE), dy * (y + t(_SELU_SCALE * _SELU_ALPHA)))

    def grad(op, ddx):
        dy, y = op.inputs
        return bind(SeluGrad, [ddx, y]), _mask_nonpositive(multiply(ddx, dy), y)


@register_op("Softplus")
class Softplus:
    """log(1 + exp(x)), computed without overflow."""

    infer = unary_infer  # (the schema checks the dtype)

    def kernel(x):
        return np.logaddexp(x.dtype.type(0), x)

    def grad(op, dy):
        # sigmoid(x) == exp(-softplus(-x)): stable, and built from ops that differentiate again.
        return multiply(dy, exp(negative(softplus(negative(op.inputs[0])))))


@register_op("Softsign")
class Softsign:
    """x / (1 + |x|)."""

    infer = unary_infer  # (the schema checks the dtype)

    def kernel(x):
        return x / (x.dtype.type(1) + np.abs(x))

    def grad(op, dy):
        return bind(SoftsignGrad, [dy, op.inputs[0]])


@register_op("SoftsignGrad", same_dtype=True)
class SoftsignGrad:
    """dy / (1 + |x|)**2."""

    infer = _grad_infer

    def kernel(dy, x):
        d = x.dtype.type(1) + np.abs(x)
        return dy / (d * d)

    def grad(op, ddx):
        dy, x = op.inputs
        # d/dx (1 + |x|)**-2 = -2 sign(x) (1 + |x|)**-3, and sign(x) / (1 + |x|) equals
        # sign(x) - softsign(x)
        s = subtract(sign(x), softsign(x))
        gx = multiply(bind(SoftsignGrad, [multiply(ddx, dy), x]), multiply(s, -2.0))
        return bind(SoftsignGrad, [ddx, x]), gx


def _activation(fn_name: str, opdef, summary: str, floats_only: bool = True):
    """The public function of an activation op: ``fn(features, name=None)``."""
    def fn(features: TensorLike, name: str | None = None) -> Tensor:
        try:
            x = _float_arg(features, opdef.name) if floats_only else convert(features)
        except CompositeArgument as e:  # RaggedTensor, KerasTensor: as elementwise ops
            return dispatch("elementwise", e, (features,), {}, dense=fn)
        return bind(opdef, [x], name=name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.op_name = opdef.name  # what composite dispatch looks at
    fn.__doc__ = f"""{summary}

    Args:
        features: a {"float " if floats_only else ""}tensor.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return fn


relu = _activation("relu", Relu, "Rectified linear unit, max(features, 0) (``tw.nn.relu``).",
                   floats_only=False)
relu6 = _activation("relu6", Relu6, "min(max(features, 0), 6) (``tw.nn.relu6``).",
                    floats_only=False)
elu = _activation("elu", Elu,
                  "Exponential linear unit: x if x > 0 else exp(x) - 1 (``tw.nn.elu``).")
selu = _activation("selu", Selu, "Scaled exponential linear unit (``tw.nn.selu``).")
softplus = _activation("softplus", Softplus,
                       "log(exp(features) + 1) (``tw.nn.softplus``, ``tw.math.softplus``).")
softsign = _activation("softsign", Softsign, "features / (abs(features) + 1) (``tw.nn.softsign``).")


def leaky_relu(features: TensorLike, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """features if positive, else alpha * features (``tw.nn.leaky_relu``).

    Args:
        features: a float tensor.
        alpha: slope for negative inputs.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(LeakyRelu, [_float_arg(features, "LeakyRelu")], {"alpha": float(alpha)}, name=name)


@name_scoped
def silu(features: TensorLike, beta: float = 1.0, name: str | None = None) -> Tensor:
    """Sigmoid-weighted linear unit, features * sigmoid(beta * features) (``tw.nn.silu``).

    Args:
        features: a float tensor.
        beta: the sigmoid's slope.

    Returns:
        A tensor of the same shape and dtype.
    """
    x = convert(features)
    z = x if beta == 1.0 else multiply(x, beta)
    return multiply(x, sigmoid(z))


swish = silu


@name_scoped
def gelu(features: TensorLike, approximate: bool = False, name: str | None = None) -> Tensor:
    """Gaussian error linear unit (``tw.nn.gelu``).

    Args:
        features: a float tensor.
        approximate: use the tanh approximation instead of the exact erf form.

    Returns:
        A tensor of the same shape and dtype.
    """
    x = convert(features)
    if approximate:
        inner = multiply(add(x, multiply(multiply(multiply(x, x), x), 0.044715)),
                         float(np.sqrt(2.0 / np.pi)))
        return multiply(multiply(x, 0.5), add(tanh(inner), 1.0))
    return multiply(multiply(x, 0.5), add(erf(multiply(x, float(1 / np.sqrt(2.0)))),
                                          1.0))


# ----- compositions -------------------------------------------------------------------------------

@name_scoped
def crelu(features: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """Concatenated ReLU: concat([relu(x), relu(-x)], axis) (``tw.nn.crelu``).

    Args:
        features: a tensor.
        axis: the axis the two halves are joined along.

    Returns:
        A tensor twice as long along ``axis``.
    """
    x = convert(features)
    return concat([relu(x), relu(negative(x))], axis)
