"""Registry cases for tf.image (eager vs NumPy, inferred shapes, graph, gradients in float64).

Names start with ``img_`` so that ``pytest -k img_`` selects them. Values against TensorFlow
itself are in test_image_fixtures.py; float32-only ops' gradients in test_image_api.py.
"""
import numpy as np

from twinflow import image as I

from .harness import Case

rng = np.random.default_rng(21)
X = rng.uniform(0.05, 0.95, size=(2, 4, 5, 3))
X3 = X[0].copy()
BOXES = np.array([[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, 5.0, 1.0, 6.0],
                  [0.0, 5.05, 1.0, 6.0]], np.float32)
SCORES = np.array([0.9, 0.8, 0.7, 0.95], np.float32)


def _np_sobel(x):
    p = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    k = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    h, w = x.shape[1:3]
    outs = []
    for kk in (k, k.T):
        outs.append(sum(kk[i, j] * p[:, i:i + h, j:j + w] for i in range(3) for j in range(3)))
    return np.stack(outs, -1)


def _np_standardize(x):
    m = x.mean(axis=(-1, -2, -3), keepdims=True)
    s = np.maximum(x.std(axis=(-1, -2, -3), keepdims=True), 1 / np.sqrt(np.prod(x.shape[-3:])))
    return (x - m) / s


def _np_tv(x):
    return np.abs(np.diff(x, axis=1)).sum((1, 2, 3)) + np.abs(np.diff(x, axis=2)).sum((1, 2, 3))


CASES = [
    Case(I.flip_left_right, [X], lambda x: x[:, :, ::-1], name="img_flip_left_right"),
    Case(I.flip_up_down, [X3], lambda x: x[::-1], name="img_flip_up_down_3d"),
    Case(I.transpose, [X], lambda x: x.transpose(0, 2, 1, 3), name="img_transpose"),
    Case(lambda x: I.rot90(x, 1), [X3], lambda x: np.rot90(x, 1, (0, 1)), name="img_rot90"),
    Case(lambda x: I.rot90(x, -1), [X], lambda x: np.rot90(x, -1, (1, 2)),
         name="img_rot90_batch_neg"),
    Case(lambda x: I.adjust_contrast(x, 1.5), [X],
         lambda x: (x - x.mean((1, 2), keepdims=True)) * 1.5 + x.mean((1, 2), keepdims=True),
         name="img_adjust_contrast"),
    Case(lambda x: I.adjust_brightness(x, 0.1), [X], lambda x: x + 0.1,
         name="img_adjust_brightness"),
    Case(lambda x: I.adjust_gamma(x, 2.0, 0.5), [X], lambda x: 0.5 * x ** 2,
         name="img_adjust_gamma"),
    Case(I.rgb_to_grayscale, [X3], lambda x: (x @ [0.2989, 0.5870, 0.1140])[..., None],
         name="img_rgb_to_grayscale"),
    Case(lambda x: I.hsv_to_rgb(I.rgb_to_hsv(x)), [X], lambda x: x, atol=1e-6,
         name="img_hsv_round_trip"),
    Case(lambda x: I.yuv_to_rgb(I.rgb_to_yuv(x)), [X3], lambda x: x, atol=1e-6,
         name="img_yuv_round_trip"),
    Case(lambda x: I.adjust_hue(x, 0.3), [X3], None, name="img_adjust_hue"),
    Case(lambda x: I.adjust_saturation(x, 0.5), [X3], None, name="img_adjust_saturation"),
    Case(I.per_image_standardization, [X], _np_standardize, name="img_standardize"),
    Case(I.sobel_edges, [X], _np_sobel, name="img_sobel_edges"),
    Case(I.total_variation, [X], _np_tv, name="img_total_variation"),
    Case(lambda x: I.image_gradients(x), [X],
         lambda x: (np.pad(np.diff(x, axis=1), [(0, 0), (0, 1), (0, 0), (0, 0)]),
                    np.pad(np.diff(x, axis=2), [(0, 0), (0, 0), (0, 1), (0, 0)])),
         name="img_image_gradients"),
    Case(lambda x: I.extract_patches(x, [1, 2, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "VALID"),
         [X], lambda x: np.concatenate([x[:, i:i + 3:2, j:j + 4:3] for i in range(2)
                                        for j in range(2)], -1), name="img_extract_patches"),
    Case(lambda x: I.crop_to_bounding_box(x, 1, 2, 2, 3), [X], lambda x: x[:, 1:3, 2:5],
         name="img_crop_to_bounding_box"),
    Case(lambda x: I.pad_to_bounding_box(x, 1, 0, 6, 7), [X3],
         lambda x: np.pad(x, [(1, 1), (0, 2), (0, 0)]), name="img_pad_to_bounding_box"),
    Case(lambda x: I.resize(x, (3, 7), method="nearest"), [X],
         lambda x: x[:, [0, 2, 3]][:, :, [0, 1, 1, 2, 3, 3, 4]], name="img_resize_nearest"),
    Case(lambda x: I.resize(x, (6, 3)), [X.astype(np.float32)], None, name="img_resize_bilinear",
         rtol=1e-5, atol=1e-6),
    Case(lambda x: I.crop_and_resize(x, BOXES[:2] * 0.5, [1, 0], [3, 2]),
         [X.astype(np.float32)], None, name="img_crop_and_resize", rtol=1e-5, atol=1e-6),
    Case(lambda b, s: I.non_max_suppression_padded(b, s, 3, 0.5, pad_to_max_output_size=True),
         [BOXES, SCORES], lambda b, s: (np.array([3, 0, 0], np.int32), np.int32(2)),
         name="img_nms_padded"),
    Case(lambda x: I.draw_bounding_boxes(x, [[[0.0, 0.0, 1.0, 0.5]]] * 2, [[1.0, 0.5, 0.0]]),
         [X.astype(np.float32)], None, name="img_draw_bounding_boxes"),
]

# tf.image needs each image's rank (and, for resizing, cropping and filters, its height and
# width) when the op is built: traces with every dim unknown raise a clear ValueError instead.
for _c in CASES:
    _c.unknown_shapes = False
