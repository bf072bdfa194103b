"""``if``/``elif``/``else``: branches become functions of the variables they assign.

::

    if c:                         def if_body_1(y):
        y = f(x)          ->          y = f(x); return (y,)
    else:                         def else_body_1(y):
        y = g(x)                      y = g(x); return (y,)
                                  (y,) = ag__.if_stmt(c, if_body_1, else_body_1, (y,), ('y',))

``ag__.if_stmt`` runs one branch (Python ``if``) unless ``c`` is a symbolic tensor, where it
builds one If op. Variables not bound before the statement start as ``ag__.Undefined``.
"""
from __future__ import annotations

import ast

from . import base


def lower(node: ast.If, defined: set, namer: base.Namer, lower_block) -> list:
    """The statements replacing ``node``.

    Args:
        node: the If statement (its blocks not yet lowered).
        defined: names possibly bound before it.
        namer: fresh names.
        lower_block: callable(stmts, defined) -> lowered stmts (for the branches).

    Returns:
        The replacement statements.
    """
    base.check_no_return(node.body + node.orelse, node)
    mod = base.assigned_names(node.body + node.orelse)
    inner = defined | set(mod)
    body = lower_block(node.body, inner)
    orelse = lower_block(node.orelse, inner)
    t_name, f_name = namer.new("if_body_"), namer.new("else_body_")
    out = base.init_undefined(mod, defined)
    out.append(base.make_function(t_name, mod, body, mod))
    out.append(base.make_function(f_name, mod, orelse, mod))
    call = base.ag_call("if_stmt", [node.test, ast.Name(t_name, ast.Load()),
                                    ast.Name(f_name, ast.Load()), base.tuple_of(mod),
                                    base.str_tuple(mod)])
    out.append(base.assign(mod, call) if mod else ast.Expr(value=call))
    for s in out:
        base.at_header(s, node)
    return out
