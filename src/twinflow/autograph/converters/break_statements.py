"""``break``: becomes a ``break_N`` flag that the loop's condition checks.

``break`` sets ``break_N = True``; statements after one that may have broken run under
``if not break_N:``; the loop records the flag in ``loop.ag_flags`` so its condition (or a
``for`` loop's extra test) stops on it.
"""
from __future__ import annotations

import ast

from .base import ConversionError, Namer, contains, name, parse_expr


def _guard(stmts: list, flag: str) -> list:
    out: list = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Break):
            out.append(ast.copy_location(
                ast.Assign(targets=[name(flag, True)], value=ast.Constant(True)), s))
            return out
        if isinstance(s, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                          ast.ClassDef)):
            out.append(s)
            continue
        has = contains([s], (ast.Break,), stop_at_loops=True)
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
        node.body = _guard(node.body, flag) or [ast.Pass()]
        node.ag_flags = [*getattr(node, "ag_flags", []), flag]
        init = ast.copy_location(ast.Assign(targets=[name(flag, True)],
                                            value=ast.Constant(False)), node)
        if node.orelse:
            node.orelse = [ast.copy_location(ast.If(test=parse_expr(f"not {flag}"),
                                                    body=node.orelse, orelse=[]), node)]
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
