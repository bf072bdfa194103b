"""CheckpointManager's options that used to be accepted and ignored, with TensorFlow's
semantics: checkpoint_interval/step_counter, init_fn, keep_checkpoint_every_n_hours."""
import os

import pytest

import twinflow as tf
from twinflow.train import checkpoint as ckpt_module


def _manager(tmp_path, **kw):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    return ckpt, tf.train.CheckpointManager(ckpt, str(tmp_path), **kw)


def test_checkpoint_interval_skips_saves_until_the_step_advanced(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    with pytest.raises(ValueError, match="step_counter"):
        _manager(tmp_path, max_to_keep=None, checkpoint_interval=2)
    _, m = _manager(tmp_path, max_to_keep=None, step_counter=step, checkpoint_interval=2)
    assert m.checkpoint_interval == 2
    saved = []
    for s in range(5):
        step.assign(s)
        saved.append(m.save() is not None)
    assert saved == [True, False, True, False, True]
    step.assign(5)
    assert m.save(check_interval=False) is not None   # the interval waived...
    assert m.save(check_interval=False) is None       # ...but never twice at one step


def test_init_fn_runs_only_without_a_checkpoint(tmp_path):
    calls = []
    _, m = _manager(tmp_path, max_to_keep=2, init_fn=lambda: calls.append(1))
    assert m.restore_or_initialize() is None and calls == [1]
    m.save()
    _, again = _manager(tmp_path, max_to_keep=2, init_fn=lambda: calls.append(2))
    assert again.restore_or_initialize() is not None and calls == [1]


def test_keep_checkpoint_every_n_hours_preserves_old_checkpoints(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(ckpt_module.time, "time", lambda: clock[0])
    _, m = _manager(tmp_path, max_to_keep=1, keep_checkpoint_every_n_hours=1)
    paths = []
    for _ in range(4):  # saved at 1000 s, 1000 s + 40 min, + 80 min, + 120 min
        paths.append(m.save())
        clock[0] += 2400
    exists = [os.path.exists(p + ".index.json") for p in paths]
    # leaving the kept set, the first two are less than an hour after the clock start
    # (999 s) and go; the third (5800 s) is kept on disk, unmanaged
    assert exists == [False, False, True, True]
    assert m.checkpoints == [paths[-1]]
    # the preservation clock is kept in the state file
    _, again = _manager(tmp_path, max_to_keep=1, keep_checkpoint_every_n_hours=1)
    assert again._preserved_at == 1000.0 + 4800


def test_latest_checkpoint_refuses_another_state_file_name(tmp_path):
    with pytest.raises(NotImplementedError, match="latest_filename"):
        tf.train.latest_checkpoint(str(tmp_path), latest_filename="state")
    assert tf.train.latest_checkpoint(str(tmp_path), latest_filename="checkpoint") is None
