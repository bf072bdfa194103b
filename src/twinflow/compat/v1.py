"""``tw.compat.v1``: placeholders, Sessions and variable initializers for TF1-style graphs.

Build ops inside ``with graph.as_default():``, then ``Session(graph=g).run(fetches,
feed_dict)``. Fetches may be nested (lists, tuples, dicts, namedtuples) of tensors,
operations, variables or their names. Names not defined here resolve to ``twinflow``'s own
(``tw.compat.v1.matmul is tw.matmul``): the top-level package declares itself with
``register_fallback_namespace`` once it is imported (compat sits below it in the layers).

``Session.run`` compiles what the fetches need with the compiler (``compiler.fetch``: the same
passes and codegen as a ``tw.function`` body), once per fetches and feed keys.
"""
from __future__ import annotations

import threading
import types
from typing import Any

import numpy as np

from ..compiler.fetch import compile_fetches
from ..core import dtypes, nest
from ..core.context import ctx, process
from ..core.errors import UnimplementedError
from ..core.shapes import TensorShape
from ..eager.execute import bind, constant
from ..graph.core_ops import NoOp, Placeholder
from ..graph.graph import Graph, Operation, get_default_graph, reset_default_graph
from ..graph.graph_def import GraphDef
from ..graph.tensor import SymbolicTensor
from ..ops.variables import AssignVariableOp, Variable

__all__ = ["GraphDef", "placeholder", "placeholder_with_default", "Session", "InteractiveSession",
           "global_variables_initializer", "initialize_all_variables", "variables_initializer",
           "global_variables", "trainable_variables", "disable_eager_execution",
           "enable_eager_execution", "executing_eagerly", "get_default_graph",
           "reset_default_graph", "Graph"]


def placeholder(dtype, shape=None, name: str | None = None) -> SymbolicTensor:
    """A graph input that ``Session.run`` must feed (``tf.compat.v1.placeholder``).

    Args:
        dtype: its dtype.
        shape: its shape (None dims, or None for unknown rank).
        name: the op name.

    Returns:
        The placeholder tensor.
    """
    if ctx.graph is None:
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    return bind(Placeholder, [], {"dtype": dtypes.as_dtype(dtype), "shape": TensorShape(shape)},
                name=name or "Placeholder")


def placeholder_with_default(input, shape, name: str | None = None):
    """A constant standing in for a placeholder (feeding it overrides the value)."""
    return constant(input, name=name or "PlaceholderWithDefault")


def _variables(graph) -> list:
    return list(getattr(graph, "variables", []))


def global_variables(scope=None) -> list:
    """The variables created while building the default graph."""
    return _variables(get_default_graph())


def trainable_variables(scope=None) -> list:
    return [v for v in _variables(get_default_graph()) if v.trainable]


def variables_initializer(var_list, name: str = "init") -> Operation:
    """An op that (re)assigns each variable the value it had when this op was made.

    Args:
        var_list: the variables.
        name: the op name.

    Returns:
        A NoOp that depends on one AssignVariableOp per variable.
    """
    g = get_default_graph()
    assigns = []
    with g.as_default():
        for v in var_list:
            init = constant(np.array(v._value, copy=True), name=f"{v.name.split(':')[0]}/init")
            bind(AssignVariableOp, [v.handle, init], name=f"{v.name.split(':')[0]}/Assign")
            assigns.append(g.get_operations()[-1])
        with g.control_dependencies(assigns):
            op = g.create_op(NoOp, [], {}, [], name=name)
    return op


def global_variables_initializer() -> Operation:
    """``tf.compat.v1.global_variables_initializer``: initializes the graph's variables."""
    return variables_initializer(_variables(get_default_graph()))


initialize_all_variables = global_variables_initializer

_eager_disabled: list = []
# Compiled programs a Session keeps (least recently compiled dropped first).
_MAX_PROGRAMS = 64


def disable_eager_execution() -> None:
    """Makes ops build into the default graph from now on (TF1 mode)."""
    if not _eager_disabled:
        g = get_default_graph()
        ctx.graph_stack.append(ctx.graph)
        ctx.graph = g
        ctx.refresh()
        process.default_graph = g  # threads started from now on build into it too
        _eager_disabled.append(g)


def enable_eager_execution(config=None, device_policy=None, execution_mode=None) -> None:
    """Undoes ``disable_eager_execution``."""
    if _eager_disabled:
        _eager_disabled.pop()
        process.default_graph = None
        ctx.graph = ctx.graph_stack.pop()
        ctx.refresh()


def executing_eagerly() -> bool:
    return ctx.graph is None


class Session:
    """Runs parts of a graph (``tf.compat.v1.Session``).

    Args:
        target: ``''`` (in-process, the only kind): a remote target (``'grpc://...'``)
            raises UnimplementedError.
        graph: the graph to run (default: the default graph).
        config: a ``ConfigProto``: a hint that changes nothing (its thread counts, device
            placement and optimizer settings leave the values the same).
    """

    def __init__(self, target: str = "", graph: Graph | None = None, config=None) -> None:
        if target not in ("", b"", None):
            raise UnimplementedError(None, None, f"Session(target={target!r}): twinflow runs "
                                                 "graphs in process only (target='')")
        self.graph = graph if graph is not None else get_default_graph()
        self._closed = False
        self._default = None
        # {(fetch ids, feed ids): (CompiledProgram, fetches, feeds)}; the tensors are kept so
        # their ids stay unique.
        self._programs: dict = {}
        self._lock = threading.Lock()

    def __enter__(self) -> Session:
        self._default = self.graph.as_default()
        self._default.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._default is not None:
            self._default.__exit__(*exc)
            self._default = None
        self.close()

    def close(self) -> None:
        """Marks the session closed; later ``run`` calls raise."""
        self._closed = True

    def as_default(self) -> Any:
        """Makes the session's graph the default one (``with sess.as_default():``).

        Returns:
            The graph's ``as_default`` context manager.
        """
        return self.graph.as_default()

    def _element(self, f):
        g = self.graph
        if isinstance(f, str):
            try:
                return g.as_graph_element(f)
            except KeyError as e:
                raise ValueError(f"Fetch argument {f!r} cannot be interpreted as a Tensor. "
                                 f"({e})") from None
        if isinstance(f, SymbolicTensor) or isinstance(f, Operation):
            if f.graph is not g:
                raise ValueError(f"Fetch argument {f!r} cannot be interpreted as a Tensor. "
                                 f"(Tensor {f!r} is not an element of this graph.)")
            return f
        if isinstance(f, Variable):
            return f
        if f is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        raise TypeError(f"Fetch argument {f!r} has invalid type {type(f)}, must be a string "
                        "or Tensor. (Can not convert a {type(f).__name__} into a Tensor or "
                        "Operation.)")

    def _feeds(self, feed_dict) -> dict:
        feeds: dict = {}
        for k, v in (feed_dict or {}).items():
            t = self.graph.as_graph_element(k) if isinstance(k, str) else k
            if isinstance(t, Variable):
                raise TypeError("Feeding a tw.Variable is not supported; assign it instead")
            if not isinstance(t, SymbolicTensor):
                raise TypeError(f"The value of a feed cannot be a tf.Tensor object; feed key "
                                f"{k!r} is not a tensor of this graph")
            if t.graph is not self.graph:
                raise ValueError(f"Cannot feed {t!r}: it is not an element of this graph.")
            arr = np.asarray(v._value if hasattr(v, "_value") else v)
            if t.dtype is not dtypes.string and arr.dtype != t.dtype.np:
                arr = arr.astype(t.dtype.np)
            if not t.shape.is_compatible_with(arr.shape):
                raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor "
                                 f"{t.name!r}, which has shape {t.shape}")
            feeds[id(t)] = (t, arr)
        return feeds

    def _program(self, fetches: list, feeds: list):
        key = (tuple(id(f) for f in fetches), tuple(id(t) for t in feeds))
        with self._lock:
            hit = self._programs.get(key)
        if hit is not None:
            return hit[0]
        cp = compile_fetches(fetches, feeds)
        with self._lock:
            if len(self._programs) >= _MAX_PROGRAMS:
                self._programs.pop(next(iter(self._programs)))
            self._programs[key] = (cp, fetches, feeds)
        return cp

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None) -> Any:
        """Computes ``fetches`` (nested tensors/ops/names/variables) given ``feed_dict``.

        Args:
            fetches: what to compute.
            feed_dict: {placeholder (or any tensor, or its name): value}.
            options: a ``RunOptions``: a hint that changes nothing (tracing and timeouts
                are not done).
            run_metadata: a ``RunMetadata`` left as given (no step statistics are
                collected).

        Returns:
            ``fetches`` with tensors replaced by NumPy values (None for operations).
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = [self._element(f) for f in nest.flatten(fetches)]
        feeds = self._feeds(feed_dict)
        graph_fetches = [f for f in flat if not isinstance(f, Variable)]
        fed = [t for t, _ in feeds.values()]
        values = self._program(graph_fetches, fed)(*[a for _, a in feeds.values()]) \
            if graph_fetches else ()
        it = iter(values)
        out = []
        for f in flat:
            if isinstance(f, Variable):
                out.append(np.array(f._value, copy=True))
            elif isinstance(f, Operation):
                out.append(None)
            else:
                out.append(next(it))
        return nest.pack_sequence_as(fetches, out) if nest.is_nested(fetches) else out[0]


class InteractiveSession(Session):
    """A Session that installs itself as the default (kept for TF1 scripts)."""


_fallback: list = []


def register_fallback_namespace(namespace: types.ModuleType) -> None:
    """Declares where names not defined here resolve (``twinflow/__init__.py`` passes itself).

    Args:
        namespace: the module whose attributes ``tw.compat.v1`` falls back to.
    """
    _fallback[:] = [namespace]


def __getattr__(name: str):
    # Everything else in tf.compat.v1 is the TF2 symbol of the same name.
    for ns in _fallback:
        try:
            return getattr(ns, name)
        except AttributeError:
            break
    raise AttributeError(f"module 'twinflow.compat.v1' has no attribute {name!r}")
