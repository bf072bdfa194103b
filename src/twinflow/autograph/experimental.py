"""``tw.autograph.experimental``: do_not_convert, Feature, set_loop_options."""
from __future__ import annotations

import enum

from ..core import nest
from .conversion import do_not_convert
from .operators.control_flow import _LOOP_OPTIONS, set_shape_invariants


class Feature(enum.Enum):
    """Optional AutoGraph behaviours (``tw.function(experimental_autograph_options=...)``).

    ``STRICT`` (twinflow's addition, like ``fullgraph=True`` elsewhere) turns the fallback for
    code AutoGraph cannot convert into an error.
    """

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"
    STRICT = "STRICT"


def is_strict(options) -> bool:
    """True when ``options`` (a Feature, string, or nest of them) asks for strict conversion.
    """
    if options is None:
        return False
    for o in nest.flatten(options):
        if o is Feature.STRICT or (isinstance(o, str) and o.lower() in ("strict", "fullgraph")):
            return True
    return False


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None,
                     shape_invariants=None) -> None:
    """Options for the loop over tensors whose body calls this (inside converted code; as in
    TensorFlow, a Python loop takes no options).

    Args:
        parallel_iterations: a hint that changes nothing: TensorFlow's count of iterations
            run at once; twinflow runs them in order (the same values).
        swap_memory: a hint that changes nothing: TensorFlow's GPU-to-host swapping.
        maximum_iterations: not supported in a traced loop (raises NotImplementedError): put
            the bound in the loop condition, or use ``tw.while_loop(maximum_iterations=...)``.
        shape_invariants: (loop variable, shape) pairs: shapes that may change across
            iterations (None dims), as ``tw.while_loop(shape_invariants=...)``.
    """
    if maximum_iterations is not None and _LOOP_OPTIONS:
        raise NotImplementedError(
            "set_loop_options(maximum_iterations=...) is not supported in a loop over tensors: "
            "add the bound to the loop condition, or use tw.while_loop(maximum_iterations=...)")
    if shape_invariants:
        set_shape_invariants(shape_invariants)


__all__ = ["do_not_convert", "Feature", "set_loop_options", "is_strict"]
