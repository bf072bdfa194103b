"""Every save path survives a failure or a kill at each of its file-system calls."""
from __future__ import annotations

import itertools
import os
import shutil

import numpy as np
import pytest

import twinflow as tw
from tests.helpers.killsave import check_every_kill, scratch_dir, temp_files
from twinflow.core import files
from twinflow.core.errors import PermissionDeniedError

K = tw.keras


def _model():
    m = K.Sequential([K.layers.Dense(2, input_shape=(3,))])
    m.build((None, 3))
    return m


def _set(model, value):
    for v in model.weights:
        v.assign(np.full(v.shape, value, v.dtype.np))


def _value(weights):
    values = {float(x) for w in weights for x in np.ravel(np.asarray(w))}
    assert len(values) == 1, values
    return values.pop()


def _ckpt_paths(d):
    def save(value):
        tw.train.Checkpoint(v=tw.Variable([value] * 3)).write(os.path.join(d, "c"))

    def load():
        v = tw.Variable([0.] * 3)
        tw.train.Checkpoint(v=v).restore(os.path.join(d, "c"))
        return _value([v.numpy()])
    return save, load


def _numbered_paths(d):
    def save(value):
        ckpt = tw.train.Checkpoint(v=tw.Variable([value] * 3))
        ckpt.save(os.path.join(d, "n"))

    def load():
        v = tw.Variable([0.] * 3)
        tw.train.Checkpoint(v=v).restore(tw.train.latest_checkpoint(d))
        return _value([v.numpy()])
    return save, load


def _manager_paths(d):
    numbers = itertools.count(1)

    def save(value):
        ckpt = tw.train.Checkpoint(v=tw.Variable([value] * 3))
        tw.train.CheckpointManager(ckpt, d, max_to_keep=1).save(checkpoint_number=next(numbers))

    def load():
        v = tw.Variable([0.] * 3)
        manager = tw.train.CheckpointManager(tw.train.Checkpoint(v=v), d, max_to_keep=1)
        manager.restore_or_initialize()
        assert len(manager.checkpoints) == 1
        return _value([v.numpy()])
    return save, load


def _weights_paths(d):
    def save(value):
        m = _model()
        _set(m, value)
        m.save_weights(os.path.join(d, "w"))

    def load():
        m = _model()
        m.load_weights(os.path.join(d, "w"))
        return _value(m.get_weights())
    return save, load


def _keras_paths(d, name):
    def save(value):
        m = _model()
        _set(m, value)
        m.save(os.path.join(d, name))

    def load():
        return _value(K.models.load_model(os.path.join(d, name)).get_weights())
    return save, load


def _h5_paths(d):
    def save(value):
        m = _model()
        _set(m, value)
        m.save_weights(os.path.join(d, "m.weights.h5"))

    def load():
        m = _model()
        m.load_weights(os.path.join(d, "m.weights.h5"))
        return _value(m.get_weights())
    return save, load


def _dataset_paths(d):
    def save(value):
        tw.data.Dataset.from_tensor_slices(np.full((3, 2), value, np.float32)) \
            .save(os.path.join(d, "ds"))

    def load():
        ds = tw.data.Dataset.load(os.path.join(d, "ds"))
        return _value([e.numpy() for e in ds])
    return save, load


def _write_file_paths(d):
    def save(value):
        tw.io.write_file(os.path.join(d, "f.txt"), str(value))

    def load():
        return float(tw.io.read_file(os.path.join(d, "f.txt")).numpy().decode())
    return save, load


def _tfrecord_paths(d):
    def save(value):
        with tw.io.TFRecordWriter(os.path.join(d, "r.tfrecord")) as w:
            for _ in range(3):
                w.write(str(value).encode())

    def load():
        records = list(tw.data.TFRecordDataset(os.path.join(d, "r.tfrecord")))
        assert len(records) == 3
        return _value([float(r.numpy().decode()) for r in records])
    return save, load


SAVE_PATHS = {
    "save_weights(.weights.h5)": _h5_paths,
    "Dataset.save": _dataset_paths,
    "io.write_file": _write_file_paths,
    "io.TFRecordWriter": _tfrecord_paths,
    "Checkpoint.write": _ckpt_paths,
    "Checkpoint.save": _numbered_paths,
    "CheckpointManager(max_to_keep=1)": _manager_paths,
    "save_weights": _weights_paths,
    "model.save(.keras)": lambda d: _keras_paths(d, "m.keras"),
    "model.save(directory)": lambda d: _keras_paths(d, "m_dir"),
}


@pytest.mark.parametrize("name", sorted(SAVE_PATHS))
def test_no_kill_loses_a_save_or_leaves_a_temp_file(tmp_path, name):
    d = scratch_dir(tmp_path)
    try:
        save, load = SAVE_PATHS[name](d)
        report = check_every_kill(d, save, load, old=1.0, new=2.0)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    assert report.ok, report
    assert report.calls >= 4 and report.kept_old > 0 and report.got_new > 0


def test_stale_temp_files_of_dead_processes_are_cleaned_others_kept(tmp_path):
    d = str(tmp_path)
    here, rand = files._HOST, "0" * 12
    other = "%08x" % (int(here, 16) ^ 1)
    dead = os.path.join(d, f".x.tw-tmp-999999999-{here}{rand}")   # no such process
    alive = os.path.join(d, f".x.tw-tmp-{os.getppid()}-{here}{rand}")  # a live process's save
    foreign = os.path.join(d, f".x.tw-tmp-1-{other}{rand}")  # another machine, saving now
    foreign_old = os.path.join(d, f".y.tw-tmp-1-{other}{rand}")  # another machine, long ago
    user = os.path.join(d, ".x.tmp-user-file")
    for p in (dead, alive, foreign, foreign_old, user):
        open(p, "w").close()
    os.utime(foreign_old, (0, 0))
    files.atomic_write(os.path.join(d, "x"), b"data")
    assert not os.path.exists(dead) and not os.path.exists(foreign_old)
    assert os.path.exists(alive) and os.path.exists(foreign) and os.path.exists(user)
    assert open(os.path.join(d, "x"), "rb").read() == b"data"


def test_killed_directory_save_is_recovered_by_load(tmp_path):
    m = _model()
    _set(m, 3.0)
    path = str(tmp_path / "d")
    m.save(path)
    os.rename(path, str(tmp_path / f".d.tw-old-999999999-{files._HOST}{'0' * 12}"))  # killed
    assert _value(K.models.load_model(path).get_weights()) == 3.0
    assert temp_files(str(tmp_path)) == []


@pytest.mark.parametrize("keep", [0, -1, 1.5, True])
def test_max_to_keep_must_be_positive_or_none(tmp_path, keep):
    with pytest.raises(ValueError, match="positive integer or `None`"):
        tw.train.CheckpointManager(tw.train.Checkpoint(v=tw.Variable(1.)), str(tmp_path),
                                   max_to_keep=keep)


def test_max_to_keep_none_keeps_all(tmp_path):
    m = tw.train.CheckpointManager(tw.train.Checkpoint(v=tw.Variable(1.)), str(tmp_path),
                                   max_to_keep=None)
    paths = [m.save() for _ in range(3)]
    assert m.checkpoints == paths and all(os.path.exists(p + ".index.json") for p in paths)


@pytest.mark.parametrize("name", ["../outside/c-1", "/tmp/elsewhere/c-1", "sub/../../c-1"])
def test_state_file_naming_outside_paths_is_refused(tmp_path, name):
    d = tmp_path / "ckpts"
    d.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "c-1.index.json"
    victim.write_text("{}")
    (d / "checkpoint").write_text(
        f'{{"model_checkpoint_path": "{name}", "all_model_checkpoint_paths": ["{name}"]}}')
    with pytest.raises(PermissionDeniedError, match="outside"):
        tw.train.latest_checkpoint(str(d))
    with pytest.raises(PermissionDeniedError, match="outside"):
        _model().load_weights(str(d))
    with pytest.raises(PermissionDeniedError, match="outside"):
        tw.train.CheckpointManager(tw.train.Checkpoint(v=tw.Variable(1.)), str(d), 1)
    # a plain save into the folder rewrites the state file without the foreign name
    tw.train.Checkpoint(v=tw.Variable(1.)).save(str(d / "c"))
    assert victim.exists()
    assert tw.train.latest_checkpoint(str(d)) == str(d / "c-1")


def test_manager_never_deletes_files_it_did_not_write(tmp_path):
    d = str(tmp_path)
    v = tw.Variable(1.)
    m = tw.train.CheckpointManager(tw.train.Checkpoint(v=v), d, max_to_keep=1)
    first = m.save()
    with open(first + ".index.json", "w") as f:   # replaced by a user's file of that name
        f.write("my notes")
    m.save()
    assert open(first + ".index.json").read() == "my notes"


def test_tensorflow_format_checkpoint_survives_every_kill(tmp_path):
    d = scratch_dir(tmp_path)
    prefix = os.path.join(d, "tf")

    def save(value):
        tw.train.Checkpoint(v=tw.Variable([value] * 3)).write(prefix, format="tensorflow")

    def load():
        v = tw.Variable([0.] * 3)
        tw.train.Checkpoint(v=v).restore(prefix)
        return _value([v.numpy()])
    try:
        report = check_every_kill(d, save, load)  # fail and kill at each of ~22 calls
    finally:
        shutil.rmtree(d, ignore_errors=True)
    assert report.ok, report
    assert report.kept_old > 0 and report.got_new > 0
