"""keras.utils.bounding_boxes against Keras 3.15 (tests/fixtures/keras_utils/
bounding_boxes.npz, made by make_fixtures.py there)."""
import pathlib

import numpy as np
import pytest

import twinflow as tw

bb = tw.keras.utils.bounding_boxes
F = np.load(pathlib.Path(__file__).parents[2] / "fixtures" / "keras_utils" /
            "bounding_boxes.npz")
BOXES, OTHERS = F["boxes"], F["others"]
FORMATS = ("yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx", "rel_xywh",
           "rel_center_xywh")


@pytest.mark.parametrize("fmt", FORMATS)
def test_convert_format(fmt):
    np.testing.assert_allclose(bb.convert_format(BOXES, "xyxy", fmt, 10, 12).numpy(),
                               F["to_" + fmt], rtol=1e-6)
    np.testing.assert_allclose(bb.convert_format(BOXES, fmt, "xyxy", 10, 12).numpy(),
                               F["from_" + fmt], rtol=1e-6)


def test_iou_affine_clip_crop_deltas():
    np.testing.assert_allclose(bb.compute_iou(BOXES[0], OTHERS[0], "xyxy").numpy(), F["iou"],
                               rtol=1e-5)
    np.testing.assert_allclose(bb.compute_iou(BOXES, OTHERS, "yxyx").numpy(),
                               F["iou_batched"], rtol=1e-5)
    np.testing.assert_allclose(bb.compute_ciou(BOXES[0, :2], OTHERS[0], "xyxy").numpy(),
                               F["ciou"], rtol=1e-5, atol=1e-6)
    f32 = lambda v: np.array([v], np.float32)  # noqa: E731
    got = bb.affine_transform(BOXES, f32(15.0), f32(0.1), f32(-0.05), f32(1.2), f32(5.0),
                              f32(-3.0), 10, 12).numpy()
    np.testing.assert_allclose(got, F["affine"], rtol=1e-5, atol=1e-5)
    clipped = bb.clip_to_image_size({"boxes": BOXES - 2.0, "labels": np.array([[1, 2, 3]])},
                                    height=6, width=6)
    np.testing.assert_allclose(clipped["boxes"].numpy(), F["clip_boxes"])
    np.testing.assert_array_equal(clipped["labels"].numpy(), F["clip_labels"])
    np.testing.assert_allclose(bb.crop(BOXES, 1, 2, 5, 6).numpy(), F["crop"])
    anchors = np.array([[0.0, 0.0, 4.0, 4.0], [2.0, 2.0, 8.0, 6.0], [5.0, 0.0, 9.0, 9.0]],
                       np.float32)
    var = [0.1, 0.1, 0.2, 0.2]
    deltas = bb.encode_box_to_deltas(anchors, BOXES[0], "xyxy", "xyxy", variance=var)
    np.testing.assert_allclose(deltas.numpy(), F["deltas"], rtol=1e-5, atol=1e-6)
    back = bb.decode_deltas_to_boxes(anchors, F["deltas"], "xyxy", "xywh", variance=var)
    np.testing.assert_allclose(back.numpy(), F["decoded"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bb.pad(BOXES, 1, 2).numpy(), BOXES + [2, 1, 2, 1])


def test_errors():
    with pytest.raises(ValueError, match="height"):
        bb.convert_format(BOXES, "xyxy", "rel_xyxy")
    with pytest.raises(ValueError, match="Invalid source"):
        bb.convert_format(BOXES, "xyxy", "polar")
    with pytest.raises(NotImplementedError, match="xyxy"):
        bb.crop(BOXES, 0, 0, 1, 1, bounding_box_format="yxyx")
    with pytest.raises(ValueError, match="image_shape"):
        bb.compute_iou(BOXES, OTHERS, "rel_xyxy")
