"""GraphDef as a protobuf message: serialization, TensorFlow's attr names, import, freezing,
write_graph, and the GraphDef TensorFlow wrote (tests/fixtures/deploy/tf_mlp.pb)."""
import os

import numpy as np
import pytest

import twinflow as tw

v1 = tw.compat.v1
FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "deploy")


def _mlp_graph(rng):
    g = tw.Graph()
    with g.as_default():
        x = v1.placeholder(tw.float32, [None, 3], name="x")
        w = tw.Variable(rng.normal(size=(3, 4)).astype(np.float32), name="w")
        b = tw.Variable(rng.normal(size=(4,)).astype(np.float32), name="b")
        y = tw.nn.softmax(tw.nn.relu(tw.matmul(x, w) + b), name="y")
    return g, x, y


def test_graph_def_is_a_message_that_round_trips():
    g = tw.Graph()
    with g.as_default():
        a = tw.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
        tw.reduce_sum(a, axis=1, keepdims=True, name="s")
    gd = g.as_graph_def()
    data = gd.SerializeToString()
    back = tw.compat.v1.GraphDef()
    back.ParseFromString(data)
    assert back == gd and str(back) == str(gd)
    node = {n.name: n for n in back.node}
    # TensorFlow's attr names and types from the schema
    assert set(node["s"].attr) >= {"T", "keep_dims"} and node["s"].attr["keep_dims"].b
    assert node["s"].attr["T"].type == tw.float32.as_datatype_enum
    # a non-splat constant is stored as tensor_content, as TensorFlow stores it
    assert len(node["a"].attr["value"].tensor.tensor_content) == 24
    assert back.versions.producer == 1645


def test_private_and_twinflow_only_attrs_are_not_written():
    g = tw.Graph()
    with g.as_default():
        v = tw.Variable(np.ones(3, np.float32))
        tw.nn.softmax(v.read_value() * 2.0, name="sm")
    node = {n.name: n for n in g.as_graph_def().node}
    assert "axis" not in node["sm"].attr  # TensorFlow's Softmax is on the last axis
    reads = [n for n in node.values() if n.op == "ReadVariableOp"]
    assert reads and set(reads[0].attr) == {"dtype"}


def test_freeze_and_import_compute_the_same(tmp_path):
    rng = np.random.default_rng(0)
    g, x, y = _mlp_graph(rng)
    xv = rng.normal(size=(5, 3)).astype(np.float32)
    with v1.Session(graph=g) as s:
        s.run(v1.global_variables_initializer())
        ref = s.run(y, {x: xv})
        frozen = tw.compat.v1.graph_util.convert_variables_to_constants(
            s, g.as_graph_def(), ["y"])
    assert [n.op for n in frozen.node].count("Const") == 2
    assert not any(n.op in ("ReadVariableOp", "AssignVariableOp") for n in frozen.node)
    path = tw.io.write_graph(frozen, str(tmp_path), "frozen.pb", as_text=False)
    g2 = tw.Graph()
    with g2.as_default():
        gd = v1.GraphDef()
        gd.ParseFromString(open(path, "rb").read())
        yy, op = tw.graph_util.import_graph_def(gd, return_elements=["y:0", "y"], name="m")
        assert op is yy.op and yy.name == "m/y:0"
        with v1.Session(graph=g2) as s:
            out = s.run(yy, {g2.get_tensor_by_name("m/x:0"): xv})
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_import_with_input_map():
    g = tw.Graph()
    with g.as_default():
        x = v1.placeholder(tw.float32, [2], name="x")
        tw.multiply(x, 3.0, name="y")
    g2 = tw.Graph()
    with g2.as_default():
        feed = tw.constant([1.0, 2.0])
        (y,) = tw.graph_util.import_graph_def(g.as_graph_def(), input_map={"x": feed},
                                              return_elements=["y:0"], name="")
        with v1.Session(graph=g2) as s:
            assert s.run(y).tolist() == [3.0, 6.0]
        with pytest.raises(ValueError, match="not found in graph_def"):
            tw.graph_util.import_graph_def(g.as_graph_def(), input_map={"nope:0": feed})
        with pytest.raises(ValueError, match="return_element"):
            tw.graph_util.import_graph_def(g.as_graph_def(), return_elements=["nope:0"])


def test_unknown_op_and_bad_bytes_are_clear_errors():
    gd = v1.GraphDef()
    gd.node.add(name="q", op="NoSuchOpAnywhere")
    with tw.Graph().as_default():
        with pytest.raises(tw.errors.NotFoundError, match="NoSuchOpAnywhere"):
            tw.graph_util.import_graph_def(gd)
        with pytest.raises(tw.errors.DataLossError, match="GraphDef"):
            tw.graph_util.import_graph_def(b"\xff\xff\xff")


def test_write_graph_text_and_binary(tmp_path):
    g = tw.Graph()
    with g.as_default():
        tw.constant(1.0, name="c")
    text = tw.io.write_graph(g, str(tmp_path), "g.pbtxt")
    binary = tw.io.write_graph(g, str(tmp_path), "g.pb", as_text=False)
    assert open(text).read() == str(g.as_graph_def())
    assert open(binary, "rb").read() == g.as_graph_def().SerializeToString()
    assert not [p for p in os.listdir(tmp_path) if p not in ("g.pbtxt", "g.pb")]


def test_graph_def_written_by_tensorflow_imports_and_computes_the_same():
    io = np.load(os.path.join(FIX, "tf_mlp_io.npz"))
    with open(os.path.join(FIX, "tf_mlp.pb"), "rb") as f:
        data = f.read()
    g = tw.Graph()
    with g.as_default():
        (y,) = tw.graph_util.import_graph_def(data, return_elements=["y:0"])
        with v1.Session(graph=g) as s:
            out = s.run(y, {g.get_tensor_by_name("import/x:0"): io["x"]})
    np.testing.assert_allclose(out, io["y"], rtol=1e-5, atol=1e-7)
    assert {op.type for op in g.get_operations()} >= {"BiasAdd", "Tanh", "MatMul", "Softmax"}


def test_attrs_that_are_tensorflow_inputs_become_const_nodes_and_come_back():
    g = tw.Graph()
    with g.as_default():
        x = v1.placeholder(tw.float32, [None, 3], name="x")
        tw.reduce_mean(x, name="m")
        tw.reduce_sum(x, 1, keepdims=True, name="s")
        tw.concat([x, x], 1, name="c")
        tw.transpose(x, name="t")
    gd = g.as_graph_def()
    node = {n.name: n for n in gd.node}
    assert list(node["s"].input) == ["x", "s/reduction_indices"]
    assert sorted(node["s"].attr) == ["T", "Tidx", "keep_dims"]
    assert list(node["c"].input) == ["x", "x", "c/axis"] and node["c"].attr["N"].i == 2
    assert "conjugate" not in node["t"].attr
    g2 = tw.Graph()
    with g2.as_default():
        outs = tw.graph_util.import_graph_def(gd, return_elements=["m:0", "s:0", "c:0", "t:0"],
                                              name="")
        xv = np.arange(6, dtype=np.float32).reshape(2, 3)
        with v1.Session(graph=g2) as s:
            m, sm, c, t = s.run(outs, {g2.get_tensor_by_name("x:0"): xv})
    assert m == 2.5 and sm.tolist() == [[3.0], [12.0]]
    assert c.tolist() == np.concatenate([xv, xv], 1).tolist() and t.tolist() == xv.T.tolist()


def test_tensorflow_attrs_at_their_default_import():
    # TensorFlow writes attrs that twinflow's ops implement only at their default
    # (graph/tf_defaults.TF_ONLY_AT): accepted at that value, refused at another.
    from twinflow.graph.graph_def import fill_attr
    g = tw.Graph()
    with g.as_default():
        x = v1.placeholder(tw.float32, [4], name="x")
        tw.cast(tw.equal(x, 1.0, name="eq"), tw.int32, name="c")
        tw.gather_nd(x, [[2]], name="g")
        tw.nn.max_pool3d(tw.reshape(x, [1, 1, 2, 2, 1]), 1, 1, "VALID", name="p")
    tf_attrs = {"eq": ("incompatible_shape_error", True), "c": ("Truncate", False),
                "g": ("bad_indices_policy", ""), "p": ("data_format", "NDHWC")}
    gd = g.as_graph_def()
    for node in gd.node:
        if node.name in tf_attrs:
            fill_attr(node.attr[tf_attrs[node.name][0]], tf_attrs[node.name][1])
    g2 = tw.Graph()
    with g2.as_default():
        c, gathered = tw.graph_util.import_graph_def(gd, return_elements=["c:0", "g:0"])
        with v1.Session(graph=g2) as s:
            out = s.run([c, gathered], {g2.get_tensor_by_name("import/x:0"): [1, 2, 3, 1]})
    np.testing.assert_array_equal(out[0], [1, 0, 0, 1])
    np.testing.assert_array_equal(out[1], [3.0])
    cast = next(n for n in gd.node if n.name == "c")
    fill_attr(cast.attr["Truncate"], True)
    with tw.Graph().as_default(), pytest.raises(tw.errors.UnimplementedError, match="Truncate"):
        tw.graph_util.import_graph_def(gd)
