"""``tw.autograph``: Python control flow on tensors becomes graph control flow.

``tw.function`` converts the functions it traces with ``convert_for_function`` (it imports this
package: AutoGraph sits below ``function/`` in the layers): ``if``/``while``/``for`` on symbolic
tensors become If/While ops; on Python values they stay Python.
"""
from __future__ import annotations

import functools
from collections.abc import Callable

from . import experimental, operators
from .conversion import (
    AutoGraphError,
    AutoGraphWarning,
    convert,
    do_not_convert,
    strict_conversion,
    to_code,
)


def convert_for_function(fn: Callable, options=None) -> Callable:
    """The conversion ``tw.function`` applies to the Python function it traces.

    Args:
        fn: the Python function.
        options: the function's ``experimental_autograph_options`` (``Feature.STRICT``
            makes code that cannot be converted an error, also in functions it calls).

    Returns:
        The converted function (``fn`` itself where there is nothing to convert).
    """
    if not experimental.is_strict(options):
        return convert(fn)
    converted = convert(fn, strict=True)

    @functools.wraps(converted)
    def strict_call(*args, **kwargs):
        # Functions converted while this one is traced are strict too.
        with strict_conversion():
            return converted(*args, **kwargs)
    return strict_call


__all__ = ["to_code", "convert", "do_not_convert", "experimental", "operators", "AutoGraphError",
           "AutoGraphWarning", "convert_for_function"]
