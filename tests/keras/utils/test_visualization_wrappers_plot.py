"""keras.visualization (NumPy drawing; matplotlib galleries optional), keras.wrappers
(scikit-learn conventions without scikit-learn) and utils.model_to_dot / plot_model."""
import shutil

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
vis = keras.visualization


def test_draw_bounding_boxes_and_masks():
    img = np.zeros((1, 20, 20, 3), np.float32)
    boxes = {"boxes": np.array([[[2, 3, 10, 12], [0, 0, 5, 5]]], np.float32),
             "labels": np.array([[0, -1]])}
    out = vis.draw_bounding_boxes(img, boxes, "xyxy", color=(255, 0, 0), line_thickness=1)
    assert out.dtype == np.uint8 and out.shape == (1, 20, 20, 3)
    red = out[0, :, :, 0] == 255
    assert red[3, 2:11].all() and red[12, 2:11].all() and red[3:13, 2].all()
    assert not red[5, 5] and not red[0, 0]  # inside the box; the label -1 box is skipped
    rel = vis.draw_bounding_boxes(img, {"boxes": np.array([[[0.1, 0.15, 0.5, 0.6]]]),
                                        "labels": np.array([[3]])}, "rel_xyxy",
                                  color=(255, 0, 0), line_thickness=1)
    np.testing.assert_array_equal(rel[0, ..., 0] == 255, red)
    with pytest.raises(ValueError, match="'boxes' and"):
        vis.draw_bounding_boxes(img, {"boxes": boxes["boxes"]}, "xyxy")
    masks = np.array([[[[0], [1]], [[2], [-1]]]])
    drawn = vis.draw_segmentation_masks(np.full((1, 2, 2, 3), 100, np.uint8), masks,
                                        num_classes=3, color_mapping={0: (0, 0, 0),
                                                                      1: (200, 0, 0),
                                                                      2: (0, 0, 250)})
    np.testing.assert_array_equal(drawn[0, :, :, 0], [[20, 180], [20, 100]])
    with pytest.raises(TypeError, match="integer"):
        vis.draw_segmentation_masks(np.zeros((1, 2, 2, 3)), masks.astype(np.float32))


def test_plot_gallery_needs_matplotlib_or_writes(tmp_path):
    images = np.random.default_rng(0).uniform(0, 255, (4, 8, 8, 3))
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        with pytest.raises(ImportError, match="matplotlib"):
            vis.plot_image_gallery(images)
        return
    vis.plot_image_gallery(images, path=str(tmp_path / "g.png"))
    assert (tmp_path / "g.png").stat().st_size > 0


def _classifier(X, y, lr=0.05):
    model = keras.Sequential([keras.Input((X.shape[1],)), keras.layers.Dense(8, "relu"),
                              keras.layers.Dense(y.shape[1], activation="softmax")])
    model.compile(keras.optimizers.Adam(lr), "categorical_crossentropy")
    return model


def test_sklearn_wrappers():
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3)).astype(np.float32)
    y = np.where(X[:, 0] - X[:, 1] > 0, "pos", "neg")
    clf = keras.wrappers.SKLearnClassifier(_classifier, model_kwargs={"lr": 0.05},
                                           fit_kwargs={"epochs": 60, "batch_size": 16})
    with pytest.raises(AttributeError, match="not fitted"):
        clf.predict(X)
    assert clf.fit(X, y) is clf and list(clf.classes_) == ["neg", "pos"]
    assert clf.score(X, y) > 0.85 and set(clf.predict(X[:5])) <= {"neg", "pos"}
    assert clf.decision_function(X[:2]).shape == (2, 2) and clf.epoch_ == 60
    assert clf.get_params()["model_kwargs"] == {"lr": 0.05}
    clone = clf.__sklearn_clone__()
    assert not hasattr(clone, "model_") and clone.get_params()["fit_kwargs"] == {
        "epochs": 60, "batch_size": 16}
    with pytest.raises(ValueError, match="Only binary and multiclass"):
        clf.fit(X, X[:, 0] * 0.5)
    template = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    template.compile(keras.optimizers.SGD(0.1), "mse")
    reg = keras.wrappers.SKLearnRegressor(template, fit_kwargs={"epochs": 40, "batch_size": 16})
    target = X @ np.array([1.0, -2.0, 0.5], np.float32)
    reg.fit(X, target)
    assert reg.predict(X).shape == (80,) and reg.score(X, target) > 0.95
    assert not np.allclose(template.layers[0].kernel.numpy(), reg.model_.layers[0].kernel
                           .numpy())  # the template is cloned, never trained
    uncompiled = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    with pytest.raises(RuntimeError, match="compiled"):
        keras.wrappers.SKLearnRegressor(uncompiled).fit(X, target)
    enc = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    enc.compile("sgd", "mse")
    tr = keras.wrappers.SKLearnTransformer(enc, fit_kwargs={"epochs": 1})
    assert tr.fit_transform(X, X[:, :2]).shape == (80, 2)
    with pytest.raises(ValueError, match="features"):
        tr.transform(X[:, :2])


def test_model_to_dot_and_plot_model(tmp_path):
    a = keras.Input((3,), name="a")
    b = keras.Input((2,), name="b")
    h = keras.layers.Dense(4, activation="relu", name="h")(a)
    out = keras.layers.Dense(1, name="o")(keras.layers.Concatenate(name="cat")([h, b]))
    model = keras.Model([a, b], out, name="two")
    text = keras.utils.model_to_dot(model, show_shapes=True,
                                    show_layer_activations=True).to_string()
    for edge in ('"two/a" -> "two/h"', '"two/h" -> "two/cat"', '"two/b" -> "two/cat"',
                 '"two/cat" -> "two/o"'):
        assert edge in text
    assert "Output shape: (None, 6)" in text and "Activation: relu" in text
    keras.utils.plot_model(model, to_file=str(tmp_path / "m.dot"))
    assert (tmp_path / "m.dot").read_text().startswith('digraph "two"')
    if shutil.which("dot") is None:
        with pytest.raises(ImportError, match="graphviz"):
            keras.utils.plot_model(model, to_file=str(tmp_path / "m.png"))
    else:
        keras.utils.plot_model(model, to_file=str(tmp_path / "m.png"))
        assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="built"):
        keras.utils.model_to_dot(keras.Sequential([keras.layers.Dense(1)]))
