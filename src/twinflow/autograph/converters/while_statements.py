"""``while``: the test and body become functions of the loop variables.

::

    while x > 0:                  def loop_test_1(x):
        x = x - 1         ->          return x > 0
                                  def loop_body_1(x):
                                      x = x - 1; return (x,)
                                  (x,) = ag__.while_stmt(loop_test_1, loop_body_1, (x,), ('x',))

``ag__.while_stmt`` runs a Python loop unless the test is a symbolic tensor, where it builds
one While op. ``break``/``return`` flags (``loop.ag_flags``) are checked before the test.
"""
from __future__ import annotations

import ast

from . import base


def loop_test(flags: list, test: ast.expr | None) -> ast.expr | None:
    """``not flag1 and ... and test`` (None when there is nothing to test)."""
    parts = [base.parse_expr(f"not {f}") for f in flags]
    if test is not None:
        parts.append(test)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else ast.BoolOp(op=ast.And(), values=parts)


def lower(node: ast.While, defined: set, namer: base.Namer, lower_block, expr_pass) -> list:
    """The statements replacing ``node`` (see ``if_statements.lower`` for the arguments;
    ``expr_pass`` converts the generated test expression)."""
    if node.orelse and not getattr(node, "ag_flags", None):
        tail = node.orelse
    elif node.orelse:
        raise base.ConversionError("`while ... else` with `break`/`return` in the loop", node)
    else:
        tail = []
    base.check_no_return(node.body, node)
    mod = base.assigned_names(node.body)
    inner = defined | set(mod)
    body = lower_block(node.body, inner)
    test = expr_pass(loop_test(getattr(node, "ag_flags", []), node.test))
    t_name, b_name = namer.new("loop_test_"), namer.new("loop_body_")
    out = base.init_undefined(mod, defined)
    test_fn = base.make_function(t_name, mod, [ast.Return(value=test)], None)
    out.append(test_fn)
    out.append(base.make_function(b_name, mod, body, mod))
    call = base.ag_call("while_stmt", [ast.Name(t_name, ast.Load()),
                                       ast.Name(b_name, ast.Load()), base.tuple_of(mod),
                                       base.str_tuple(mod)])
    out.append(base.assign(mod, call) if mod else ast.Expr(value=call))
    for s in out:
        base.at_header(s, node)
    return out + lower_block(tail, inner)
