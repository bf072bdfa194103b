"""``x if c else y``: becomes ``ag__.if_exp(c, lambda: x, lambda: y)`` (tw.cond on tensors)."""
from __future__ import annotations

import ast

from .base import ScopeTransformer, ag_call
from .logical_expressions import thunk


class Transformer(ScopeTransformer):
    """Rewrites conditional expressions."""

    def visit_IfExp(self, node: ast.IfExp):
        self.generic_visit(node)
        return ast.copy_location(
            ag_call("if_exp", [node.test, thunk(node.body), thunk(node.orelse)]), node)
