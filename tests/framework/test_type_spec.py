"""TypeSpec / CompositeTensor: tw.nest(expand_composites=True), spec compatibility, and
composites through tw.function (arguments, results, captures, input_signature)."""
from __future__ import annotations

import pytest

import twinflow as tw


def rt():
    return tw.ragged.constant([[1.0, 2.0], [], [3.0]])


def test_nest_expand_composites_roundtrip():
    x = rt()
    s = tw.sparse.eye(2)
    struct = {"r": x, "s": [s, tw.constant(1.0)]}
    assert len(tw.nest.flatten(struct)) == 3
    flat = tw.nest.flatten(struct, expand_composites=True)
    assert len(flat) == 2 + 3 + 1 and all(isinstance(t, tw.Tensor) for t in flat)
    back = tw.nest.pack_sequence_as(struct, flat, expand_composites=True)
    assert back["r"].to_list() == x.to_list()
    assert back["s"][0].indices.numpy().tolist() == [[0, 0], [1, 1]]
    doubled = tw.nest.map_structure(lambda t: t * 2 if t.dtype.is_floating else t, struct,
                                    expand_composites=True)
    assert doubled["r"].to_list() == [[2.0, 4.0], [], [6.0]]
    specs = tw.nest.flatten(x._type_spec, expand_composites=True)
    assert [repr(p) for p in specs] == [
        "TensorSpec(shape=(None,), dtype=tw.float32, name=None)",
        "TensorSpec(shape=(4,), dtype=tw.int64, name=None)"]
    with pytest.raises(TypeError, match="same type"):
        tw.nest.assert_same_structure(x, s, expand_composites=True)


def test_spec_compatibility_and_supertype():
    a = tw.RaggedTensorSpec([3, None], tw.float32, 1)
    b = tw.RaggedTensorSpec([2, None], tw.float32, 1)
    assert a.is_compatible_with(rt()) and not b.is_compatible_with(rt())
    assert a.most_specific_common_supertype([b]) == tw.RaggedTensorSpec([None, None], tw.float32)
    assert a.most_specific_common_supertype([tw.SparseTensorSpec([3, 3])]) is None
    assert hash(a) == hash(tw.RaggedTensorSpec([3, None], tw.float32, 1))
    assert isinstance(tw.TensorSpec([2]), tw.TypeSpec)
    assert tw.type_spec_from_value(tw.constant([1, 2])) == tw.TensorSpec([2], tw.int32)


def test_ragged_argument_traces_once_for_different_row_lengths():
    @tw.function
    def f(x):
        return x * 2.0, tw.reduce_sum(x.flat_values)

    out, total = f(rt())
    assert out.to_list() == [[2.0, 4.0], [], [6.0]] and float(total) == 6.0
    out, total = f(tw.ragged.constant([[1.0], [2.0, 3.0, 4.0], [5.0, 6.0]]))
    assert out.to_list() == [[2.0], [4.0, 6.0, 8.0], [10.0, 12.0]] and float(total) == 21.0
    assert f.experimental_get_tracing_count() == 1
    sig = f.get_concrete_function(rt()).pretty_printed_signature()
    assert "RaggedTensorSpec(TensorShape([3, None]), tw.float32, 1, tw.int64)" in sig


def test_input_signature_with_specs():
    @tw.function(input_signature=[tw.RaggedTensorSpec([None, None], tw.float32, 1)])
    def g(x):
        return x.to_tensor()

    assert g(rt()).numpy().tolist() == [[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]
    assert g(tw.ragged.constant([[1.0, 2.0, 3.0]])).numpy().tolist() == [[1.0, 2.0, 3.0]]
    assert g.experimental_get_tracing_count() == 1
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        g(tw.ragged.constant([[1, 2]]))


def test_captured_composite_and_composite_result():
    cap = rt()
    sp = tw.sparse.eye(2)

    @tw.function
    def k():
        return cap + 1.0, tw.sparse.map_values(tw.multiply, sp, 3.0)

    r, s = k()
    assert r.to_list() == [[2.0, 3.0], [], [4.0]]
    assert s.values.numpy().tolist() == [3.0, 3.0]


def test_gradient_through_function_with_ragged_argument():
    v = tw.Variable([1.0, 2.0, 3.0])

    @tw.function
    def loss(x):
        return tw.reduce_sum((x * v[0]).flat_values)

    with tw.GradientTape() as t:
        y = loss(rt())
    assert float(y) == 6.0
    assert t.gradient(y, v).numpy().tolist() == [6.0, 0.0, 0.0]
