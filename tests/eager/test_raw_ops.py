"""tw.raw_ops: registered ops by TensorFlow name, keyword arguments only."""
import numpy as np
import pytest

import twinflow as tw


def test_raw_ops_bind_inputs_and_attrs_by_name():
    out = tw.raw_ops.MatMul(a=[[1.0, 2.0]], b=[[3.0], [4.0]], transpose_a=False)
    np.testing.assert_allclose(out, [[11.0]])
    # TensorFlow's names where twinflow's differ; a tensor where TensorFlow has an input
    s = tw.raw_ops.Sum(input=[[1.0, 2.0]], reduction_indices=tw.constant([1]), keep_dims=True)
    np.testing.assert_allclose(s, [[3.0]])
    np.testing.assert_array_equal(tw.raw_ops.ConcatV2(values=[[1], [2]], axis=0), [1, 2])
    assert tw.raw_ops.Cast(x=[1, 2], DstT=tw.float32).dtype == tw.float32
    assert "MatMul" in dir(tw.raw_ops)


def test_raw_ops_in_a_function():
    @tw.function
    def f(x):
        return tw.raw_ops.Mul(x=x, y=x, name="square")
    assert float(f(tw.constant(3.0))) == 9.0
    assert any(op.name == "square" for op in
               f.get_concrete_function(tw.constant(1.0)).graph.get_operations())


def test_raw_ops_refuse_bad_calls():
    with pytest.raises(TypeError, match="keyword arguments"):
        tw.raw_ops.AddV2(1.0, 2.0)
    with pytest.raises(TypeError, match="missing required argument"):
        tw.raw_ops.AddV2(x=1.0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        tw.raw_ops.AddV2(x=1.0, y=2.0, z=3.0)
    with pytest.raises(TypeError, match="does not match"):
        tw.raw_ops.AddV2(x=1.0, y=2.0, T=tw.int32)
    with pytest.raises(AttributeError, match="no op"):
        tw.raw_ops.NoSuchOp  # noqa: B018
