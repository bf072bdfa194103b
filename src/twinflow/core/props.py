"""Read-only properties declared in one line: ``dtype = readonly("_dtype", "The dtype.")``.

Many classes (LinearOperators, policies, strategies, variables, queues, functions) expose private
fields as read-only properties. Written out, each is four lines of the same shape; a run of them
says nothing a reader needs and repeats across the tree. ``readonly`` is one line per field and
reads the field through ``operator.attrgetter`` (C code, as fast as a plain attribute read).
"""
from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter


def readonly(field: str, doc: str | None = None, *, copy: Callable | None = None) -> property:
    """A property returning ``self.<field>`` (or ``copy(self.<field>)``), with no setter.

    Args:
        field: the attribute to read, e.g. ``"_dtype"``; dotted paths (``"_spec.shape"``) work.
        doc: the property's docstring.
        copy: applied to the value before it is returned (``dict``, ``list``, ``tuple``) so that
            callers cannot change the object's own container.

    Returns:
        The property.
    """
    read = attrgetter(field)
    if copy is None:
        return property(read, doc=doc)

    def read_copy(self):
        return copy(read(self))
    return property(read_copy, doc=doc)

