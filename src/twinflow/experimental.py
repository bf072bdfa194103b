"""``tw.experimental``: ExtensionType, the float8/float4/int4/int2 dtypes (re-exports); ``numpy``
(``tw.experimental.numpy``, loaded on first use)."""
import importlib as _importlib

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

# Heavy areas load on first use (as twinflow/__init__.py's _LAZY): name -> module.
_LAZY = {"numpy": "twinflow.numpy_api.tnp"}


def __getattr__(name: str):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'twinflow.experimental' has no attribute {name!r}")
    value = _importlib.import_module(target)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))
