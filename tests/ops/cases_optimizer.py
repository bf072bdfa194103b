"""Registry cases of the fused optimizer ops (``ops/optimizer_ops.py``).

The op updates variables: each call of a case first sets them to fixed values (control
dependencies order the assignments, the update and the reads in a graph), so every mode of
the harness sees the same step. The reference is Keras 3's formula in NumPy, op by op.
"""
from __future__ import annotations

import numpy as np

import twinflow as tw
from twinflow.ops.optimizer_ops import keras_adam_update

from .harness import Case

_rng = np.random.default_rng(11)
_SHAPE = (4, 3)
_INIT = {k: _rng.normal(size=_SHAPE).astype(np.float32) for k in ("w", "m", "vhat")}
_INIT["v"] = np.abs(_rng.normal(size=_SHAPE)).astype(np.float32)
# one set per dtype the cases run in (tests/ops/test_bfloat16.py runs them in bfloat16 too)
_VARS = {dt: {k: tw.Variable(a, dtype=dt, name=f"adam_case_{k}") for k, a in _INIT.items()}
         for dt in (tw.float32, tw.bfloat16)}
_B1, _B2, _EPS = 0.9, 0.999, 1e-7


def _adam(amsgrad: bool):
    def fn(g, alpha):
        vs = _VARS[g.dtype]
        reads = [vs[k].assign(tw.cast(_INIT[k], g.dtype)) for k in vs]
        with tw.control_dependencies([r for r in reads if isinstance(r, tw.Tensor)]):
            op = keras_adam_update(vs["w"], vs["m"], vs["v"], vs["vhat"] if amsgrad else None,
                                   alpha, g, _B1, _B2, _EPS)
        with tw.control_dependencies([] if op is None else [op]):
            return [tw.identity(vs[k].read_value()) for k in ("w", "m", "v", "vhat")]
    fn.__name__ = f"keras_adam_update{'_amsgrad' if amsgrad else ''}"
    return fn


def _adam_ref(amsgrad: bool):
    def ref(g, alpha):
        f = np.float32
        w, m, v, vhat = (_INIT[k].copy() for k in ("w", "m", "v", "vhat"))
        m = m + (g - m) * f(1 - _B1)
        v = v + (g * g - v) * f(1 - _B2)
        if amsgrad:
            vhat = np.maximum(vhat, v)
        w = w - (m * alpha) / (np.sqrt(vhat if amsgrad else v) + f(_EPS))
        return [w, m, v, vhat]
    return ref


_G = _rng.normal(size=_SHAPE).astype(np.float32)
_ALPHA = np.float32(0.01)

CASES = [
    Case(_adam(amsgrad), [_G, _ALPHA], _adam_ref(amsgrad), grad=(), rtol=0, atol=0)
    for amsgrad in (False, True)
]
