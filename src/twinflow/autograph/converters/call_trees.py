"""Function calls: ``f(a, k=v)`` becomes ``ag__.converted_call(f, (a,), {'k': v})``.

At run time ``converted_call`` converts user functions recursively (not twinflow itself, the
standard library or installed libraries) and maps builtins such as ``range``/``len`` on tensors
to their twinflow counterparts. ``print`` stays Python's print, as in TensorFlow.
"""
from __future__ import annotations

import ast

from .base import AG, ScopeTransformer, ag_call

_LEAVE = {"print", "super", "locals", "globals", "vars", "isinstance", "getattr", "hasattr",
          "setattr", "type", "id", "callable", "issubclass"}


class Transformer(ScopeTransformer):
    """Rewrites calls."""

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in _LEAVE:
            return node
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                f.value.id == AG:
            return node
        args = ast.Tuple(elts=list(node.args), ctx=ast.Load())
        kw = ast.Dict(keys=[k.arg and ast.Constant(k.arg) for k in node.keywords],
                      values=[k.value for k in node.keywords])
        extra = [kw] if node.keywords else []
        return ast.copy_location(ag_call("converted_call", [f, args] + extra), node)
