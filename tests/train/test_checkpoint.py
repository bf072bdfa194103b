"""tw.train.Checkpoint, CheckpointManager, latest_checkpoint, tw.Module and save/load_weights."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import twinflow as tw
from twinflow.core.errors import DataLossError, NotFoundError


def _model(units: int = 3):
    return tw.keras.Sequential([tw.keras.layers.Dense(4, activation="relu"),
                                tw.keras.layers.Dense(units)])


def test_seed_save_assign_restore(tmp_path):
    x = tw.Variable(10.)
    checkpoint = tw.train.Checkpoint(x=x)
    x.assign(2.)
    path = checkpoint.save(str(tmp_path / "ckpt") + "/")
    assert path.endswith("/-1")
    x.assign(11.)
    checkpoint.restore(tw.train.latest_checkpoint(str(tmp_path / "ckpt") + "/"))
    assert float(x.numpy()) == 2.0


def test_files_are_npz_and_json_without_pickle(tmp_path):
    v = tw.Variable([[1., 2.], [3., 4.]])
    prefix = tw.train.Checkpoint(v=v).write(str(tmp_path / "w"))
    index = json.loads(open(prefix + ".index.json").read())
    assert index["variables"]["v"]["shape"] == [2, 2]
    with np.load(prefix + ".npz", allow_pickle=False) as z:
        np.testing.assert_array_equal(z[index["variables"]["v"]["key"]], v.numpy())
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".tmp")]


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_written_files_get_the_permissions_of_a_plain_open(tmp_path, umask):
    previous = os.umask(umask)
    try:
        with open(tmp_path / "plain", "w") as f:
            f.write("x")
        os.mkdir(tmp_path / "plain_dir")
        prefix = tw.train.Checkpoint(v=tw.Variable(1.)).write(str(tmp_path / "w"))
        model = _model()
        model(np.ones((1, 2), np.float32))
        model.save(str(tmp_path / "m.keras"))
        model.save(str(tmp_path / "m_dir"))
    finally:
        os.umask(previous)
    mode = os.stat(tmp_path / "plain").st_mode & 0o777
    assert mode == 0o666 & ~umask
    for path in (prefix + ".npz", prefix + ".index.json", tmp_path / "m.keras"):
        assert os.stat(path).st_mode & 0o777 == mode, path
    for name in os.listdir(tmp_path / "m_dir"):
        assert os.stat(tmp_path / "m_dir" / name).st_mode & 0o777 == mode, name
    dir_mode = os.stat(tmp_path / "plain_dir").st_mode & 0o777
    assert os.stat(tmp_path / "m_dir").st_mode & 0o777 == dir_mode


def test_model_and_optimizer_round_trip_with_deferred_restore(tmp_path):
    model = _model()
    opt = tw.keras.optimizers.Adam(0.1)
    x = np.ones((2, 5), np.float32)
    with tw.GradientTape() as tape:
        loss = tw.reduce_sum(model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    manager = tw.train.CheckpointManager(tw.train.Checkpoint(model=model, optimizer=opt),
                                         str(tmp_path), max_to_keep=2)
    path = manager.save()
    # A fresh, unbuilt model and optimizer: the values wait for the variables to exist.
    model2, opt2 = _model(), tw.keras.optimizers.Adam(0.1)
    status = tw.train.Checkpoint(model=model2, optimizer=opt2).restore(path)
    assert not model2.weights
    model2(x)
    for a, b in zip(model.get_weights(), model2.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert int(opt2.iterations.numpy()) == 1
    opt2.build(model2.trainable_variables)
    np.testing.assert_array_equal(opt2.get_slot(model2.trainable_variables[0], "m").numpy(),
                                  opt.get_slot(model.trainable_variables[0], "m").numpy())
    status.assert_consumed()


def test_manager_keeps_max_to_keep(tmp_path):
    v = tw.Variable(1.)
    manager = tw.train.CheckpointManager(tw.train.Checkpoint(v=v), str(tmp_path), max_to_keep=2)
    paths = [manager.save() for _ in range(4)]
    assert manager.checkpoints == paths[-2:]
    assert not os.path.exists(paths[0] + ".npz")
    assert tw.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    again = tw.train.CheckpointManager(tw.train.Checkpoint(v=v), str(tmp_path), max_to_keep=2)
    assert again.latest_checkpoint == paths[-1]


def test_mismatch_names_variable_and_shapes_and_restores_nothing(tmp_path):
    a, b = tw.Variable([1., 2.]), tw.Variable([1., 2., 3.])
    prefix = tw.train.Checkpoint(a=a, b=b).write(str(tmp_path / "c"))
    a2, b2 = tw.Variable([7., 7.]), tw.Variable([7., 7.])  # b has the wrong shape
    with pytest.raises(ValueError, match=r"\[3\].*'b'.*\[2\]"):
        tw.train.Checkpoint(a=a2, b=b2).restore(prefix)
    np.testing.assert_array_equal(a2.numpy(), [7., 7.])


def test_corrupt_files_raise(tmp_path):
    v = tw.Variable(np.zeros(1000, np.float32))
    prefix = tw.train.Checkpoint(v=v).write(str(tmp_path / "c"))
    with open(prefix + ".npz", "r+b") as f:
        f.seek(2000)
        f.write(b"\xff\xff\xff\xff")
    with pytest.raises(DataLossError):
        tw.train.Checkpoint(v=v).restore(prefix)
    with open(prefix + ".index.json", "w") as f:
        f.write("{not json")
    with pytest.raises(DataLossError):
        tw.train.Checkpoint(v=v).restore(prefix)
    with pytest.raises(NotFoundError):
        tw.train.Checkpoint(v=v).restore(str(tmp_path / "missing"))


def test_save_weights_load_weights(tmp_path):
    model = _model()
    model(np.ones((1, 5), np.float32))
    model.save_weights(str(tmp_path / "weights"))
    model2 = _model()
    model2.load_weights(str(tmp_path / "weights"))
    model2(np.ones((1, 5), np.float32))
    for a, b in zip(model.get_weights(), model2.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_assert_consumed_reports_missing(tmp_path):
    v = tw.Variable(1.)
    prefix = tw.train.Checkpoint(v=v).write(str(tmp_path / "c"))
    status = tw.train.Checkpoint(v=tw.Variable(3.), w=tw.Variable(4.)).restore(prefix)
    with pytest.raises(AssertionError, match="w"):
        status.assert_consumed()


def test_module_tracks_variables_and_submodules():
    class Inner(tw.Module):
        def __init__(self):
            super().__init__()
            self.w = tw.Variable(1.)
            self.frozen = tw.Variable(2., trainable=False)

    class Outer(tw.Module):
        def __init__(self):
            super().__init__(name="outer")
            self.inner = Inner()
            self.more = [tw.Variable(3.), {"k": tw.Variable(4.)}]

    m = Outer()
    assert m.name == "outer"
    assert len(m.variables) == 4
    assert len(m.trainable_variables) == 3
    assert [type(s).__name__ for s in m.submodules] == ["Inner"]
    assert Inner().name == "inner"
