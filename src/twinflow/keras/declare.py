"""Helpers for siblings declared from one table instead of written out each (the Loss and
metric wrapper classes, the RNN cells, the normalization and lookup layers, the backend's
convolutions...): ``with_args``/``args_section``/``docstring`` write each sibling's ``Args:``
section from shared descriptions, naming only what differs; ``bound_init`` makes a constructor
with the signature Keras gives the class and ``make_class`` binds a generated class to its
module; ``settable`` is ``core.props.readonly`` with a setter."""
from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from operator import attrgetter
from typing import Any

REQUIRED = inspect.Parameter.empty   # a ``bound_init`` argument without a default


def args_section(docs: dict, indent: int = 4) -> str:
    """The body of a Google-style ``Args:`` section.

    Args:
        docs: argument name -> description, in order.
        indent: the docstring's indentation (4 for a class or function, 8 for a method).

    Returns:
        The lines, each argument's description wrapped at 96 columns.
    """
    return "".join(textwrap.fill(f"{k}: {v}", 96, initial_indent=" " * (indent + 4),
                                 subsequent_indent=" " * (indent + 8)) + "\n"
                   for k, v in docs.items())


def docstring(summary: str, args: dict) -> str:
    """A class docstring: ``summary`` wrapped, then the ``Args:`` section of ``args``.

    Args:
        summary: the first paragraph.
        args: argument name -> description, in order.

    Returns:
        The docstring.
    """
    return f"{textwrap.fill(summary, 96, subsequent_indent='    ')}\n\n    Args:\n" \
           f"{args_section(args)}"


def with_args(*tables: dict, **changes: str | None) -> Callable:
    """A decorator writing the ``Args:`` section of a class's or a function's docstring
    (before its ``Returns:`` section, if any).

    The entries come from ``tables`` (merged in order) and ``changes``, ordered as the function
    (or the class's ``__init__``) takes them; ``**kwargs`` comes last. Only the parameters are
    documented, unless there is a ``**kwargs`` (then the table's others are what it passes
    on).

    Args:
        *tables: descriptions shared by the siblings, name -> text (``"**kwargs"`` too).
        **changes: this one's differences: a text replaces or adds an argument, None drops
            one.

    Returns:
        The decorator.
    """
    merged = {k: v for k, v in {**{k: v for t in tables for k, v in t.items()},
                                **changes}.items() if v is not None}

    def decorate(obj):
        sig = inspect.signature(obj.__init__ if isinstance(obj, type) else obj).parameters
        params = [f"**{k}" if p.kind is p.VAR_KEYWORD else k for k, p in sig.items()]
        docs = {k: v for k, v in merged.items() if k in params or "**kwargs" in params}
        docs = dict(sorted(docs.items(), key=lambda kv: (
            kv[0] == "**kwargs", params.index(kv[0]) if kv[0] in params else len(params))))
        doc = (obj.__doc__ or "").rstrip()
        pad = " " * (8 if "\n\n        Returns:" in doc else 4)   # a method's or a function's
        summary, returns, rest = doc.partition(f"\n\n{pad}Returns:")
        obj.__doc__ = f"{summary}\n\n{pad}Args:\n{args_section(docs, len(pad))}" + \
            (f"\n{pad}Returns:{rest}\n" if returns else "")
        return obj
    return decorate


def bound_init(params: list[tuple[str, Any]], body: Callable) -> Callable:
    """An ``__init__`` whose signature is ``params`` and which calls ``body(self, **arguments)``
    with every argument bound (defaults filled in).

    Args:
        params: ``(name, default)`` pairs in order (``REQUIRED``: no default).
        body: does the work, given the instance and the arguments by name.

    Returns:
        The ``__init__`` function, its ``__signature__`` set (``inspect.signature`` of the
        class shows ``params``).
    """
    P = inspect.Parameter
    sig = inspect.Signature([P("self", P.POSITIONAL_OR_KEYWORD)] + [
        P(k, P.POSITIONAL_OR_KEYWORD, default=d) for k, d in params])

    def __init__(self, *args, **kwargs) -> None:
        try:
            bound = sig.bind(self, *args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{type(self).__name__}: {e}") from None
        bound.apply_defaults()
        body(self, **{k: v for k, v in bound.arguments.items() if k != "self"})
    __init__.__signature__ = sig
    return __init__


def make_class(name: str, bases: tuple, module: str, doc: str, namespace: dict) -> type:
    """``type(name, bases, namespace)`` as if the class were written in ``module``: its
    ``__module__``, ``__qualname__`` and docstring set, and its functions' names qualified
    (help, pickling and the public-API checks find them there).

    Args:
        name: the class name.
        bases: the base classes.
        module: the module the class is bound in (``__name__`` of the caller).
        doc: the class docstring.
        namespace: the class body (methods, attributes).

    Returns:
        The class.
    """
    for value in namespace.values():
        if inspect.isfunction(value):
            value.__qualname__ = f"{name}.{value.__name__}"
            value.__module__ = module
    return type(name, bases, {**namespace, "__module__": module, "__qualname__": name,
                              "__doc__": doc})


def settable(field: str, doc: str, convert: Callable | None = None) -> property:
    """A property reading and assigning ``self.<field>`` (``readonly``'s settable sibling).

    Args:
        field: the attribute, e.g. ``"_tw_history"``.
        doc: the property's docstring.
        convert: applied to an assigned value first (``bool``...).

    Returns:
        The property.
    """
    def assign(self, value) -> None:
        setattr(self, field, value if convert is None else convert(value))
    return property(attrgetter(field), assign, doc=doc)


def refuse_unknown(method: str, kwargs: dict) -> None:
    """Raises TypeError naming the keywords ``method`` does not take (Keras 3's message).

    Args:
        method: the method's name.
        kwargs: the keywords left over.
    """
    if kwargs:
        raise TypeError(f"{method}() got an unexpected keyword argument "
                        f"'{sorted(kwargs)[0]}'")
