"""The ``twinflow`` command: ``demo``, ``bench``, ``inspect``, ``export`` and ``version``.

``twinflow inspect DIR`` prints a SavedModel's signatures as ``saved_model_cli show --all``.

``twinflow inspect FILE.py:NAME --arg 'float32[2,3]' --arg 3`` traces a function for the given
arguments and prints what each compiler stage made of it (see ``inspect_function``).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import os
import re
import sys
import types
from collections.abc import Callable, Sequence

import numpy as np

import twinflow as tw

from . import bench
from .autograph import to_code
from .core.dtypes import as_dtype
from .core.shapes import TensorShape
from .eager.func_graph import TensorSpec
from .eager.tensor import ResourceHandle
from .function.function import ConcreteFunction, Function
from .graph.graph import Graph
from .graph.tensor import SymbolicTensor
from .keras import demo as training_demo
from .ops.variables import Variable
from .saved_model.show import show_all

__all__ = ["main", "eager_tour", "inspect_function", "load_target", "parse_arg"]


def _section(out: Callable[[str], None], title: str) -> None:
    out("")
    out(f"== {title} " + "=" * max(0, 66 - len(title)))


def eager_tour(out: Callable[[str], None] = print) -> None:
    """A short tour of eager execution and gradients, on the seed documents' examples.

    Args:
        out: where each line goes (``print`` by default).
    """
    out("twinflow: TensorFlow 2's API on NumPy. Ops run at once and return values.")
    _section(out, "eager ops")
    out(f">>> tf.executing_eagerly()\n{tw.executing_eagerly()}")
    m = tw.matmul([[2.0]], [[2.0]])
    out(f'>>> "hello, {{}}".format(tf.matmul([[2.]], [[2.]]))\nhello, {m}')
    a = tw.constant([[1, 2], [3, 4]])
    b = tw.add(a, 1)
    out(f">>> a = tf.constant([[1, 2], [3, 4]]); b = tf.add(a, 1); print(a * b)\n{a * b!s}")
    out(f">>> np.multiply(a, b)\n{np.multiply(a, b)}")
    _section(out, "gradients (GradientTape)")
    x = tw.Variable(2.0)
    with tw.GradientTape() as tape:
        y = x * x * x
    out(f">>> x = tf.Variable(2.0); y = x * x * x; tape.gradient(y, x)\n"
        f"{tape.gradient(y, x)!s}")
    with tw.GradientTape() as outer:
        with tw.GradientTape() as inner:
            y = x * x * x
        dy = inner.gradient(y, x)
    out(f">>> outer.gradient(inner.gradient(y, x), x)  # nested tapes: d2(x**3)/dx2 at 2\n"
        f"{outer.gradient(dy, x)!s}")
    _section(out, "custom gradients (tf.custom_gradient)")

    @tw.custom_gradient
    def log1pexp(x):
        e = tw.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tw.math.log(1 + e), grad

    out("# log1pexp(x) = log(1 + exp(x)) with the gradient 1 - 1 / (1 + exp(x)): finite at\n"
        "# x = 100, where the gradient GradientTape derives is nan")
    with np.errstate(over="ignore"):
        for v in (0.0, 100.0):
            t = tw.constant(v)
            with tw.GradientTape() as tape:
                tape.watch(t)
                y = log1pexp(t)
            out(f">>> grad_log1pexp(tf.constant({v:g}.)).numpy()\n{tape.gradient(y, t).numpy()}")
    _section(out, "jacobians")
    x = tw.constant([1.0, 2.0, 3.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    out(f">>> x = tf.constant([1., 2., 3.]); y = x * x; tape.jacobian(y, x)\n"
        f"{tape.jacobian(y, x)!s}")
    _section(out, "debugging")
    out('>>> tf.print("x:", tf.constant([[1, 2], [3, 4]]), output_stream=sys.stdout)')
    tw.print("x:", tw.constant([[1, 2], [3, 4]]), output_stream=sys.stdout)
    try:
        tw.debugging.assert_less(tw.constant([1, 5]), tw.constant([2, 3]))
    except tw.errors.InvalidArgumentError as e:
        out(">>> tf.debugging.assert_less([1, 5], [2, 3])\nInvalidArgumentError: "
            + str(e).splitlines()[0])
    out(f">>> tf.config.list_physical_devices()\n{tw.config.list_physical_devices()}")


# ----- twinflow inspect -----

_SPEC_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?$")
_KEYWORD_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(?!=)(.*)$")
_UNKNOWN_DIMS = ("?", "None", "_", "-1")
# AutoGraph operators other than converted_call: Python control flow that was converted.
_AG_CONTROL_RE = re.compile(r"ag__\.(?!converted_call\b|ld\b)\w+\(")
# Attributes every op of a kind carries (dtypes, inferred shapes): noise in a listing.
_QUIET_ATTRS = frozenset(("T", "Tout", "Tin", "dtype", "output_shapes", "out_type", "Tidx",
                          "value", "tensor_type", "send_device", "recv_device"))
SECTIONS = ("signature", "autograph", "graph", "passes", "optimized", "devices", "source")


def parse_arg(text: str):
    """One ``--arg`` of ``twinflow inspect``: a tensor spec or a Python literal.

    ``float32[2,3]`` is a TensorSpec of that shape, ``int32[]`` a scalar, ``?`` (or ``None``)
    an unknown dim (``float32[?,3]``), a bare dtype (``float32``) a tensor of unknown rank.
    Anything else is read as a Python literal (``3``, ``0.5``, ``True``, ``'relu'``,
    ``[1, 2]``) and traced as a Python value, as ``tw.function`` does.

    Args:
        text: the argument as typed.

    Returns:
        A TensorSpec or the Python value.

    Raises:
        ValueError: ``text`` is neither.
    """
    text = text.strip()
    m = _SPEC_RE.match(text)
    if m and m.group(1) not in ("True", "False", "None"):
        try:
            dtype = as_dtype(m.group(1))
        except TypeError:
            raise ValueError(f"{text!r}: {m.group(1)!r} is not a dtype (float32, int32, bool, "
                             f"...)") from None
        if m.group(2) is None:
            return TensorSpec(None, dtype)
        dims: list = []
        for d in (m.group(2).split(",") if m.group(2).strip() else []):
            d = d.strip()
            if d in _UNKNOWN_DIMS:
                dims.append(None)
            elif d.isdigit():
                dims.append(int(d))
            else:
                raise ValueError(f"{text!r}: dim {d!r} is not a size or '?'")
        return TensorSpec(dims, dtype)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(f"{text!r} is neither a tensor spec (DTYPE[dims], e.g. "
                         f"'float32[2,3]', 'int32[]') nor a Python literal") from None


def _load_file(path: str) -> types.ModuleType:
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise FileNotFoundError(f"no such file: {path}")
    stem = os.path.splitext(os.path.basename(full))[0]
    name = "_twinflow_inspect_" + re.sub(r"\W", "_", stem)
    spec = importlib.util.spec_from_file_location(name, full)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    old_path = list(sys.path)
    sys.path.insert(0, os.path.dirname(full))  # so the file's sibling imports work
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = old_path
    return module


def _candidates(module: types.ModuleType) -> list:
    """The functions a module defines (tw.functions first)."""
    mine = [(k, v) for k, v in vars(module).items() if not k.startswith("_") and
            getattr(v, "__module__", None) == module.__name__ and callable(v)]
    return [k for k, v in mine if isinstance(v, Function)] + \
        [k for k, v in mine if isinstance(v, types.FunctionType)]


def load_target(target: str):
    """Loads ``path/to/file.py:name`` or ``package.module:name`` (``name`` may be dotted).

    Args:
        target: the file or module, a colon, and the attribute to inspect.

    Returns:
        The object.

    Raises:
        LookupError: no name was given or the module has no such attribute (the message
            lists the functions it does define).
    """
    where, sep, attr = target.rpartition(":")
    if not sep or os.sep in attr or attr.endswith(".py"):
        where, attr = target, ""
    if where.endswith(".py") or os.sep in where or os.path.isfile(where):
        module = _load_file(where)
    else:
        module = importlib.import_module(where)
    obj = module
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is None or obj is module:
        what = f"has no {attr!r}" if attr else "was given without ':NAME'"
        names = ", ".join(_candidates(module)) or "none"
        raise LookupError(f"{where} {what}; functions it defines: {names}")
    return obj


def _shape_text(t) -> str:
    dims = t.shape.dims
    if dims is None:
        return f"{t.dtype.name}[...]"
    return f"{t.dtype.name}[{','.join('?' if d is None else str(d) for d in dims)}]"


def _ref(t) -> str:
    """How a listing names a tensor: its op's name, plus ``:i`` when the op has several."""
    return t.op.name if len(t.op.outputs) == 1 else t.name


def _value_text(v) -> str:
    if isinstance(v, Variable):
        return f"<variable {v.name}>"
    if isinstance(v, ResourceHandle) and isinstance(v._value, Variable):
        return f"<variable {v._value.name}>"
    if isinstance(v, SymbolicTensor):
        return f"<symbolic {_ref(v)}>"
    a = np.asarray(v) if not isinstance(v, np.ndarray) else v
    if a.dtype == object or a.size > 6:
        return f"<{a.dtype} array {'x'.join(map(str, a.shape)) or 'scalar'}>"
    if a.ndim == 0:
        return repr(a.item())
    return np.array2string(a, separator=", ").replace("\n", "")


def _attrs_text(op) -> str:
    parts = []
    for k, v in op.attrs.items():
        if k in _QUIET_ATTRS or k.startswith("_") or v is None or v is False or isinstance(
                v, (Graph, TensorShape)) or (
                isinstance(v, (list, tuple)) and v and isinstance(v[0], Graph)):
            continue
        text = repr(v)
        parts.append(f"{k}={text if len(text) <= 30 else text[:27] + '...'}")
    return "; ".join(parts)


def _format_graph(graph, out: Callable[[str], None], outputs=None, captures=(),
                  indent: str = "  ", devices: bool = True) -> None:
    """Lists ``graph``'s ops, grouped under the user's source line that created them."""
    captured = {id(ph): outer for outer, ph in captures}
    rows: list = []   # (source header or None, left column, right column, sub-graphs)
    for op in graph.get_operations():
        src = op.source
        header = None
        if op.type != "Placeholder" and src is not None:
            header = f"{os.path.basename(src.filename)}:{src.lineno}  {src.line}"
        args = [_ref(t) for t in op.inputs]
        if op.type == "Const" and "value" in op.attrs:
            args = [_value_text(op.attrs["value"])]
        attrs = _attrs_text(op)
        call = f"{op.type}({', '.join(args)}{'; ' + attrs if attrs and args else attrs})"
        right = ", ".join(_shape_text(t) for t in op.outputs)
        if op.device and devices:
            right += f"  on {op.device}"
        if op.type == "Placeholder":
            outer = captured.get(id(op.outputs[0]))
            right += "  argument" if outer is None else "  captured" if isinstance(
                outer, SymbolicTensor) else "  captured " + _value_text(outer)
        subs = []
        for k, v in op.attrs.items():
            gs = v if isinstance(v, (list, tuple)) else [v]
            subs += [(f"{k}[{i}]" if len(gs) > 1 else k, g) for i, g in enumerate(gs)
                     if isinstance(g, Graph)]
        pad = indent + "  " if header is not None else indent
        rows.append((header, f"{pad}{op.name} = {call}", right, subs, pad))
    width = min(60, max((len(r[1]) for r in rows), default=0))
    last = None
    for header, left, right, subs, pad in rows:
        if header is not None and header != last:
            out(f"{indent}{header}")
        last = header if header is not None else last
        out(f"{left.ljust(width)}  {right}".rstrip())
        for label, g in subs:
            out(f"{pad}  {label} ({g.name}):")
            _format_graph(g, out, getattr(g, "outputs", None), getattr(g, "captures", ()),
                          pad + "    ")
    if outputs is not None:
        out(f"{indent}return {', '.join(_ref(t) for t in outputs) or '()'}")


def inspect_function(fn, args: Sequence = (), kwargs: dict | None = None,
                     out: Callable[[str], None] = print,
                     sections: Sequence[str] = SECTIONS) -> ConcreteFunction:
    """Traces ``fn`` for ``args`` and prints what each stage of tw.function made of it.

    Sections (in pipeline order): the concrete signature; AutoGraph's converted code (when it
    converted Python control flow, or when asked for); the traced graph, its ops grouped under
    the user's source lines; how many changes each compiler pass made; the optimized graph;
    the generated Python source, each line commented with the user's line.

    Args:
        fn: a tw.function, a ConcreteFunction, or a Python function (wrapped in tw.function).
        args: positional arguments: TensorSpecs, tensors or Python values.
        kwargs: keyword arguments, likewise.
        out: where each line goes (``print`` by default).
        sections: which of ``SECTIONS`` to print.

    Returns:
        The ConcreteFunction.
    """
    function = None
    if isinstance(fn, ConcreteFunction):
        cf = fn
    else:
        function = fn if isinstance(fn, Function) else tw.function(fn)
        cf = function.get_concrete_function(*args, **(kwargs or {}))
    n_traced = len(cf.graph.get_operations())
    n_opt = len(cf.optimized_graph.get_operations())
    if "signature" in sections:
        _section(out, f"{cf.name}: concrete function")
        out(cf.pretty_printed_signature())
    if "autograph" in sections and function is not None:
        _autograph_section(function, out, explicit=len(sections) < len(SECTIONS))
    if "graph" in sections:
        _section(out, f"traced graph: {n_traced} ops")
        _format_graph(cf.graph, out, cf.outputs, cf.graph.captures)
    if "passes" in sections:
        _section(out, f"compiler passes: {n_traced} -> {n_opt} ops")
        stats = cf.pass_stats
        w = max((len(k) for k in stats), default=0)
        for name, n in stats.items():
            out(f"  {name.ljust(w)}  {n} change{'' if n == 1 else 's'}")
    if "optimized" in sections:
        _section(out, f"optimized graph: {n_opt} ops")
        _format_graph(cf.optimized_graph, out, cf.optimized_program.outputs)
    if "devices" in sections and cf.partitions:
        _devices_section(cf.partitions, out)
    if "source" in sections:
        _section(out, "generated Python (each line: op name (type) user file:line: code)")
        for line in cf.generated_source.rstrip("\n").splitlines():
            out(line)
    return cf


def _devices_section(partitions: list, out: Callable[[str], None]) -> None:
    """The per-device view: each partition's optimized graph, with its _Send/_Recv edges."""
    names = ", ".join(p.device.short_name for p in partitions)
    _section(out, f"partitioned across {len(partitions)} devices: {names}")
    for p in partitions:
        changes = sum(p.pass_stats.values())
        out(f"  {p.device.name}: {len(p.optimized.graph.get_operations())} ops "
            f"({changes} changes by the passes)")
        _format_graph(p.optimized.graph, out, p.optimized.outputs, indent="    ",
                      devices=False)


def _autograph_section(function: Function, out: Callable[[str], None], explicit: bool) -> None:
    if not function.autograph:
        if explicit:
            _section(out, "AutoGraph")
            out("  off (tw.function(autograph=False)): Python control flow runs while tracing")
        return
    try:
        code = to_code(function)
    except Exception as e:  # noqa: BLE001  (no source, unsupported construct: say why)
        _section(out, "AutoGraph")
        out(f"  no converted code: {type(e).__name__}: {e}")
        return
    if _AG_CONTROL_RE.search(code) or explicit:
        _section(out, "AutoGraph: converted code (tw.autograph.to_code)")
        for line in code.rstrip("\n").splitlines():
            out(line)


def _inspect_saved_model(path: str) -> int:
    """``twinflow inspect DIR``: a SavedModel's signatures, as ``saved_model_cli show --all``."""
    try:
        show_all(path)
    except (OSError, tw.errors.OpError) as e:
        print(f"twinflow inspect: {e}", file=sys.stderr)
        return 1
    return 0


def _inspect_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="twinflow inspect",
        description="Trace a function for the given arguments and print its traced graph\n"
                    "(ops under the source lines that made them), the compiler passes'\n"
                    "counts, the optimized graph, the generated Python and, where Python\n"
                    "control flow was converted, AutoGraph's code.",
        epilog="examples:  twinflow inspect model.py:step --arg 'float32[32,784]' "
               "--arg 'int32[32]'\n           twinflow inspect mypkg.layers:gelu --arg "
               "'float32[?]' --show source\nQuote specs: [ ] are shell glob characters.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", help="FILE.py:NAME or package.module:NAME (NAME may be "
                                       "dotted: obj.fn); FILE.py alone lists its functions; "
                                       "a SavedModel directory prints its signatures")
    parser.add_argument("--arg", action="append", default=[], metavar="SPEC",
                        help="one argument, in order: DTYPE[dims] ('float32[2,3]', 'int32[]', "
                             "'float32[?,3]'), or a Python literal (3, 0.5, True, \"'relu'\"); "
                             "NAME=SPEC for a keyword argument. Repeat per argument")
    parser.add_argument("--args", nargs="+", action="extend", dest="arg", metavar="SPEC",
                        help="several arguments at once")
    parser.add_argument("--show", default=",".join(SECTIONS),
                        help=f"comma-separated sections to print (default: all of "
                             f"{','.join(SECTIONS)})")
    if len(argv) == 1 and os.path.isdir(argv[0]):   # a SavedModel directory
        return _inspect_saved_model(argv[0])
    ns = parser.parse_args(argv)
    sections = [s.strip() for s in ns.show.split(",") if s.strip()]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from "
                     f"{', '.join(SECTIONS)}")
    args, kwargs = [], {}
    try:
        for text in ns.arg:
            m = _KEYWORD_RE.match(text.strip())
            if m:
                kwargs[m.group(1)] = parse_arg(m.group(2))
            else:
                args.append(parse_arg(text))
    except ValueError as e:
        parser.error(str(e))
    try:
        fn = load_target(ns.target)
    except (LookupError, OSError, ImportError, SyntaxError) as e:
        print(f"twinflow inspect: {e}", file=sys.stderr)
        return 1
    if not callable(fn):
        print(f"twinflow inspect: {ns.target} is a {type(fn).__name__}, not a function",
              file=sys.stderr)
        return 1
    try:
        inspect_function(fn, args, kwargs, sections=[s for s in SECTIONS if s in sections])
    except TypeError as e:
        print(f"twinflow inspect: {e}\n  give one --arg per parameter, e.g. --arg "
              f"'float32[2,3]' --arg 3", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001  (the user's code failed to trace: report it)
        print(f"twinflow inspect: tracing {ns.target} failed: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 1
    return 0


def _export_target(target: str, signature: str, arg_texts: list):
    """The ConcreteFunction ``twinflow export`` converts: a SavedModel signature (``target``
    a directory) or ``FILE.py:NAME`` traced for ``--arg`` specs."""
    if os.path.isdir(target):
        saved_model = getattr(tw, "saved_model", None)
        if getattr(saved_model, "load", None) is None:
            raise LookupError("this twinflow has no tw.saved_model.load to read a SavedModel "
                              "directory; export FILE.py:NAME with --arg specs instead")
        sigs = getattr(saved_model.load(target), "signatures", None) or {}
        if signature not in sigs:
            raise LookupError(f"{target} has no signature {signature!r}; it has: "
                              f"{', '.join(sorted(sigs)) or 'none'}")
        return sigs[signature], None
    specs = [parse_arg(a) for a in arg_texts]
    if not specs or not all(isinstance(s, TensorSpec) for s in specs):
        raise ValueError("give one --arg DTYPE[dims] per argument, e.g. --arg 'float32[?,8]'")
    return load_target(target), specs


def _export_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="twinflow export",
        description="Convert a SavedModel signature, or a function or Keras model of a Python "
                    "file, to an ONNX model (needs the onnx package: twinflow[onnx]).",
        epilog="examples:  twinflow export saved_dir model.onnx --signature serving_default\n"
               "           twinflow export model.py:net model.onnx --arg 'float32[?,784]'",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="a SavedModel directory, or FILE.py:NAME")
    parser.add_argument("output", help="the .onnx file to write")
    parser.add_argument("--signature", default="serving_default",
                        help="the SavedModel signature to convert (default: serving_default)")
    parser.add_argument("--arg", action="append", default=[], metavar="SPEC",
                        help="for FILE.py:NAME: one argument spec, DTYPE[dims] ('?' for any "
                             "size), in order")
    parser.add_argument("--opset", type=int, default=None, help="the ONNX opset (default 17)")
    ns = parser.parse_args(argv)
    try:
        fn, specs = _export_target(ns.source, ns.signature, ns.arg)
        kwargs = {} if ns.opset is None else {"opset": ns.opset}
        model = tw.onnx.export(fn, specs, ns.output, **kwargs)
    except Exception as e:  # noqa: BLE001  (loading, tracing or converting failed: report it)
        print(f"twinflow export: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"wrote {ns.output}: {len(model.graph.node)} ONNX nodes, opset "
          f"{model.opset_import[0].version}, inputs "
          f"{', '.join(i.name for i in model.graph.input)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``twinflow`` console command.

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status.
    """
    parser = argparse.ArgumentParser(prog="twinflow", description="twinflow command line")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", add_help=False,
                   help="train a convnet on the digits eagerly and as a graph (--tour: a tour "
                        "of eager execution and gradients; --help: options)")
    sub.add_parser("bench", help="benchmarks against raw NumPy (twinflow bench --help)",
                   add_help=False)
    sub.add_parser("inspect", add_help=False,
                   help="trace a function and show its graph, passes and generated Python "
                        "(twinflow inspect --help)")
    sub.add_parser("export", add_help=False,
                   help="convert a SavedModel or a function to ONNX (twinflow export --help)")
    sub.add_parser("version", help="print the version")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        return bench.main(argv[1:])
    if argv and argv[0] == "inspect":
        return _inspect_main(argv[1:])
    if argv and argv[0] == "export":
        return _export_main(argv[1:])
    if argv and argv[0] == "demo":
        if "--tour" in argv[1:]:
            eager_tour()
            return 0
        return training_demo.main(argv[1:])
    args = parser.parse_args(argv)
    if args.command == "version":
        print(f"twinflow {tw.__version__}")
        return 0
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
