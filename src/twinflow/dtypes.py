"""``tw.dtypes``: the dtype objects, ``as_dtype`` and the casts (re-exports).

Internal code imports ``twinflow.core.dtypes``; this module is only the public namespace, as
TensorFlow's ``tf.dtypes``. The quantized (``qint8``...), ``bfloat16`` and float8/int4 dtypes
are not supported (see docs/tf_differences.md).
"""
from .core.dtypes import (  # noqa: F401
    DType,
    as_dtype,
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
