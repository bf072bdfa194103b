"""``assert c, msg``: becomes ``ag__.assert_stmt(c, lambda: msg)`` (tw.debugging.Assert on
tensors, a Python assert otherwise)."""
from __future__ import annotations

import ast

from .base import ScopeTransformer, ag_call
from .logical_expressions import thunk


class Transformer(ScopeTransformer):
    """Rewrites assert statements."""

    def visit_Assert(self, node: ast.Assert):
        self.generic_visit(node)
        msg = node.msg if node.msg is not None else ast.Constant(None)
        call = ag_call("assert_stmt", [node.test, thunk(msg)])
        return ast.copy_location(ast.Expr(value=call), node)
