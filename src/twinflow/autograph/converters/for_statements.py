"""``for``: the body becomes a function of the iterate and the loop variables.

::

    for i in tw.range(n):         def loop_body_1(itr_1, s):
        s = s + i         ->          i = itr_1; s = s + i; return (s,)
                                  (s,) = ag__.for_stmt(tw.range(n), None, loop_body_1, (s,),
                                                       ('s',))

``ag__.for_stmt`` iterates in Python over Python iterables (lists, ``range``: unrolled) and
eager tensors, and builds one While op over a symbolic tensor or ``tw.range``. ``break`` and
``return`` flags become an extra test checked before each iteration.
"""
from __future__ import annotations

import ast

from . import base
from .while_statements import loop_test


def lower(node: ast.For, defined: set, namer: base.Namer, lower_block, expr_pass) -> list:
    """The statements replacing ``node`` (see ``while_statements.lower``)."""
    if node.orelse and getattr(node, "ag_flags", None):
        raise base.ConversionError("`for ... else` with `break`/`return` in the loop", node)
    base.check_no_return(node.body, node)
    targets = base.assigned_names([ast.Assign(targets=[node.target], value=ast.Constant(None))])
    mod = [n for n in base.assigned_names(node.body) if n not in targets]
    inner = defined | set(mod) | set(targets)
    itr = namer.new("itr_")
    bind_target = base.at_header(
        ast.Assign(targets=[node.target], value=ast.Name(itr, ast.Load())), node)
    body = lower_block([bind_target] + node.body, inner)
    b_name = namer.new("loop_body_")
    out = base.init_undefined(mod, defined)
    extra = loop_test(getattr(node, "ag_flags", []), None)
    if extra is not None:
        e_name = namer.new("extra_test_")
        out.append(base.make_function(e_name, mod, [ast.Return(value=expr_pass(extra))], None))
        extra_ref = ast.Name(e_name, ast.Load())
    else:
        extra_ref = ast.Constant(None)
    out.append(base.make_function(b_name, [itr] + mod, body, mod))
    call = base.ag_call("for_stmt", [node.iter, extra_ref, ast.Name(b_name, ast.Load()),
                                     base.tuple_of(mod), base.str_tuple(mod)])
    out.append(base.assign(mod, call) if mod else ast.Expr(value=call))
    for s in out:
        base.at_header(s, node)
    return out + lower_block(node.orelse, inner)
