"""Graph IR: ops, names, scopes, lookup, GraphDef text, FuncGraph captures."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.eager.func_graph import FuncGraph, TensorSpec, trace_func_graph


def test_ops_names_and_lookup():
    g = tw.Graph()
    with g.as_default():
        a = tw.constant(2.0, name="a")
        b = tw.constant(3.0, name="b")
        c = tw.add(a, b, name="c")
        with tw.name_scope("block"):
            d = tw.multiply(a, c, name="d")
        e = tw.add(a, b, name="c")
    assert [op.name for op in g.get_operations()] == ["a", "b", "c", "block/d", "c_1"]
    assert g.get_tensor_by_name("block/d:0") is d
    assert e.name == "c_1:0" and c.op.inputs[0] is a
    assert d.op.source is not None and "multiply" in d.op.source.line
    with pytest.raises(KeyError):
        g.get_tensor_by_name("nope:0")


def test_graph_def_prints_like_tensorflow():
    g = tw.Graph()
    with g.as_default():
        a = tw.constant(2.0, name="a")
        tw.add(a, a, name="c")
    text = str(g.as_graph_def())
    assert 'name: "c"\n  op: "AddV2"\n  input: "a"\n  input: "a"' in text
    assert "type: DT_FLOAT" in text and "float_val: 2\n" in text  # as TensorFlow prints it
    assert text.rstrip().endswith("versions {\n  producer: 1645\n}")
    assert 'key: "T"' in text


def test_func_graph_captures_eager_values_and_variables():
    c = tw.constant(2.0)
    v = tw.Variable(1.0)
    fg = trace_func_graph(lambda x: x * c + v, (TensorSpec([3], tw.float32, "x"),), name="f")
    assert isinstance(fg, FuncGraph)
    assert [outer for outer, _ in fg.captures] == [c, v.handle]
    assert len(fg.inputs) == 3 and fg.inputs[0].op.name == "x"
    assert fg.outputs[0].shape.as_list() == [3]
    assert fg.structured_outputs is fg.outputs[0]


def test_func_graph_nested_capture_goes_through_outer():
    outer = trace_func_graph(lambda x: x, (TensorSpec([], tw.float32, "x"),), name="outer")
    x = outer.inputs[0]
    inner = FuncGraph("inner", outer_graph=outer)
    with inner.as_default():
        y = x * 2.0
    assert inner.captures[0][0] is x and y.graph is inner


def test_symbolic_tensor_bool_raises_with_advice():
    fg = trace_func_graph(lambda x: x, (TensorSpec([], tw.float32, "x"),), name="f")
    with pytest.raises(tw.errors.OperatorNotAllowedInGraphError, match="tw.cond|AutoGraph"):
        bool(fg.inputs[0])


def test_only_tf1_graph_tensors_are_hashable():
    with pytest.raises(TypeError, match="unhashable. Instead, use tensor.ref"):
        hash(tw.constant(1.0))
    fg = trace_func_graph(lambda x: x, (TensorSpec([], tw.float32, "x"),), name="f")
    with pytest.raises(TypeError, match="unhashable"):
        hash(fg.inputs[0])
    g = tw.Graph()
    with g.as_default():
        a = tw.constant(1.0)
    assert {a: 1}[a] == 1  # a Session's feed_dict key


def test_tensors_from_another_graph_are_rejected():
    g1, g2 = tw.Graph(), tw.Graph()
    with g1.as_default():
        a = tw.constant(1.0)
    with g2.as_default():
        with pytest.raises(tw.errors.InaccessibleTensorError, match="belongs to another graph"):
            tw.add(a, a)


def test_name_argument_of_composite_functions_opens_a_name_scope():
    seen = {}

    @tw.function
    def f(x):
        seen["moments"] = tw.nn.moments(x, [0], name="stats")[0].name
        seen["positional"] = tw.nn.l2_normalize(x, 0, 1e-12, "norm").name
        seen["default"] = tw.nn.l2_normalize(x, 0).name
        return tw.signal.hann_window(4, name="window")

    np.testing.assert_allclose(f(tw.constant([1.0, 2.0])).numpy(),
                               [0.0, 0.5, 1.0, 0.5], atol=1e-6)  # periodic
    assert seen["moments"].startswith("stats/")
    assert seen["positional"].startswith("norm/")
    assert "/" not in seen["default"]
    # Eagerly the call goes straight through; AutoGraph leaves the library function alone.
    assert float(tw.nn.moments(tw.constant([1.0, 3.0]), [0], name="m")[0]) == 2.0
    assert float(tw.function(tw.nn.l2_loss)(tw.constant([3.0]), name="l")) == 4.5


def test_name_scoped_documents_the_name_argument():
    from twinflow.graph.graph import name_scoped

    @name_scoped
    def only_name(name=None) -> None:
        """Does nothing.

        Returns:
            None.
        """

    @name_scoped
    def two(x, name=None) -> None:
        """Does nothing.

        Args:
            x: a value,
                on two lines.

        Returns:
            None.
        """

    assert "Args:\n    name: the name scope" in only_name.__doc__
    assert "on two lines.\n    name: the name scope" in two.__doc__
    assert "name: the name scope" in tw.nn.l2_loss.__doc__
