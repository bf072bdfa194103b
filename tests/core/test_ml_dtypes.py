"""bfloat16, the float8/float4/int4/int2 and the quantized dtypes: their DType properties (the
values TensorFlow 2.21 reports), names, enums and the lazy load of ``ml_dtypes``."""
from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import twinflow as tw
from twinflow.core import dtypes

# name: (enum, is_floating, is_integer, is_quantized, is_unsigned, size, min, max), as
# TensorFlow 2.21 reports them.
TF_PROPERTIES = {
    "bfloat16": (14, True, False, False, False, 2, -3.38953e38, 3.38953e38),
    "float8_e4m3fn": (25, True, False, False, False, 1, -448, 448),
    "float8_e5m2": (24, True, False, False, False, 1, -57344, 57344),
    "float8_e4m3fnuz": (26, True, False, False, False, 1, -240, 240),
    "float8_e5m2fnuz": (28, True, False, False, False, 1, -57344, 57344),
    "float8_e4m3b11fnuz": (27, True, False, False, False, 1, -30, 30),
    "float4_e2m1fn": (33, True, False, False, False, 1, -6, 6),
    "int4": (29, False, True, False, False, 1, -8, 7),
    "uint4": (30, False, True, False, True, 1, 0, 15),
    "int2": (31, False, True, False, False, 1, -2, 1),
    "uint2": (32, False, True, False, True, 1, 0, 3),
    "qint8": (11, False, False, True, False, 1, None, None),
    "quint8": (12, False, False, True, False, 1, None, None),
    "qint16": (15, False, False, True, False, 2, None, None),
    "quint16": (16, False, False, True, False, 2, None, None),
    "qint32": (13, False, False, True, False, 4, None, None),
}
EXPERIMENTAL = ["float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
                "float8_e5m2", "float8_e5m2fnuz", "int2", "int4", "uint2", "uint4"]


@pytest.mark.parametrize("name", sorted(TF_PROPERTIES))
def test_properties_are_tensorflows(name):
    enum, floating, integer, quantized, unsigned, size, lo, hi = TF_PROPERTIES[name]
    d = tw.as_dtype(name)
    assert d.name == name and str(d) == f"<dtype: '{name}'>"
    assert (d.as_datatype_enum, d.is_floating, d.is_integer, d.is_quantized, d.is_unsigned,
            d.size) == (enum, floating, integer, quantized, unsigned, size)
    assert tw.as_dtype(enum) is d
    assert not d.is_complex and d.real_dtype is d
    if lo is None:
        with pytest.raises(TypeError, match="minimum/maximum"):
            d.min  # noqa: B018  (TensorFlow raises too)
    else:
        np.testing.assert_allclose([float(d.min), float(d.max)], [lo, hi], rtol=1e-5)


def test_numpy_types_are_ml_dtypes_and_convert_back():
    assert tw.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    for name in EXPERIMENTAL:
        d = getattr(tw.dtypes.experimental, name)
        assert d is getattr(tw.experimental, name)
        assert d.as_numpy_dtype is getattr(ml_dtypes, name)
        assert tw.as_dtype(getattr(ml_dtypes, name)) is d
        assert tw.as_dtype(np.dtype(getattr(ml_dtypes, name))) is d
    assert tw.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])  # as TensorFlow
    assert dtypes.quantized_storage(tw.quint16) == np.uint16


def test_numeric_and_differentiable():
    # TensorFlow: bfloat16 is numeric; the storage types (float8, int4...) are not.
    assert tw.bfloat16.is_numeric and tw.bfloat16.is_differentiable
    assert not tw.experimental.float8_e4m3fn.is_numeric
    assert not tw.dtypes.experimental.int4.is_numeric
    assert tw.qint8.is_numeric and not tw.qint8.is_differentiable


def test_quantized_dtypes_set():
    assert tw.dtypes.QUANTIZED_DTYPES == {tw.qint8, tw.quint8, tw.qint16, tw.quint16, tw.qint32}
    assert tw.dtypes.qint8 is tw.qint8 and tw.dtypes.bfloat16 is tw.bfloat16


def test_an_ml_dtypes_array_is_the_first_use():
    # (float8_e5m2 is NumPy kind 'f', the others 'V': both resolve before ml_dtypes is loaded)
    code = ("import numpy as np, ml_dtypes, twinflow as tw; "
            "print(tw.constant(np.array([1.5], ml_dtypes.float8_e5m2)).dtype.name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["float8_e5m2"]


def test_import_twinflow_does_not_load_ml_dtypes():
    code = ("import sys, twinflow as tw; assert tw.bfloat16.is_floating; "
            "x = tw.constant([1.0]) + 1.0; print('ml_dtypes' in sys.modules); "
            "tw.constant([1.0], tw.bfloat16); print('ml_dtypes' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]
