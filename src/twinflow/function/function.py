"""``tw.function``: a polymorphic callable that traces Python into graphs, compiles them, and
runs the compiled graph on every later call with matching arguments.

* ``Function`` keeps one ``ConcreteFunction`` per cache key (see ``trace_type``): tensors by
  dtype and shape, Python values by value, objects by identity. A miss traces a new graph
  (Python side effects run only then) and records *why* (``experimental_retrace_reasons``).
* ``ConcreteFunction`` holds the traced ``graph``, the ``optimized_graph`` with ``pass_stats``,
  and the ``generated_source`` the graph was compiled to.
* Inside another trace a Function is inlined (its ops join the caller's graph); under
  ``tw.config.run_functions_eagerly(True)`` it calls the Python function directly; under an
  active GradientTape the call is one differentiable op (``call_op``).

With ``autograph=True`` (the default) the Python function is first converted by
``autograph.convert_for_function`` (AutoGraph sits below this package in the layers).
"""
from __future__ import annotations

import functools
import inspect
import threading
import types
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..compiler.memory import memory_stats
from ..compiler.program import Program, bind_captures
from ..core import nest
from ..core.context import ctx, process
from ..core.props import readonly
from ..eager.execute import convert_to_tensor
from ..eager.func_graph import FuncGraph, TensorSpec, trace_func_graph
from ..eager.tensor import EagerTensor, ResourceHandle
from ..framework.type_spec import CompositeTensor, TypeSpec
from ..graph.tensor import SymbolicTensor, Tensor
from ..ops.variables import Variable
from . import retracing
from .call_op import GraphCallable, call
from .trace_type import generalize, is_tensor_leaf, key_accepts, leaf_key, make_key, relaxed

# How many traced graphs one Function keeps (TensorFlow bounds its dispatch cache at 1024 too);
# beyond it the least recently used graph is dropped and retraced if it is needed again.
MAX_TRACES = retracing.MAX_TRACES

_FAST_SCALARS = (int, float, bool, str, type(None))
_VARIABLE_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the "
    "tf.Variable is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")


def _make_packer(structure):
    """A function turning the compiled program's output arrays into the user's structure."""
    if isinstance(structure, SymbolicTensor):
        return lambda outs: EagerTensor(_array(outs[0]))
    flat = nest.flatten(structure, expand_composites=True)
    slots = [isinstance(x, SymbolicTensor) for x in flat]

    def pack(outs):
        it = iter(outs)
        vals = [EagerTensor(_array(next(it))) if s else x for x, s in zip(flat, slots)]
        return nest.pack_sequence_as(structure, vals, expand_composites=True)
    return pack


def _make_placed_packer(structure):
    """``_make_packer`` for a call whose outputs may sit on devices other than CPU:0:
    ``pack(outs, names)`` also names each output tensor's device (None: CPU:0)."""
    flat = nest.flatten(structure, expand_composites=True)
    slots = [isinstance(x, SymbolicTensor) for x in flat]

    def pack(outs, names):
        it = iter(zip(outs, names or [None] * len(outs)))
        vals = []
        for x, s in zip(flat, slots):
            if s:
                v, name = next(it)
                x = EagerTensor(_array(v))
                if name is not None:
                    x._device = name
            vals.append(x)
        return nest.pack_sequence_as(structure, vals, expand_composites=True)
    return pack


def _array(v):
    """``v``, or a 0-d object array for a string scalar (bytes) taken out of an object array."""
    return v if type(v) is not bytes else np.asarray(v, dtype=object)


def _leaf_value(x):
    """The array fed for a tensor-like argument leaf."""
    if type(x) is EagerTensor:
        return x._value
    if isinstance(x, np.ndarray):
        return x
    return convert_to_tensor(x)._value


class ConcreteFunction:
    """One traced graph of a Function, compiled; callable with matching tensors.

    Args:
        func_graph: the traced FuncGraph.
        function_name: the Python function's name.
    """

    def __init__(self, func_graph: FuncGraph, function_name: str,
                 jit_compile: bool = False) -> None:
        self.graph = func_graph
        self.name = function_name
        self._recently_used = False   # for the Function's cache eviction
        self._key_refs: list = []
        fg = func_graph
        n_args = len(fg.inputs) - len(fg.captures)
        self._arg_inputs = fg.inputs[:n_args]
        program = bind_captures(fg, self._arg_inputs, fg.captures, fg.outputs)
        self._callable = GraphCallable(program, function_name, jit_compile)
        self._run = self._callable.run
        self._pack = _make_packer(fg.structured_outputs)
        args, kwargs = fg.structured_input_signature
        flat_sig = nest.flatten(list(args), True) + nest.flatten(kwargs, True)
        self._tensor_positions = [i for i, s in enumerate(flat_sig) if isinstance(s, TensorSpec)]
        self._taped: GraphCallable | None = None
        self._placed_pack = _make_placed_packer(fg.structured_outputs)
        if self._callable.placed is not None:  # outputs may be on other devices
            self._call_fast = self._call_placed

    # ----- inspection -----
    inputs = readonly("graph.inputs", "The graph's input placeholders (captures included).",
                      copy=list)
    outputs = readonly("graph.outputs", "The graph's output tensors.", copy=list)
    structured_input_signature = readonly("graph.structured_input_signature",
                                          "The ``(args, kwargs)`` the function was traced for.")
    structured_outputs = readonly("graph.structured_outputs",
                                  "The outputs as the Python function returned them (nested).")

    @property
    def captured_inputs(self) -> list:
        return [outer for outer, _ in self.graph.captures]

    @property
    def variables(self) -> tuple:
        """The variables the graph reads or writes (captured handles), in capture order."""
        return tuple(o._value for o in self.captured_inputs
                     if isinstance(o, ResourceHandle) and isinstance(o._value, Variable))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(v for v in self.variables if v.trainable)

    @property
    def optimized_graph(self):
        """The graph after the compiler's passes (the one the generated code runs)."""
        return self._callable.optimized.graph

    @property
    def optimized_program(self) -> Program:
        """The optimized graph with the placeholders fed (``inputs``) and tensors returned
        (``outputs``) by the generated code."""
        return self._callable.optimized

    @property
    def pass_stats(self) -> dict:
        """How many changes each compiler pass made: ``{'constant_folding': 2, ...}``."""
        return dict(self._callable.pass_stats)

    @property
    def memory_stats(self) -> dict:
        """Intermediate memory before and after planning (``compiler/memory.py``):
        ``{'unplanned_bytes', 'peak_bytes', 'bytes_saved', 'buffers_reused', ...}``."""
        return memory_stats(self._callable.optimized)

    @property
    def partitions(self) -> list:
        """The per-device partitions a call from this thread runs (``compiler/partition.py``:
        each has ``device``, ``program``, ``optimized``, ``pass_stats``, ``compiled``); empty
        when every op runs on one device."""
        placed = self._callable.placed
        if placed is None:
            return []
        plan = placed.plan(ctx.device_stack[-1]).partitioned
        return [] if plan is None else list(plan.partitions)

    generated_source = readonly("_callable.compiled.source",
                                "The straight-line Python the optimized graph was compiled to.")

    @property
    def function_def(self):
        return self.graph.as_graph_def()

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """The signature as TensorFlow prints it (inputs, output type, captures).

        Args:
            verbose: accepted for TensorFlow compatibility.

        Returns:
            The multi-line description.
        """
        args, kwargs = self.structured_input_signature
        names = self.graph.python_signature or []
        lines = ["Input Parameters:"]
        for i, a in enumerate(args):
            pname = names[i] if i < len(names) else f"arg{i}"
            lines.append(f"  {pname} (POSITIONAL_OR_KEYWORD): {_type_text(a)}")
        for k, v in kwargs.items():
            lines.append(f"  {k} (KEYWORD_ONLY): {_type_text(v)}")
        lines.append("Output Type:")
        lines.append(f"  {_type_text(nest.map_structure(_spec, self.structured_outputs))}")
        lines.append("Captures:")
        caps = self.graph.captures
        if not caps:
            lines.append("  None")
        for outer, ph in caps:
            lines.append(f"  {id(outer)}: {_type_text(_spec(ph))}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.name}{self._short_sig()} at 0x{id(self):X}>"

    def _short_sig(self) -> str:
        args, kwargs = self.structured_input_signature
        parts = [_type_text(a) for a in args] + [f"{k}={_type_text(v)}" for k, v in
                                                   kwargs.items()]
        return f"({', '.join(parts)})"

    # ----- calling -----
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the traced graph.

        Args:
            *args: the positional arguments, matching the traced signature.
            **kwargs: the keyword arguments, matching the traced signature.

        Returns:
            The outputs, in the structure the Python function returned.

        Raises:
            TypeError: the tensor arguments do not match the signature.
        """
        flat = nest.flatten(list(args), True) + nest.flatten(kwargs, True)
        if len(flat) == len(self._arg_inputs):
            leaves = flat
        else:
            leaves = [flat[i] for i in self._tensor_positions]
        if len(leaves) != len(self._arg_inputs):
            raise TypeError(f"{self.name}: expected {len(self._arg_inputs)} tensor arguments, "
                            f"got {len(leaves)}")
        for x, ph in zip(leaves, self._arg_inputs):
            t = x if isinstance(x, Tensor) else None
            if t is not None and (t.dtype is not ph.dtype
                                  or not ph.shape.is_compatible_with(t.shape)):
                raise ValueError(f"{self.name}: argument {x!r} does not match the traced "
                                 f"input {ph.name} (dtype {ph.dtype.name}, shape {ph.shape})")
        return self._call_leaves(leaves)

    def _call_leaves(self, leaves: list):
        """Runs the graph on the tensor leaves of the arguments (in signature order)."""
        if ctx.graph is not None:
            raise RuntimeError("calling a ConcreteFunction while tracing is not supported; "
                               "call the tw.function (it is inlined)")
        if ctx.tapes:
            return self._call_taped(leaves)
        vals = [_leaf_value(x) for x in leaves]
        names = self._callable.output_devices() if ctx.device_stack[-1] or \
            self._callable.placed is not None else None
        run = self._run if not process.profiling else self._callable.profiled_run
        try:
            outs = run(*vals)
        except Exception as e:  # noqa: BLE001  (re-raised naming the op and user line)
            raise self._callable.explain(e) from e
        return self._pack(outs) if names is None else self._placed_pack(outs, names)

    def _call_placed(self, args: tuple):
        """``_call_fast`` of a graph with placed ops: outputs name their devices."""
        pos = self._tensor_positions
        return self._call_leaves([args[i] for i in pos] if len(pos) != len(args) else args)

    def _call_fast(self, args: tuple):
        """A call whose arguments are all tensors or Python scalars (no nesting)."""
        pos = self._tensor_positions
        run = self._run if not process.profiling else self._callable.profiled_run
        try:
            if len(pos) == len(args):
                outs = run(*[a._value for a in args])
            else:
                outs = run(*[args[i]._value for i in pos])
        except Exception as e:  # noqa: BLE001  (re-raised naming the op and user line)
            raise self._callable.explain(e) from e
        return self._pack(outs)

    def _call_taped(self, leaves: list):
        """A call under an active tape: one op, differentiable through the traced graph."""
        fg = self.graph
        if self._taped is None:
            self._taped = GraphCallable(Program(fg, fg.inputs, fg.outputs), self.name)
        tensors = [x if isinstance(x, EagerTensor) else EagerTensor(_leaf_value(x))
                   for x in leaves]
        captured = [outer for outer, _ in fg.captures]
        for tape in ctx.tapes:
            if not tape._watch_accessed_variables:
                continue
            for outer in captured:
                var = outer._value if isinstance(outer, ResourceHandle) else None
                if isinstance(var, Variable) and var.trainable:
                    tape._watch_key(id(outer), outer, var)
        outs = call(self._taped, tensors + captured)
        it = iter(outs)
        flat = nest.flatten(fg.structured_outputs, expand_composites=True)
        vals = [next(it) if isinstance(x, SymbolicTensor) else x for x in flat]
        if isinstance(fg.structured_outputs, SymbolicTensor):
            return vals[0]
        return nest.pack_sequence_as(fg.structured_outputs, vals, expand_composites=True)


def _spec(x):
    if isinstance(x, SymbolicTensor):
        return TensorSpec(x.shape, x.dtype, None)
    if isinstance(x, CompositeTensor):
        return x._type_spec
    return x


def _type_text(x) -> str:
    if isinstance(x, TypeSpec):
        return repr(x)
    if isinstance(x, (list, tuple, dict)):
        return repr(nest.map_structure(lambda v: v, x))
    return f"Literal[{x!r}]"


class Function:
    """A Python function compiled to graphs on demand (``tw.function``).

    Args:
        python_function: the function (or bound method) to compile.
        name: its name (default: ``__name__``).
        input_signature: a list of TensorSpecs (nested allowed): trace once, for these.
        autograph: convert Python control flow on tensors (applied when AutoGraph is loaded).
        jit_compile: True selects the most aggressive pipeline (``compiler.pipeline.
            JIT_PASSES``: fusion from smaller sizes, larger blocks, parallel sooner).
        reduce_retracing: on a shape change, retrace once with the differing dims unknown.
    """

    def __init__(self, python_function, name: str | None = None, input_signature=None,
                 autograph: bool = True, jit_compile=None, reduce_retracing: bool = False,
                 experimental_implements=None, experimental_autograph_options=None,
                 experimental_attributes=None, experimental_follow_type_hints=None) -> None:
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._jit_compile = jit_compile
        # Passed to the AutoGraph converter (e.g. Feature.STRICT: no silent fallback).
        self._autograph_options = experimental_autograph_options
        self._reduce_retracing = reduce_retracing
        self._input_signature = None if input_signature is None else list(input_signature)
        functools.update_wrapper(self, python_function, updated=())
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        self._param_names, self._fast_nargs = self._analyse_signature()
        self._cache: dict = {}
        self._concretes: list = []      # (key, ConcreteFunction), in trace order
        # Tracing and the cache's updates, one thread at a time (lookups need no lock).
        self._lock = threading.RLock()
        self._tracing_count = 0
        self._retrace_reasons: list = []
        self._converted = None
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._bound_by_id: dict = {}
        self._counter = retracing.counter_for(python_function)

    def _analyse_signature(self) -> tuple:
        sig = self._signature
        if sig is None:
            return [], -1
        names = []
        simple = True
        for p in sig.parameters.values():
            names.append(p.name)
            if p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
                simple = False
        return names, (len(names) if simple else -1)

    # ----- Python protocol -----
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = self._bound_by_id.get(id(instance))
        if bound is None:
            with self._lock:
                return self._bind_to(instance)
        return bound

    def _bind_to(self, instance):
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = self._bound_by_id.get(id(instance))
        if bound is None:
            method = types.MethodType(self._python_function, instance)
            bound = Function(method, self._name, self._input_signature, self._autograph,
                             self._jit_compile, self._reduce_retracing,
                             experimental_autograph_options=self._autograph_options)
            try:
                self._bound[instance] = bound
            except TypeError:
                self._bound_by_id[id(instance)] = bound
        return bound

    def __repr__(self) -> str:
        return f"<twinflow.Function {self._name} at 0x{id(self):X}>"

    python_function = readonly("_python_function", "The wrapped Python function.")
    function_spec = readonly("_signature", "The Python signature of the wrapped function.")
    input_signature = readonly("_input_signature",
                               "The ``input_signature`` given (None: traced per argument shapes).")
    autograph = readonly("_autograph",
                         "Whether traces convert Python control flow on tensors (``autograph=``).")

    def experimental_get_tracing_count(self) -> int:
        """How many graphs this Function has traced."""
        return self._tracing_count

    def experimental_retrace_reasons(self) -> list:
        """One line per retrace: which argument changed, how, and how to avoid it."""
        return list(self._retrace_reasons)

    # ----- calling -----
    def _python_callable(self):
        if not self._autograph:
            return self._python_function
        if self._converted is None:
            # AutoGraph (~25 modules) loads on the first trace, not at ``import twinflow``.
            from ..autograph import convert_for_function  # noqa: PLC0415
            self._converted = convert_for_function(self._python_function,
                                                   self._autograph_options)
        return self._converted

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the function: traces (or reuses) a graph for these arguments and runs it.

        Args:
            *args: the positional arguments of the Python function.
            **kwargs: its keyword arguments.

        Returns:
            What the Python function returns, with tensors computed by the graph.
        """
        quiet = process.quiet  # no thread traces or records: skip the per-thread ctx
        if process.run_functions_eagerly or (not quiet and ctx.functions_eagerly):
            return self._python_function(*args, **kwargs)
        if not quiet and ctx.graph is not None:
            # Nested call while tracing: inline the function's ops into the caller's graph.
            return self._python_callable()(*args, **kwargs)
        if not kwargs and len(args) == self._fast_nargs and (quiet or not ctx.slow_path):
            key = []
            for a in args:
                t = type(a)
                if t is EagerTensor:
                    v = a._value
                    key.append((v.dtype, v.shape))
                elif t in _FAST_SCALARS:
                    key.append((t, a))
                else:
                    break
            else:
                cf = self._cache.get(tuple(key))
                if cf is not None:
                    cf._recently_used = True
                    self._counter.called_without_tracing()
                    return cf._call_fast(args)
        return self._call_slow(args, kwargs)

    def _canonicalize(self, args: tuple, kwargs: dict) -> tuple:
        if self._signature is None:
            return tuple(args), dict(kwargs)
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}(): {e}") from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _call_slow(self, args: tuple, kwargs: dict):
        cargs, ckwargs = self._canonicalize(args, kwargs)
        if self._input_signature is not None:
            cargs, ckwargs = self._apply_signature(cargs, ckwargs)
        refs: list = []
        key = make_key(cargs, ckwargs, refs)
        cf = self._lookup(key)
        if cf is None:
            with self._lock:
                cf = self._lookup(key)  # another thread may have traced it meanwhile
                if cf is None and self._input_signature is not None and self._concretes:
                    cf = self._cache[key] = self._concretes[0][1]
                if cf is None:
                    cf = self._trace(cargs, ckwargs, key, refs)
                    cf._recently_used = True
                else:
                    self._counter.called_without_tracing()
        else:
            cf._recently_used = True
            self._counter.called_without_tracing()
        flat = nest.flatten(list(cargs), True) + nest.flatten(ckwargs, True)
        leaves = [flat[i] for i in cf._tensor_positions]
        return cf._call_leaves(leaves)

    def _lookup(self, key):
        cf = self._cache.get(key)
        if cf is not None:
            return cf
        for k, c in reversed(list(self._concretes)):
            if key_accepts(k, key):
                self._cache[key] = c
                return c
        return None

    def _evict(self) -> None:
        """Drops traced graphs beyond ``MAX_TRACES``: the oldest not used since the last
        sweep (a clock: a used one gets a second chance at the end of the line)."""
        while len(self._concretes) > MAX_TRACES:
            key, cf = self._concretes.pop(0)
            if cf._recently_used and any(not c._recently_used for _, c in self._concretes):
                cf._recently_used = False
                self._concretes.append((key, cf))
                continue
            for k in [k for k, c in self._cache.items() if c is cf]:
                del self._cache[k]

    def _apply_signature(self, cargs: tuple, ckwargs: dict) -> tuple:
        """Checks the arguments against input_signature; converts them to tensors."""
        sig = self._input_signature
        if ckwargs or len(cargs) != len(sig):
            raise ValueError(f"{self._name}: the call has {len(cargs)} positional and "
                             f"{len(ckwargs)} keyword arguments but input_signature has "
                             f"{len(sig)} entries: {sig}")
        out = []
        for i, (a, spec) in enumerate(zip(cargs, sig)):
            if isinstance(spec, TypeSpec):
                flat_a, flat_s = [a], [spec]
            else:
                try:
                    nest.assert_same_structure(spec, a, check_types=False)
                except (ValueError, TypeError) as e:
                    raise ValueError(f"{self._name}: argument {i} {a!r} does not match "
                                     f"input_signature {spec}: {e}") from None
                flat_a, flat_s = nest.flatten(a), nest.flatten(spec)
            conv = []
            for x, s in zip(flat_a, flat_s):
                if isinstance(s, TypeSpec) and not isinstance(s, TensorSpec):
                    # A composite's spec (RaggedTensorSpec...): the value must fit it.
                    if not s.is_compatible_with(x):
                        raise ValueError(
                            f"Python inputs incompatible with input_signature:\n  inputs: "
                            f"({x!r})\n  input_signature: ({s!r}).")
                    conv.append(x)
                    continue
                if isinstance(x, TensorSpec):
                    # get_concrete_function(spec): a spec as specific as the signature's.
                    if not key_accepts(leaf_key(s), leaf_key(x)):
                        raise ValueError(
                            f"Python inputs incompatible with input_signature:\n  inputs: "
                            f"({x!r})\n  input_signature: ({s!r}).")
                    conv.append(x)
                    continue
                try:
                    t = x if isinstance(x, np.ndarray) else convert_to_tensor(x, dtype=s.dtype)
                except (TypeError, ValueError) as e:
                    raise ValueError(f"{self._name}: argument {x!r} cannot be converted to "
                                     f"{s}: {e}") from None
                dt = t.dtype if isinstance(t, Tensor) else None
                shape = t.shape if isinstance(t, Tensor) else TensorSpec.from_tensor(t).shape
                if isinstance(t, np.ndarray):
                    dt = TensorSpec.from_tensor(t).dtype
                if dt is not s.dtype or not s.shape.is_compatible_with(shape):
                    raise ValueError(
                        f"Python inputs incompatible with input_signature:\n  inputs: "
                        f"({x!r})\n  input_signature: ({s!r}).")
                conv.append(t)
            out.append(conv[0] if isinstance(spec, TypeSpec) else
                       nest.pack_sequence_as(spec, conv))
        return tuple(out), {}

    def _trace_args(self, cargs: tuple, ckwargs: dict, key) -> tuple:
        """The arguments to trace with: TensorSpecs for tensor leaves (maybe generalized)."""
        if self._input_signature is not None:
            return tuple(self._input_signature), {}
        if self._reduce_retracing:
            fam = relaxed(key)
            for k, _ in reversed(self._concretes):
                if relaxed(k) == fam:
                    key = generalize(k, key)
                    break
        specs_a = tuple(_specs_from_key(a, k, self._param_name(i))
                        for i, (a, k) in enumerate(zip(cargs, key)))
        specs_k = {}
        if ckwargs:
            kw = dict(key[-1][1])
            specs_k = {k: _specs_from_key(v, kw[k], k) for k, v in ckwargs.items()}
        return specs_a, specs_k

    def _param_name(self, i: int) -> str:
        return self._param_names[i] if i < len(self._param_names) else f"args_{i}"

    def _trace(self, cargs: tuple, ckwargs: dict, key, refs: list) -> ConcreteFunction:
        targs, tkwargs = self._trace_args(cargs, ckwargs, key)
        reason = None
        if self._concretes:
            reason = retracing.explain(self._concretes[-1][0], key,
                                       [self._param_name(i) for i in range(len(cargs))])
            self._retrace_reasons.append(reason)
            del self._retrace_reasons[:-MAX_TRACES]
            retracing.logger.info("tw.function %s retraced: %s", self._name, reason)
        fg = FuncGraph(self._name)
        fg.python_signature = [self._param_name(i) for i in range(len(cargs))]
        trace_func_graph(self._python_callable(), targs, tkwargs, name=self._name,
                         arg_names=fg.python_signature, graph=fg)
        if fg.variables and self._tracing_count > 0:
            raise ValueError(_VARIABLE_ERROR)
        self._tracing_count += 1
        cf = ConcreteFunction(fg, self._name, bool(self._jit_compile))
        # The key of the traced specs (generalized by reduce_retracing); an input_signature
        # without reduce_retracing keeps the call's key.
        gkey = key if self._input_signature is not None and not self._reduce_retracing \
            else make_key(targs, tkwargs)
        cf._key_refs = refs  # objects keyed by identity live as long as their graph
        self._concretes.append((gkey, cf))
        self._cache[key] = cf
        self._evict()
        self._counter.called_with_tracing(repr(self._python_function), reason)
        return cf

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The ConcreteFunction for these arguments (tensors, TensorSpecs or Python values),
        tracing it if needed.

        Args:
            *args: positional arguments; the input signature when omitted and one was given.
            **kwargs: keyword arguments.

        Returns:
            The ConcreteFunction.
        """
        if self._input_signature is not None:
            # One graph per input_signature, as TensorFlow: arguments (TensorSpecs, tensors)
            # that fit the signature get it, traced for the signature's specs if need be.
            if args or kwargs:
                self._apply_signature(*self._canonicalize(args, kwargs))
            if self._concretes:
                return self._concretes[0][1]
            args, kwargs = tuple(self._input_signature), {}
        cargs, ckwargs = self._canonicalize(args, kwargs)
        refs: list = []
        key = make_key(cargs, ckwargs, refs)
        with self._lock:
            cf = self._lookup(key)
            if cf is None:
                cf = self._trace(cargs, ckwargs, key, refs)
        return cf

    def experimental_get_compiler_ir(self, *args: Any,
                                     **kwargs: Any) -> Callable[..., str]:
        """Returns ``f(stage='hlo')`` giving the generated Python source for these arguments.

        Args:
            *args: the arguments to trace for, as for ``get_concrete_function``.
            **kwargs: keyword arguments, likewise.

        Returns:
            A function ``f(stage='hlo', device_name=None, platform_name=None)``: the generated
            source, or the optimized GraphDef's text for ``"graph"`` and
            ``"optimized_graph"``; the device and platform change nothing (one CPU).
        """
        cf = self.get_concrete_function(*args, **kwargs)

        def ir(stage: str = "hlo", device_name=None, platform_name=None) -> str:
            if stage in ("optimized_graph", "graph"):
                return str(cf.optimized_graph.as_graph_def())
            return cf.generated_source
        return ir


def _specs_from_key(arg, key, name: str):
    """``arg`` with its tensor leaves replaced by TensorSpecs of the (generalized) ``key``."""
    if is_tensor_leaf(arg) and not isinstance(arg, TensorSpec):
        dt = arg.dtype
        if isinstance(arg, np.ndarray):
            dt = TensorSpec.from_tensor(arg).dtype
        return TensorSpec(None if key[1] is None else list(key[1]), dt, name)
    if isinstance(arg, TensorSpec):
        return TensorSpec(arg.shape, arg.dtype, arg.name or name)
    if isinstance(arg, (CompositeTensor, TypeSpec)):
        if type(key) is tuple and len(key) == 2 and isinstance(key[1], TypeSpec):
            return key[1]  # the (maybe generalized) spec of the key
        return arg if isinstance(arg, TypeSpec) else arg._type_spec
    if isinstance(arg, dict):
        kk = dict(key[1])
        return type(arg)((k, _specs_from_key(v, kk[k], f"{name}_{k}")) for k, v in arg.items())
    if isinstance(arg, tuple) and hasattr(arg, "_fields"):
        return type(arg)(*[_specs_from_key(v, k, f"{name}_{i}")
                           for i, (v, k) in enumerate(zip(arg, key[1]))])
    if isinstance(arg, (list, tuple)):
        return type(arg)(_specs_from_key(v, k, f"{name}_{i}")
                         for i, (v, k) in enumerate(zip(arg, key[1])))
    return arg


def function(func=None, input_signature=None, autograph: bool = True, jit_compile=None,
             reduce_retracing: bool = False, experimental_implements=None,
             experimental_autograph_options=None, experimental_relax_shapes=None,
             experimental_compile=None, experimental_follow_type_hints=None,
             experimental_attributes=None,
             name: str | None = None) -> Function | Callable[[Callable[..., Any]], Function]:
    """``tw.function``: compiles ``func`` to graphs; usable as ``@tw.function`` or
    ``@tw.function(...)``.

    Args:
        func: the function or method.
        input_signature: TensorSpecs fixing the traced input types (None dims allowed).
        autograph: convert Python control flow on tensors.
        jit_compile: True selects the most aggressive compiler pipeline (see
            docs/performance.md); every graph is compiled either way.
        reduce_retracing: generalize shapes instead of retracing per shape.
        experimental_relax_shapes: old name of reduce_retracing.
        experimental_compile: old name of jit_compile.

    Returns:
        A Function, or a decorator making one.
    """
    relax = bool(reduce_retracing or experimental_relax_shapes)
    jit = jit_compile if jit_compile is not None else experimental_compile

    def deco(f):
        return Function(f, name=name, input_signature=input_signature, autograph=autograph,
                        jit_compile=jit, reduce_retracing=relax,
                        experimental_autograph_options=experimental_autograph_options)
    return deco if func is None else deco(func)
