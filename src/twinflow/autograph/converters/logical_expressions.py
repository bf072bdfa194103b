"""``a and b``, ``a or b``, ``not a``: lazy operators that work on tensors too.

``a and b`` becomes ``ag__.and_(lambda: a, lambda: b)`` (the right side is evaluated only when
needed, as in Python); ``not a`` becomes ``ag__.not_(a)``.
"""
from __future__ import annotations

import ast

from .base import ScopeTransformer, ag_call


def _thunk(e: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=e)


class Transformer(ScopeTransformer):
    """Rewrites boolean operators."""

    def visit_BoolOp(self, node: ast.BoolOp):
        self.generic_visit(node)
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        return ast.copy_location(ag_call(fn, [_thunk(v) for v in node.values]), node)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(ag_call("not_", [node.operand]), node)
        return node


def thunk(e: ast.expr) -> ast.Lambda:
    """``lambda: e``."""
    return _thunk(e)
