"""``tw.experimental``: ExtensionType, the float8/float4/int4/int2 dtypes (re-exports)."""
from .dtypes_experimental import *  # noqa: F401,F403  (the float8/float4/int4/int2 dtypes)
from .dtypes_experimental import __all__ as _dtype_names
from .ops import extension_type  # noqa: F401  (tw.experimental.extension_type.as_dict)
from .ops.extension_type import (  # noqa: F401
    BatchableExtensionType,
    ExtensionType,
    ExtensionTypeSpec,
)

__all__ = ["BatchableExtensionType", "ExtensionType", "ExtensionTypeSpec", "extension_type",
           *_dtype_names]
