"""``tw.Module``: a named container that finds the variables and sub-modules it holds.

Tracking is by attribute walk (as TensorFlow's ``tf.Module``): every Variable or Module reachable
through an attribute, list, tuple or dict belongs to the module. The same walk gives checkpoints
their object graph (``_trackable_children``), so a variable is saved under its attribute path.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from ..core.props import readonly
from ..graph.graph import name_scope as _name_scope
from ..ops.variables import Variable


def camel_to_snake(name: str) -> str:
    """``MyDenseLayer`` -> ``my_dense_layer`` (Keras' default layer names).

    Args:
        name: a class name.

    Returns:
        The snake-case name.
    """
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def walk_children(prefix: str, value, out: dict) -> None:
    """Adds the trackables inside ``value`` (a container or a trackable) to ``out`` by path.

    Args:
        prefix: the path of ``value``.
        value: an attribute value.
        out: dict path -> trackable, filled in place.
    """
    if isinstance(value, Variable) or hasattr(value, "_trackable_children"):
        out[prefix] = value
    elif isinstance(value, dict):
        for k in sorted(value, key=str):
            walk_children(f"{prefix}/{k}", value[k], out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            walk_children(f"{prefix}/{i}", v, out)


def _skip_attr(name: str) -> bool:
    # Bookkeeping that must not become part of the object graph (restores, caches, parents).
    return name in _UNTRACKED or name.startswith("_tw_")


_UNTRACKED = frozenset({"_deferred_restores", "_outbound", "_inbound", "_call_fn_cache"})


class Module:
    """Base class for objects that own variables and other modules (``tw.Module``).

    Args:
        name: the module name (default: the class name in snake case); it must be a valid
            Python identifier, like TensorFlow's.
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not re.match(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$", name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid "
                             "Python identifiers (e.g. a valid class name).")
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_scope_name", name)

    def __getattr__(self, attr: str):
        # Only reached for attributes that are missing: a subclass whose __init__ never
        # called super().__init__() still gets its default name, as in TensorFlow.
        if attr in ("_name", "_scope_name"):
            name = camel_to_snake(type(self).__name__)
            object.__setattr__(self, "_name", name)
            object.__setattr__(self, "_scope_name", name)
            return name
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")

    # ----- naming -----
    name = readonly("_name", "The module's name.")

    @property
    def name_scope(self):
        """A name scope for ops created by this module (``with self.name_scope:``)."""
        return _name_scope(self._scope_name)

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorator entering the module's name scope around ``method``.

        Args:
            method: a method of a Module subclass.

        Returns:
            The wrapped method.
        """
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with _name_scope(self._scope_name):
                return method(self, *args, **kwargs)
        return wrapped

    # ----- tracking -----
    def _trackable_children(self) -> dict:
        """Path -> Variable or trackable object, for every attribute holding one."""
        out: dict = {}
        for key in sorted(vars(self)):
            if _skip_attr(key):
                continue
            walk_children(key, vars(self)[key], out)
        return out

    def _flatten(self, predicate: Callable[[Any], bool]) -> list:
        seen: set = set()
        out: list = []

        def visit(obj) -> None:
            for child in obj._trackable_children().values():
                if id(child) in seen:
                    continue
                seen.add(id(child))
                if predicate(child):
                    out.append(child)
                if not isinstance(child, Variable):
                    visit(child)
        visit(self)
        return out

    @property
    def variables(self) -> tuple:
        """Every variable of this module and its sub-modules (deduplicated)."""
        return tuple(self._flatten(lambda x: isinstance(x, Variable)))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable variables of this module and its sub-modules."""
        return tuple(self._flatten(lambda x: isinstance(x, Variable) and x.trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        """The variables of this module and its sub-modules that are not trainable."""
        return tuple(self._flatten(lambda x: isinstance(x, Variable) and not x.trainable))

    @property
    def submodules(self) -> tuple:
        """Every module reachable from this one (not including itself)."""
        return tuple(self._flatten(lambda x: isinstance(x, Module)))

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object name={self._name!r}>"
