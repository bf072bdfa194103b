"""``continue``: becomes a ``continue_N`` flag reset at the top of each iteration.

``continue`` sets the flag; statements after one that may have continued run under
``if not continue_N:``.
"""
from __future__ import annotations

import ast

from .base import Namer, at_header, contains, guard_jumps, name


class _Continues(ast.NodeTransformer):
    def __init__(self, namer: Namer) -> None:
        self.namer = namer

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _loop(self, node):
        self.generic_visit(node)
        if not contains(node.body, (ast.Continue,), stop_at_loops=True):
            return node
        flag = self.namer.new("continue_")
        init = at_header(ast.Assign(targets=[name(flag, True)],
                                    value=ast.Constant(False)), node.body[0])
        node.body = [init] + (guard_jumps(node.body, ast.Continue, flag) or [ast.Pass()])
        return node

    visit_For = visit_While = _loop


def convert(fdef: ast.FunctionDef, namer: Namer) -> None:
    """Rewrites the ``continue`` statements of ``fdef``'s loops in place."""
    t = _Continues(namer)
    fdef.body = [t.visit(s) for s in fdef.body]
