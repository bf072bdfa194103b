"""``tw.experimental``: ExtensionType (re-exports)."""
from .ops import extension_type  # noqa: F401  (tw.experimental.extension_type.as_dict)
from .ops.extension_type import (  # noqa: F401
    BatchableExtensionType,
    ExtensionType,
    ExtensionTypeSpec,
)

__all__ = ["BatchableExtensionType", "ExtensionType", "ExtensionTypeSpec", "extension_type"]
