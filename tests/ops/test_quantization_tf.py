"""``tw.quantization``'s integer quantization against TensorFlow 2.21: every mode, round mode,
range and error of ``tests/fixtures/quantization/tf_quantization.json.gz`` (made by the
``make_fixtures.py`` beside it), eagerly and inside ``tw.function``."""
from __future__ import annotations

import gzip
import json
import pathlib

import numpy as np
import pytest

import twinflow as tw

FIXTURE = pathlib.Path(__file__).parents[1] / "fixtures" / "quantization" / \
    "tf_quantization.json.gz"
CASES = json.loads(gzip.decompress(FIXTURE.read_bytes()))
q = tw.quantization
# Fixture cases twinflow answers differently, with why (docs/tf_differences.md).
DIFFERENT = {
    ("quantized_concat", "qint32", "[-1.0, 0.0]"): "TensorFlow's qint32 requantization rounds "
                                                  "values near a range's end by one level "
                                                  "differently",
}


def _call(case, graph: bool):
    fn, a, kw = case["fn"], case["args"], dict(case["kwargs"])

    def run(*xs):
        if fn == "quantize":
            return q.quantize(xs[0], a[1], a[2], getattr(tw, kw.pop("T")), **kw)
        if fn == "dequantize":
            return q.dequantize(xs[0], a[1], a[2], **{k: v for k, v in kw.items() if k != "T"})
        if fn in ("quantize_and_dequantize", "quantize_and_dequantize_v2"):
            return getattr(q, fn)(xs[0], a[1], a[2], **kw)
        if fn.endswith("_grad"):
            x = xs[0]
            with tw.GradientTape() as tape:
                tape.watch(x)
                y = getattr(q, fn[:-5])(x, a[1], a[2], **kw)
            return tape.gradient(y, x, output_gradients=tw.ones_like(y) * 2.0)
        return q.quantized_concat(kw.get("axis", 0), list(xs), a[2], a[3])

    if fn == "dequantize":
        inputs = [tw.constant(a[0], getattr(tw, kw["T"]))]
    elif fn == "quantized_concat":
        inputs = [tw.constant(a[0], getattr(tw, kw["T"])), tw.constant(a[1], getattr(tw, kw["T"]))]
    else:
        inputs = [tw.constant(a[0], tw.float32)]
    return tw.function(run)(*inputs) if graph else run(*inputs)


def _id(case) -> str:
    return f"{case['fn']}-{case['kwargs']}-{case['args'][1:]}"


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
def test_against_tensorflow(graph):
    checked = 0
    for case in CASES:
        key = (case["fn"], case["kwargs"].get("T"), str(case["args"][2]))
        if key in DIFFERENT:
            continue
        if "error" in case:
            with pytest.raises(getattr(tw.errors, case["error"])):
                _call(case, graph)
            continue
        got = _call(case, graph)
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        want = case["out"] if isinstance(case["out"], list) else [case["out"]]
        for g, w in zip(got, want, strict=True):
            assert g.dtype.name == w["dtype"] and list(g.shape) == w["shape"], _id(case)
            np.testing.assert_allclose(np.asarray(g.numpy(), np.float64).reshape(-1),
                                       w["values"], rtol=1e-6, atol=0, err_msg=_id(case))
        checked += 1
    assert checked > 200


def test_round_trip_and_errors_name_the_problem():
    x = tw.constant([0.0, 0.5, 1.0, 2.0])
    out, lo, hi = q.quantize(x, 0.0, 2.0, tw.quint8)
    assert out.dtype is tw.quint8 and out.numpy().tolist() == [0, 64, 128, 255]
    back = q.dequantize(out, lo, hi)
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=2.0 / 255)
    with pytest.raises(tw.errors.InvalidArgumentError, match="HALF_TO_EVEN"):
        q.quantize(x, 0.0, 2.0, tw.qint8, round_mode="HALF_TO_EVEN")
    with pytest.raises(tw.errors.InvalidArgumentError, match="1-D"):
        q.quantize(x, 0.0, 2.0, tw.qint8, mode="SCALED", axis=0)
    with pytest.raises(ValueError, match="mode"):
        q.quantize(x, 0.0, 2.0, tw.qint8, mode="MAX_FIRST")
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_bits"):
        q.quantize_and_dequantize_v2(x, 0.0, 1.0, num_bits=0)
    with pytest.raises(tw.errors.NotFoundError, match="quint8 and qint32"):
        q.quantized_concat(0, [tw.constant([1], tw.qint8)] * 2, [0.0, 0.0], [1.0, 1.0])
