"""Cases for tw.quantization's fake-quant ops. Their gradients are straight-through (not the
derivative of a step function), so finite differences cannot check them: grad=() here and
tests/ops/test_quantization.py checks them against TensorFlow's rule."""
import numpy as np

import twinflow as tw
from twinflow.ops.quantization import _fake_quant_np

from .harness import Case

rng = np.random.default_rng(7)
X = (rng.normal(size=(3, 4)) * 4).astype(np.float32)
X[0, :3] = [-7.0, 6.5, 0.0]
MN = np.array([-1.3, -5.0, 0.2, -2.0], np.float32)
MX = np.array([2.1, 5.0, 3.0, -0.5], np.float32)
q = tw.quantization

CASES = [
    Case(lambda x: q.fake_quant_with_min_max_args(x, -2.5, 3.7, 4, True), [X],
         lambda x: _fake_quant_np(x, -2.5, 3.7, 4, True), grad=(), name="quant_args"),
    Case(lambda x, lo, hi: q.fake_quant_with_min_max_vars(x, lo, hi, 5), [X, np.float32(-0.7),
         np.float32(4.9)], lambda x, lo, hi: _fake_quant_np(x, lo, hi, 5, False), grad=(),
         name="quant_vars"),
    Case(lambda x, lo, hi: q.fake_quant_with_min_max_vars_per_channel(x, lo, hi, 3), [X, MN, MX],
         lambda x, lo, hi: _fake_quant_np(x, lo, hi, 3, False), grad=(),
         name="quant_per_channel"),
]
