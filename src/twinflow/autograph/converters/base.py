"""Shared AST helpers for the converters: name analysis, templates, fresh names."""
from __future__ import annotations

import ast

# Names the converters generate; they are never loop or branch variables.
GENERATED_PREFIXES = ("if_body_", "else_body_", "loop_body_", "loop_test_", "extra_test_",
                      "itr_", "ag__")
AG = "ag__"


class ConversionError(Exception):
    """Code AutoGraph cannot convert (unsupported syntax); carries the reason and line."""

    def __init__(self, reason: str, node: ast.AST | None = None) -> None:
        self.reason = reason
        self.lineno = getattr(node, "lineno", None)
        super().__init__(reason if self.lineno is None else f"{reason} (line {self.lineno})")


class Namer:
    """Hands out fresh names (``if_body_1``...) unique within one converted function."""

    def __init__(self) -> None:
        self.counts: dict = {}

    def new(self, prefix: str) -> str:
        n = self.counts.get(prefix, 0) + 1
        self.counts[prefix] = n
        return f"{prefix}{n}"


class ScopeTransformer(ast.NodeTransformer):
    """Base of the expression converters: they rewrite one function's own code and stop at
    the functions defined in it, which ``conversion`` converts on their own (with their own
    local names); only what such a ``def`` evaluates where it stands (decorators, defaults)
    belongs to the enclosing function. Lambdas are expressions and are rewritten in place."""

    def visit_FunctionDef(self, node):
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        a = node.args
        a.defaults = [self.visit(d) for d in a.defaults]
        a.kw_defaults = [None if d is None else self.visit(d) for d in a.kw_defaults]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


class _Assigned(ast.NodeVisitor):
    def __init__(self) -> None:
        self.names: list = []

    def _add(self, name: str) -> None:
        if name not in self.names and not name.startswith(GENERATED_PREFIXES):
            self.names.append(name)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._add(node.id)

    def visit_FunctionDef(self, node) -> None:
        self._add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node) -> None:
        self._add(node.name)

    def visit_Lambda(self, node) -> None:
        pass

    def visit_ListComp(self, node) -> None:
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Import(self, node) -> None:
        for a in node.names:
            self._add((a.asname or a.name).split(".")[0])

    visit_ImportFrom = visit_Import


def assigned_names(stmts: list) -> list:
    """Names a block binds (in order of first binding), not looking into nested scopes."""
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return v.names


def parse_expr(src: str) -> ast.expr:
    """The expression ``src`` with no source positions (they are filled in later from the
    statement it goes into: positions from ``src`` itself would point at line 1)."""
    e = ast.parse(src, mode="eval").body
    for n in ast.walk(e):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(n, attr):
                delattr(n, attr)
    return e


def at_header(new: ast.AST, node: ast.AST) -> ast.AST:
    """Places the generated ``new`` on the first line of ``node`` (an ``if``/``while``/``for``
    header, a statement): ``ast.copy_location`` would give it ``node``'s whole span, and
    Python reports a call whose callee spans several lines at the callee's *last* line (the
    If op of ``ag__.if_stmt(...)`` would point at the end of the branch). The end position is
    left for ``conversion.fix_locations`` to set (end of that line)."""
    if getattr(node, "lineno", None) is not None:
        new.lineno = node.lineno
        new.col_offset = node.col_offset
        new.end_lineno = new.end_col_offset = None
    return new


def name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def ag_call(func: str, args: list, keywords: list | None = None) -> ast.Call:
    """``ag__.func(*args)``."""
    return ast.Call(func=ast.Attribute(value=name(AG), attr=func, ctx=ast.Load()),
                    args=args, keywords=keywords or [])


def tuple_of(names: list, store: bool = False) -> ast.expr:
    return ast.Tuple(elts=[name(n, store) for n in names],
                     ctx=ast.Store() if store else ast.Load())


def str_tuple(names: list) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def make_function(fname: str, params: list, body: list, returns: list | None) -> ast.FunctionDef:
    """``def fname(*params): body; return (returns)`` (no return when ``returns`` is None)."""
    body = list(body)
    if returns is not None:
        body.append(ast.Return(value=tuple_of(returns)))
    if not body:
        body = [ast.Pass()]
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fdef = ast.FunctionDef(name=fname, args=args, body=body, decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        fdef.type_params = []
    return fdef


def assign(targets: list, value: ast.expr) -> ast.stmt:
    """``a, b = value`` (a one-element tuple target for one name)."""
    return ast.Assign(targets=[tuple_of(targets, store=True)], value=value)


def init_undefined(names: list, defined: set) -> list:
    """``x = ag__.Undefined('x')`` for each name not possibly bound yet."""
    return [ast.Assign(targets=[name(n, True)], value=ag_call("Undefined", [ast.Constant(n)]))
            for n in names if n not in defined]


def contains(stmts: list, kinds: tuple, stop_at_loops: bool = False) -> bool:
    """True if a statement of ``kinds`` occurs in ``stmts`` (not inside nested functions;
    with ``stop_at_loops``, not inside nested loops either)."""
    for s in stmts:
        if isinstance(s, kinds):
            return True
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if stop_at_loops and isinstance(s, (ast.For, ast.While)):
            if contains(s.orelse, kinds, stop_at_loops):
                return True
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            sub = getattr(s, field, None)
            if sub and contains(sub, kinds, stop_at_loops):
                return True
    return False


def check_no_return(stmts: list, node: ast.AST) -> None:
    """Raises ConversionError if a ``return`` is left in ``stmts`` (the blocks of an
    ``if``/loop about to become generated functions). ``return_statements`` must have turned
    every one into ``do_return``/``retval_`` first: one left there would return from the
    generated branch or body function, whose value the statement replacing it does not use,
    and the user function would silently return None."""
    if contains(stmts, (ast.Return,)):
        raise ConversionError("internal error: a `return` was not converted before its "
                              "enclosing statement", node)


def guard_jumps(stmts: list, kind: type, flag: str) -> list:
    """``stmts`` with each ``kind`` (``ast.Break`` or ``ast.Continue``, not in nested loops)
    made ``flag = True`` and the statements after one that may have jumped under
    ``if not flag:``."""
    out: list = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.append(at_header(
                ast.Assign(targets=[name(flag, True)], value=ast.Constant(True)), s))
            return out
        if isinstance(s, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                          ast.ClassDef)):
            out.append(s)
            continue
        has = contains([s], (kind,), stop_at_loops=True)
        if has:
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(s, field, None)
                if sub:
                    setattr(s, field, guard_jumps(sub, kind, flag) or [ast.Pass()])
            for h in getattr(s, "handlers", []) or []:
                h.body = guard_jumps(h.body, kind, flag) or [ast.Pass()]
        out.append(s)
        rest = stmts[i + 1:]
        if has and rest:
            guard = ast.If(test=parse_expr(f"not {flag}"), body=guard_jumps(rest, kind, flag),
                           orelse=[])
            out.append(at_header(guard, rest[0]))
            return out
    return out
