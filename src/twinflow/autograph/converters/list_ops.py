"""``xs.append(v)``: becomes ``xs = ag__.list_append(xs, v)``.

A plain Python list is appended to as usual; a list grown inside a tensor loop is carried by
the loop as a TensorArray, and ``list_append`` writes to it.
"""
from __future__ import annotations

import ast

from .base import ScopeTransformer, ag_call, name


class Transformer(ScopeTransformer):
    """Rewrites ``name.append(value)`` statements on lists local to the converted function."""

    def __init__(self, local_names: frozenset = frozenset()) -> None:
        self.local_names = local_names

    def visit_Expr(self, node: ast.Expr):
        self.generic_visit(node)
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "append" and isinstance(call.func.value, ast.Name)
                and len(call.args) == 1 and not call.keywords
                and call.func.value.id in self.local_names):
            target = call.func.value.id
            new = ast.Assign(targets=[name(target, True)],
                             value=ag_call("list_append", [name(target), call.args[0]]))
            return ast.copy_location(new, node)
        return node
