"""``tw.autograph``: Python control flow on tensors becomes graph control flow.

``tw.function`` converts the functions it traces with ``convert_for_function`` (it imports this
package: AutoGraph sits below ``function/`` in the layers): ``if``/``while``/``for`` on symbolic
tensors become If/While ops; on Python values they stay Python.
"""
from __future__ import annotations

import functools
import logging
import os
import sys
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

_verbosity = [int(os.environ.get("AUTOGRAPH_VERBOSITY", "0") or 0)]
_log = logging.getLogger("twinflow.autograph")


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """How much AutoGraph logs (the ``twinflow.autograph`` logger, at INFO): 0 nothing, 1 each
    function it converts, 3 and more also the converted code. The environment variable
    ``AUTOGRAPH_VERBOSITY`` sets the starting level, as in TensorFlow.

    Args:
        level: the verbosity (an int >= 0).
        alsologtostdout: also print the messages on stdout.
    """
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError(f"level must be an int >= 0, got {level!r}")
    _verbosity[0] = level
    _log.setLevel(logging.INFO if level else logging.WARNING)
    has = [h for h in _log.handlers if getattr(h, "_tw_stdout", False)]
    if alsologtostdout and not has:
        handler = logging.StreamHandler(sys.stdout)
        handler._tw_stdout = True
        _log.addHandler(handler)
    elif not alsologtostdout:
        for h in has:
            _log.removeHandler(h)


def _log_conversion(fn: Callable) -> None:
    name = getattr(fn, "__qualname__", repr(fn))
    _log.info("Converted %s", name)
    if _verbosity[0] >= 3:
        try:
            _log.info("Converted code of %s:\n%s", name, to_code(fn))
        except (AutoGraphError, OSError, TypeError) as e:
            _log.info("No converted code for %s: %s", name, e)


def to_graph(entity: Callable, recursive: bool = True,
             experimental_optional_features=None) -> Callable:
    """``entity`` converted: Python control flow on tensors becomes graph control flow when it
    runs while a graph is built (inside ``tw.function``).

    Args:
        entity: a Python function or method.
        recursive: also convert the functions it calls (the only mode twinflow has).
        experimental_optional_features: ``tw.autograph.experimental.Feature`` values
            (``STRICT``...), or None.

    Returns:
        The converted function.

    Raises:
        NotImplementedError: ``recursive=False``.
    """
    if not recursive:
        raise NotImplementedError("to_graph(recursive=False): twinflow's AutoGraph converts "
                                  "the functions a converted function calls as it calls them")
    if not callable(entity):
        raise TypeError(f"to_graph expects a function or method, got {entity!r}")
    return convert_for_function(entity, experimental_optional_features)


def trace(*args) -> None:
    """Prints its arguments when it runs; inside ``tw.function`` that is while tracing (the
    values are symbolic tensors), not on every call.

    Args:
        *args: what to print.
    """
    print(*args)


def convert_for_function(fn: Callable, options=None) -> Callable:
    """The conversion ``tw.function`` applies to the Python function it traces.

    Args:
        fn: the Python function.
        options: the function's ``experimental_autograph_options`` (``Feature.STRICT``
            makes code that cannot be converted an error, also in functions it calls).

    Returns:
        The converted function (``fn`` itself where there is nothing to convert).
    """
    if _verbosity[0]:
        _log_conversion(fn)
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
           "AutoGraphWarning", "convert_for_function", "set_verbosity", "to_graph", "trace"]
