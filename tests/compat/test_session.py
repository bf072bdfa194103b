"""tw.compat.v1: TF1-style graphs, placeholders, Sessions, initializers."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import twinflow as tw

v1 = tw.compat.v1


def _graph():
    g = tw.Graph()
    with g.as_default():
        x = v1.placeholder(tw.float32, shape=[None, 2], name="x")
        w = tw.Variable([[1.0], [2.0]], name="w")
        y = tw.matmul(x, w, name="y")
        init = v1.global_variables_initializer()
    return g, x, w, y, init


def test_session_runs_nested_fetches_with_feeds():
    g, x, w, y, init = _graph()
    Pair = collections.namedtuple("Pair", "a b")
    with tw.Session(graph=g) as sess:
        sess.run(init)
        out = sess.run({"y": y, "both": Pair(y, "y:0"), "list": [y]},
                       feed_dict={x: [[1.0, 1.0]]})
    assert out["y"].tolist() == [[3.0]]
    assert isinstance(out["both"], Pair) and out["both"].b.tolist() == [[3.0]]
    assert out["list"][0].tolist() == [[3.0]]


def test_initializer_resets_variables():
    g, x, w, y, init = _graph()
    sess = v1.Session(graph=g)
    sess.run(init)
    w.assign([[0.0], [0.0]])
    sess.run(init)
    assert sess.run(y, feed_dict={"x:0": np.ones((1, 2), np.float32)}).tolist() == [[3.0]]
    assert sess.run(w).tolist() == [[1.0], [2.0]]


def test_missing_feed_and_foreign_fetch_errors():
    g, x, w, y, init = _graph()
    sess = v1.Session(graph=g)
    with pytest.raises(tw.errors.InvalidArgumentError, match="must feed a value for placeholder"):
        sess.run(y)
    other = tw.Graph()
    with other.as_default():
        z = tw.constant(1.0)
    with pytest.raises(ValueError, match="not an element of this graph"):
        sess.run(z)
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        sess.run(y, feed_dict={x: np.ones((2, 3), np.float32)})


def test_placeholder_needs_a_graph():
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        v1.placeholder(tw.float32)


def test_compat_v1_falls_back_to_tf2_names():
    assert v1.matmul is tw.matmul
    assert tw.Session is v1.Session


def test_disable_eager_execution_builds_into_the_default_graph():
    v1.disable_eager_execution()
    try:
        assert not tw.executing_eagerly()
        x = v1.placeholder(tw.float32, [2], name="x_tf1")
        y = x * 2.0
        with v1.Session() as sess:
            assert sess.run(y, feed_dict={x: [1.0, 2.0]}).tolist() == [2.0, 4.0]
    finally:
        v1.enable_eager_execution()
        v1.reset_default_graph()
    assert tw.executing_eagerly()


def test_run_compiles_what_the_fetches_need_once_per_fetches_and_feeds():
    g = tw.Graph()
    with g.as_default():
        v = tw.Variable(1.0)
        x = v1.placeholder(tw.float32, [])
        y = x * 2.0 + v
        bump = v.assign_add(10.0)          # stateful, but nothing fetched below needs it
        z = y * 3.0
    sess = v1.Session(graph=g)
    assert sess.run(y, {x: 1.0}) == 3.0
    assert sess.run(y, {x: 2.0}) == 5.0
    assert len(sess._programs) == 1        # same fetches and feed keys: one compiled program
    assert float(v.numpy()) == 1.0         # the unfetched assignment never ran
    assert sess.run(z, {y: 4.0}) == 12.0   # any tensor can be fed; x is not needed then
    sess.run(bump)
    assert sess.run([y, v], {x: 0.0}) == [11.0, 11.0]
    assert len(sess._programs) == 3
    src = sess._program([y], [x]).source
    assert "AssignAddVariableOp" not in src and "def session_run" in src


def test_missing_feed_is_a_clear_error():
    g = tw.Graph()
    with g.as_default():
        x = v1.placeholder(tw.float32, [2], name="x")
        y = x + 1.0
    with pytest.raises(tw.errors.InvalidArgumentError, match="must feed a value for "
                       "placeholder tensor 'x'"):
        v1.Session(graph=g).run(y)


def test_a_remote_target_is_refused():
    with pytest.raises(tw.errors.UnimplementedError, match="in process"):
        v1.Session("grpc://localhost:2222")
