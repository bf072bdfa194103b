"""Composite values: ``TypeSpec`` and ``CompositeTensor`` (see ``type_spec``)."""
from .type_spec import BatchableTypeSpec, CompositeTensor, TypeSpec, is_composite

__all__ = ["BatchableTypeSpec", "CompositeTensor", "TypeSpec", "is_composite"]
