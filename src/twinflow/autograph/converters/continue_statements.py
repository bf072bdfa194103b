"""``continue``: becomes a ``continue_N`` flag reset at the top of each iteration.

``continue`` sets the flag; statements after one that may have continued run under
``if not continue_N:``.
"""
from __future__ import annotations

import ast

from .base import Namer, contains, name, parse_expr


def _guard(stmts: list, flag: str) -> list:
    out: list = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Continue):
            out.append(ast.copy_location(
                ast.Assign(targets=[name(flag, True)], value=ast.Constant(True)), s))
            return out
        if isinstance(s, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                          ast.ClassDef)):
            out.append(s)
            continue
        has = contains([s], (ast.Continue,), stop_at_loops=True)
        if has:
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(s, field, None)
                if sub:
                    setattr(s, field, _guard(sub, flag) or [ast.Pass()])
            for h in getattr(s, "handlers", []) or []:
                h.body = _guard(h.body, flag) or [ast.Pass()]
        out.append(s)
        rest = stmts[i + 1:]
        if has and rest:
            guard = ast.If(test=parse_expr(f"not {flag}"), body=_guard(rest, flag), orelse=[])
            out.append(ast.copy_location(guard, rest[0]))
            return out
    return out


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
        init = ast.copy_location(ast.Assign(targets=[name(flag, True)],
                                            value=ast.Constant(False)), node.body[0])
        node.body = [init] + (_guard(node.body, flag) or [ast.Pass()])
        return node

    visit_For = visit_While = _loop


def convert(fdef: ast.FunctionDef, namer: Namer) -> None:
    """Rewrites the ``continue`` statements of ``fdef``'s loops in place."""
    t = _Continues(namer)
    fdef.body = [t.visit(s) for s in fdef.body]
