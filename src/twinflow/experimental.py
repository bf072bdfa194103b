"""``tw.experimental``: ExtensionType (re-exports)."""
from .ops.extension_type import ExtensionType, ExtensionTypeSpec  # noqa: F401

__all__ = ["ExtensionType", "ExtensionTypeSpec"]
