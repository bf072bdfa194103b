"""Activations: relu family, elu, selu, softplus, softsign, silu, gelu, crelu; their gradients are
ops too (``ReluGrad``...), so every rule stays differentiable."""
from __future__ import annotations

import numpy as np

from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from .. import fast_elementwise as fe
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
    # np.maximum(x, 0), against cached zeros: NumPy vectorises maximum of two arrays, not of an
    # array and a scalar (2-2.7x faster for float32, see fast_elementwise)
    kernel = fe.relu

    def lower(op):
        """Codegen: the same kernel, which promises a fresh result (``out=`` reuse)."""
        return _relu_lowered if op.outputs[0].shape.rank else None

    def grad(op, dy):
        return bind(ReluGrad, [dy, op.outputs[0]])


@register_op("ReluGrad", same_dtype=True)
class ReluGrad:
    """dy where the Relu's output (or input) is positive, else 0."""

    infer = _grad_infer

    def kernel(dy, y):
        # See lower: the same bits as np.where, without its mispredicted branches.
        return fe.relu_grad(dy, y)

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


_UINT_OF_FLOAT = fe.UINT_OF_FLOAT


def _relu_lowered(x):
    return fe.relu(x)


_relu_lowered.fresh_result = True


def _relu_grad_lowered(uint):
    def relu_grad(dy, y):
        if not dy.flags.c_contiguous:    # (a broadcast: fe.relu_grad's rows)
            return fe.relu_grad(dy, y)
        return np.multiply(dy.view(uint), y > 0, dtype=uint).view(dy.dtype)
    relu_grad.fresh_result = True
    return relu_grad


@register_op("Softplus")
class Softplus:
    """log(1 + exp(x)), computed without overflow."""

    infer = unary_infer  # (the schema checks the dtype)

    def kernel(x):
        return np.logaddexp(x.dtype.type(0), x)

    def grad(op, dy):
        # sigmoid(x) == exp(-softplus(-x)): stable, and built from ops that differentiate again.
        return multiply(dy, exp(negative(softplus(negative(op.inputs[0])))))


def _activation_ops(name: str, doc: str, kernel, grad_doc: str, grad_kernel, *,
                    of_output: bool, grad_grad, attrs: tuple = ()) -> tuple:
    """Declares the activation op ``name`` (``kernel(x, **attrs)``) and its gradient op
    ``<name>Grad`` (``grad_kernel(dy, y, **attrs)`` on the activation's output y when
    ``of_output``, else ``grad_kernel(dy, x, **attrs)`` on its input); returns both OpDefs.

    ``grad_grad(op, ddx, grad_op)`` is the gradient op's own gradient; ``attrs`` names the
    attributes (``alpha``) both ops carry. Dtypes are checked by the schemas (``schemas.py``).
    """
    ops = {}

    def infer(x, **attrs_):
        return x.dtype, x.shape

    def grad(op, dy):
        arg = op.outputs[0] if of_output else op.inputs[0]
        return bind(ops["grad"], [dy, arg], {a: op.attrs[a] for a in attrs})

    def grad_of_grad(op, ddx):
        return grad_grad(op, ddx, ops["grad"])

    ops["grad"] = register_op(name + "Grad", same_dtype=True)(type(name + "Grad", (), {
        "__doc__": grad_doc, "infer": _grad_infer, "kernel": grad_kernel,
        "grad": grad_of_grad}))
    forward = register_op(name)(type(name, (), {
        "__doc__": doc, "infer": infer, "kernel": kernel, "grad": grad}))
    return forward, ops["grad"]


def _grad_again(op, ddx, grad_op):
    """The gradient of a gradient op linear in dy whose mask input has no gradient."""
    return bind(grad_op, [ddx, op.inputs[1]], op.attrs), None


def _grad_and_mask(op, ddx, grad_op):
    """The gradient of EluGrad/SeluGrad: linear in dy; in y, dy where y <= 0."""
    dy, y = op.inputs
    return bind(grad_op, [ddx, y]), _mask_nonpositive(multiply(ddx, dy), y)


# np.where(cond, a, b) as fe.select and np.minimum(x, 0) against fe.zeros_for: the same bits,
# without mispredicted branches or NumPy's unvectorised scalar minimum (fast_elementwise)

def _elu(x):
    return fe.select(x > 0, x, np.expm1(np.minimum(x, fe.zeros_for(x))))


def _selu(x):
    t = x.dtype.type
    neg = t(_SELU_SCALE * _SELU_ALPHA) * np.expm1(np.minimum(x, fe.zeros_for(x)))
    return fe.select(x > 0, t(_SELU_SCALE) * x, neg)


def _selu_grad(dy, y):
    t = y.dtype.type
    return fe.select(y > 0, dy * t(_SELU_SCALE), dy * (y + t(_SELU_SCALE * _SELU_ALPHA)))


def _softsign_grad(dy, x):
    d = x.dtype.type(1) + np.abs(x)
    return dy / (d * d)


def _softsign_grad_grad(op, ddx, grad_op):
    dy, x = op.inputs
    # d/dx (1 + |x|)**-2 = -2 sign(x) (1 + |x|)**-3, and sign(x) / (1 + |x|) equals
    # sign(x) - softsign(x)
    s = subtract(sign(x), softsign(x))
    gx = multiply(bind(grad_op, [multiply(ddx, dy), x]), multiply(s, -2.0))
    return bind(grad_op, [ddx, x]), gx


Relu6, Relu6Grad = _activation_ops(
    "Relu6", "min(max(x, 0), 6).",
    fe.relu6,
    "dy where 0 < x < 6, else 0.",
    lambda dy, x: fe.masked(dy, (x > 0) & (x < 6)),
    of_output=False, grad_grad=_grad_again)
LeakyRelu, LeakyReluGrad = _activation_ops(
    "LeakyRelu", "x if x > 0 else alpha * x.",
    lambda x, *, alpha=0.2: fe.leaky_relu(x, alpha),
    "dy if x > 0 else alpha * dy.",
    lambda dy, x, *, alpha=0.2: fe.leaky_relu_grad(dy, x, alpha),
    of_output=False, grad_grad=_grad_again, attrs=("alpha",))
Elu, EluGrad = _activation_ops(
    "Elu", "x if x > 0 else exp(x) - 1.",
    _elu,
    "Elu's gradient from its output y: dy if y > 0 else dy * (y + 1).",
    lambda dy, y: fe.select(y > 0, dy, dy * (y + y.dtype.type(1))),
    of_output=True, grad_grad=_grad_and_mask)
Selu, SeluGrad = _activation_ops(
    "Selu", "scale * (x if x > 0 else alpha * (exp(x) - 1)), with the self-normalizing "
    "constants.", _selu,
    "Selu's gradient from its output y: scale * dy if y > 0 else dy * (y + scale * alpha).",
    _selu_grad, of_output=True, grad_grad=_grad_and_mask)
Softsign, SoftsignGrad = _activation_ops(
    "Softsign", "x / (1 + |x|).", lambda x: x / (x.dtype.type(1) + np.abs(x)),
    "dy / (1 + |x|)**2.", _softsign_grad, of_output=False, grad_grad=_softsign_grad_grad)


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


def silu(features: TensorLike, beta: float = 1.0) -> Tensor:
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
