"""bfloat16, float8, int4 and quantized values in files: twinflow's checkpoints, TensorFlow's
checkpoints (files TensorFlow 2.21 wrote: ``tests/fixtures/dtypes/make_fixtures.py``) and
TensorProtos."""
from __future__ import annotations

import pathlib

import ml_dtypes
import numpy as np
import pytest

import twinflow as tw
from twinflow.io import protos

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "dtypes"
E = tw.dtypes.experimental
EXPECTED = {
    "bf": (tw.bfloat16, [1.5, -2.25, 3.0e20]),
    "f8": (E.float8_e4m3fn, [0.5, -448.0]),
    "i4": (E.int4, [-8, 7, 3]),
    "q": (tw.qint8, [3, -4]),
}


def _module():
    m = tw.Module()
    for k, (dt, vals) in EXPECTED.items():
        setattr(m, k, tw.Variable(tw.cast(tw.constant(vals, tw.float32), dt)
                                  if dt is not tw.qint8 else tw.constant(vals, dt)))
    return m


def _check(m):
    for k, (dt, vals) in EXPECTED.items():
        v = getattr(m, k)
        assert v.dtype is dt, k
        np.testing.assert_allclose(np.asarray(v.numpy()).astype(np.float64), vals, rtol=1e-2)


@pytest.mark.parametrize("fmt", ["twinflow", "tensorflow"])
def test_checkpoint_round_trip(tmp_path, fmt):
    m = _module()
    path = tw.train.Checkpoint(m=m).write(str(tmp_path / "ck"), format=fmt)
    for k, (dt, _) in EXPECTED.items():
        getattr(m, k).assign(tw.zeros([len(EXPECTED[k][1])], dt)
                             if dt is not tw.qint8 else tw.constant([0, 0], dt))
    tw.train.Checkpoint(m=m).read(path)
    _check(m)


def test_reads_tensorflows_checkpoint():
    m = _module()
    for k in EXPECTED:
        getattr(m, k).assign(getattr(_module(), k))
    tw.train.Checkpoint(m=m).read(str(FIXTURES / "tf_ckpt"))
    _check(m)
    reader = tw.train.load_checkpoint(str(FIXTURES / "tf_ckpt"))
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["m/bf/.ATTRIBUTES/VARIABLE_VALUE"] is tw.bfloat16
    assert dtypes["m/q/.ATTRIBUTES/VARIABLE_VALUE"] is tw.qint8
    assert reader.get_tensor("m/bf/.ATTRIBUTES/VARIABLE_VALUE").dtype == ml_dtypes.bfloat16


def test_tensor_protos_tensorflow_wrote():
    cls = protos.message_class("TensorProto")
    for line in (FIXTURES / "tensor_protos.txt").read_text().split("\n"):
        if not line:
            continue
        key, hexed = line.split()
        arr = tw.make_ndarray(cls.FromString(bytes.fromhex(hexed)))
        dt, vals = EXPECTED[key]
        if dt is not tw.qint8:  # (TensorFlow's make_tensor_proto writes qint8 values as int8)
            assert tw.as_dtype(arr.dtype) is dt, key
        np.testing.assert_allclose(arr.astype(np.float64), vals, rtol=1e-2)
        # and back: the same bytes as TensorFlow's
        again = tw.make_tensor_proto(tw.constant(arr)).SerializeToString()
        assert again.hex() == hexed or key == "i4", key  # (int4: int_val vs tensor_content)


def test_serialize_and_parse_tensor():
    for dt in (tw.bfloat16, E.float8_e5m2, E.uint4, tw.quint8):
        x = tw.cast(tw.constant([1.0, 2.0, 3.0]), dt)
        back = tw.io.parse_tensor(tw.io.serialize_tensor(x), dt)
        assert back.dtype is dt
        np.testing.assert_array_equal(back.numpy(), x.numpy())
