"""tw.Variable: mutable state, read and written through stateful ops.

A variable's handle is a resource tensor whose value is the Variable object itself, so the same
ReadVariableOp/AssignVariableOp run eagerly, in a traced function (the handle is captured) and
in a TF1 graph. The stored array is never mutated in place: assignment replaces it, so tensors
read earlier keep their values.
"""
from __future__ import annotations

import contextlib
import enum
import inspect
import threading
from collections.abc import Callable, Iterator

import numpy as np

from ..core import dtypes
from ..core.context import ctx, eager_mode
from ..core.devices import placed_device
from ..core.errors import InvalidArgumentError
from ..core.props import readonly
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..eager.tensor import EagerTensor, ResourceHandle, _numpy_repr
from ..graph.graph import current_name_scope, name_scoped
from ..graph.registry import register_op
from ..graph.tensor import Reference, Tensor
from .core import convert
from .math_ops import cast


@register_op("ReadVariableOp", stateful=True)
class ReadVariableOp:
    """The current value of the variable behind ``resource``."""

    def infer(resource, *, dtype, shape=None):
        # ``shape`` (twinflow's, not TensorFlow's attr) left out: the variable's, if known
        if shape is None:
            var = variable_of(resource)
            shape = var.shape if var is not None else TensorShape(None)
        return dtype, shape

    def kernel(resource, *, dtype, shape=None):
        return resource._value

    def lower(op):
        """Codegen hint: the read without the attrs (checked when the graph was built)."""
        return _read

    def grad(op, dy):
        return dy

    def accessed_variable(op):
        """The Variable this read accesses (tapes watching accessed variables watch it)."""
        return variable_of(op.inputs[0])


def variable_of(handle):
    """The Variable behind a resource handle: eager, embedded as a Const, or captured.

    Args:
        handle: a resource tensor.

    Returns:
        The Variable, or None when ``handle`` does not lead to one.
    """
    v = getattr(handle, "_value", None)
    if isinstance(v, Variable):
        return v
    op = getattr(handle, "op", None)
    if op is None:
        return None
    if op.type == "Const":
        v = op.attrs.get("value")
        return v if isinstance(v, Variable) else None
    for outer, inner in getattr(op.graph, "captures", ()):
        if inner is handle:
            return variable_of(outer)
    return None


def _read(resource):
    return resource._value


def _check_assign(var, value) -> None:
    vs = value.shape
    if not var._shape_static.is_compatible_with(vs):
        raise InvalidArgumentError(
            None, None, f"Cannot assign a value of shape {vs} to variable {var.name!r} of shape "
            f"{var._shape_static} (create the variable with shape=tw.TensorShape(None) to allow "
            "changing shapes)")


@register_op("AssignVariableOp", stateful=True, multi_output=True)
class AssignVariableOp:
    """Sets the variable behind ``resource`` to ``value``."""

    def infer(resource, value):
        return []

    def kernel(resource, value):
        resource._set(value)
        return ()


def _updater(ufunc):
    def update(resource, value):
        old = resource._value
        if old.shape == value.shape and old.dtype == value.dtype:
            resource._value = ufunc(old, value, out=value)
        else:
            resource._set(ufunc(old, value))
        return ()
    return update


def _update_op(name: str, ufunc: np.ufunc, doc: str):
    """The op ``name``: the variable behind ``resource`` becomes ``ufunc(variable, value)``."""
    class UpdateVariable:
        __doc__ = doc

        def infer(resource, value):
            return []

        def kernel(resource, value):
            resource._set(ufunc(resource._value, value))
            return ()

        def lower_consume(op):
            """Codegen hint: ``value`` is a private dead buffer, so the result is written into
            it and becomes the variable's array (the old array is left untouched for earlier
            reads)."""
            return _updater(ufunc)
    return register_op(name, stateful=True, multi_output=True)(UpdateVariable)


AssignAddVariableOp = _update_op("AssignAddVariableOp", np.add,
                                 "Adds ``value`` to the variable behind ``resource``.")
AssignSubVariableOp = _update_op("AssignSubVariableOp", np.subtract,
                                 "Subtracts ``value`` from the variable behind ``resource``.")


class _Autocast(threading.local):
    dtype = None  # the float dtype variables read as in this thread (Keras mixed precision)


_AUTOCAST = _Autocast()


@contextlib.contextmanager
def autocast_variables(dtype) -> Iterator[None]:
    """Within the block (this thread), floating variables read as ``dtype``.

    Keras layers computing in float16 with float32 variables run their ``call`` in this
    block, so ``x @ self.kernel`` multiplies float16 by a float16 cast of the kernel; the
    cast is an ordinary op, so gradients reach the float32 variable. Explicit
    ``read_value()`` calls are not cast.

    Args:
        dtype: the compute dtype, or None to read variables in their own dtype.

    Returns:
        A context manager.
    """
    old = _AUTOCAST.dtype
    _AUTOCAST.dtype = None if dtype is None else dtypes.as_dtype(dtype)
    try:
        yield
    finally:
        _AUTOCAST.dtype = old


class VariableAggregation(enum.IntEnum):
    """How a distributed variable combines the values replicas write (``tw.VariableAggregation``).
    """
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.IntEnum):
    """When a distributed variable's copies agree (``tw.VariableSynchronization``): on every
    write (mirrored) or when read across replicas (sync-on-read, for metrics)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


# ``tw.variable_creator_scope``: per thread, innermost last. Each creator is called as
# ``creator(next_creator, **kwargs)`` with Variable's keyword arguments (tw.distribute's
# strategies make mirrored variables through it).
class _CreatorScopes(threading.local):
    def __init__(self) -> None:
        self.stack: list = []


_CREATORS = _CreatorScopes()


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Callable) -> Iterator[None]:
    """Routes ``tw.Variable(...)`` calls in the block through ``variable_creator``.

    Args:
        variable_creator: ``creator(next_creator, **kwargs)``; it may change the keyword
            arguments, call ``next_creator(**kwargs)`` and return its variable, or return
            another variable.

    Returns:
        A context manager.
    """
    stack = _CREATORS.stack
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.remove(variable_creator)


class _VariableMeta(type):
    """``tw.Variable(...)`` goes through the creator scopes in force (none: the plain class)."""

    def __call__(cls, *args, **kwargs):
        stack = _CREATORS.stack
        if not stack or cls is not Variable:
            return super().__call__(*args, **kwargs)
        kwargs = _VARIABLE_SIGNATURE.bind(*args, **kwargs).arguments

        def make(i: int, kw: dict):
            if i < 0:
                return type.__call__(Variable, **kw)
            return stack[i](lambda **k: make(i - 1, k), **kw)
        return make(len(stack) - 1, kwargs)


_uid = [0]


def _update_method(fn_name: str, opdef, what: str) -> Callable:
    """``Variable.assign_add`` / ``assign_sub``: the variable updated in place by ``opdef``."""
    def method(self, delta, use_locking=None, name: str | None = None,
               read_value: bool = True) -> Variable | Tensor | None:
        return self._assign_op(opdef, delta, read_value)
    method.__name__ = fn_name
    method.__qualname__ = f"Variable.{fn_name}"
    method.__doc__ = f"""{what} the variable.

    Args:
        delta: a tensor or value of the variable's dtype and shape.
        use_locking: unused.
        read_value: in a graph, return the new value (else None).

    Returns:
        The variable eagerly; its new value (or None) in a graph.
    """
    return name_scoped(method)


class Variable(metaclass=_VariableMeta):
    """A mutable tensor-like value that survives across calls (``tw.Variable``).

    Args:
        initial_value: a tensor, value, or callable returning one (required).
        trainable: whether tapes watch it; None means True.
        validate_shape: whether assignments must keep the shape.
        caching_device: unused (TensorFlow signature).
        name: the variable's name (prefixed by the name scope).
        variable_def: unused (TensorFlow signature).
        dtype: the dtype; inferred from ``initial_value`` when None.
        import_scope: unused (TensorFlow signature).
        constraint: a callable applied after optimizer updates.
        synchronization: a ``VariableSynchronization`` value (recorded only).
        aggregation: a ``VariableAggregation`` value (recorded only).
        shape: the static shape, possibly partly unknown; ``initial_value``'s when None.
        experimental_enable_variable_checkpointing: unused (TensorFlow signature).
    """

    _tw_tensor_like = True  # tw.is_tensor(variable) is True, as in TensorFlow
    # A distributed variable (tw.distribute) holds one copy per replica; tapes differentiate
    # with respect to the copy of the replica running (``_local_copy()``).
    _tw_distributed = False

    def _local_copy(self) -> Variable:
        return self

    def __init__(self, initial_value=None, trainable=None, validate_shape: bool = True,
                 caching_device=None, name: str | None = None, variable_def=None, dtype=None,
                 import_scope=None, constraint=None, synchronization=None, aggregation=None,
                 shape=None, experimental_enable_variable_checkpointing: bool = True) -> None:
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if callable(initial_value) and not isinstance(initial_value, Tensor):
            initial_value = initial_value()
        if dtype is not None and isinstance(initial_value, (Tensor, Variable)) and \
                initial_value.dtype is not dtypes.as_dtype(dtype):
            # As TensorFlow: a tensor keeps its dtype (no silent cast that truncates 1.5).
            raise ValueError(
                f"initial_value: Tensor conversion requested dtype {dtypes.as_dtype(dtype).name}"
                f" for Tensor with dtype {initial_value.dtype.name}: {initial_value!r}")
        # Variables outlive any graph being built, so their initial value is computed eagerly
        # (TensorFlow's init_scope); a symbolic initial value cannot be lifted.
        if getattr(initial_value, "graph", None) is not None and ctx.graph is not None \
                and not isinstance(initial_value, EagerTensor):
            raise ValueError(
                "A tw.Variable's initial value must not depend on tensors of the graph being "
                f"built (got {initial_value!r}). Create variables outside tw.function, or from "
                "Python/NumPy values.")
        with eager_mode():
            value = convert(initial_value, dtype=None) if dtype is None else \
                _convert_initial(initial_value, dtype)
        self._value = value._value if isinstance(value, EagerTensor) else np.asarray(value)
        if isinstance(self._value, np.generic):
            self._value = np.asarray(self._value)
        self._dtype = dtypes.from_numpy(self._value.dtype)
        self._shape_static = TensorShape(shape) if shape is not None else \
            TensorShape._from_tuple(self._value.shape)
        if shape is not None and not self._shape_static.is_compatible_with(
                TensorShape._from_tuple(self._value.shape)):
            raise ValueError(
                f"In this `tf.Variable` creation, the initial value's shape "
                f"({self._value.shape}) is not compatible with the explicitly supplied `shape` "
                f"argument ({self._shape_static.as_list()}).")
        if not validate_shape:
            self._shape_static = TensorShape(None)
        self._trainable = True if trainable is None else bool(trainable)
        base = name or "Variable"
        scope = current_name_scope()
        if scope:  # as TensorFlow: tw.name_scope('s'): tw.Variable(1., name='v') is s/v:0
            base = f"{scope}/{base}"
        self._name = base if base.endswith(":0") else base + ":0"
        self._constraint = constraint
        self.synchronization = synchronization
        self.aggregation = aggregation
        _uid[0] += 1
        self._unique_id = _uid[0]
        self.handle = ResourceHandle(self)
        # As TensorFlow: the device of the tw.device scope the variable is created in.
        self._device = placed_device("VarHandleOp").name
        graph = ctx.graph
        # A variable made while a graph is built belongs to it (tracking, init ops).
        self._graph = graph
        if graph is not None:
            graph.variables.append(self)

    # ----- storage -----
    def _set(self, value) -> None:
        old = self._value
        arr = value if type(value) is np.ndarray else np.asarray(value)
        if arr.dtype == old.dtype and arr.shape == old.shape:
            self._value = arr  # the common update: the checks below would all pass
            return
        if arr.dtype != self._value.dtype:
            arr = arr.astype(self._value.dtype)
        if not self._shape_static.is_compatible_with(arr.shape):
            raise InvalidArgumentError(
                None, None, f"Cannot assign a value of shape {list(arr.shape)} to variable "
                f"{self._name!r} of shape {self._shape_static}")
        self._value = arr

    # ----- properties -----
    dtype = readonly("_dtype", "The variable's dtype.")
    name = readonly("_name", "The variable's name.")

    @property
    def shape(self) -> TensorShape:
        if self._shape_static.is_fully_defined():
            return self._shape_static
        return TensorShape._from_tuple(self._value.shape)

    ndim = readonly("_value.ndim", "The variable's rank.")

    def get_shape(self) -> TensorShape:
        """Returns the variable's static shape (alias of ``shape``)."""
        return self.shape

    trainable = readonly("_trainable", "Whether gradient tapes watch the variable by default.")
    constraint = readonly("_constraint",
                          "The projection applied after optimizer updates (or None).")
    device = readonly("_device", "The device the variable was placed on.")
    graph = readonly("_graph", "The graph the variable was created in (None eagerly).")

    # ----- reading and writing -----
    def read_value(self) -> Tensor:
        """The variable's current value as a tensor (recorded on tapes that watch it)."""
        return bind(ReadVariableOp, [self.handle],
                    {"dtype": self._dtype, "shape": self._shape_static})

    value = read_value

    _tw_autocast = True  # False: Keras' add_weight(autocast=False), never cast on read

    def _read_autocast(self) -> Tensor:
        t = self.read_value()
        target = _AUTOCAST.dtype
        if target is not None and target is not self._dtype and self._dtype.is_floating \
                and self._tw_autocast:
            t = cast(t, target)
        return t

    def _as_tensor(self, dtype=None) -> Tensor:
        if dtype is not None and dtypes.as_dtype(dtype) is self._dtype:
            return self.read_value()
        t = self._read_autocast()
        if dtype is not None and dtypes.as_dtype(dtype) is not t.dtype:
            raise ValueError(f"Incompatible type conversion requested to type "
                             f"{dtypes.as_dtype(dtype).name} for variable of type "
                             f"{self._dtype.name} ({self._name})")
        return t

    def numpy(self) -> np.ndarray | np.generic:
        """Returns a copy of the value (a NumPy scalar for a scalar variable).

        Raises:
            NotImplementedError: called while tracing.
        """
        if ctx.graph is not None:
            raise NotImplementedError("numpy() is only available when eager execution is "
                                      "enabled (not while tracing).")
        v = self._value
        if v.dtype.names is not None:  # a quantized type: TensorFlow gives the integers
            v = v.view(v.dtype[0])
        # As TensorFlow (and EagerTensor.numpy): a scalar variable gives a NumPy scalar.
        return v.copy() if np.ndim(v) else v[()]

    def _assign_op(self, opdef, value, read_value: bool):
        value = convert(value, dtype=self._dtype) if isinstance(value, Tensor) else \
            convert(_convert_initial(value, self._dtype))
        # An eager value shaped like the current one (the training update) is compatible.
        if type(value) is not EagerTensor or value._value.shape != self._value.shape:
            _check_assign(self, value)
        bind(opdef, [self.handle, value])
        g = ctx.graph
        if g is not None:
            if not read_value:
                return None
            # The value read back must come after the assignment when the graph runs.
            with g.control_dependencies([g.get_operations()[-1]]):
                return self.read_value()
        return self

    @name_scoped
    def assign(self, value, use_locking=None, name: str | None = None,
               read_value: bool = True) -> Variable | Tensor | None:
        """Sets the variable to ``value``.

        Args:
            value: a tensor or value of the variable's dtype and shape.
            use_locking, read_value: as for ``assign_add``.

        Returns:
            The variable eagerly; its new value (or None) in a graph.
        """
        return self._assign_op(AssignVariableOp, value, read_value)

    assign_add = _update_method("assign_add", AssignAddVariableOp, "Adds ``delta`` to")
    assign_sub = _update_method("assign_sub", AssignSubVariableOp, "Subtracts ``delta`` from")

    # ----- Python protocol -----
    def ref(self) -> Reference:
        """Returns a hashable reference to this variable (variables are unhashable)."""
        return Reference(self)

    experimental_ref = ref

    def __hash__(self):
        raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key.")

    def __array__(self, dtype=None, copy=None):
        v = self._value
        return v if dtype is None else v.astype(dtype)

    def __bool__(self) -> bool:
        return bool(self.read_value())

    def __float__(self) -> float:
        return float(self.read_value())

    def __int__(self) -> int:
        return int(self.read_value())

    def __index__(self) -> int:
        return self.read_value().__index__()

    def __len__(self) -> int:
        return len(self.read_value())

    def __iter__(self):
        return iter(self.read_value())

    def __format__(self, spec: str) -> str:
        return format(self.read_value(), spec)

    def __repr__(self) -> str:
        if ctx.graph is not None:
            return f"<tw.Variable '{self._name}' shape={self.shape} dtype={self._dtype.name}>"
        return (f"<tw.Variable '{self._name}' shape={self.shape} dtype={self._dtype.name}, "
                f"numpy={_numpy_repr(self._value)}>")

    def __deepcopy__(self, memo):
        return Variable(self._value.copy(), trainable=self._trainable, name=self._name)


_VARIABLE_SIGNATURE = inspect.signature(Variable.__init__).replace(
    parameters=list(inspect.signature(Variable.__init__).parameters.values())[1:])


def _convert_initial(value, dtype):
    dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        return value if value.dtype is dtype else cast(value, dtype)
    if isinstance(value, Variable):
        return value.read_value()
    arr = np.asarray(value)
    if arr.dtype.kind == "f" and dtype.is_integer:
        raise TypeError(f"Cannot convert {value!r} to a variable of dtype {dtype.name}")
    return EagerTensor(arr.astype(dtype.np))


def _install_operators() -> None:
    """Variables support every Tensor operator by reading their value first."""
    names = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
             "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
             "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
             "__abs__", "__invert__", "__and__", "__rand__", "__or__", "__ror__", "__xor__",
             "__rxor__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
             "__getitem__", "__pos__"]
    for n in names:
        def method(self, *args, _n=n):
            return getattr(Tensor, _n)(self._read_autocast(), *args)
        method.__name__ = n
        setattr(Variable, n, method)


_install_operators()
