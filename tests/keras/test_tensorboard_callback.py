"""keras.callbacks.TensorBoard: Keras 3's arguments exactly; unsupported ones raise."""
from __future__ import annotations

import glob
import json
import os
import struct

import numpy as np
import pytest

import twinflow as tw
from twinflow.summary import proto
from twinflow.summary.record import read_records

keras = tw.keras


def _tags(logdir: str) -> dict:
    """Maps each summary tag under ``logdir`` to its list of (step, decoded value)."""
    out: dict = {}
    for f in glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
        for rec in read_records(f):
            e = proto.decode(rec)
            for summary in e.get(5, []):
                for value in proto.decode(summary).get(1, []):
                    v = proto.decode(value)
                    out.setdefault(v[1][0].decode(), []).append((e.get(2, [0])[0], v))
    return out


def _fit(tmp_path, **kwargs):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((8, 3), np.float32), np.zeros((8, 2), np.float32)
    cb = keras.callbacks.TensorBoard(log_dir=str(tmp_path), **kwargs)
    model.fit(x, y, batch_size=4, epochs=2, verbose=0, validation_data=(x, y), callbacks=[cb])
    return _tags(str(tmp_path / "train")), _tags(str(tmp_path / "validation"))


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError):
        keras.callbacks.TensorBoard(log_dir="logs", not_an_argument=1)


@pytest.mark.parametrize("kwargs", [{"profile_batch": 2},
                                    {"profile_batch": (1, 3)}, {"embeddings_freq": 1},
                                    {"embeddings_metadata": "meta.tsv"}])
def test_unsupported_arguments_raise(kwargs):
    with pytest.raises(NotImplementedError, match=next(iter(kwargs))):
        keras.callbacks.TensorBoard(**kwargs)


@pytest.mark.parametrize("freq", ["weekly", 0, -2, 1.5])
def test_bad_update_freq(freq):
    with pytest.raises(ValueError, match="update_freq"):
        keras.callbacks.TensorBoard(update_freq=freq)


def test_batch_update_freq_and_steps_per_second(tmp_path):
    train, val = _fit(tmp_path, update_freq="batch", write_steps_per_second=True)
    assert [s for s, _ in train["batch_loss"]] == [1, 2, 3, 4]
    assert [s for s, _ in train["batch_steps_per_second"]] == [1, 2, 3, 4]
    assert [s for s, _ in train["epoch_steps_per_second"]] == [0, 1]
    assert all(struct.unpack("<f", v[2][0])[0] > 0 for _, v in train["epoch_steps_per_second"])
    assert [s for s, _ in val["epoch_loss"]] == [0, 1]
    assert [s for s, _ in val["evaluation_loss_vs_iterations"]] == [2, 4]


def test_epoch_only_and_no_graph(tmp_path):
    train, _ = _fit(tmp_path, write_graph=False, update_freq="epoch")
    assert "keras" not in train and not any(t.startswith("batch_") for t in train)
    assert "epoch_steps_per_second" not in train


def test_write_graph_writes_the_model_config(tmp_path):
    train, _ = _fit(tmp_path, update_freq=3)
    assert [s for s, _ in train["batch_loss"]] == [3]
    (step, value), = train["keras"]
    meta = proto.decode(value[9][0])
    plugin = proto.decode(meta[1][0])
    assert (step, plugin[1][0], plugin[2][0]) == (0, b"graph_keras_model", b"1")
    tensor = proto.decode(value[8][0])
    config = json.loads(tensor[8][0])
    assert config["class_name"] == "Sequential"


def test_histograms_images_and_learning_rate(tmp_path):
    train, val = _fit(tmp_path, histogram_freq=1, write_images=True)
    hist = sorted(t for t in train if t.endswith("/histogram"))
    images = sorted(t.split("/image")[0] for t in train if "/image" in t)
    assert len(hist) == 2 and images == [t.replace("/histogram", "") for t in hist]
    assert [s for s, _ in train[hist[0]]] == [0, 1]
    lr = [struct.unpack("<f", v[2][0])[0] for _, v in train["epoch_learning_rate"]]
    np.testing.assert_allclose(lr, [0.01, 0.01])
    assert "epoch_learning_rate" not in val
