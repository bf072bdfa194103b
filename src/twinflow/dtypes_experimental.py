"""``tw.dtypes.experimental``: the float8, float4, int4 and int2 dtypes (re-exports).

TensorFlow stores and casts these types (``tw.cast``, ``tw.constant(..., dtype)``, reshapes and
other data movement) but has no arithmetic kernels for them; neither has twinflow. Their NumPy
types come from ``ml_dtypes``, loaded on first use.
"""
from .core.dtypes import (  # noqa: F401
    float4_e2m1fn,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    int2,
    int4,
    uint2,
    uint4,
)

__all__ = ["float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
           "float8_e5m2", "float8_e5m2fnuz", "int2", "int4", "uint2", "uint4"]
