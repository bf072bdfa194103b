"""The SavedModel's ``saver_def`` (what TensorFlow's C++/TF1 loader and TensorFlow Serving run
to restore the variables) names nodes of the graph that restore every variable from its
checkpoint key. TensorFlow running them is checked by tests/fixtures/saved_model/
check_with_tf.py (TensorFlow is not needed by the tests)."""
import os

import numpy as np

import twinflow as tw
from twinflow.saved_model.bundle import BundleReader
from twinflow.saved_model.graph_import import tensor_of_proto
from twinflow.saved_model.protos import saved_model_message


class Model(tw.Module):
    def __init__(self):
        super().__init__()
        self.w = tw.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        self.steps = tw.Variable(0, dtype=tw.int64, trainable=False, name="steps")
        self.unused = tw.Variable([1.0, 2.0], name="unused")   # in no signature

    @tw.function(input_signature=[tw.TensorSpec([None, 3], tw.float32, name="x")])
    def __call__(self, x):
        self.steps.assign_add(1)
        return tw.matmul(x, self.w)


def _saved(tmp_path):
    d = str(tmp_path / "m")
    m = Model()
    tw.saved_model.save(m, d)
    sm = saved_model_message("SavedModel")()
    with open(os.path.join(d, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    return d, m, sm.meta_graphs[0]


def test_saver_def_names_nodes_that_restore_every_variable(tmp_path):
    d, m, mg = _saved(tmp_path)
    sd = mg.saver_def
    assert sd.version == 2 and not sd.sharded
    nodes = {n.name: n for n in mg.graph_def.node}
    for n in nodes.values():   # every input names a node of the graph
        for i in n.input:
            assert i.lstrip("^").split(":")[0] in nodes, (n.name, i)
    name, index = sd.filename_tensor_name.split(":")
    assert index == "0" and nodes[name].op == "Placeholder"
    assert nodes[sd.save_tensor_name.split(":")[0]].input[0] == name
    restore = nodes[sd.restore_op_name]
    assigns = [nodes[i.lstrip("^")] for i in restore.input]
    assert {a.op for a in assigns} == {"AssignVariableOp"}
    # Each assignment writes a RestoreV2 output (read from the fed file name) into a
    # VarHandleOp; the tensor read is the variable's checkpoint key in variables/.
    reader = BundleReader(os.path.join(d, "variables", "variables"))
    restored = {}
    for a in assigns:
        handle, value = nodes[a.input[0]], a.input[1].split(":")
        op = nodes[value[0]]
        assert handle.op == "VarHandleOp" and op.op == "RestoreV2" and op.input[0] == name
        key = tensor_of_proto(nodes[op.input[1]].attr["value"].tensor)[int(value[1])]
        key = key.decode() if isinstance(key, bytes) else str(key)
        restored[handle.name] = reader.get_tensor(key)
    want = {"w": m.w, "steps": m.steps, "unused": m.unused}
    assert sorted(restored) == sorted(want)
    for k, v in want.items():
        np.testing.assert_array_equal(restored[k], v.numpy())
    # The signature's call reads the same handles the restore op assigns.
    call = nodes["StatefulPartitionedCall"]
    assert {i for i in call.input if nodes[i].op == "VarHandleOp"} == {"w", "steps"}
    assert len(call.attr["Tin"].list.type) == len(call.input)


def test_loading_ignores_the_saver_nodes(tmp_path):
    d, _, _ = _saved(tmp_path)
    loaded = tw.saved_model.load(d)
    x = np.ones((2, 3), np.float32)
    out = loaded.signatures["serving_default"](x=tw.constant(x))
    np.testing.assert_allclose(list(out.values())[0].numpy(),
                               x @ np.arange(6, dtype=np.float32).reshape(3, 2))
    np.testing.assert_array_equal(loaded.unused.numpy(), [1.0, 2.0])
