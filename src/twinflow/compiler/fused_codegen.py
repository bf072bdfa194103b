"""Generates the blocked loop of a ``FusedElementwise`` op, e.g. for GELU::

    def fused_mul_8(x0):
        # 9 elementwise ops fused into one blocked loop (16384 elements per block):
        #   gelu.py:5 in gelu: return 0.5 * x * (1.0 + tw.tanh(...))
        out = empty((1000000,), float32)
        o = out.reshape(-1)
        v0 = x0.reshape(-1)
        def block(s, e, b):
            n = e - s
            t0 = b[0][:n]
            t1 = b[1][:n]
            u0 = v0[s:e]
            multiply(c0, u0, out=t0)      # Mul mul
            ...
            multiply(t0, t1, out=o[s:e])  # Mul mul_8
        run_blocks(block, 1000000, 16384, SPECS, True)
        return out

Each block's intermediates live in a few scratch buffers (per thread, allocated once) sized to
stay in the L2 cache, instead of one fresh full-size array per op. A scratch buffer is reused
as soon as the value in it is dead (liveness within the group). Blocks run on the intra-op
thread pool (``core.parallel``) when the result is large.

Blocking: when every non-scalar input has the result's full shape, the arrays are flattened and
cut into runs of elements; otherwise (a bias broadcast along the last axis...) the blocks are
runs of rows of the leading axis, and inputs without that axis are used whole.

A short last axis (a bias over 16 channels) makes every NumPy call loop over 16 elements at a
time, 2-3x slower than over long rows. So when the only inputs that are neither full nor
scalars are vectors along a last axis of at most ``core.short_axis.SHORT_MAX`` elements, the
body is viewed as rows of ``C * k`` elements (``k`` copies of the last axis; the row length is
``core.short_axis.row_length``'s, as for the eager kernels) and those vectors are tiled ``k``
times (``tile``): the same elementwise arithmetic, so the same bits.
Measured on [32, 26, 26, 16] float32 (bias add + relu of the seed 004 convnet): the add took
55-90 µs on rows of 416-1024 against 180 µs on rows of 16.

A relu is ``maximum`` against a block of zeros (a read-only constant of the block's shape,
shared by the fused functions with the same block):
NumPy's vectorised loop is the array-array one; against the scalar 0 the same call took
128-160 µs instead of 46-51 µs on that array (same bits, NaN and -0.0 included). A relu
gradient multiplies dy's bit pattern by the 0/1 mask as unsigned integers, as the ``ReluGrad``
kernel does (the bits of ``where(y > 0, dy, 0)`` without its branches: 0.1 ms instead of
1.3-1.6 ms on that array).
"""
from __future__ import annotations

import itertools
import linecache
import threading
import weakref

import numpy as np

from ..core import short_axis
from ..core.dtypes import bits_uint
from ..core.parallel import run_blocks
from . import fused_numba

_counter = itertools.count()
_zeros: weakref.WeakValueDictionary = weakref.WeakValueDictionary()   # see _shared_zeros
_zeros_lock = threading.Lock()
# names the generated code uses
_HELPERS = {"empty": np.empty, "copyto": np.copyto, "maximum": np.maximum, "negative": np.negative,
            "exp": np.exp, "add": np.add, "reciprocal": np.reciprocal,
            "true_divide": np.true_divide, "multiply": np.multiply, "greater": np.greater,
            "subtract": np.subtract,
            "tile": np.tile, "run_blocks": run_blocks}


def _ident(name: str) -> str:
    s = "".join(c if c.isalnum() else "_" for c in name)
    return s if s and not s[0].isdigit() else "f_" + s


class _Writer:
    def __init__(self) -> None:
        self.ns: dict = dict(_HELPERS)
        self.counts: dict = {}
        self.block_shape: tuple | None = None   # (rows, *tail) once the block is written
        self.zeros: dict = {}                    # dtype -> the block's slice of its zeros
        self.zero_lines: list = []               # the lines making those slices

    def value(self, v, prefix: str) -> str:
        n = self.counts[prefix] = self.counts.get(prefix, -1) + 1
        name = f"{prefix}{n}"
        self.ns[name] = v
        return name

    def fn(self, f) -> str:
        name = getattr(f, "__name__", None)
        if name and (self.ns.get(name) is f or name not in self.ns):
            self.ns[name] = f
            return name
        return self.value(f, "f")


def _out_reusable(steps: tuple, flat: bool) -> bool:
    """Whether the result's own block may hold intermediates: a flat or tiled loop (every value
    has the block's shape, so a ufunc's output may be one of its inputs) ending in a ufunc
    step."""
    return flat and steps[-1].kind in ("ufunc", "relu")


def _plan_buffers(steps: tuple, out_buffer: bool = False) -> tuple:
    """(buffer of each step's result, None for the last; scratch buffer dtypes).

    A buffer is an index into the scratch buffers, or ``"O"`` for the block of the result
    itself (with ``out_buffer``: one scratch buffer fewer; the last step then reads what it
    overwrites, elementwise, which ufuncs allow).
    """
    last: dict = {}
    for j, s in enumerate(steps):
        for kind, i in s.args:
            if kind == "t":
                last[i] = j
    out_dt = np.dtype(steps[-1].dtype)
    free: dict = {out_dt: ["O"]} if out_buffer else {}   # dtype -> [buffers]
    dtypes: list = []
    where: list = []

    def dtype_of(b):
        return out_dt if b == "O" else dtypes[b]
    for j, s in enumerate(steps):
        # values dead after this step give their buffers back first, so ufuncs run in place;
        # copy-based steps must not overwrite an argument they still read after writing
        keep = s.kind in ("relu_grad", "select")
        released = [where[i] for kind, i in s.args if kind == "t" and last[i] == j
                    and where[i] is not None]
        if not keep:
            for b in released:
                free.setdefault(dtype_of(b), []).append(b)
        if j == len(steps) - 1:
            where.append(None)
        else:
            pool = free.get(np.dtype(s.dtype), [])
            if pool:
                b = pool.pop()
            else:
                b = len(dtypes)
                dtypes.append(np.dtype(s.dtype))
            where.append(b)
        if keep:
            for b in released:
                free.setdefault(dtype_of(b), []).append(b)
    return where, dtypes


def _step_lines(w: _Writer, s, args: list, out: str) -> list:
    k = s.kind
    if k == "ufunc":
        return [f"{w.fn(s.fn)}({', '.join(args)}, out={out})"]
    zero = w.value(s.dtype.type(0), "c")
    if k == "cast":
        return [f"copyto({out}, {args[0]}, casting='unsafe')"]
    if k == "relu":
        zeros = _zeros_block(w, np.dtype(s.dtype))
        return [f"maximum({args[0]}, {zeros}, out={out})" if zeros else
                f"maximum({args[0]}, {zero}, out={out})"]
    if k == "relu_grad":
        uint = bits_uint(s.dtype) if np.dtype(s.dtype).kind == "f" else None
        if uint is not None and not args[0].startswith("c") and out != args[1]:
            u = w.value(uint, "uint")
            return [f"multiply({args[0]}.view({u}), greater({args[1]}, {zero}), dtype={u}, "
                    f"out={out}.view({u}))"]
        return [f"copyto({out}, {zero})", f"copyto({out}, {args[0]}, where={args[1]} > {zero})"]
    if k == "sigmoid":
        one = w.value(s.dtype.type(1), "c")
        return [f"negative({args[0]}, out={out})", f"exp({out}, out={out})",
                f"add({out}, {one}, out={out})", f"reciprocal({out}, out={out})"]
    if k == "select":
        return _select_lines(w, s, args, out)
    if k.startswith("reduce"):
        keepdims, count = s.extra
        dt = w.value(np.dtype(s.dtype), "dt")
        lines = [f"add.reduce({args[0]}, axis=-1, dtype={dt}, keepdims={keepdims}, out={out})"]
        if k == "reduce_mean":
            lines.append(f"true_divide({out}, {w.value(count, 'n')}, out={out}, "
                         f"casting='unsafe')")
        return lines
    raise AssertionError(k)  # pragma: no cover


def _select_lines(w: _Writer, s, args: list, out: str) -> list:
    """``where(mask, a, b)`` into ``out``: on the bit patterns as unsigned integers,
    ``b + (a - b) * mask`` (wrapping) is exactly a's or b's bits, without the mispredicted
    branches of a masked copy on a data-dependent mask (0.14 ms instead of 1.2 ms on 350K
    float32; ``ops/fast_elementwise.select``). Scalar operands keep the masked copies."""
    m, a, b = args
    uint = bits_uint(s.dtype)
    if uint is None or np.dtype(s.dtype).kind not in "biuf" or a[0] == "c" or b[0] == "c":
        return [f"copyto({out}, {b})", f"copyto({out}, {a}, where={m})"]
    u = w.value(uint, "uint")
    o = f"{out}.view({u})"
    return [f"subtract({a}.view({u}), {b}.view({u}), out={o})",
            f"multiply({o}, {m}, out={o}, dtype={u})", f"add({o}, {b}.view({u}), out={o})"]


def _shared_zeros(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """A read-only zeros array, one per (shape, dtype) while some fused function holds it:
    flat loops of one dtype all have the same block, so a program of many fused relus keeps
    one block of zeros, not one each."""
    key = (shape, dtype)
    with _zeros_lock:
        z = _zeros.get(key)
        if z is None:
            z = np.zeros(shape, dtype)
            z.setflags(write=False)
            _zeros[key] = z
    return z


def _zeros_block(w: _Writer, dtype: np.dtype) -> str | None:
    """The name of this block's zeros of ``dtype`` (sliced to the block in the block's code)."""
    if w.block_shape is None:
        return None
    if dtype not in w.zeros:
        name = w.value(_shared_zeros(w.block_shape, dtype), "zeros")
        w.zeros[dtype] = f"{name}_b"
        w.zero_lines.append(f"{name}_b = {name}[:n]")
    return w.zeros[dtype]


def _tiling(shape: tuple, in_shapes: tuple, steps: tuple) -> int:
    """How many copies of a short last axis make one row (1: the body is not re-viewed)."""
    if len(shape) < 2 or None in shape or steps[-1].kind.startswith("reduce"):
        return 1
    c, total = shape[-1], int(np.prod(shape))
    vectors = 0
    for s in in_shapes:
        size = int(np.prod(s))
        if size in (1, total):
            continue
        if not s or s[-1] != c or any(d != 1 for d in s[:-1]):
            return 1
        vectors += 1
    if not vectors or not 0 < c <= short_axis.SHORT_MAX:
        return 1
    length = short_axis.row_length(shape[:-1], c)   # (the eager kernels' rule)
    return length // c if length else 1


def _view(op) -> tuple:
    """(body shape, input shapes, k) as the loop sees them: with ``k > 1`` (``_tiling``) the
    body is ``[rows, C * k]``, full inputs are reshaped to it and vectors tiled to ``[C * k]``."""
    a = op.attrs
    shape, in_shapes = tuple(a["body_shape"]), tuple(a["in_shapes"])
    k = _tiling(shape, in_shapes, a["steps"])
    if k == 1:
        return shape, in_shapes, 1
    total = int(np.prod(shape))
    row = shape[-1] * k
    view = (total // row, row)
    return view, tuple(view if int(np.prod(s)) == total else (row,) if int(np.prod(s)) > 1
                       else () for s in in_shapes), k


def block_geometry(op) -> tuple:
    """How a FusedElementwise op's loop is blocked.

    Args:
        op: the Operation.

    Returns:
        (result size, input sizes, flat?, loop length, block length): flat loops run over
        elements, others over rows of the leading axis.
    """
    a = op.attrs
    steps, opts = a["steps"], a["options"]
    shape, in_shapes, tiles = _view(op)
    total = int(np.prod(shape))
    sizes = [int(np.prod(s)) for s in in_shapes]
    # a trailing reduction over the last axis needs whole rows in every block; a tiled vector
    # is as long as a one-row body but is not sliced with it
    flat = tiles == 1 and all(z in (1, total) for z in sizes) and \
        not steps[-1].kind.startswith("reduce")
    itemsize = max(np.dtype(s.dtype).itemsize for s in steps)
    row = 1 if flat or not shape else int(np.prod(shape[1:]))
    rows = max(1, opts.block_bytes // (itemsize * max(row, 1)))
    n = total if flat else (shape[0] if shape else 1)
    return total, sizes, flat, n, min(rows, max(n, 1))


def scratch_bytes(op) -> int:
    """Bytes of one thread's scratch buffers for a FusedElementwise op.

    Args:
        op: the Operation.

    Returns:
        The size.
    """
    total, _, flat, n, rows = block_geometry(op)
    row = total // max(n, 1)
    steps = op.attrs["steps"]
    _, dts = _plan_buffers(steps, _out_reusable(steps, flat or _view(op)[2] > 1))
    return sum(rows * row * dt.itemsize for dt in dts)


def _what(steps) -> str:
    if steps[-1].kind.startswith("reduce"):
        return f"{len(steps) - 1} elementwise ops and a trailing {steps[-1].op_type}"
    return f"{len(steps)} elementwise ops"


def fused_source(op) -> tuple:
    """The blocked function's source and namespace for a FusedElementwise op.

    Args:
        op: the FusedElementwise Operation.

    Returns:
        (source text, namespace dict, function name).
    """
    a = op.attrs
    steps, opts = a["steps"], a["options"]
    shape, in_shapes, tiles = _view(op)
    total, sizes, flat, n, rows = block_geometry(op)
    w = _Writer()
    name = _ident(f"fused_{op.name}")
    params = [f"x{i}" for i in range(len(in_shapes))]
    where, bufdt = _plan_buffers(steps, _out_reusable(steps, flat or tiles > 1))
    tail = () if flat or not shape else tuple(shape[1:])
    specs = w.value(tuple((tail, dt) for dt in bufdt), "scratch")
    out_dt = np.dtype(steps[-1].dtype).name
    w.ns[out_dt] = np.dtype(out_dt)
    lines = [f"def {name}({', '.join(params)}):",
             f"    # {_what(steps)} fused into one blocked loop ({rows} "
             f"{'elements' if flat else 'rows'} per block):"]
    seen = []
    for s in steps:
        if s.source and s.source not in seen:
            seen.append(s.source)
            lines.append(f"    #   {s.source}".replace("\n", " "))
    lines.append(f"    out = empty({a['shape']!r}, {out_dt})")
    if tiles > 1:
        lines.insert(2, f"    #   (a row is {tiles} copies of the last axis; vectors along it "
                        "are tiled)")
    lines.append("    o = out.reshape(-1)" if flat else
                 f"    o = out.reshape({shape!r})" if tiles > 1 else "    o = out")
    sliced = []
    for i, s in enumerate(in_shapes):
        if flat:
            lines.append(f"    v{i} = x{i}.reshape(-1)")
            sliced.append(sizes[i] == total)
        elif tiles > 1:
            full = int(np.prod(a["in_shapes"][i])) == total   # (else a vector, tiled)
            lines.append(f"    v{i} = x{i}.reshape({s!r})" if full or sizes[i] == 1 else
                         f"    v{i} = tile(x{i}.reshape(-1), {tiles})")
            sliced.append(full)
        else:
            lines.append(f"    v{i} = x{i}")
            sliced.append(len(s) == len(shape) and s[0] == shape[0] and shape[0] != 1)
    # runs of plain arithmetic compiled by numba (jit_compile=True, flat loops, if installed)
    compiled = fused_numba.runs(steps) if opts.compiled_loops and flat and \
        fused_numba.available() else []
    if compiled:
        lines[1] = lines[1][:-1] + "; its arithmetic runs compiled by numba:"
    lines.append("    def block(s, e, b):")
    w.block_shape = (rows, *tail)
    body = ["n = e - s"]
    body += [f"t{b} = b[{b}][:n]" for b in range(len(bufdt))]
    last_out = "o[s:e]"
    if "O" in where or compiled and compiled[-1][1] == len(steps):
        body.append("tO = o[s:e]")
        last_out = "tO"
    for i, sl in enumerate(sliced):
        body.append(f"u{i} = v{i}[s:e]" if sl else f"u{i} = v{i}")
    names, outs, notes = [], [], []
    for j, s in enumerate(steps):
        args, consts = [], []
        for kind, v in s.args:
            if kind == "x":
                args.append(f"u{v}")
            elif kind == "t":
                args.append(f"t{where[v]}")
            else:
                args.append(w.value(v, "c"))
                consts.append(f"{args[-1]}={v!r}")
        names.append(args)
        outs.append(last_out if where[j] is None else f"t{where[j]}")
        notes.append(f"  # {s.op_type} {s.op_name}" + (f" ({', '.join(consts)})" if consts
                                                          else ""))
    starts = dict(compiled)
    runs_src = []
    j = 0
    while j < len(steps):
        if j in starts:
            body.append(_compiled_run(w, steps, j, starts[j], names, outs, sliced, runs_src))
            j = starts[j]
            continue
        text = _step_lines(w, steps[j], names[j], outs[j])
        text[-1] += notes[j]
        body += text
        j += 1
    body[1:1] = w.zero_lines
    lines += [f"        {b}" for b in body]
    lines.append(f"    run_blocks(block, {n}, {rows}, {specs}, {total >= opts.parallel_min})")
    lines.append("    return out")
    return "".join(runs_src) + "\n".join(lines) + "\n", w.ns, name


def _compiled_run(w: _Writer, steps: tuple, first: int, stop: int, names: list, outs: list,
                  sliced: list, runs_src: list) -> str:
    """Adds the source of a numba run of ``steps[first:stop]`` and returns its call."""
    fname = f"run{len(runs_src)}"
    later = {k for k in range(first, stop) if k == len(steps) - 1 or any(
        kind == "t" and v == k for s in steps[stop:] for kind, v in s.args)}
    whole = {f"u{i}" for i, sl in enumerate(sliced) if not sl}
    src, params = fused_numba.run_source(fname, steps, first, stop, names,
                                         dict(enumerate(outs)), whole, later)
    w.ns["compile_run"] = fused_numba.compile_run
    runs_src.append(src + f"{fname} = compile_run({fname})\n\n\n")
    return f"{fname}(n, {', '.join(params)})"


def build_fused_function(op):
    """Compiles the blocked function of a FusedElementwise op.

    Args:
        op: the Operation.

    Returns:
        The function of the group's input arrays; it carries its ``__source__`` and promises
        a fresh result (``fresh_result``) so codegen may overwrite it in place.
    """
    source, ns, name = fused_source(op)
    filename = f"<twinflow-fused-{next(_counter)}:{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns["__name__"] = "twinflow.codegen_program"
    exec(compile(source, filename, "exec"), ns)  # noqa: S102  (the generated block)
    fn = ns[name]
    weakref.finalize(fn, linecache.cache.pop, filename, None)
    fn.__source__ = source
    fn.fresh_result = True
    return fn
