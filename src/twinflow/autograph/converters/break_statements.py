"""``break``: becomes a ``break_N`` flag that the loop's condition checks.

``break`` sets ``break_N = True``; statements after one that may have broken run under
``if not break_N:``; the loop records the flag in ``loop.ag_flags`` so its condition (or a
``for`` loop's extra test) stops on it.
"""
from __future__ import annotations

import ast

from .base import ConversionError, Namer, at_header, contains, guard_jumps, name, parse_expr


class _Breaks(ast.NodeTransformer):
    def __init__(self, namer: Namer) -> None:
        self.namer = namer

    def visit_FunctionDef(self, node):
        return node  # nested functions are converted on their own

    visit_AsyncFunctionDef = visit_FunctionDef

    def _loop(self, node):
        self.generic_visit(node)  # inner loops first
        if not contains(node.body, (ast.Break,), stop_at_loops=True):
            return node
        flag = self.namer.new("break_")
        node.body = guard_jumps(node.body, ast.Break, flag) or [ast.Pass()]
        node.ag_flags = [*getattr(node, "ag_flags", []), flag]
        init = at_header(ast.Assign(targets=[name(flag, True)],
                                    value=ast.Constant(False)), node)
        if node.orelse:
            node.orelse = [at_header(ast.If(test=parse_expr(f"not {flag}"),
                                            body=node.orelse, orelse=[]), node.orelse[0])]
        return [init, node]

    visit_For = visit_While = _loop


def convert(fdef: ast.FunctionDef, namer: Namer) -> None:
    """Rewrites the ``break`` statements of ``fdef``'s loops in place."""
    t = _Breaks(namer)
    new_body = []
    for s in fdef.body:
        r = t.visit(s)
        new_body.extend(r if isinstance(r, list) else [r])
    fdef.body = new_body
    if contains(fdef.body, (ast.Break,)):
        raise ConversionError("a `break` outside a loop")
