"""``tw.experimental``: ExtensionType, the float8/float4/int4/int2 dtypes, Optional, DLPack,
execution switches (re-exports); ``numpy`` (``tw.experimental.numpy``, loaded on first use)."""
import importlib as _importlib
import types as _types

from . import dtypes_experimental as _dtypes_experimental
from .core import lazy as _lazy
from .dtypes_experimental import *  # noqa: F403  (the float8/float4/int4/int2 dtypes)
from .eager import dlpack as _dlpack
from .function.runtime_options import (  # noqa: F401
    async_clear_error,
    async_scope,
    enable_strict_mode,
    function_executor_type,
)
from .ops import extension_type  # noqa: F401  (tw.experimental.extension_type.as_dict)
from .ops.dispatch_api import (  # noqa: F401
    dispatch_for_api,
    dispatch_for_binary_elementwise_apis,
    dispatch_for_binary_elementwise_assert_apis,
    dispatch_for_unary_elementwise_apis,
    unregister_dispatch_for,
)
from .ops.extension_batch import ExtensionTypeBatchEncoder  # noqa: F401
from .ops.extension_type import (  # noqa: F401
    BatchableExtensionType,
    ExtensionType,
    ExtensionTypeSpec,
)
from .ops.ragged.row_partition import RowPartition  # noqa: F401

__all__ = ["BatchableExtensionType", "ExtensionType", "ExtensionTypeSpec", "extension_type",
           "ExtensionTypeBatchEncoder",
           *_dtypes_experimental.__all__,
           "dlpack", "async_clear_error", "async_scope", "enable_strict_mode",
           "function_executor_type", "dispatch_for_api", "dispatch_for_binary_elementwise_apis",
           "dispatch_for_binary_elementwise_assert_apis", "dispatch_for_unary_elementwise_apis",
           "unregister_dispatch_for", "RowPartition"]

dlpack = _types.SimpleNamespace(to_dlpack=_dlpack.to_dlpack, from_dlpack=_dlpack.from_dlpack)

# Heavy areas load on first use (as twinflow/__init__.py's _LAZY): name -> module.
_LAZY = {"numpy": "twinflow.numpy_api.tnp"}


def __getattr__(name: str):
    if name == "Optional":  # tw.data's Optional (tw.data loads on first use)
        optional = globals()["Optional"] = _lazy.get("Optional")
        return optional
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'twinflow.experimental' has no attribute {name!r}")
    value = _importlib.import_module(target)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY) | {"Optional"})
