"""``tw.experimental``: ExtensionType, the float8/float4/int4/int2 dtypes (re-exports)."""
from .dtypes_experimental import (  # noqa: F401
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
from .ops import extension_type  # noqa: F401  (tw.experimental.extension_type.as_dict)
from .ops.extension_type import (  # noqa: F401
    BatchableExtensionType,
    ExtensionType,
    ExtensionTypeSpec,
)

__all__ = ["BatchableExtensionType", "ExtensionType", "ExtensionTypeSpec", "extension_type",
           "float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
           "float8_e5m2", "float8_e5m2fnuz", "int2", "int4", "uint2", "uint4"]
