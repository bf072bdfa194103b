"""Args sections shared by sibling classes and functions (the RNN cells, the loss functions and
Loss classes, the pooling layers...): one table of argument descriptions, from which each
sibling's docstring gets its ``Args:`` section, naming only what differs."""
from __future__ import annotations

import textwrap
from collections.abc import Callable


def args_section(docs: dict) -> str:
    """The body of a Google-style ``Args:`` section (indented for a class or function).

    Args:
        docs: argument name -> description, in order.

    Returns:
        The lines, each argument's description wrapped at 96 columns.
    """
    return "".join(textwrap.fill(f"{k}: {v}", 96, initial_indent=" " * 8,
                                 subsequent_indent=" " * 12) + "\n" for k, v in docs.items())


def with_args(table: dict, **changes: str | None) -> Callable[[type], type]:
    """A class decorator appending an ``Args:`` section to the class's docstring.

    Args:
        table: the siblings' shared descriptions, name -> text, in order (``"**kwargs"`` is
            kept last).
        **changes: this class's differences: a text replaces or adds an argument, None drops
            one.

    Returns:
        The decorator.
    """
    docs = {k: v for k, v in {**table, **changes}.items() if v is not None}
    if "**kwargs" in docs:
        docs["**kwargs"] = docs.pop("**kwargs")

    def decorate(cls: type) -> type:
        cls.__doc__ = f"{(cls.__doc__ or '').rstrip()}\n\n    Args:\n{args_section(docs)}"
        return cls
    return decorate
