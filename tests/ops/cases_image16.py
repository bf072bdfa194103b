"""Registry cases for the N-D FFTs (values and gradients against NumPy), WAV coding, the
tf.image extras and fractional pooling (gradients by finite differences with a fixed seed)."""
import numpy as np

import twinflow as tw
from twinflow.ops.nn.fractional import FractionalAvgPoolGrad, FractionalMaxPoolGrad

from .harness import Case, bind

rng = np.random.default_rng(12)
C = (rng.normal(size=(2, 3, 4)) + 1j * rng.normal(size=(2, 3, 4))).astype(np.complex128)
R = rng.normal(size=(2, 3, 4))
H = np.fft.rfftn(R, axes=[1, 2])
X = rng.permutation(2 * 5 * 6 * 1).reshape(2, 5, 6, 1).astype(np.float64)
ROWS = np.array([0, 2, 3, 5], np.int64)
COLS = np.array([0, 2, 4, 6], np.int64)
AUDIO = np.array([[0.5, -0.25], [0.0, 1.0], [-1.0, 0.125]], np.float32)

CASES = [
    Case(lambda x: tw.fftnd(x, [3, 4], [1, 2]), [C],
         lambda x: np.fft.fftn(x, axes=[1, 2]), name="fftnd"),
    Case(lambda x: tw.ifftnd(x, [2, 5], [0, 2]), [C],
         lambda x: np.fft.ifftn(x, s=[2, 5], axes=[0, 2]), name="ifftnd_padded"),
    Case(lambda x: tw.rfftnd(x, [3, 4], [1, 2], Tcomplex=tw.complex128), [R],
         lambda x: np.fft.rfftn(x, axes=[1, 2]), name="rfftnd"),
    Case(lambda x: tw.irfftnd(x, [3, 4], [1, 2], Treal=tw.float64), [H],
         lambda x: np.fft.irfftn(x, s=[3, 4], axes=[1, 2]), name="irfftnd"),
    Case(lambda a: tw.audio.decode_wav(tw.audio.encode_wav(a, 8000))[0], [AUDIO],
         lambda a: np.clip(np.round(a * 32768), -32768, 32767).astype(np.float32) / 32768,
         grad=(), name="wav_round_trip", graph=False),  # decoded length: from the data
    Case(lambda o, s: tw.image.non_max_suppression_overlaps(o, s, 2, 0.5),
         [np.array([[1, 0.8, 0.1], [0.8, 1, 0.2], [0.1, 0.2, 1]], np.float32),
          np.array([0.9, 0.8, 0.7], np.float32)],
         lambda o, s: np.array([0, 2], np.int32), name="non_max_suppression_overlaps",
         graph=False),
    Case(lambda b, s: tw.image.combined_non_max_suppression(b, s, 1, 2),
         [np.array([[[[0, 0, 0.5, 0.5]], [[0, 0, 0.4, 0.5]]]], np.float32),
          np.array([[[0.9, 0.1], [0.8, 0.3]]], np.float32)],
         lambda b, s: (np.array([[[0, 0, 0.5, 0.5], [0, 0, 0.4, 0.5]]], np.float32),
                       np.array([[0.9, 0.3]], np.float32), np.array([[0, 1]], np.float32),
                       np.array([2], np.int32)), name="combined_non_max_suppression"),
    Case(lambda x: tw.image.extract_glimpse(x, [2, 2], [[0.0, 0.0]], noise="zero"),
         [np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)],
         lambda x: x[:, 1:3, 1:3], name="extract_glimpse", grad=()),
    Case(lambda s: tw.image.stateless_sample_distorted_bounding_box(
        s, [[[0.0, 0.0, 1.0, 1.0]]], seed=[1, 2], min_object_covered=0.0)[1][2:],
        [np.array([10, 12, 3], np.int32)], lambda s: np.array([-1], np.int32),
        name="stateless_sample_distorted_bounding_box"),
    Case(lambda s: tw.image.sample_distorted_bounding_box(s, [[[0.0, 0.0, 1.0, 1.0]]])[1],
         [np.array([10, 12, 3], np.int32)], None, name="sample_distorted_bounding_box",
         stateful_random=True),
    Case(lambda x: tw.nn.fractional_max_pool(x, [1, 1.6, 1.6, 1], seed=3)[0], [X], None,
         name="fractional_max_pool", stateful_random=True),
    Case(lambda x: tw.nn.fractional_avg_pool(x, [1, 1.6, 1.6, 1], seed=3)[0], [X], None,
         name="fractional_avg_pool", stateful_random=True),
    Case(lambda x, g: bind(FractionalMaxPoolGrad, [x, x[:, :3, :3], g, tw.constant(ROWS),
                                                   tw.constant(COLS)]),
         [X, rng.normal(size=(2, 3, 3, 1))], None, grad=(), name="fractional_max_pool_grad"),
    Case(lambda g: bind(FractionalAvgPoolGrad, [tw.constant(np.array([2, 5, 6, 1], np.int64)),
                                                g, tw.constant(ROWS), tw.constant(COLS)]),
         [rng.normal(size=(2, 3, 3, 1))], None, grad=(), name="fractional_avg_pool_grad"),
]

# data-dependent shapes, or Pillow: checked in graph mode by tests/ops/test_image16.py
COVERED_ELSEWHERE = {
    "NonMaxSuppressionWithOverlaps": "tests/ops/test_image16.py::test_graph_mode_extras",
    "EncodeJpegVariableQuality": "tests/ops/test_image16.py::test_graph_mode_extras",
    "DecodeWav": "tests/ops/test_image16.py::test_graph_mode_extras",
    "EncodeWav": "tests/ops/test_image16.py::test_graph_mode_extras",
}
CASES.append(Case(
    lambda s: tw.image.generate_bounding_box_proposals(
        s, np.zeros((1, 1, 2, 4), np.float32), np.array([[10, 10, 1, 0, 0]], np.float32),
        np.array([[[0, 0, 4, 4], [0, 5, 4, 9]]], np.float32), 0.5, 10, 1, post_nms_topn=3),
    [np.array([[[[0.3], [0.6]]]], np.float32)],
    lambda s: (np.array([[[0, 5, 4, 9], [0, 0, 4, 4], [0, 0, 0, 0]]], np.float32),
               np.array([[0.6, 0.3, 0.0]], np.float32)),
    grad=(), name="generate_bounding_box_proposals"))
