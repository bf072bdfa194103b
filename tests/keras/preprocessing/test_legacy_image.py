"""keras.preprocessing.image and the keras.utils image / directory helpers (Keras 3.15
values in tests/fixtures/keras_preprocessing_legacy/expected.json)."""
import json
import os
import pathlib

import numpy as np
import pytest

import twinflow as tw

pytest.importorskip("PIL")
FIX = json.loads((pathlib.Path(__file__).parents[2] / "fixtures" / "keras_preprocessing_legacy"
                  / "expected.json").read_text())
utils = tw.keras.utils
image = tw.keras.preprocessing.image


def _tree(root, classes=("a", "b"), n=3):
    for c in classes:
        os.makedirs(os.path.join(root, c))
        for i in range(n):
            step = 7 + i + 3 * (c == "b")
            pix = np.arange(6 * (5 + i) * 3).reshape(6, 5 + i, 3) * step % 256
            utils.save_img(os.path.join(root, c, f"{i}.png"), pix.astype("uint8"),
                           scale=False)
    return str(root)


def test_image_file_round_trip(tmp_path):
    x = np.random.default_rng(0).uniform(0, 255, (6, 8, 3)).astype(np.float32)
    path = tmp_path / "a.png"
    utils.save_img(path, x, scale=False)
    back = utils.img_to_array(utils.load_img(path))
    np.testing.assert_array_equal(back, x.astype(np.uint8))
    grey = utils.load_img(path, color_mode="grayscale", target_size=(3, 4))
    assert grey.size == (4, 3) and utils.img_to_array(grey).shape == (3, 4, 1)
    first = utils.img_to_array(utils.load_img(path), data_format="channels_first")
    assert first.shape == (3, 6, 8)
    img = utils.array_to_img(x)  # scaled to [0, 255]
    assert np.asarray(img).max() == 255 and np.asarray(img).min() == 0
    with pytest.raises(ValueError, match="color_mode"):
        utils.load_img(path, color_mode="cmyk")
    with pytest.raises(ValueError, match="rank 3"):
        utils.array_to_img(np.zeros((2, 2)))


def test_smart_resize_matches_keras():
    img = np.random.RandomState(0).uniform(0, 255, (7, 10, 3)).astype("float32")
    out = utils.smart_resize(img, (4, 4))
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, FIX["smart_resize"], atol=1e-3)
    t = utils.smart_resize(tw.constant(img[None]), (4, 4))
    np.testing.assert_allclose(t.numpy()[0], out, atol=1e-5)


def test_image_dataset_from_directory_matches_keras(tmp_path):
    d = _tree(tmp_path)
    ds = utils.image_dataset_from_directory(d, image_size=(4, 3), batch_size=6, seed=3,
                                            crop_to_aspect_ratio=True, verbose=False)
    assert ds.class_names == ["a", "b"] and len(ds.file_paths) == 6
    x, y = next(iter(ds))
    want = FIX["image_dataset"]  # the shuffle order is the generator's: compare as sets
    sums = x.numpy().astype(np.float64).sum((1, 2, 3))
    order, want_order = np.argsort(sums), np.argsort(want["sums"])
    np.testing.assert_allclose(sums[order], np.asarray(want["sums"])[want_order], rtol=1e-5)
    assert y.numpy()[order].tolist() == np.asarray(want["labels"])[want_order].tolist()
    k = int(np.argmin(np.abs(x.numpy().sum((1, 2, 3)) - want["sums"][0])))
    np.testing.assert_allclose(x.numpy()[k, :, :, 0], want["first"], atol=1e-3)


def test_directory_datasets_split_and_modes(tmp_path):
    d = _tree(tmp_path)
    train, val = utils.image_dataset_from_directory(
        d, image_size=(4, 4), batch_size=2, seed=1, validation_split=0.4, subset="both",
        label_mode="categorical", color_mode="grayscale", verbose=False)
    assert [b[0].shape for b in train] == [(2, 4, 4, 1), (2, 4, 4, 1)]
    assert len(val.file_paths) == 2 and not set(val.file_paths) & set(train.file_paths)
    assert next(iter(val))[1].shape == (2, 2)
    with pytest.raises(ValueError, match="seed"):
        utils.image_dataset_from_directory(d, validation_split=0.5, subset="training")
    with pytest.raises(ValueError, match="exactly 2"):
        utils.image_dataset_from_directory(d, label_mode="binary", class_names=["a"])
    tdir = tmp_path / "texts"
    for c, body in (("neg", "bad film"), ("pos", "great film")):
        (tdir / c).mkdir(parents=True)
        (tdir / c / "1.txt").write_text(body)
    texts, labels = next(iter(utils.text_dataset_from_directory(
        tdir, max_length=5, shuffle=False, label_mode="binary", verbose=False)))
    assert texts.numpy().tolist() == [b"bad f", b"great"]
    assert labels.numpy().tolist() == [[0.0], [1.0]]


def test_audio_dataset_from_directory(tmp_path):
    import wave
    for c, n in (("x", 5), ("y", 3)):
        (tmp_path / c).mkdir()
        with wave.open(str(tmp_path / c / "a.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(8000)
            w.writeframes((np.arange(n, dtype="<i2") * 8192).tobytes())
    ds = utils.audio_dataset_from_directory(tmp_path, batch_size=2, shuffle=False,
                                            verbose=False)
    x, y = next(iter(ds))
    assert x.shape == (2, 5, 1) and y.numpy().tolist() == [0, 1]
    np.testing.assert_allclose(x.numpy()[1, :, 0], [0, 0.25, 0.5, 0, 0])
    fixed = utils.audio_dataset_from_directory(tmp_path, batch_size=2, shuffle=False,
                                               output_sequence_length=4, verbose=False)
    assert next(iter(fixed))[0].shape == (2, 4, 1)
    with pytest.raises(ValueError, match="resampling"):
        utils.audio_dataset_from_directory(tmp_path, sampling_rate=16000)


def test_image_data_generator_flow_and_fit(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 255, (10, 6, 6, 3)).astype(np.float32)
    gen = image.ImageDataGenerator(featurewise_center=True, rotation_range=30,
                                   horizontal_flip=True, zoom_range=0.2, rescale=1 / 255.0)
    gen.fit(x)
    np.testing.assert_allclose(gen.mean.ravel(), (x / 255).mean((0, 1, 2)), rtol=1e-5)
    it = gen.flow(x, np.arange(10), batch_size=4, seed=3)
    a, b = it[0], it[0]
    assert len(it) == 3 and a[0].shape == (4, 6, 6, 3)
    np.testing.assert_array_equal(a[1], b[1])  # same order within the epoch
    plain = image.ImageDataGenerator().flow(x, batch_size=10, shuffle=False)[0]
    np.testing.assert_array_equal(plain, x)  # no augmentation: unchanged
    model = tw.keras.Sequential([tw.keras.Input((6, 6, 3)), tw.keras.layers.Flatten(),
                                 tw.keras.layers.Dense(1)])
    model.compile("adam", "mse")
    assert len(model.fit(it, epochs=2, verbose=0).history["loss"]) == 2
    d = _tree(tmp_path / "imgs")
    files = image.ImageDataGenerator(validation_split=0.34).flow_from_directory(
        d, target_size=(4, 4), batch_size=8, class_mode="sparse", subset="training",
        shuffle=False)
    bx, by = files[0]
    assert bx.shape == (4, 4, 4, 3) and by.tolist() == [0, 0, 1, 1]
    frame = {"filename": ["a/0.png", "b/1.png", "missing.png"], "class": ["a", "b", "b"]}
    df_it = image.ImageDataGenerator().flow_from_dataframe(frame, d, target_size=(3, 3),
                                                           shuffle=False)
    fx, fy = df_it[0]
    assert fx.shape == (2, 3, 3, 3) and fy.tolist() == [[1, 0], [0, 1]]


def test_affine_transform_and_shifts():
    pytest.importorskip("scipy")
    x = np.arange(2 * 5 * 5, dtype=np.float32).reshape(5, 5, 2)
    same = image.apply_affine_transform(x, row_axis=0, col_axis=1, channel_axis=2)
    np.testing.assert_array_equal(same, x)
    shifted = image.apply_affine_transform(x, tx=1, row_axis=0, col_axis=1, channel_axis=2,
                                           fill_mode="constant")
    # Keras swaps the spatial axes of its matrix for channels-last images: tx moves columns
    np.testing.assert_allclose(shifted[:, :4], x[:, 1:])
    np.testing.assert_allclose(shifted[:, 4], 0)
    rot = image.apply_affine_transform(x, theta=90, row_axis=0, col_axis=1, channel_axis=2)
    np.testing.assert_allclose(rot[..., 0], np.rot90(x[..., 0], 1), atol=1e-4)
    shifted_c = image.apply_channel_shift(x, 10.0, channel_axis=2)
    np.testing.assert_allclose(shifted_c, np.minimum(x + 10, 49))  # clipped to x's range
    bright = image.apply_brightness_shift(np.full((2, 2, 3), 100.0), 1.5, scale=False)
    np.testing.assert_allclose(bright, 150.0)
    with pytest.raises(ValueError, match="distinct"):
        image.apply_affine_transform(x, theta=3, row_axis=0, col_axis=0, channel_axis=2)


def test_py_dataset_workers_and_split_dataset():
    class Squares(utils.PyDataset):
        def __init__(self):
            super().__init__(workers=3, max_queue_size=2)
            self.ends = 0

        def __len__(self):
            return 5

        def __getitem__(self, i):
            return np.full((2, 1), i, np.float32), np.full((2, 1), i * i, np.float32)

        def on_epoch_end(self):
            self.ends += 1

    data = Squares()
    model = tw.keras.Sequential([tw.keras.Input((1,)), tw.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(data, epochs=2, verbose=0)
    assert data.ends == 2 and utils.Sequence is utils.PyDataset
    np.testing.assert_array_equal(np.ravel(model.predict(Squares(), verbose=0)).shape, (10,))
    left, right = utils.split_dataset((np.arange(10), np.arange(10) * 2), left_size=0.7)
    assert [int(a) for a, _ in left][-1] == 6 and len(list(right)) == 3
    left, right = utils.split_dataset(tw.data.Dataset.range(5), right_size=2, shuffle=True,
                                      seed=0)
    assert sorted(int(v) for v in list(left) + list(right)) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="more than"):
        utils.split_dataset(np.arange(4), left_size=3, right_size=2)


@pytest.mark.parametrize("mode", ["nearest", "constant", "reflect", "wrap"])
def test_affine_transform_matches_keras(mode):
    pytest.importorskip("scipy")
    grid = np.arange(6 * 7 * 2, dtype="float32").reshape(6, 7, 2)
    got = image.apply_affine_transform(grid, theta=17, tx=1.5, ty=-2, shear=8, zx=0.9, zy=1.1,
                                       row_axis=0, col_axis=1, channel_axis=2,
                                       fill_mode=mode, cval=-1.0)
    np.testing.assert_allclose(got, FIX["affine"][mode], atol=1e-3)
    np.testing.assert_allclose(image.apply_channel_shift(grid, 5.0, channel_axis=2),
                               FIX["channel_shift"])


def test_follows_the_image_data_format_setting(tmp_path):
    x = np.random.default_rng(1).uniform(0, 255, (4, 5, 3)).astype(np.float32)
    utils.save_img(tmp_path / "a.png", x, scale=False)
    tw.keras.config.set_image_data_format("channels_first")
    try:
        assert utils.img_to_array(utils.load_img(tmp_path / "a.png")).shape == (3, 4, 5)
        gen = image.ImageDataGenerator()
        assert gen.data_format == "channels_first" and gen.channel_axis == 1
    finally:
        tw.keras.config.set_image_data_format("channels_last")
