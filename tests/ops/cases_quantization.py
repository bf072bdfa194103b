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

# Integer quantization: values are checked against TensorFlow's in
# tests/ops/test_quantization_tf.py (fixtures); these cases check shapes, dtypes, graph mode
# and unknown dims.
QX = np.array([[-1.7, -0.26, 0.1, 0.75], [1.2, 2.5, 3.9, 0.0]], np.float32)
QI = np.array([[-128, -3, 0, 5], [17, 90, 127, 1]], np.int8).view(tw.qint8.np)
QU = np.array([[0, 3, 9, 200], [17, 90, 255, 1]], np.uint8).view(tw.quint8.np)
CASES += [
    Case(lambda x: q.quantize(x, -1.5, 3.0, tw.qint8), [QX], None, grad=(), name="quantize"),
    Case(lambda x: q.quantize(x, [-1.0, 0.0, -2.0, 0.0], [1.0, 2.0, 3.0, 4.0], tw.quint8,
                              mode="SCALED", axis=1), [QX], None, grad=(),
         name="quantize_scaled_axis"),
    Case(lambda x: q.dequantize(x, -1.5, 3.0, mode="MIN_FIRST"), [QI], None, grad=(),
         name="dequantize"),
    Case(lambda x: q.quantize_and_dequantize(x, 0.0, 0.0), [QX], None, grad=(),
         name="quantize_and_dequantize"),
    Case(lambda x: q.quantize_and_dequantize_v2(x, -1.0, 2.0, range_given=True, num_bits=4),
         [QX], None, grad=(), name="quantize_and_dequantize_v2"),
    Case(lambda a, b: q.quantized_concat(0, [a, b], [0.0, -1.0], [4.0, 2.0]), [QU, QU], None,
         grad=(), name="quantized_concat"),
]
