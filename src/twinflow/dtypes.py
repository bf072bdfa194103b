"""``tw.dtypes``: the dtype objects, ``as_dtype`` and the casts (re-exports).

Internal code imports ``twinflow.core.dtypes``; this module is only the public namespace, as
TensorFlow's ``tf.dtypes``; ``experimental`` holds the float8/float4/int4/int2 types
(docs/dtypes.md).
"""
from . import dtypes_experimental as experimental  # noqa: F401
from .core.dtypes import (  # noqa: F401
    QUANTIZED_DTYPES,
    DType,
    as_dtype,
    bfloat16,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from .core.dtypes import bool_ as bool  # noqa: F401
from .ops.array.misc import saturate_cast  # noqa: F401
from .ops.math.cast import cast  # noqa: F401
from .ops.math.complex import complex  # noqa: F401
