"""``tw.raw_ops`` keywords against TensorFlow 2.21's ``tf.raw_ops`` functions: every op that
both register takes TensorFlow's keywords (inputs and attrs, by TensorFlow's Python names), with
TensorFlow's defaults, and requires none that TensorFlow lacks.

``tests/fixtures/eager/raw_op_signatures.txt`` (``make_fixtures.py`` beside it) lists each
``tf.raw_ops`` function's keywords: the required ones and the defaulted ones with their
default. The comparison reads ``inspect.signature(tw.raw_ops.X)``, which lists the keywords
``RawOp`` accepts under TensorFlow's names.
"""
from __future__ import annotations

import ast
import inspect
import pathlib

import numpy as np
import pytest

import twinflow as tw
from tests.graph.test_schema_fidelity import assert_matches
from twinflow.eager.raw_ops import op_names, raw_op

SIGNATURES = pathlib.Path(__file__).parents[1] / "fixtures" / "eager" / "raw_op_signatures.txt"


def _default(text: str):
    value = ast.literal_eval(text)
    if isinstance(value, str) and value.startswith("dtype:"):
        return tw.as_dtype(value[len("dtype:"):])
    return value


def _tf_signatures() -> dict:
    """op -> (required keywords, {defaulted keyword: default})."""
    out = {}
    for line in SIGNATURES.read_text().splitlines():
        if line.startswith("#"):
            continue
        head, _, optional = line.partition(" |")
        name, _, required = head.partition(" ")
        defaults = {}
        for item in filter(None, optional.strip().split("; ")):
            key, _, text = item.partition("=")
            defaults[key] = _default(text)
        out[name] = ([r for r in required.split(",") if r], defaults)
    return out


TF = _tf_signatures()
CHECKED = sorted(set(TF) & set(op_names()))


def _same(a, b) -> bool:
    if isinstance(a, tw.TensorShape) and a.rank is None:
        return b is None  # (TensorFlow's unknown shape)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and bool(
            np.isclose(a, b, rtol=1e-6) or a == b)
    if isinstance(a, bytes):
        a = a.decode()
    if isinstance(b, bytes):
        b = b.decode()
    return type(a) is type(b) and a == b or a is b


def differences(name: str) -> list[str]:
    """How ``tw.raw_ops.<name>``'s keywords differ from ``tf.raw_ops.<name>``'s."""
    required, defaults = TF[name]
    params = {k: p.default for k, p in inspect.signature(raw_op(name)).parameters.items()
              if k != "name"}
    ours_required = {k for k, d in params.items() if d is inspect.Parameter.empty}
    out = []
    missing = [k for k in [*required, *defaults] if k not in params]
    if missing:
        out.append(f"TensorFlow's keywords missing: {missing}")
    extra = sorted(ours_required - set(required) - set(defaults))
    if extra:
        out.append(f"required keywords TensorFlow lacks: {extra}")
    optional_extra = sorted(k for k in set(params) - ours_required - set(required) -
                            set(defaults) if (name, k) not in TWINFLOW_EXTRAS)
    if optional_extra:
        out.append(f"defaulted keywords TensorFlow lacks: {optional_extra}")
    for k, d in defaults.items():
        if k in params and not _same(params[k], d):
            shown = "required" if params[k] is inspect.Parameter.empty else repr(params[k])
            out.append(f"{k}: default {shown} != TensorFlow's {d!r}")
    return out


# Keywords twinflow's op takes besides TensorFlow's, with a default that does what
# TensorFlow's op does: (op, keyword) -> why.
TWINFLOW_EXTRAS = {
    **{(op, "generator"): "a tw.random.Generator to draw from (None, the default: the seeds' "
                          "stream, as TensorFlow)" for op in (
        "Multinomial", "RandomGamma", "RandomPoissonV2", "RandomShuffle", "RandomStandardNormal",
        "RandomUniform", "RandomUniformInt", "TruncatedNormal")},
    **{(op, "axis"): "twinflow's op takes any axis; TensorFlow's is the default (-1, or 0 for "
                     "LinSpace), which export leaves out" for op in (
        "Softmax", "LogSoftmax", "LinSpace")},
    ("Transpose", "conjugate"): "ConjugateTranspose is Transpose(conjugate=True) here; export "
                                "leaves out the default False",
    **{(op, "batch_dims"): "twinflow's op also does batched indices; the default 0 is "
                           "TensorFlow's op" for op in ("GatherNd", "ScatterNd")},
    ("Assert", "template"): "strings between the data items of the message (twinflow's "
                            "tw.debugging.Assert; not exported); left out, data only",
    ("ReadVariableOp", "shape"): "the value's static shape (twinflow's bookkeeping, not "
                                 "exported); left out, the variable's",
}

# Ops whose keywords differ from TensorFlow's and need more than a declaration fix (their
# ops are not TensorFlow's op with other names): op -> why. Each fails the test if it comes
# to match (take it off then).
_NO_SCHEMA = ("no schema: twinflow's op has its own inputs and attrs (its graph export is "
              "also unfaithful, see tests/graph/test_schema_fidelity.py)")
ALLOWED = {
    **{op: "control flow: twinflow's op holds Python sub-graphs and takes one list of "
           "inputs, not TensorFlow's function attrs" for op in (
        "If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile",
        "StatefulPartitionedCall", "PyFunc", "EagerPyFunc")},
    **{op: _NO_SCHEMA for op in (
        "PrintV2", "DecodeCSV",
        "DecodeImage", "DecodeRaw", "DeserializeManySparse", "SerializeSparse",
        "DynamicStitch", "IteratorGetNext", "MakeIterator", "ParseExample",
        "ParseSequenceExample", "WriteSummary", "TensorListConcat", "TensorListGetItem",
        "TensorListSetItem", "TensorListStack")},
    **{op: "takes its many inputs as one list (*rest) after the first ones" for op in (
        "CTCLoss", "SampleDistortedBoundingBoxV2", "StatelessSampleDistortedBoundingBox")},
    "Bincount": "twinflow's one op is TensorFlow's Bincount, DenseBincount and the axis/"
                "binary_output forms (attrs, not TensorFlow's size input)",
    "QuantizedConcat": "the N mins and maxes are two stacked vectors (one list input)",
    "RandomIndexShuffle": "rounds is not modelled (twinflow's permutation is not "
                          "TensorFlow's either)",
}


@pytest.mark.parametrize("name", CHECKED)
def test_raw_op_keywords_match_tensorflow(name):
    assert_matches(name, differences(name), ALLOWED)


def test_allowlists_name_checked_ops():
    assert sorted(set(ALLOWED) - set(CHECKED)) == []
    assert sorted({op for op, _ in TWINFLOW_EXTRAS} - set(CHECKED)) == []


def test_most_registered_tensorflow_ops_are_checked():
    assert len(CHECKED) > 350


def test_every_registered_op_has_a_raw_op_signature():
    # (ops TensorFlow lacks too: their keywords are twinflow's declaration's)
    for name in op_names():
        params = inspect.signature(raw_op(name)).parameters
        assert "name" in params and all(p.kind is p.KEYWORD_ONLY for p in params.values())
