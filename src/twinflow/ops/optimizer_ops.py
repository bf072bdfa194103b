"""``_KerasAdamUpdate``: one Keras 3 Adam step of one variable as a single stateful op.

Keras' Adam updates a variable with about 18 ops (reads, ``Sub``, ``Mul``, ``Square``,
``Sqrt``, ``RealDiv``, three assignments); in a traced train step each costs a dispatch, and
eagerly far more. TensorFlow's fused ``ResourceApplyAdam`` rounds differently from Keras 3's
formula, so this op runs Keras 3's arithmetic itself: the same NumPy ufuncs on the same dtypes
in the same order as the op-by-op program (``keras/optimizers/optimizer.py``)::

    m    += (g - m) * (1 - beta_1)
    v    += (g * g - v) * (1 - beta_2)
    vhat  = maximum(vhat, v)                           (amsgrad only)
    var  -= (m * alpha) / (sqrt(v or vhat) + epsilon)

so the bits are the same. The constants ``1 - beta_1``, ``1 - beta_2`` and ``epsilon`` are
scalar tensor inputs made as ``tensor * python_float`` makes them (float attrs would be
float32 in an exported GraphDef or SavedModel). bfloat16 runs the registered kernels of those
ops one after the other (they compute in float32 and round after each op).

As every assignment, the op never mutates a variable's array: it writes each new value into
a fresh buffer (in place through ``out=``, one buffer per updated variable plus one scratch)
and makes it the variable's array, so tensors read earlier keep their values. In a compiled
graph whose gradient is a dead private buffer (``lower_consume``), the second moment is
computed in that buffer instead of a new one.
"""
from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.context import ctx
from ..core.errors import InvalidArgumentError
from ..eager.execute import bind, constant
from ..eager.tensor import EagerTensor
from ..graph.graph import Operation
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from .core import quietly
from .math.binary import AddV2, Maximum, Mul, RealDiv, Sub
from .math.unary import Sqrt, Square
from .variables import Variable, variable_of

# (module names: a global lookup is cheaper than ``np.`` + attribute on these small arrays)
_add, _subtract, _multiply, _true_divide = np.add, np.subtract, np.multiply, np.true_divide
_square, _sqrt, _maximum = np.square, np.sqrt, np.maximum
_FAST = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_OP = "_KerasAdamUpdate"
# Below this many elements a fresh result is cheaper than passing ``out=`` (as codegen's
# REUSE_MIN_ELEMENTS).
_OUT_MIN_ELEMENTS = 1 << 12


@functools.lru_cache(maxsize=256)
def _eager_scalar(value: float, dtype) -> EagerTensor:
    """``value`` as an eager scalar of ``dtype`` (shared, read-only)."""
    t = constant(value, dtype)
    t._value.flags.writeable = False
    return t


def _scalar(value: float, dtype) -> Tensor:
    """``value`` as a scalar tensor of ``dtype``, converted as ``tensor * value`` converts it
    (an input, not a float attr: GraphDef and SavedModel keep attrs as float32)."""
    return _eager_scalar(value, dtype) if ctx.graph is None else constant(value, dtype)


def _check(var, m, v, vhat, alpha, consts, g, scalars: bool = True) -> None:
    """Refuses arrays the op-by-op program would broadcast or promote (``scalars``: also
    check that alpha and the constants are scalars of the variable's dtype)."""
    w = var._value
    shape, dtype = w.shape, w.dtype
    ok = g.shape == shape and g.dtype == dtype
    for s in (m, v) if vhat is None else (m, v, vhat):
        ok = ok and s._value.shape == shape and s._value.dtype == dtype
    if scalars:
        for c in (alpha, *consts):
            ok = ok and c.shape == () and c.dtype == dtype
    if not ok:
        slots = (m, v) if vhat is None else (m, v, vhat)
        arrays = [w] + [s._value for s in slots] + [alpha, *consts, g]
        described = ", ".join(f"{a.dtype}{list(a.shape)}" for a in arrays)
        raise InvalidArgumentError(
            None, None, f"{_OP}: the variable, its slots and the gradient must have one shape "
            f"and dtype, and alpha and the constants must be scalars of that dtype; got "
            f"{described} for "
            f"{var.name!r}")


def _fast_update(var, m, v, vhat, alpha, g, consts, scratch=None) -> None:
    """float16/32/64 arrays: the ufuncs of the op-by-op program, each result written over
    the buffer of the one before (``out=``)."""
    c1, c2, eps = consts
    m0, v0, w0 = m._value, v._value, var._value
    m1 = _subtract(g, m0)
    _multiply(m1, c1, out=m1)
    _add(m0, m1, out=m1)
    v1 = _square(g, out=scratch)  # (scratch: the dead gradient itself, g is no longer read)
    _subtract(v1, v0, out=v1)
    _multiply(v1, c2, out=v1)
    _add(v0, v1, out=v1)
    used = v1 if vhat is None else _maximum(vhat._value, v1)
    den = _sqrt(used)
    _add(den, eps, out=den)
    w1 = _multiply(m1, alpha)
    _true_divide(w1, den, out=w1)
    _subtract(w0, w1, out=w1)
    m._value, v._value, var._value = m1, v1, w1
    if vhat is not None:
        vhat._value = used


def _small_update(var, m, v, vhat, alpha, g, consts) -> None:
    """Small float16/32/64 arrays: the same ufuncs without ``out=`` (parsing it costs more
    than allocating a small result)."""
    c1, c2, eps = consts
    m0, v0 = m._value, v._value
    m1 = _add(m0, _multiply(_subtract(g, m0), c1))
    v1 = _add(v0, _multiply(_subtract(_square(g), v0), c2))
    used = v1 if vhat is None else _maximum(vhat._value, v1)
    w1 = _subtract(var._value, _true_divide(_multiply(m1, alpha), _add(_sqrt(used), eps)))
    m._value, v._value, var._value = m1, v1, w1
    if vhat is not None:
        vhat._value = used


def _kernel_update(var, m, v, vhat, alpha, g, consts) -> None:
    """Other dtypes (bfloat16) and scalars (NumPy has no ``out=`` for them): the registered
    kernels of the same ops, in the same order."""
    c1, c2, eps = consts
    sub, mul, add = Sub.kernel, Mul.kernel, AddV2.kernel
    m1 = add(m._value, mul(sub(g, m._value), c1))
    v1 = add(v._value, mul(sub(Square.kernel(g), v._value), c2))
    used = v1 if vhat is None else Maximum.kernel(vhat._value, v1)
    w1 = sub(var._value, RealDiv.kernel(mul(m1, alpha), add(Sqrt.kernel(used), eps)))
    m._set(m1)
    v._set(v1)
    if vhat is not None:
        vhat._set(used)
    var._set(w1)


def _run(var, m, v, vhat, alpha, consts, g, scratch=None, scalars: bool = True) -> tuple:
    _check(var, m, v, vhat, alpha, consts, g, scalars)
    if g.dtype not in _FAST or not g.ndim:
        quietly(_kernel_update, var, m, v, vhat, alpha, g, consts)
    elif g.size < _OUT_MIN_ELEMENTS and scratch is None:
        quietly(_small_update, var, m, v, vhat, alpha, g, consts)
    else:
        quietly(_fast_update, var, m, v, vhat, alpha, g, consts, scratch)
    return ()


def _split(inputs: tuple, amsgrad: bool) -> tuple:
    """(var, m, v, vhat or None, alpha, (1 - beta_1, 1 - beta_2, epsilon), gradient) from the
    op's inputs."""
    if amsgrad:
        var, m, v, vhat, alpha, c1, c2, eps, g = inputs
    else:
        (var, m, v, alpha, c1, c2, eps, g), vhat = inputs, None
    return var, m, v, vhat, alpha, (c1, c2, eps), g


@register_op(_OP, stateful=True, multi_output=True)
class KerasAdamUpdate:
    """One Keras 3 Adam step: updates the variable and its ``m``, ``v`` (and, with
    ``amsgrad``, ``vhat``) slots behind the resource inputs from ``gradient``, the
    bias-corrected step size ``alpha`` and the constants; no outputs. Inputs: ``var, m, v,
    [vhat,] alpha, one_minus_beta_1, one_minus_beta_2, epsilon, gradient``."""

    def infer(*inputs, amsgrad):
        n = 9 if amsgrad else 8
        if len(inputs) != n:
            raise InvalidArgumentError(None, None, f"{_OP} takes {n} inputs with "
                                       f"amsgrad={amsgrad}, got {len(inputs)}")
        resources, scalars, g = inputs[:n - 5], inputs[n - 5:-1], inputs[-1]
        if any(r.dtype is not dtypes.resource for r in resources):
            raise InvalidArgumentError(None, None, f"{_OP}: var, m, v (and vhat) must be "
                                       "resource handles of variables")
        if not g.dtype.is_floating or any(c.dtype is not g.dtype or c.shape.rank not in (0, None)
                                          for c in scalars):
            raise InvalidArgumentError(
                None, None, f"{_OP}: the gradient must be floating-point, alpha and the "
                f"constants scalars of its dtype; got gradient {g.dtype.name}{g.shape}, "
                + ", ".join(f"{c.dtype.name}{c.shape}" for c in scalars))
        for r in resources:
            var = variable_of(r)
            if var is not None and (var.dtype is not g.dtype or
                                    not var.shape.is_compatible_with(g.shape)):
                raise InvalidArgumentError(
                    None, None, f"{_OP}: gradient {g.dtype.name}{g.shape} does not match "
                    f"variable {var.name!r} ({var.dtype.name}{var.shape})")
        return []

    def kernel(*inputs, amsgrad):
        return _run(*_split(inputs, amsgrad))

    def lower(op):
        """Codegen hint: the attr bound."""
        return _lowered(op, consume=False)

    def lower_consume(op):
        """Codegen hint: the gradient (last input) is a private dead buffer: the new second
        moment is computed in it (float16/32/64)."""
        return _lowered(op, consume=True)


def _lowered(op, consume: bool):
    amsgrad = op.attrs["amsgrad"]
    # infer checked the scalars' dtypes; known to be scalars, they need no check at run time
    scalars = not all(t.shape.rank == 0 for t in op.inputs[-5:-1])

    def update(*inputs):
        var, m, v, vhat, alpha, consts, g = _split(inputs, amsgrad)
        scratch = g if consume and g.dtype in _FAST and g.flags.writeable else None
        return _run(var, m, v, vhat, alpha, consts, g, scratch, scalars)
    return update


def keras_adam_update(var: Variable, m: Variable, v: Variable, vhat: Variable | None,
                      alpha: Tensor, gradient: Tensor, beta_1: float, beta_2: float,
                      epsilon: float) -> Operation | None:
    """Runs (eagerly) or adds (in a graph) one ``_KerasAdamUpdate`` op.

    Args:
        var: the trained variable.
        m: its first-moment slot.
        v: its second-moment slot.
        vhat: its amsgrad slot (the running maximum of ``v``), or None without amsgrad.
        alpha: the bias-corrected step size, a scalar tensor of the variable's dtype.
        gradient: a dense gradient of the variable's dtype and shape.
        beta_1: the first moment's decay.
        beta_2: the second moment's decay.
        epsilon: added to the denominator.

    Returns:
        None eagerly (the variables are updated); in a graph the op (reads that must see the
        update take a control dependency on it).
    """
    handles = [var.handle, m.handle, v.handle] + ([] if vhat is None else [vhat.handle])
    dt = gradient.dtype
    consts = [_scalar(1.0 - float(beta_1), dt), _scalar(1.0 - float(beta_2), dt),
              _scalar(float(epsilon), dt)]
    bind(KerasAdamUpdate, handles + [alpha] + consts + [gradient], {"amsgrad": vhat is not None})
    g = ctx.graph
    return None if g is None else g.get_operations()[-1]
