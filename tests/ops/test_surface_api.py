"""The top-level names of issue 16 that the registry cases cannot check: graph-mode value
dependent outputs, scopes, version, vectorized_map's errors, and TensorFlow's signatures."""
import inspect
import pathlib
import re

import numpy as np
import pytest

import twinflow as tw

SIGNATURES = pathlib.Path(__file__).parents[1] / "fixtures" / "tf_signatures.tsv"
TF_SIGNATURES = dict(line.split("\t") for line in SIGNATURES.read_text().splitlines()
                     if line and not line.startswith("#"))


def _tf_text(sig: str) -> str:
    """TensorFlow's rendering without its annotations (``images: Annotated[...]``)."""
    sig = sig.split(" -> ")[0]
    return _functions(re.sub(r": Annotated\[[^\]]*\]", "", sig))


def _functions(text: str) -> str:
    """``<function hann_window at 0x...>`` as ``hann_window``."""
    return re.sub(r"<function (\w+) at 0x[0-9a-f]+>", r"\1", text)


def _render(fn) -> str:
    parts = []
    for p in inspect.signature(fn).parameters.values():
        text = {p.VAR_POSITIONAL: f"*{p.name}", p.VAR_KEYWORD: f"**{p.name}"}.get(p.kind, p.name)
        if p.default is not p.empty:
            d = p.default
            d = f"tf.{d.name}" if isinstance(d, tw.DType) else \
                "-inf" if d == float("-inf") else repr(d)
            text += f"={d}"
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


@pytest.mark.parametrize("name", sorted(TF_SIGNATURES))
def test_signature_matches_tensorflow(name):
    obj = tw
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    assert _functions(_render(obj)) == _tf_text(TF_SIGNATURES[name])


def test_unique_with_counts_in_function():
    f = tw.function(lambda x: tw.unique_with_counts(x, out_idx=tw.int64))
    y, idx, count = f(tw.constant([4, 4, 1, 4, 2], dtype=tw.int32))
    assert y.numpy().tolist() == [4, 1, 2]
    assert idx.numpy().tolist() == [0, 0, 1, 0, 2] and idx.dtype == tw.int64
    assert count.numpy().tolist() == [3, 1, 1]


def test_sequence_mask_default_maxlen_in_function():
    f = tw.function(lambda n: tw.sequence_mask(n))
    got = f(tw.constant([2, 0, 3]))
    np.testing.assert_array_equal(got.numpy(), np.arange(3) < np.array([2, 0, 3])[:, None])


def test_histogram_rejects_nan_and_bad_range_in_both_modes():
    for fn in (lambda v: tw.histogram_fixed_width(v, [0.0, 1.0]),
               tw.function(lambda v: tw.histogram_fixed_width(v, [0.0, 1.0]))):
        with pytest.raises(tw.errors.InvalidArgumentError, match="NaN"):
            fn(tw.constant([0.5, np.nan]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="increasing"):
        tw.histogram_fixed_width([0.5], [1.0, 0.0])


def test_roll_and_searchsorted_errors():
    with pytest.raises(tw.errors.InvalidArgumentError, match="same size"):
        tw.roll([1, 2, 3], [1, 2], [0])
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        tw.roll([1, 2, 3], 1, 1)
    with pytest.raises(tw.errors.InvalidArgumentError, match="same rank"):
        tw.searchsorted([[1.0, 2.0]], [1.0])
    with pytest.raises(ValueError, match="side"):
        tw.searchsorted([1.0], [1.0], side="middle")


def test_vectorized_map_names_the_op_without_a_rule():
    with pytest.raises(ValueError, match="'Unique'.*no batching rule"):
        tw.vectorized_map(lambda r: tw.unique(r)[0], tw.ones([2, 3]))
    with pytest.raises(ValueError, match="different batch sizes"):
        tw.vectorized_map(lambda e: e[0] + e[1][0], (tw.ones([2]), tw.ones([3, 1])))


def test_vectorized_map_nested_inputs_captures_and_unbatched_outputs():
    w = tw.constant([1.0, 2.0])

    def fn(e):
        a, b = e["a"], e["b"]
        return {"sum": a * w + b, "const": w}

    out = tw.vectorized_map(fn, {"a": tw.constant([[1.0, 1.0], [2.0, 3.0]]),
                                 "b": tw.constant([10.0, 20.0])})
    np.testing.assert_allclose(out["sum"].numpy(), [[11.0, 12.0], [22.0, 26.0]])
    np.testing.assert_allclose(out["const"].numpy(), [[1.0, 2.0], [1.0, 2.0]])


def test_init_scope_lifts_out_of_a_function_trace():
    seen = []

    @tw.function
    def f():
        seen.append(tw.inside_function())
        with tw.init_scope():
            seen.append((tw.executing_eagerly(), tw.inside_function()))
            v = tw.constant(2.0) * 3.0
        assert not tw.is_symbolic_tensor(v)
        return tw.constant(1.0) + float(v.numpy())

    assert float(f()) == 7.0
    assert seen == [True, (True, False)]
    with tw.init_scope():
        assert tw.executing_eagerly()


def test_group_no_op_tuple_identity_n_in_a_graph():
    g = tw.Graph()
    with g.as_default():
        a = tw.constant(1.0)
        b = a * 2.0
        op = tw.group(a, [b], name="both")
        assert op.type == "NoOp" and {c.name for c in op.control_inputs} >= {b.op.name}
        assert tw.no_op().type == "NoOp"
        t1, t2 = tw.tuple([a, b])
        assert b.op in t1.op.control_inputs
        assert len(tw.identity_n([a, b])) == 2
        assert tw.get_static_value(b) is None or float(tw.get_static_value(b)) == 2.0
        with tw.name_scope("outer"):
            assert tw.get_current_name_scope() == "outer"
    assert tw.group(tw.constant(1.0)) is None and tw.no_op() is None
    assert tw.get_static_value(tw.constant([1, 2])).tolist() == [1, 2]


def test_version():
    assert tw.version.VERSION == tw.__version__
    assert tw.version.GIT_VERSION.startswith("v")
    assert isinstance(tw.version.GRAPH_DEF_VERSION, int)
