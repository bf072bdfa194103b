"""Keras 3.15's newer losses, metrics and optimizers against values Keras computed
(tests/fixtures/keras_more: cases.py, values.json, make_fixtures.py), NumPy references,
config round trips and use in compile/fit."""
import json
import os
import sys

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
_FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "keras_more")
sys.path.insert(0, _FIX)
import cases  # noqa: E402

with open(os.path.join(_FIX, "values.json")) as _f:
    VALUES = json.load(_f)


@pytest.mark.parametrize("expr", cases.EXPRESSIONS)
def test_matches_keras(expr):
    scope = cases.setup(keras, keras.backend, tw)
    got = eval(expr, scope)  # noqa: S307  (the fixture's own expressions)
    want = VALUES[expr]
    if not isinstance(got, list):
        got, want = [got], [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = cases.summary(g)
        assert g["shape"] == w["shape"]
        np.testing.assert_allclose(g["sample"], w["sample"], rtol=2e-5, atol=2e-5)
        np.testing.assert_allclose([g["sum"], g["abs_sum"]], [w["sum"], w["abs_sum"]],
                                   rtol=2e-5, atol=1e-4)


def _np_bfce(t, p, gamma=2.0):
    pc = np.clip(p, 1e-7, 1 - 1e-7)
    bce = -(t * np.log(pc) + (1 - t) * np.log(1 - pc))
    pt = t * p + (1 - t) * (1 - p)
    return ((1 - pt) ** gamma * bce).mean(-1)


def test_losses_against_numpy():
    rng = np.random.RandomState(1)
    t = (rng.rand(5, 4) > 0.5).astype("float32")
    p = rng.rand(5, 4).astype("float32")
    np.testing.assert_allclose(keras.losses.binary_focal_crossentropy(t, p).numpy(),
                               _np_bfce(t, p), rtol=1e-5)
    inter = (t * p).sum()
    np.testing.assert_allclose(keras.losses.dice(t, p).numpy(),
                               1 - 2 * inter / (t.sum() + p.sum() + 1e-7), rtol=1e-5)
    fp, fn = ((1 - p) * t).sum(), (p * (1 - t)).sum()
    np.testing.assert_allclose(keras.losses.tversky(t, p, 0.2, 0.8).numpy(),
                               1 - inter / (inter + 0.2 * fp + 0.8 * fn + 1e-7), rtol=1e-5)
    probs = p / p.sum(-1, keepdims=True)
    ids = np.array([0, 1, 2, 3, 1])
    np.testing.assert_allclose(
        keras.losses.categorical_generalized_cross_entropy(ids, probs, q=0.5).numpy(),
        (1 - probs[np.arange(5), ids] ** 0.5) / 0.5, rtol=1e-5)


@pytest.mark.parametrize("cls,kwargs", [
    ("BinaryFocalCrossentropy", {"gamma": 3.0, "apply_class_balancing": True}),
    ("CategoricalFocalCrossentropy", {"alpha": 0.5}),
    ("CategoricalGeneralizedCrossEntropy", {"q": 0.3}),
    ("Dice", {"axis": [1]}), ("Tversky", {"alpha": 0.1, "beta": 0.9}),
    ("Circle", {"gamma": 10.0, "margin": 0.2}),
])
def test_loss_config_round_trip(cls, kwargs):
    loss = getattr(keras.losses, cls)(**kwargs)
    again = keras.losses.deserialize(keras.losses.serialize(loss))
    assert type(again) is type(loss) and again.get_config() == loss.get_config()
    for k, v in kwargs.items():
        assert loss.get_config()[k] == v


def test_focal_loss_trains_in_fit_and_by_name():
    rng = np.random.RandomState(0)
    x = rng.randn(32, 3).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    for loss in (keras.losses.BinaryFocalCrossentropy(), "binary_focal_crossentropy",
                 keras.losses.Dice()):
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, "sigmoid")])
        model.compile(keras.optimizers.Lamb(0.05), loss,
                      metrics=[keras.metrics.BinaryIoU(), keras.metrics.R2Score()])
        hist = model.fit(x, y, epochs=3, batch_size=8, verbose=0)
        assert hist.history["loss"][-1] < hist.history["loss"][0]
        assert "r2_score" in hist.history and any("io" in k for k in hist.history)


@pytest.mark.parametrize("make", [
    lambda: keras.metrics.SensitivityAtSpecificity(0.4, num_thresholds=5, class_id=0),
    lambda: keras.metrics.PrecisionAtRecall(recall=0.3),
    lambda: keras.metrics.R2Score(class_aggregation=None, num_regressors=1),
    lambda: keras.metrics.OneHotMeanIoU(3, ignore_class=1),
    lambda: keras.metrics.BinaryIoU([0], threshold=0.3),
    lambda: keras.metrics.PearsonCorrelation(axis=0),
])
def test_metric_config_round_trip(make):
    m = make()
    again = keras.metrics.deserialize(keras.metrics.serialize(m))
    assert type(again) is type(m)
    cfg, cfg2 = m.get_config(), again.get_config()
    cfg.pop("name"), cfg2.pop("name")
    assert cfg == cfg2


def test_at_metrics_against_numpy():
    rng = np.random.RandomState(3)
    t = (rng.rand(50) > 0.5).astype("float32")
    p = rng.rand(50).astype("float32")
    m = keras.metrics.RecallAtPrecision(0.5, num_thresholds=11)
    m.update_state(t, p)
    best = 0.0
    for thr in np.linspace(0, 1, 11):
        pred = p > thr
        tp = (pred & (t > 0.5)).sum()
        prec = tp / max(pred.sum(), 1)
        if pred.sum() and prec >= 0.5:
            best = max(best, tp / t.sum())
    assert abs(float(m.result()) - best) < 1e-6
    m.reset_state()
    assert float(m.result()) == 0.0


def test_metric_bad_arguments():
    with pytest.raises(ValueError, match="range"):
        keras.metrics.PrecisionAtRecall(1.5)
    with pytest.raises(ValueError, match="class_aggregation"):
        keras.metrics.R2Score("median")
    with pytest.raises(ValueError, match="2D"):
        keras.metrics.R2Score().update_state(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="interval"):
        keras.losses.CategoricalGeneralizedCrossEntropy(q=1.0)


def test_optimizer_serialize_round_trip():
    for opt in (keras.optimizers.Lamb(0.01, beta_1=0.8), keras.optimizers.Muon(ns_steps=3),
                keras.optimizers.ScheduleFreeAdamW(warmup_steps=4), keras.optimizers.Adam(0.2)):
        again = keras.optimizers.deserialize(keras.optimizers.serialize(opt))
        assert type(again) is type(opt) and again.get_config() == opt.get_config()
    assert isinstance(keras.optimizers.get({"class_name": "Lamb", "config": {}}),
                      keras.optimizers.Lamb)
    with pytest.raises(ValueError, match="Unknown optimizer"):
        keras.optimizers.deserialize({"class_name": "Nope", "config": {}})
    sched = keras.optimizers.schedules.CosineDecayRestarts(0.1, 5, t_mul=1.5)
    again = keras.optimizers.schedules.deserialize(keras.optimizers.schedules.serialize(sched))
    assert again.get_config() == sched.get_config()


def test_multi_optimizer_routes_by_path():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="encoder"),
                              keras.layers.Dense(1, name="head")])
    sgd, adam = keras.optimizers.SGD(0.1), keras.optimizers.Adam(0.01)
    omap = keras.optimizers.OptimizerMap(sgd, {"encoder/.*": adam})
    assert omap["encoder/kernel"] is adam and omap["head/bias"] is sgd
    multi = keras.optimizers.MultiOptimizer(omap)
    before = [v.numpy().copy() for v in model.trainable_variables]
    grads = [tw.ones_like(v) for v in model.trainable_variables]
    multi.apply(grads, model.trainable_variables)
    after = [v.numpy() for v in model.trainable_variables]
    np.testing.assert_allclose(after[0], before[0] - 0.01, rtol=1e-4)   # Adam's first step
    np.testing.assert_allclose(after[2], before[2] - 0.1, rtol=1e-5)    # SGD
    assert int(multi.iterations) == 1 and int(adam.iterations) == 1
    with pytest.raises(AttributeError, match="learning_rate"):
        multi.learning_rate  # noqa: B018
    again = keras.optimizers.deserialize(keras.optimizers.serialize(multi))
    assert [type(o).__name__ for o in again.optimizers] == ["Adam", "SGD"]
    model.compile(multi, "mse")
    model.fit(np.ones((4, 3)), np.ones((4, 1)), epochs=1, verbose=0)
    with pytest.raises(ValueError, match="already exists"):
        omap["encoder/.*"] = sgd


def test_legacy_optimizers():
    v = tw.Variable([1.0, 2.0])
    opt = keras.optimizers.legacy.SGD(0.1, decay=1.0)
    opt.apply_gradients([(tw.constant([1.0, 1.0]), v)])   # lr 0.1 / (1 + 0)
    opt.apply_gradients([(tw.constant([1.0, 1.0]), v)])   # lr 0.1 / (1 + 1)
    np.testing.assert_allclose(v.numpy(), [0.85, 1.85], rtol=1e-6)
    assert opt.get_config()["decay"] == 1.0 and opt.name == "SGD"
    v = tw.Variable([1.0])
    rms = keras.optimizers.legacy.RMSprop(0.1, epsilon=1e-2)
    rms.apply_gradients([(tw.constant([2.0]), v)])
    ms = 0.1 * 4.0
    np.testing.assert_allclose(v.numpy(), [1.0 - 0.1 * 2.0 / (np.sqrt(ms) + 1e-2)], rtol=1e-6)

    class Plain(keras.optimizers.legacy.Optimizer):
        def __init__(self):
            super().__init__("Plain", learning_rate=0.5)

        def _create_slots(self, var_list):
            for var in var_list:
                self.add_slot(var, "count")

        def _resource_apply_dense(self, grad, var, apply_state):
            self.get_slot(var, "count").assign_add(tw.ones_like(var))
            var.assign_sub(self._decayed_lr(var.dtype) * grad)

    v = tw.Variable([1.0])
    p = Plain()
    p.apply_gradients([(tw.constant([1.0]), v)])
    assert v.numpy().tolist() == [0.5] and p.get_slot(v, "count").numpy().tolist() == [1.0]


def test_distiller_config_and_errors():
    d = keras.distillation
    teacher = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="h"),
                                keras.layers.Dense(2)])
    student = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="h"),
                                keras.layers.Dense(2)])
    dist = d.Distiller(teacher, student, d.LogitsDistillation(temperature=2.0))
    assert not teacher.trainable and dist.distillation_loss_weights == [1.0]
    again = d.Distiller.from_config(dist.get_config())
    assert again.student_loss_weight == 0.5
    assert again.distillation_losses[0].get_config() == {"temperature": 2.0,
                                                         "loss": "kl_divergence"}
    cfg = d.FeatureDistillation("mae", "h", "h").get_config()
    assert d.FeatureDistillation.from_config(cfg).teacher_layer_name == "h"
    with pytest.raises(ValueError, match="between 0.0 and 1.0"):
        d.Distiller(teacher, student, d.LogitsDistillation(), student_loss_weight=2.0)
    with pytest.raises(ValueError, match="must match"):
        d.Distiller(teacher, student, [d.LogitsDistillation()], [1.0, 2.0])
    with pytest.raises(ValueError, match="In teacher model"):
        d.FeatureDistillation("mse", "nope").validate_model_compatibility(teacher, student)
    with pytest.raises(ValueError, match="positive"):
        d.LogitsDistillation(temperature=0.0)
    with pytest.raises(ValueError, match="cannot be `None`"):
        dist.compile("sgd", None)
    feat = d.Distiller(teacher, student, d.FeatureDistillation("mse", "h", "h"),
                       student_loss_weight=0.0)
    feat.compile("sgd", "mse")
    before = np.mean((teacher.get_layer("h")(tw.ones([1, 3])).numpy() -
                      student.get_layer("h")(tw.ones([1, 3])).numpy()) ** 2)
    hist = feat.fit(np.ones((8, 3)), np.ones((8, 2)), epochs=5, verbose=0)
    assert hist.history["distillation_loss"][-1] < hist.history["distillation_loss"][0]
    assert hist.history["distillation_loss"][0] == pytest.approx(before, rel=0.2)


def _np_bilinear_reflect(img, ys, xs):
    """scipy.ndimage.map_coordinates(order=1, mode='reflect') of one 2-D channel."""
    h, w = img.shape

    def fold(c, n):
        r = np.mod(c, 2 * n)
        return np.where(r > n - 0.5, 2 * n - 1 - r, r)
    ys, xs = fold(ys, h), fold(xs, w)
    y0, x0 = np.floor(ys), np.floor(xs)
    out = np.zeros_like(ys)
    for dy in (0, 1):
        for dx in (0, 1):
            yy, xx = y0 + dy, x0 + dx
            wgt = (1 - np.abs(ys - yy)) * (1 - np.abs(xs - xx))
            ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            out += np.where(ok, wgt * img[np.clip(yy, 0, h - 1).astype(int),
                                          np.clip(xx, 0, w - 1).astype(int)], 0.0)
    return out


def test_elastic_transform_against_numpy():
    img = np.random.RandomState(0).rand(1, 7, 6, 2).astype("float32")
    alpha, sigma, seed = 2.0, 1.0, 11
    out = keras.ops.image.elastic_transform(img, alpha, sigma, seed=seed).numpy()
    noise = keras.random.normal((1, 7, 6), seed=seed).numpy() * sigma
    field = keras.ops.image.gaussian_blur(noise[..., None], (7, 7), (sigma, sigma)).numpy()
    gx, gy = np.meshgrid(np.arange(6), np.arange(7))
    for c in range(2):
        want = _np_bilinear_reflect(img[0, ..., c], gy + alpha * field[0, ..., 0],
                                    gx + alpha * field[0, ..., 0])
        np.testing.assert_allclose(out[0, ..., c], want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="fill_mode"):
        keras.ops.image.elastic_transform(img, fill_mode="mirror")
    with pytest.raises(ValueError, match="method"):
        keras.ops.image.scale_and_translate(img, (1, 7, 6, 2), (1.0,), (0.0,), (1,), "box")
    ints = (img * 255).astype("uint8")
    up = keras.ops.image.scale_and_translate(ints, (1, 14, 6, 2), (2.0,), (0.0,), (1,),
                                             "linear")
    assert up.dtype == tw.uint8 and up.shape == (1, 14, 6, 2)


@pytest.mark.parametrize("loss,metrics,kind", [
    (keras.losses.CategoricalFocalCrossentropy(), [keras.metrics.OneHotIoU(3, [0, 1]),
                                                   keras.metrics.OneHotMeanIoU(3)], "onehot"),
    (keras.losses.Tversky(0.3, 0.7), [keras.metrics.PrecisionAtRecall(0.5),
                                      keras.metrics.SensitivityAtSpecificity(0.5),
                                      keras.metrics.SpecificityAtSensitivity(0.5)], "binary"),
    (keras.losses.CategoricalGeneralizedCrossEntropy(0.5), ["sparse_categorical_accuracy"],
     "sparse"),
    (keras.losses.Circle(gamma=4.0), [], "circle"),
    ("mse", [keras.metrics.PearsonCorrelation(), keras.metrics.ConcordanceCorrelation(),
             keras.metrics.R2Score()], "regress"),
])
def test_losses_and_metrics_in_fit(loss, metrics, kind):
    rng = np.random.RandomState(0)
    x = rng.randn(16, 4).astype("float32")
    if kind == "onehot":
        y, head = np.eye(3)[rng.randint(0, 3, 16)].astype("float32"), (3, "softmax")
    elif kind == "binary":
        y, head = (x[:, :1] > 0).astype("float32"), (1, "sigmoid")
    elif kind == "sparse":
        y, head = rng.randint(0, 3, (16,)), (3, "softmax")
    elif kind == "regress":
        y, head = x[:, :3] * 2.0, (3, None)
    else:
        y, head = rng.randint(0, 2, (16,)), (3, None)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(*head)])
    if kind == "circle":
        model.add(keras.layers.UnitNormalization())
    model.compile(keras.optimizers.Adam(0.01), loss, metrics=metrics)
    hist = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert np.all(np.isfinite(hist.history["loss"]))
    assert len(hist.history) == 1 + len(metrics)
    eager = model.evaluate(x, y, verbose=0, return_dict=True)
    assert np.isfinite(eager["loss"])


def test_metrics_against_numpy():
    rng = np.random.RandomState(2)
    t, p = rng.rand(5, 4), rng.rand(5, 4)
    want = [np.corrcoef(a, b)[0, 1] for a, b in zip(t, p)]
    np.testing.assert_allclose(keras.metrics.pearson_correlation(t, p).numpy(), want,
                               rtol=1e-5)
    r2 = keras.metrics.R2Score(class_aggregation=None)
    r2.update_state(t[:3], p[:3])
    r2.update_state(t[3:], p[3:])
    want = 1 - ((t - p) ** 2).sum(0) / ((t - t.mean(0)) ** 2).sum(0)
    np.testing.assert_allclose(r2.result().numpy(), want, rtol=1e-5)
    iou = keras.metrics.BinaryIoU([0, 1], threshold=0.5)
    lab, sc = (t.ravel() > 0.5).astype(int), p.ravel()
    iou.update_state(lab, sc)
    pred = (sc >= 0.5).astype(int)
    ious = [((lab == c) & (pred == c)).sum() / ((lab == c) | (pred == c)).sum() for c in (0, 1)]
    np.testing.assert_allclose(float(iou.result()), np.mean(ious), rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda: keras.optimizers.Muon(0.01), lambda: keras.optimizers.ScheduleFreeAdamW(0.01),
    lambda: keras.optimizers.legacy.Adam(0.01, decay=0.1),
    lambda: keras.optimizers.legacy.RMSprop(0.01), lambda: keras.optimizers.Lamb(0.01),
])
def test_new_optimizers_train_in_fit(make):
    rng = np.random.RandomState(0)
    x = rng.randn(32, 4).astype("float32")
    y = x @ rng.randn(4, 1).astype("float32")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8),
                              keras.layers.Dense(1)])
    model.compile(make(), "mse")
    hist = model.fit(x, y, epochs=4, batch_size=8, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_ctc_loss_trains_and_round_trips():
    rng = np.random.RandomState(0)
    x = rng.randn(8, 6, 4).astype("float32")
    y = rng.randint(1, 5, (8, 3)).astype("int32")
    y[:, 2] = 0                                # padding: two labels each
    inp = keras.Input((6, 4))
    model = keras.Model(inp, keras.layers.Dense(5)(inp))
    model.compile(keras.optimizers.Adam(0.05), keras.losses.CTC())
    hist = model.fit(x, y, epochs=5, batch_size=4, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    loss = keras.losses.CTC(reduction="sum", name="my_ctc")
    again = keras.losses.deserialize(keras.losses.serialize(loss))
    assert again.get_config() == loss.get_config()
    assert keras.losses.get("ctc") is keras.losses.ctc
    with pytest.raises(ValueError, match="max_length"):
        keras.losses.ctc(y[:, :, None], x)
    decoded, scores = keras.ops.ctc_decode(model(x).numpy(), np.full([8], 6))
    assert decoded.shape == (1, 8, 6) and scores.shape == (8, 1)


def test_export_archive_with_input_spec(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    archive = keras.export.ExportArchive()
    archive.track_and_add_endpoint("serve", model,
                                   [keras.InputSpec(shape=(None, 3), dtype="float32")])
    archive.write_out(str(tmp_path / "e"), verbose=False)
    loaded = tw.saved_model.load(str(tmp_path / "e"))
    np.testing.assert_allclose(loaded.serve(tw.ones([2, 3])).numpy(),
                               model(tw.ones([2, 3])).numpy(), rtol=1e-6)


def test_muon_slots_as_keras():
    opt = keras.optimizers.Muon()
    kernel, bias = tw.Variable(np.ones((3, 2), np.float32)), tw.Variable(np.ones(2, np.float32))
    opt.build([kernel, bias])
    # iterations, learning rate, a momentum each, a velocity for the AdamW-updated bias only
    assert len(opt.variables) == 5
    with pytest.raises(KeyError):
        opt.get_slot(kernel, "velocity")
