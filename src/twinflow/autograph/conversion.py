"""Converting a Python function: source -> AST -> converters -> compiled function.

The converted function is compiled under the original's file name with the original's line and
column numbers (``fix_locations`` places each generated statement and call on the line it stands
for: an ``if``'s ``ag__.if_stmt`` on the ``if`` line), and the functions the converters generate
take the user function's name: graph ops, error messages, tracebacks and pdb show the user's own
file, lines and function. It keeps the original's globals and closure cells; ``ag__`` (the
operators) is one more closure variable. ``to_code`` shows the converted source.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import inspect
import os
import sysconfig
import textwrap
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from ..graph.tensor import SymbolicTensor
from ..ops import array_ops
from . import operators
from .converters import (
    asserts,
    break_statements,
    call_trees,
    conditional_expressions,
    continue_statements,
    for_statements,
    if_statements,
    list_ops,
    logical_expressions,
    return_statements,
    while_statements,
)
from .converters.base import AG, ConversionError, Namer, assigned_names, make_function
from .operators.data_structures import GraphList

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB = sysconfig.get_paths().get("stdlib", "")


class AutoGraphWarning(UserWarning):
    """AutoGraph could not convert a function and runs it as plain traced Python."""


class AutoGraphError(ConversionError):
    """AutoGraph could not convert a function and strict mode forbids falling back."""


_cache: dict = {}   # code object -> (converted FunctionDef source, code object of f, freevars)


def _is_converted(fn) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and AG in code.co_freevars


def is_library(fn) -> bool:
    """True for twinflow's own functions, builtins, the standard library and installed
    packages: AutoGraph calls these as they are."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return True
    fname = code.co_filename
    if fname.startswith(_PKG_DIR) or "site-packages" in fname or "dist-packages" in fname:
        return True
    return bool(_STDLIB) and fname.startswith(_STDLIB)


def _lower_block(stmts: list, defined: set, namer: Namer) -> list:
    def lower(block, d):
        return _lower_block(block, d, namer)

    def expr_pass(e):
        return _expressions(e) if e is not None else None

    out: list = []
    defined = set(defined)
    for s in stmts:
        if isinstance(s, ast.If):
            out.extend(if_statements.lower(s, defined, namer, lower))
        elif isinstance(s, ast.While):
            out.extend(while_statements.lower(s, defined, namer, lower, expr_pass))
        elif isinstance(s, ast.For):
            out.extend(for_statements.lower(s, defined, namer, lower, expr_pass))
        elif isinstance(s, (ast.AsyncFor, ast.AsyncWith, ast.Await)):
            raise ConversionError("async code is not supported", s)
        elif isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            _convert_nested(s, namer)
            out.append(s)
        elif isinstance(s, (ast.With, ast.Try)):
            s.body = lower(s.body, defined)
            for field in ("orelse", "finalbody"):
                if getattr(s, field, None):
                    setattr(s, field, lower(getattr(s, field), defined))
            for h in getattr(s, "handlers", []) or []:
                h.body = lower(h.body, defined)
            out.append(s)
        else:
            out.append(s)
        defined |= set(assigned_names([s]))
    return out


def _expressions(node, local_names: frozenset = frozenset()):
    for t in (list_ops.Transformer(local_names), asserts.Transformer(),
              conditional_expressions.Transformer(), logical_expressions.Transformer(),
              call_trees.Transformer()):
        node = t.visit(node)
    return node


class _Unsupported(ast.NodeVisitor):
    def visit_Yield(self, node):
        raise ConversionError("generators (`yield`) are not supported", node)

    visit_YieldFrom = visit_Yield

    def visit_Global(self, node):
        raise ConversionError("`global` statements are not supported", node)

    def visit_Nonlocal(self, node):
        raise ConversionError("`nonlocal` statements are not supported", node)


def _parse(fn) -> tuple:
    """(FunctionDef, file name, first line number, source lines) of ``fn``: the FunctionDef's
    positions are relative to its source lines (line 1 is the first) with the file's columns."""
    try:
        lines, lnum = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as e:
        raise ConversionError(f"its source code is not available ({e})") from None
    if fn.__code__.co_name == "<lambda>":
        return _parse_lambda(fn, lines), filename, lnum, lines
    # An indented def (a method, a nested function) is parsed under an `if 1:` rather than
    # dedented: its columns stay the file's (traceback carets), and a string spanning lines
    # less indented than the body keeps its text.
    indented = lines[0][:1] in (" ", "\t")
    try:
        tree = ast.parse(("if 1:\n" if indented else "") + "".join(lines))
    except SyntaxError as e:
        raise ConversionError(f"its source could not be parsed ({e.msg})") from None
    if indented:
        ast.increment_lineno(tree, -1)
        tree = tree.body[0]
    fdefs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not fdefs or fdefs[0].name != fn.__code__.co_name:
        raise ConversionError("it is a lambda or its source does not start with its `def`")
    fdef = fdefs[0]
    if isinstance(fdef, ast.AsyncFunctionDef):
        raise ConversionError("async functions are not supported")
    return fdef, filename, lnum, lines


LAMBDA_NAME = "ag__lambda"
# Functions the converters generate (``base.Namer`` prefixes).
GENERATED_FUNCTIONS = ("if_body_", "else_body_", "loop_test_", "loop_body_", "extra_test_")


def _parse_lambda(fn, lines: list) -> ast.FunctionDef:
    """A lambda as ``def ag__lambda(args): return body``, found in its source lines."""
    tree = None
    text = textwrap.dedent("".join(lines)).strip()
    # The lines holding a lambda are often not a statement on their own (an argument, a
    # continuation): trim from the right until they parse, then try as an expression.
    while text and tree is None:
        for mode in ("exec", "eval"):
            try:
                tree = ast.parse(text, mode=mode)
                break
            except SyntaxError:
                continue
        if tree is None:
            text = text[:-1]
    if tree is None:
        raise ConversionError("the source of this lambda could not be parsed")
    code = fn.__code__
    want = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and
             [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == want]
    if len(found) != 1:
        raise ConversionError("several lambdas with these arguments are on its line; define "
                              "it with `def`" if found else "its lambda was not found in "
                              "its source line")
    lam = found[0]
    _restore_columns(lam, lines, text.splitlines())
    fdef = ast.FunctionDef(name=LAMBDA_NAME, args=lam.args, body=[ast.Return(value=lam.body)],
                           decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        fdef.type_params = []
    return ast.copy_location(fdef, lam)


def _restore_columns(tree: ast.AST, lines: list, parsed: list) -> None:
    """Column offsets of ``tree`` (parsed from ``parsed``, ``lines`` with leading whitespace
    removed) made those of ``lines``."""
    def indent(s: str) -> int:
        return len(s) - len(s.lstrip())

    shift = [indent(a) - indent(b) for a, b in zip(lines, parsed)]
    for n in ast.walk(tree):
        if getattr(n, "lineno", None) is not None and n.lineno <= len(shift):
            n.col_offset += shift[n.lineno - 1]
        if getattr(n, "end_lineno", None) is not None and n.end_lineno <= len(shift):
            n.end_col_offset += shift[n.end_lineno - 1]


def fix_locations(tree: ast.AST, lines: list) -> None:
    """Gives the nodes the converters generated exact, one-line source positions.

    A node with no position takes its parent's first line and column; a node with no end
    (``base.at_header``) ends where that line ends. Unlike ``ast.fix_missing_locations``, which
    gives a generated node its parent's whole span, this keeps each generated call on the line
    it stands for: Python reports a call whose callee (``ag__.if_stmt``) spans several lines at
    the callee's last line, so an If op would point at the end of its branch.

    Args:
        tree: the converted FunctionDef; positions relative to ``lines`` (line 1 is the first).
        lines: the source lines.
    """
    def line_end(lineno: int) -> int:
        ok = 0 < lineno <= len(lines)
        return len(lines[lineno - 1].rstrip().encode("utf-8")) if ok else 0

    def visit(node: ast.AST, lineno: int, col: int) -> None:
        if "lineno" in node._attributes:
            if getattr(node, "lineno", None) is None:
                node.lineno, node.col_offset = lineno, col
                if isinstance(node, ast.Lambda):
                    node.ag_thunk = True   # a generated thunk (``a and b``, ``x if c else y``)
            if getattr(node, "end_lineno", None) is None:
                node.end_lineno = node.lineno
                node.end_col_offset = max(node.col_offset, line_end(node.lineno))
            lineno, col = node.lineno, node.col_offset
        for child in ast.iter_child_nodes(node):
            visit(child, lineno, col)

    visit(tree, 1, 0)


def convert_ast(fn) -> ast.FunctionDef:
    """The converted FunctionDef of ``fn`` (raises ConversionError)."""
    return _convert(fn)[0]


def _convert(fn) -> tuple:
    """(converted FunctionDef, file name, first line number) of ``fn``; the FunctionDef's
    lines are relative to the first."""
    fdef, filename, lnum, lines = _parse(fn)
    _Unsupported().visit(fdef)
    fdef.decorator_list = []
    _convert_function(fdef, Namer())
    fix_locations(fdef, lines)
    return fdef, filename, lnum


def _convert_function(fdef: ast.FunctionDef, namer: Namer) -> None:
    """Runs every converter over ``fdef`` in place: the converted function itself, and each
    function (or method of a class) defined in it, which ``_lower_block`` hands back here.

    A function defined in converted code is created by that code and carries ``ag__`` among
    its free variables, so ``converted_call`` (and ``tw.map_fn``...) take it as converted and
    never convert it again: it must be converted completely here, with its own scope. (It
    once got only the expression and ``if``/loop passes, so a ``return`` in its ``if``
    stayed inside the generated branch function and the function returned None.)
    """
    return_statements.convert(fdef)
    break_statements.convert(fdef, namer)
    continue_statements.convert(fdef, namer)
    a = fdef.args
    params = {x.arg for x in a.args + a.kwonlyargs + a.posonlyargs}
    params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    # Only lists the function itself binds can be carried through a tensor loop; appending to
    # a global or closure list stays a Python side effect (it runs while tracing, as in TF).
    # The expression passes stop at nested functions, converted with their own local names.
    local_names = frozenset(params | set(assigned_names(fdef.body)))
    fdef.body = [_expressions(s, local_names) for s in fdef.body]
    # A nested function's names are its own: one it assigns is local to it even where the
    # enclosing function binds the same name, so only its parameters are bound at its start.
    fdef.body = _lower_block(fdef.body, params, namer)


def _convert_nested(node: ast.FunctionDef | ast.ClassDef, namer: Namer) -> None:
    """Converts a function defined in converted code, or the methods of a class defined
    there (the class body itself runs once, as Python)."""
    if isinstance(node, ast.FunctionDef):
        _convert_function(node, namer)
        return
    for s in node.body:
        if isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            _convert_nested(s, namer)


def _compile(fn) -> tuple:
    code = fn.__code__
    hit = _cache.get(code)
    if hit is not None:
        return hit
    fdef, filename, lnum = _convert(fn)
    # Python fills the defaults from the original function (__defaults__) after creation.
    fdef.args.defaults = [ast.Constant(None) for _ in fdef.args.defaults]
    fdef.args.kw_defaults = [None if d is None else ast.Constant(None)
                             for d in fdef.args.kw_defaults]
    freevars = list(code.co_freevars)
    factory = make_function("ag__factory", [AG] + freevars, [fdef], None)
    factory.body.append(ast.Return(value=ast.Name(fdef.name, ast.Load())))
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, lnum - 1)
    compiled = compile(module, filename, "exec")
    fac_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    f_code = next(c for c in fac_code.co_consts if isinstance(c, types.CodeType)
                  and c.co_name == fdef.name)
    lambdas: dict = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Lambda):
            lambdas.setdefault(n.lineno, set()).add(getattr(n, "ag_thunk", False))
    # (a line holding both a thunk and a user lambda keeps "<lambda>" for both)
    thunk_lines = frozenset(k for k, v in lambdas.items() if v == {True})
    hit = (_renamed(f_code, code.co_name, fn.__qualname__, thunk_lines),)
    _cache[code] = hit
    return hit


def _renamed(code: types.CodeType, name: str, qualname: str,
             thunk_lines: frozenset) -> types.CodeType:
    """``code`` named ``name`` (``qualname``), and the functions the converters generated in
    it (``if_body_1``, ``loop_test_2``, the lambdas of ``a and b``) named like the user
    function they came from, so tracebacks, pdb and op locations read ``in step``."""
    consts = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name.startswith(GENERATED_FUNCTIONS) or \
                    c.co_name == "<lambda>" and c.co_firstlineno in thunk_lines:
                c = _renamed(c, name, qualname, thunk_lines)
            else:
                c = _renamed(c, c.co_name, f"{qualname}.<locals>.{c.co_name}", thunk_lines)
        consts.append(c)
    changes = {"co_name": name, "co_consts": tuple(consts)}
    if hasattr(code, "co_qualname"):
        changes["co_qualname"] = qualname
    return code.replace(**changes)


def convert(fn: Callable, strict: bool = False, warn: bool = True) -> Callable:
    """``fn`` with Python control flow on tensors turned into graph control flow.

    Args:
        fn: a Python function or bound method.
        strict: raise AutoGraphError instead of falling back when ``fn`` cannot be converted.
        warn: warn (AutoGraphWarning) when falling back.

    Returns:
        The converted function (``fn`` itself if it needs no conversion or cannot be
        converted).
    """
    if getattr(fn, "__ag_do_not_convert__", False) or _is_converted(fn):
        return fn
    if isinstance(fn, types.MethodType):
        inner = convert(fn.__func__, strict, warn)
        return fn if inner is fn.__func__ else types.MethodType(inner, fn.__self__)
    if not isinstance(fn, types.FunctionType):
        return fn
    try:
        (f_code,) = _compile(fn)
    except ConversionError as e:
        # A lambda is one expression: unconverted, only the calls in it miss conversion.
        quiet = fn.__code__.co_name == "<lambda>" and not strict
        return _fallback(fn, e.reason if e.lineno is None else str(e), strict,
                         warn and not quiet)
    cells = []
    ops = _AG
    orig = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for v in f_code.co_freevars:
        if v == AG:
            cells.append(types.CellType(ops))
        elif v in orig:
            cells.append(orig[v])
        else:
            return _fallback(fn, f"it uses the free variable {v!r} in an unsupported way",
                             strict, warn)
    new = types.FunctionType(f_code, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(cells))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(fn.__dict__)
    new.__doc__ = fn.__doc__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__ag_original__ = fn
    return new


def _fallback(fn, reason: str, strict: bool, warn: bool):
    name = getattr(fn, "__qualname__", repr(fn))
    msg = (f"AutoGraph could not convert {name}: {reason}. It runs as plain Python while "
           "tracing: `if`/`while`/`for` on symbolic tensors in it will raise instead of "
           "becoming graph control flow.")
    if strict:
        raise AutoGraphError(msg + " (strict conversion is on: fix the function, or mark it "
                             "with tw.autograph.experimental.do_not_convert)")
    if warn:
        warnings.warn(msg + " To silence this, decorate it with "
                      "tw.autograph.experimental.do_not_convert.", AutoGraphWarning,
                      stacklevel=3)
    return fn


def to_code(entity: Callable, recursive: bool = True, experimental_optional_features=None) -> str:
    """The Python source AutoGraph generates for ``entity`` (``tw.autograph.to_code``).

    Args:
        entity: a Python function, method, or tw.function.
        recursive: accepted for TensorFlow compatibility (called functions are converted
            when they are called).
        experimental_optional_features: accepted for TensorFlow compatibility.

    Returns:
        The converted source, calling the ``ag__`` operators.
    """
    fn = getattr(entity, "_python_function", entity)
    fn = getattr(fn, "__func__", fn)
    fdef = convert_ast(fn)
    return ast.unparse(fdef) + "\n"


def do_not_convert(func: Callable | None = None) -> Callable[..., Any]:
    """Decorator: AutoGraph calls ``func`` as it is (``tw.autograph.experimental``).

    Args:
        func: the function (or None when used as ``@do_not_convert()``).

    Returns:
        The same function, marked.
    """
    def mark(f):
        try:
            f.__ag_do_not_convert__ = True
        except AttributeError:
            pass
        return f
    return mark if func is None else mark(func)


def user_module_of(fn) -> bool:
    """True when ``fn`` is user code AutoGraph should convert when called."""
    return isinstance(fn, (types.FunctionType, types.MethodType)) and not is_library(
        getattr(fn, "__func__", fn))


# ---------------------------------------------------------------------------------------------
# ``converted_call``: how converted code calls functions. User functions are converted
# (recursively, once per code object) before they are called; twinflow itself, builtins, the
# standard library and installed packages are called as they are. ``range``/``len`` on symbolic
# tensors become ``tw.range``/``tw.shape``; a list grown in a graph loop is passed to
# ``tw.stack``/``tw.concat`` (and any other function) as its stacked tensor. It lives here, not
# with the other operators, because it calls ``convert`` (which hands the operators to the code
# it converts): one module, no import cycle.

_STRICT: list = [False]


def _range(*args):
    if any(isinstance(a, SymbolicTensor) for a in args):
        return array_ops.range(*args)
    return builtins.range(*args)


def _len(x):
    if isinstance(x, GraphList):
        return x.size()
    if isinstance(x, SymbolicTensor):
        if x.shape.rank and x.shape[0] is not None:
            return x.shape[0]
        if x.shape.rank == 0:
            raise TypeError(f"len() of a scalar tensor ({x.name}) is not defined")
        return array_ops.shape(x)[0]
    return builtins.len(x)


def converted_call(f, args: tuple, kwargs: dict | None = None):
    """Calls ``f(*args, **kwargs)`` from converted code.

    Args:
        f: the callable.
        args: positional arguments.
        kwargs: keyword arguments.

    Returns:
        What ``f`` returns.
    """
    kwargs = kwargs or {}
    if f is builtins.range:
        return _range(*args)
    if f is builtins.len and len(args) == 1:
        return _len(args[0])
    if args and isinstance(args[0], GraphList):
        if f is array_ops.stack:
            return args[0].stack()
        if f is array_ops.concat:
            return args[0].concat()
    if any(isinstance(a, GraphList) for a in args):
        args = tuple(a.stack() if isinstance(a, GraphList) else a for a in args)
    if user_module_of(f):
        f = convert(f, strict=_STRICT[0])
    else:
        # Library functions that take user callbacks (tw.map_fn, tw.while_loop, tw.cond...)
        # trace them: convert those too, as TensorFlow's control flow ops do.
        args = tuple(_convert_arg(a) for a in args)
        if kwargs:
            kwargs = {k: _convert_arg(v) for k, v in kwargs.items()}
    return f(*args, **kwargs)


def _convert_arg(a):
    if user_module_of(a):
        return convert(a, strict=_STRICT[0])
    return a


# The ``ag__`` namespace converted code reads: the runtime operators and ``converted_call``.
_AG = types.SimpleNamespace(**{n: getattr(operators, n) for n in operators.__all__},
                            converted_call=converted_call)


@contextlib.contextmanager
def strict_conversion() -> Iterator[None]:
    """Makes the functions converted inside (by ``converted_call``) strict too.

    Returns:
        A context manager.
    """
    previous, _STRICT[0] = _STRICT[0], True
    try:
        yield
    finally:
        _STRICT[0] = previous
