"""``return`` inside ``if``/loops: becomes ``do_return``/``retval_`` flags.

``return x`` sets ``do_return = True; retval_ = x``; statements after one that may have
returned run under ``if not do_return:``; loops containing a return also stop on
``do_return`` (recorded in ``loop.ag_flags``); the function ends with
``return ag__.retval(retval_)``. A function whose only return is its last statement is left
alone.
"""
from __future__ import annotations

import ast

from .base import ag_call, at_header, contains, name, parse_expr

DO_RETURN, RETVAL = "do_return", "retval_"


def _needs_conversion(body: list) -> bool:
    inner = body[:-1] if body and isinstance(body[-1], ast.Return) else body
    return contains(inner, (ast.Return,)) or (
        bool(body) and not isinstance(body[-1], ast.Return) and contains(body, (ast.Return,)))


def _set_return(node: ast.Return) -> list:
    value = node.value if node.value is not None else ast.Constant(None)
    out = [ast.Assign(targets=[name(DO_RETURN, True)], value=ast.Constant(True)),
           ast.Assign(targets=[name(RETVAL, True)], value=value)]
    for s in out:
        ast.copy_location(s, node)
    return out


def _block(stmts: list) -> list:
    out: list = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            out.extend(_set_return(s))
            return out
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(s)
            continue
        has_return = contains([s], (ast.Return,))
        if has_return:
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(s, field, None)
                if sub:
                    setattr(s, field, _block(sub) or [ast.Pass()])
            for h in getattr(s, "handlers", []) or []:
                h.body = _block(h.body) or [ast.Pass()]
            if isinstance(s, (ast.For, ast.While)):
                s.ag_flags = [*getattr(s, "ag_flags", []), DO_RETURN]
        out.append(s)
        rest = stmts[i + 1:]
        if has_return and rest:
            guard = ast.If(test=parse_expr(f"not {DO_RETURN}"), body=_block(rest), orelse=[])
            out.append(at_header(guard, rest[0]))
            return out
    return out


def convert(fdef: ast.FunctionDef) -> None:
    """Rewrites the returns of ``fdef`` in place when any is not its last statement."""
    if not _needs_conversion(fdef.body):
        return
    head = [ast.Assign(targets=[name(DO_RETURN, True)], value=ast.Constant(False)),
            ast.Assign(targets=[name(RETVAL, True)], value=ag_call("UndefinedReturnValue", []))]
    for s in head:
        at_header(s, fdef.body[0])
    tail = at_header(ast.Return(value=ag_call("retval", [name(RETVAL)])), fdef.body[-1])
    fdef.body = head + _block(fdef.body) + [tail]
