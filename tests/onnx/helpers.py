"""Exports with twinflow.onnx and runs the model with onnxruntime."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tf

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def session(model):
    """An onnxruntime session of a ModelProto (after a full check with shape inference)."""
    onnx.checker.check_model(model, full_check=True)
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def run(sess, *arrays) -> list:
    feeds = {i.name: a for i, a in zip(sess.get_inputs(), arrays)}
    return sess.run(None, feeds)


def check_same(fn, specs, shapes, opset=17, rtol=1e-5, atol=1e-5, seed=0):
    """Exports ``fn`` with ``specs`` and compares onnxruntime with twinflow on inputs of each
    of ``shapes`` (a list of one shape tuple per argument)."""
    sess = session(tf.onnx.export(fn, specs, opset=opset))
    rng = np.random.default_rng(seed)
    for arg_shapes in shapes:
        args = [rng.normal(size=s).astype(spec.dtype.np) for s, spec in zip(arg_shapes, specs)]
        want = fn(*[tf.constant(a) for a in args])
        want = [w.numpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
        got = run(sess, *args)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return sess
