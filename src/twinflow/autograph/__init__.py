"""``tw.autograph``: Python control flow on tensors becomes graph control flow.

``tw.function`` converts the functions it traces with ``convert`` (installed as its converter
when this package is imported): ``if``/``while``/``for`` on symbolic tensors become If/While
ops; on Python values they stay Python.
"""
from __future__ import annotations

import functools

from ..compiler.codegen import compile_program
from ..compiler.pipeline import optimize
from ..compiler.program import Program
from ..control.subgraph import set_subgraph_compiler
from ..function import _function_module
from . import conversion as _conversion
from . import experimental, operators
from .conversion import AutoGraphError, AutoGraphWarning, convert, do_not_convert, to_code
from .operators.call import _STRICT

_conversion.OPERATORS[0] = operators


def _converter(fn, options=None):
    """The converter tw.function applies (``options``: its experimental_autograph_options)."""
    if not experimental.is_strict(options):
        return convert(fn)
    converted = convert(fn, strict=True)

    @functools.wraps(converted)
    def strict_call(*args, **kwargs):
        # Functions converted while this one is traced are strict too.
        previous, _STRICT[0] = _STRICT[0], True
        try:
            return converted(*args, **kwargs)
        finally:
            _STRICT[0] = previous
    return strict_call


_function_module._converter = _converter


def _compile_subgraph(g):
    """Branches and loop bodies run as generated Python, like the functions holding them."""
    prog, _ = optimize(Program(g, g.inputs, g.outputs))
    cp = compile_program(prog, g.name)
    run = cp.run
    run.explain = cp.error  # the control-flow kernels name the failing op with it
    return run


# Control flow sits below the compiler in the layers; the compiled lowering is installed here,
# the first package above both that is always imported.
set_subgraph_compiler(_compile_subgraph)

__all__ = ["to_code", "convert", "do_not_convert", "experimental", "AutoGraphError",
           "AutoGraphWarning"]
