"""``tw.experimental``: ExtensionType, Optional, DLPack, execution switches (re-exports)."""
import types as _types

from .core import lazy as _lazy
from .eager import dlpack as _dlpack
from .function.runtime_options import (  # noqa: F401
    async_clear_error,
    async_scope,
    enable_strict_mode,
    function_executor_type,
)
from .ops import extension_type  # noqa: F401  (tw.experimental.extension_type.as_dict)
from .ops.extension_type import (  # noqa: F401
    BatchableExtensionType,
    ExtensionType,
    ExtensionTypeSpec,
)

__all__ = ["BatchableExtensionType", "ExtensionType", "ExtensionTypeSpec", "extension_type",
           "dlpack", "async_clear_error", "async_scope", "enable_strict_mode",
           "function_executor_type"]

dlpack = _types.SimpleNamespace(to_dlpack=_dlpack.to_dlpack, from_dlpack=_dlpack.from_dlpack)


def __getattr__(name: str):
    # Optional lives with tw.data, which is loaded on first use (import twinflow stays fast).
    if name == "Optional":
        optional = globals()["Optional"] = _lazy.get("Optional")
        return optional
    raise AttributeError(f"module 'twinflow.experimental' has no attribute {name!r}")
