"""tw.train.Checkpoint in TensorFlow's format, list_variables / load_variable /
load_checkpoint, against the checkpoint TensorFlow wrote (tests/fixtures/deploy/tf_ckpt)."""
import os
import shutil

import numpy as np
import pytest

import twinflow as tw
from twinflow.saved_model.bundle import BundleReader
from twinflow.train.tf_checkpoint import OBJECT_GRAPH_KEY, _graph_class

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "deploy")
TF_CKPT = os.path.join(FIX, "tf_ckpt", "ckpt")
KEY = "model/{}/.ATTRIBUTES/VARIABLE_VALUE"


def _module(w=np.zeros((3, 2), np.float32), b=np.zeros(2, np.float32), step=0):
    m = tw.Module()
    m.w = tw.Variable(w)
    m.b = tw.Variable(b)
    m.step = tw.Variable(np.int64(step))
    return m


def test_checkpoint_reads_what_tensorflow_wrote():
    values = np.load(os.path.join(FIX, "tf_ckpt_values.npz"))
    m = _module()
    tw.train.Checkpoint(model=m).read(TF_CKPT).assert_consumed()
    for name in ("w", "b", "step"):
        np.testing.assert_array_equal(getattr(m, name).numpy(), values[name])


def test_list_load_variable_and_reader():
    assert tw.train.list_variables(TF_CKPT) == [
        (OBJECT_GRAPH_KEY, []), (KEY.format("b"), [2]), (KEY.format("step"), []),
        (KEY.format("w"), [3, 2])]
    assert tw.train.load_variable(TF_CKPT, KEY.format("b")).tolist() == [0.5, -1.5]
    r = tw.train.load_checkpoint(TF_CKPT)
    assert r.get_variable_to_dtype_map()[KEY.format("step")] == tw.int64
    assert r.has_tensor(KEY.format("w")) and not r.has_tensor("nope")
    assert isinstance(r.get_tensor(OBJECT_GRAPH_KEY), bytes)


def test_write_in_tensorflow_format_round_trips_with_an_object_graph(tmp_path):
    m = _module(np.arange(6, dtype=np.float32).reshape(3, 2), np.ones(2, np.float32), 5)
    ckpt = tw.train.Checkpoint(model=m)
    path = ckpt.save(str(tmp_path / "ck"), format="tensorflow")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ck-1.data-00000-of-00001",
                                            "ck-1.index"]
    graph = _graph_class().FromString(BundleReader(path).get_tensor(OBJECT_GRAPH_KEY)[()])
    root = graph.nodes[0]
    assert sorted(c.local_name for c in root.children) == ["model", "save_counter"]
    model = graph.nodes[[c.node_id for c in root.children if c.local_name == "model"][0]]
    keys = sorted(graph.nodes[c.node_id].attributes[0].checkpoint_key for c in model.children)
    assert keys == [KEY.format(n) for n in ("b", "step", "w")]
    # the directory form finds the latest checkpoint
    assert tw.train.load_variable(str(tmp_path), KEY.format("step")) == 5
    m2 = _module()
    tw.train.Checkpoint(model=m2).restore(tw.train.latest_checkpoint(str(tmp_path))) \
        .assert_consumed()
    assert m2.w.numpy().tolist() == m.w.numpy().tolist() and int(m2.step.numpy()) == 5
    with pytest.raises(ValueError, match="format"):
        ckpt.write(str(tmp_path / "x"), format="onnx")


def test_corrupt_tensorflow_checkpoint_restores_nothing(tmp_path):
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(TF_CKPT + suffix, tmp_path)
    data = tmp_path / "ckpt.data-00000-of-00001"
    raw = bytearray(data.read_bytes())
    raw[-1] ^= 0xFF  # the last tensor (model/w) is damaged
    data.write_bytes(bytes(raw))
    m = _module()
    with pytest.raises(tw.errors.DataLossError, match="ckpt.data-00000-of-00001"):
        tw.train.Checkpoint(model=m).read(str(tmp_path / "ckpt"))
    assert m.b.numpy().tolist() == [0.0, 0.0] and int(m.step.numpy()) == 0


def test_directory_with_tensorflows_state_file(tmp_path):
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(TF_CKPT + suffix, tmp_path / ("ckpt-3" + suffix))
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "ckpt-3"\nall_model_checkpoint_paths: "ckpt-3"\n'
        "all_model_checkpoint_timestamps: 1795671717.5\nlast_preserved_timestamp: 1.7e9\n")
    assert tw.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-3")
    assert tw.train.load_variable(str(tmp_path), KEY.format("step")) == 42
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "../../etc/passwd"\n')
    with pytest.raises(tw.errors.PermissionDeniedError):
        tw.train.latest_checkpoint(str(tmp_path))
    (tmp_path / "checkpoint").write_text("model_checkpoint_path ckpt-3\n")
    with pytest.raises(tw.errors.DataLossError, match="corrupt"):
        tw.train.latest_checkpoint(str(tmp_path))


def test_checkpoints_iterator_yields_new_checkpoints_then_times_out(tmp_path):
    ckpt = tw.train.Checkpoint(model=_module())
    first = ckpt.save(str(tmp_path / "ck"), format="tensorflow")
    calls = []

    def timeout_fn():
        calls.append(1)
        if len(calls) == 1:
            ckpt.save(str(tmp_path / "ck"))  # a new one (twinflow's format) while waiting
            return False
        return True

    seen = list(tw.train.checkpoints_iterator(str(tmp_path), timeout=0.05,
                                              timeout_fn=timeout_fn))
    assert seen == [first, str(tmp_path / "ck-2")] and len(calls) == 2
    assert list(tw.train.checkpoints_iterator(str(tmp_path / "none"), timeout=0.01)) == []
