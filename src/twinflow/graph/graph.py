"""The graph IR as plain data: Graph, Operation, and the name scopes that name them."""
from __future__ import annotations

import contextlib
import functools
import inspect
import linecache
import os
import sys
import threading
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any

from ..core import context
from ..core.context import ctx
from ..core.errors import InaccessibleTensorError
from ..core.shapes import TensorShape
from .core_ops import Const
from .graph_def import GraphDef, graph_def_of, node_def_of
from .tensor import SymbolicTensor, Tensor

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SourceLocation:
    """Where in the user's code an op was created."""

    __slots__ = ("filename", "lineno", "function", "line")

    def __init__(self, filename: str, lineno: int, function: str, line: str) -> None:
        self.filename, self.lineno, self.function, self.line = filename, lineno, function, line

    def __str__(self) -> str:
        text = f"{self.filename}:{self.lineno} in {self.function}"
        return f"{text}: {self.line}" if self.line else text


def user_source_location() -> SourceLocation | None:
    """The innermost stack frame outside the twinflow package (the user's line)."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_PKG_DIR) and not fn.startswith("<frozen"):
            line = _line_of(fn, f.f_lineno)
            return SourceLocation(fn, f.f_lineno, f.f_code.co_name, line)
        f = f.f_back
    return None


def _line_of(filename: str, lineno: int) -> str:
    return linecache.getline(filename, lineno).strip()


class Operation:
    """A node of a Graph: an op type applied to input tensors, with attributes.

    ``needs_grad`` is set by ``backprop`` just before it calls the op's gradient rule: per
    input, False when no source reaches it, so that its gradient would be thrown away.
    """

    def __init__(self, graph: Graph, opdef, name: str, inputs: list, attrs: dict,
                 output_specs: list, control_inputs: list, device: str,
                 source: SourceLocation | None) -> None:
        """Made by ``Graph`` when an op is added (users call op functions, not this).

        Args:
            graph: the graph.
            opdef: the op's declaration.
            name: the unique name.
            inputs: the input tensors.
            attrs: the attributes.
            output_specs: ``(dtype, shape)`` per output.
            control_inputs: operations that run first.
            device: the device string.
            source: the user's source line that built it.
        """
        self.graph = graph
        self.opdef = opdef
        self.type = opdef.name
        self.name = name
        self.inputs = list(inputs)
        self.attrs = dict(attrs)
        self.control_inputs = list(control_inputs)
        self.device = device
        self.source = source
        self.outputs = [SymbolicTensor(self, i, dt, sh) for i, (dt, sh) in enumerate(output_specs)]

    @property
    def stateful(self) -> bool:
        return self.opdef.stateful

    def get_attr(self, name: str) -> object:
        """One attribute's value.

        Args:
            name: the attribute's name.

        Returns:
            Its value (ValueError if the op has no such attribute).
        """
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Operation {self.name!r} ({self.type}) has no attr {name!r}; "
                             f"it has {sorted(self.attrs)}") from None

    @property
    def node_def(self):
        return node_def_of(self)

    def _error_context(self) -> str:
        where = f" (created at {self.source})" if self.source else ""
        return f"node {self.name} ({self.type}){where}"

    def __repr__(self) -> str:
        return f"<tw.Operation '{self.name}' type={self.type}>"


class _BuildState(threading.local):
    """One thread's name scope and control-dependency stack for one graph."""

    def __init__(self) -> None:
        self.scope = ""
        self.control_deps: list = []


def _per_thread(field: str) -> property:
    """A Graph attribute read and set in the calling thread's ``_BuildState`` (``_tls``)."""
    def set_field(graph, value) -> None:
        setattr(graph._tls, field, value)
    return property(attrgetter("_tls." + field), set_field)


class Graph:
    """A dataflow graph: Operations in creation order, named uniquely."""

    _scope = _per_thread("scope")
    _control_deps = _per_thread("control_deps")

    def __init__(self) -> None:
        self._ops: list = []
        self._by_name: dict = {}
        self._name_counts: dict = {}
        # Name scope and control dependencies are per thread, as TensorFlow's: two threads
        # adding ops to one graph (the TF1 default graph) do not see each other's scopes.
        self._tls = _BuildState()
        self.seed: int | None = None
        self._op_seed_counter = 0
        # Variables created while building this graph, in creation order.
        self.variables: list = []
        self.collections: dict = {}
        self._finalized = False
        self._version = 0
        self._function_count = 0
        # Set while a gradient function traced in another graph runs here (a custom gradient
        # of a tw.function body, run on the function's copied program): old tensor -> its
        # copy in this graph, or None.
        self.foreign_alias = None
        # token -> the Python function of each py_function op built here (ops/script_ops).
        self._py_funcs: dict = {}

    # ----- building -----
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` inside the current name scope, suffixed ``_1``, ``_2``... if taken.

        Args:
            name: the base name.
            mark_as_used: whether to reserve the returned name.

        Returns:
            The unique, scoped name.
        """
        full = f"{self._scope}/{name}" if self._scope else name
        key = full.lower()
        i = self._name_counts.get(key, 0)
        unique = full
        if i > 0:
            while True:
                unique = f"{full}_{i}"
                if unique.lower() not in self._name_counts:
                    break
                i += 1
        if mark_as_used:
            self._name_counts[key] = i + 1
            if unique != full:
                self._name_counts[unique.lower()] = 1
        return unique

    def unique_function_name(self, base: str) -> str:
        """``base_N`` for a sub-graph (an If branch, a While body) of an op built in this graph:
        N counts the sub-graphs of the outermost enclosing graph, so the names are unique in
        its GraphDef's function library (TensorFlow's ``cond_true_12``).

        Args:
            base: the name's prefix.

        Returns:
            ``base`` with a counter suffix.
        """
        root = self
        while getattr(root, "outer_graph", None) is not None:
            root = root.outer_graph
        root._function_count += 1
        return f"{base}_{root._function_count}"

    def create_op(self, opdef, inputs: list, attrs: dict, output_specs: list,
                  name: str | None = None) -> Operation:
        """Adds an operation to this graph.

        Args:
            opdef: the registered op definition.
            inputs: the input tensors; they must belong to this graph.
            attrs: the op's attributes.
            output_specs: (dtype, shape) of each output.
            name: the op name; made unique in the current name scope.

        Returns:
            The new Operation.

        Raises:
            RuntimeError: the graph is finalized.
            InaccessibleTensorError: an input belongs to another graph.
        """
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        for t in inputs:
            if isinstance(t, SymbolicTensor) and t.graph is not self:
                raise InaccessibleTensorError(
                    f"Tensor {t.name} belongs to another graph and cannot be used as an input "
                    f"to op {opdef.name} in this graph. Did a tensor leak out of a tw.function "
                    "or a `with graph.as_default()` block?")
        op_name = self.unique_name(name or opdef.name)
        controls = [c for deps in self._control_deps for c in deps]
        op = Operation(self, opdef, op_name, inputs, attrs, output_specs, controls,
                       ctx.device_stack[-1], user_source_location())
        self._ops.append(op)
        self._by_name[op_name] = op
        self._version += 1
        return op

    def capture(self, tensor: Tensor) -> SymbolicTensor:
        """Turns a tensor from outside this graph into one of its own.

        A plain graph embeds eager values as constants; function graphs override this to
        take them as implicit inputs instead.

        Args:
            tensor: an eager tensor.

        Returns:
            The tensor inside this graph.
        """
        if isinstance(tensor, SymbolicTensor):
            alias = None if self.foreign_alias is None else self.foreign_alias(tensor)
            if alias is not None:
                return alias
            raise InaccessibleTensorError(
                f"Tensor {tensor.name} must be from the same graph as the op using it: it "
                "belongs to another graph. Did a tensor leak out of a tw.function or a "
                "`with graph.as_default()` block?")
        value = tensor._value
        shape = TensorShape._from_tuple(tuple(getattr(value, "shape", ())))
        op = self.create_op(Const, [], {"value": value, "dtype": tensor.dtype},
                            [(tensor.dtype, shape)], name="Const")
        return op.outputs[0]

    # ----- inspection -----
    def get_operations(self) -> list[Operation]:
        """Returns the operations of this graph, in creation order."""
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        """Looks an operation up by name.

        Args:
            name: the operation's name.

        Returns:
            The Operation.

        Raises:
            KeyError: no operation has that name.
        """
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name: str) -> SymbolicTensor:
        """Looks a tensor up by name.

        Args:
            name: a tensor name such as ``"op_name:0"``.

        Returns:
            The tensor.

        Raises:
            ValueError: ``name`` looks like an operation name.
            KeyError: no such operation or output.
        """
        if ":" not in name:
            raise ValueError(f"The name {name!r} looks like an Operation name; tensor names "
                             "look like 'op_name:0'.")
        op_name, idx = name.rsplit(":", 1)
        op = self.get_operation_by_name(op_name)
        i = int(idx)
        if i >= len(op.outputs):
            raise KeyError(f"Operation {op_name!r} has {len(op.outputs)} outputs; "
                           f"{name!r} does not exist.")
        return op.outputs[i]

    def as_graph_element(self, obj: Any) -> Any:
        """Resolves a name to the tensor or operation it names; other objects pass through.

        Args:
            obj: a tensor name, an operation name, or a graph element.

        Returns:
            The SymbolicTensor or Operation (or ``obj`` itself).
        """
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else self.get_operation_by_name(obj)
        return obj

    @property
    def version(self) -> int:
        return self._version

    def finalize(self) -> None:
        """Makes this graph read-only: adding an op afterwards raises RuntimeError."""
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    def add_to_collection(self, name: str, value: Any) -> None:
        """Appends ``value`` to the collection ``name``.

        Args:
            name: the collection's key.
            value: the value to add.
        """
        self.collections.setdefault(name, []).append(value)

    def get_collection(self, name: str, scope: str | None = None) -> list:
        """Returns a copy of the collection ``name`` (empty when absent).

        Args:
            name: the collection's key.
            scope: unused (kept for TensorFlow's signature).

        Returns:
            A new list of the collected values.
        """
        return list(self.collections.get(name, []))

    def as_graph_def(self, add_shapes: bool = False) -> GraphDef:
        """Serializes this graph.

        Args:
            add_shapes: whether each node records its outputs' shapes.

        Returns:
            The GraphDef.
        """
        return graph_def_of(self, add_shapes=add_shapes)

    # ----- scopes -----
    def as_default(self) -> contextlib.AbstractContextManager[Any]:
        """Makes this graph the one ops are added to (``with g.as_default():``)."""
        return context.graph_mode(self)

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        """Opens a name scope for ops created in the block.

        Args:
            name: the scope; ``None`` or ``""`` resets to the root, a trailing ``/`` reuses it
                as is, otherwise it is made unique inside the current scope.

        Returns:
            A context manager yielding the scope with a trailing slash (``""`` at the root).
        """
        old = self._scope
        if name is None or name == "":
            self._scope = ""
        elif name.endswith("/"):
            self._scope = name[:-1]
        else:
            self._scope = self.unique_name(name)
        try:
            yield self._scope + "/" if self._scope else ""
        finally:
            self._scope = old

    def get_name_scope(self) -> str:
        """Returns the current name scope, without a trailing slash."""
        return self._scope

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: list | None) -> Iterator[None]:
        """Makes ops created in the block run after ``control_inputs``.

        Args:
            control_inputs: tensors or operations; ``None`` clears the dependencies in the block.

        Returns:
            A context manager.
        """
        if control_inputs is None:
            saved, self._control_deps = self._control_deps, []
            try:
                yield
            finally:
                self._control_deps = saved
            return
        ops = []
        for c in control_inputs:
            if isinstance(c, SymbolicTensor):
                ops.append(c.op)
            elif isinstance(c, Operation):
                ops.append(c)
            elif c is not None and hasattr(c, "op") and isinstance(c.op, Operation):
                ops.append(c.op)
        self._control_deps.append(ops)
        try:
            yield
        finally:
            self._control_deps.pop()

    def next_op_seed(self) -> int:
        """Returns the next op-level seed of this graph (a counter, so traces are repeatable)."""
        self._op_seed_counter += 1
        return self._op_seed_counter

    def __repr__(self) -> str:
        return f"<tw.Graph with {len(self._ops)} ops at 0x{id(self):x}>"


_default_graph: Graph | None = None


def get_default_graph() -> Graph:
    """The graph being built, or a process-wide global graph when executing eagerly."""
    global _default_graph
    if ctx.graph is not None:
        return ctx.graph
    if _default_graph is None:
        _default_graph = Graph()
    return _default_graph


def reset_default_graph() -> None:
    global _default_graph
    _default_graph = None


@contextlib.contextmanager
def name_scope(name: str) -> Iterator[str]:
    """``tw.name_scope``: prefixes the names of ops created in the block (graph mode).

    Args:
        name: the scope name; a trailing ``/`` uses it as an absolute scope.

    Returns:
        A context manager yielding the full scope with a trailing slash.
    """
    g = ctx.graph
    if g is None:
        # Eagerly there are no op names, but variables created in the block take the scope as
        # a prefix, as in TensorFlow (tw.name_scope('s'): tw.Variable(1., name='v') is s/v:0).
        scopes = _eager_scopes()
        outer = scopes[-1] if scopes else ""
        full = "" if not name else name[:-1] if name.endswith("/") else \
            f"{outer}/{name}" if outer else name
        scopes.append(full)
        try:
            yield full + "/" if full else ""
        finally:
            scopes.pop()
        return
    with g.name_scope(name) as scope:
        yield scope


_NAME_DOC = "name: the name scope of the ops it creates (in a graph)."


def _with_name_doc(doc: str | None) -> str:
    """``doc`` (cleaned) with the ``name`` entry at the end of its Args section."""
    lines = inspect.cleandoc(doc or "").split("\n")
    if any(line.startswith(("name:", "    name:")) for line in lines):
        return "\n".join(lines)
    if "Args:" in lines:
        end = lines.index("Args:") + 1
        while end < len(lines) and lines[end].startswith("    "):
            end += 1
        lines[end:end] = ["    " + _NAME_DOC]
    else:
        at = lines.index("Returns:") if "Returns:" in lines else len(lines)
        lines[at:at] = (["Args:", "    " + _NAME_DOC] + ([""] if at < len(lines) else []))
    return "\n".join(lines)


def name_scoped(fn: Callable) -> Callable:
    """Decorator of a public function made of several ops: its ``name`` argument opens a name
    scope around the ops it creates in a graph, as TensorFlow's composite functions do (e.g.
    ``tw.nn.moments(x, [0], name="m")`` makes ``m/Mean``...). Eagerly ops have no names, and
    the call goes straight through. The docstring gets the ``name`` entry of its Args.

    Args:
        fn: a function with a ``name`` parameter (positional or keyword).

    Returns:
        The wrapped function.
    """
    code = fn.__code__
    index = code.co_varnames.index("name")
    position = index if index < code.co_argcount else None  # None: keyword-only

    @functools.wraps(fn)
    def with_name_scope(*args, **kwargs):
        g = ctx.graph
        if g is None:
            return fn(*args, **kwargs)
        name = args[position] if position is not None and position < len(args) else \
            kwargs.get("name")
        if not name:
            return fn(*args, **kwargs)
        with g.name_scope(name):
            return fn(*args, **kwargs)
    if fn.__doc__ is not None:  # (a constructor documented by its class keeps no docstring)
        with_name_scope.__doc__ = _with_name_doc(fn.__doc__)
    # A library function: AutoGraph calls it as it is (its source starts with the decorator).
    with_name_scope.__ag_do_not_convert__ = True
    return with_name_scope


class _EagerScopes(threading.local):
    def __init__(self) -> None:
        self.stack: list = []


_thread_scopes = _EagerScopes()


def _eager_scopes() -> list:
    """The eager name scopes of the calling thread, innermost last."""
    return _thread_scopes.stack


def current_name_scope() -> str:
    """The name scope in force (``'a/b'``, or ``''``), eagerly or in the graph being built."""
    g = ctx.graph
    if g is not None:
        return g.get_name_scope()
    scopes = _eager_scopes()
    return scopes[-1] if scopes else ""


def control_dependencies(control_inputs: list | None) -> contextlib.AbstractContextManager[Any]:
    """``tw.control_dependencies``: in graph mode, ops in the block run after these.

    Args:
        control_inputs: tensors or operations; ``None`` clears the dependencies in the block.

    Returns:
        A context manager; eagerly a no-op one, since ops already run in program order.
    """
    g = ctx.graph
    if g is None:
        return contextlib.nullcontext()
    return g.control_dependencies(control_inputs)
