"""Element structures of ``tw.data`` and the functions that transformations trace.

Elements move through a pipeline as NumPy arrays in tuples/dicts (cheap to slice, stack and
shuffle); a window's element is a ``Dataset``. As in ``tf.data``, tuples and dicts are
structure while lists are values: ``from_tensor_slices([1, 2, 3])`` has three scalar elements.

``StructuredFunction`` traces a user function once for the input's ``element_spec`` (as
TensorFlow does: its Python side effects run while tracing) and runs the compiled graph per
element; the output ``element_spec`` comes from the trace, without running the pipeline.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core import dtypes, errors, nest
from ..core.context import ctx
from ..core.shapes import TensorShape
from ..eager.execute import constant_array, convert_to_tensor
from ..eager.func_graph import TensorSpec
from ..eager.tensor import EagerTensor
from ..framework.type_spec import BatchableTypeSpec, CompositeTensor, TypeSpec
from ..function.function import function as _tw_function
from ..graph.tensor import SymbolicTensor, Tensor
from ..ops import array_ops
from ..ops.variables import Variable

# tw.data.experimental.enable_debug_mode(): dataset functions run as plain Python.
DEBUG_MODE = [False]


def set_debug_mode(on: bool) -> None:
    """Makes dataset functions run as plain Python (True) or traced graphs (False).

    Args:
        on: the mode.
    """
    DEBUG_MODE[0] = bool(on)


class ElementsSpec:
    """A spec known by a dataset's element_spec (a dataset's, an iterator's): equal to one of
    the same class with an equal element_spec.

    Args:
        element_spec: the dataset's element_spec.
    """

    def __init__(self, element_spec) -> None:
        self.element_spec = element_spec

    def __eq__(self, other) -> bool:
        return isinstance(other, type(self)) and other.element_spec == self.element_spec

    def __hash__(self) -> int:
        return hash(repr(self.element_spec))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.element_spec!r})"


class DatasetSpec(ElementsSpec):
    """The spec of an element that is itself a dataset (``window``'s elements).

    Args:
        element_spec: the inner dataset's element_spec.
        dataset_shape: the shape of the dataset value (scalar).
    """

    def __init__(self, element_spec, dataset_shape=()) -> None:
        super().__init__(element_spec)
        self.shape = TensorShape(dataset_shape)

    @property
    def dtype(self):
        """The variant dtype, as TensorFlow reports for datasets."""
        return dtypes.variant

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec!r}, {self.shape!r})"


def is_struct(x) -> bool:
    """True for the containers that are element structure (tuples, dicts)."""
    return isinstance(x, (tuple, dict))


def map_struct(fn: Callable, s):
    """``fn`` applied to each leaf of ``s``, keeping tuples, namedtuples and dicts."""
    if isinstance(s, dict):
        return type(s)((k, map_struct(fn, v)) for k, v in s.items())
    if isinstance(s, tuple):
        vals = [map_struct(fn, v) for v in s]
        return type(s)(*vals) if hasattr(s, "_fields") else tuple(vals)
    return fn(s)


def map_struct2(fn: Callable, a, b):
    """``fn(x, y)`` on the leaves of two structures of the same shape (``b``'s keys follow a)."""
    if isinstance(a, dict):
        return type(a)((k, map_struct2(fn, a[k], b[k])) for k in a)
    if isinstance(a, tuple):
        vals = [map_struct2(fn, x, y) for x, y in zip(a, b)]
        return type(a)(*vals) if hasattr(a, "_fields") else tuple(vals)
    return fn(a, b)


def leaves(s) -> list:
    """The leaves of a structure, in order (dict values in insertion order)."""
    if isinstance(s, dict):
        return [x for k in s for x in leaves(s[k])]
    if isinstance(s, tuple):
        return [x for v in s for x in leaves(v)]
    return [s]


def pack(template, flat: list):
    """The structure of ``template`` with ``flat``'s values as its leaves."""
    it = iter(flat)
    return map_struct(lambda _: next(it), template)


def same_structure(a, b) -> bool:
    """True if ``a`` and ``b`` nest the same way (same tuple lengths and dict keys)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and set(a) == set(b) and all(
            same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(
            same_structure(x, y) for x, y in zip(a, b))
    return not is_struct(b)


def has_dict(spec) -> bool:
    """True if a structure holds a dict anywhere (then key order needs care)."""
    if isinstance(spec, dict):
        return True
    return isinstance(spec, tuple) and any(has_dict(v) for v in spec)


def conform(element, spec):
    """``element`` with its dicts' keys in ``spec``'s order (elements of datasets joined by
    concatenate/sample/choose may list the same keys in another order)."""
    return map_struct2(lambda _, v: v, spec, element)


def to_array(x):
    """One user value as a pipeline leaf: a NumPy array (datasets stay datasets)."""
    if isinstance(x, EagerTensor):
        return np.asarray(x._value)
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, Variable):
        return x.numpy()
    if isinstance(x, CompositeTensor):
        # Composites (RaggedTensor, SparseTensor...) stay values whose components are eager.
        if any(not isinstance(c, EagerTensor) for c in nest.flatten(x, expand_composites=True)):
            raise TypeError(f"tw.data needs concrete values, got the symbolic {x!r}")
        return x
    if isinstance(x, Tensor):
        raise TypeError(f"tw.data needs concrete values, got the symbolic tensor {x}; build "
                        "datasets outside tw.function")
    if getattr(x, "_tw_dataset_iter", False):
        return x
    # A list is one leaf (one tensor), as in tf.data; its dtype is inferred as tw.constant's.
    return constant_array(x)


def to_tensor(a):
    """A pipeline leaf as users see it: an EagerTensor (datasets stay datasets)."""
    if isinstance(a, np.ndarray):
        return EagerTensor(a)
    if getattr(a, "_tw_dataset_iter", False) or isinstance(a, CompositeTensor):
        return a
    return EagerTensor(np.asarray(a))


def normalize(value):
    """A user value as an internal element: a structure of NumPy arrays."""
    return map_struct(to_array, value)


def leaf_spec(a):
    """The spec of one pipeline leaf."""
    if getattr(a, "_tw_dataset_iter", False):
        return DatasetSpec(a.element_spec)
    if isinstance(a, CompositeTensor):
        return a._type_spec
    a = np.asarray(a)
    return TensorSpec(TensorShape._from_tuple(a.shape), dtypes.from_numpy(a.dtype))


def spec_of(element):
    """The structure of specs of an element."""
    return map_struct(leaf_spec, element)


def most_specific_compatible(a, b, what: str):
    """The spec both ``a`` and ``b`` fit (dims that differ become None); TypeError if their
    structures or dtypes differ, as TensorFlow's ``Incompatible dataset elements``."""
    if not same_structure(a, b):
        raise TypeError(f"Incompatible dataset elements in {what}: structures {a} vs. {b}")

    def merge(x, y):
        if isinstance(x, DatasetSpec) or isinstance(y, DatasetSpec):
            if x != y:
                raise TypeError(f"Incompatible dataset elements in {what}: {x} vs. {y}")
            return x
        if not isinstance(x, TensorSpec) or not isinstance(y, TensorSpec):
            merged = x.most_specific_common_supertype([y])
            if merged is None:
                raise TypeError(f"Incompatible dataset elements in {what}: {x} vs. {y}")
            return merged
        if x.dtype is not y.dtype:
            raise TypeError(f"Incompatible dataset elements in {what}:\n  {x} vs.\n  {y}")
        return TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype)
    return map_struct2(merge, a, b)


def is_composite_spec(spec) -> bool:
    """True for the spec of a composite element (RaggedTensorSpec, SparseTensorSpec...):
    those batch and unbatch through their spec's ``_batch``/``_unbatch`` and
    ``_tw_stack``/``_tw_unstack``, never per type."""
    return isinstance(spec, BatchableTypeSpec)


def batch_spec(spec, batch):
    """The spec of a batch of ``batch`` (int or None) elements of ``spec`` (one leaf)."""
    if is_composite_spec(spec):
        return spec._batch(batch)
    if spec.shape.rank is None:
        return TensorSpec(TensorShape(None), spec.dtype)
    return TensorSpec(TensorShape([batch] + spec.shape.as_list()), spec.dtype)


def unbatch_spec(spec):
    """The spec of one row of an element of ``spec`` (one leaf)."""
    if is_composite_spec(spec):
        return spec._unbatch()
    return TensorSpec(spec.shape[1:] if spec.shape.rank is not None else TensorShape(None),
                      spec.dtype)


def stack_leaf(spec, column: list):
    """Values of ``spec`` (one leaf) stacked into one batch value."""
    if is_composite_spec(spec):
        return spec._tw_stack(column)
    return np.stack(column)


def unstack_leaf(spec, value) -> list:
    """The rows of one leaf value of ``spec``."""
    if is_composite_spec(spec):
        return spec._tw_unstack(value)
    return list(value)


def _flat_components(flat: list) -> list:
    """Pipeline leaves as the arrays a compiled function takes (composites as components)."""
    out = []
    for v in flat:
        if isinstance(v, CompositeTensor):
            out += [c._value for c in nest.flatten(v, expand_composites=True)]
        else:
            out.append(v)
    return out


def component_specs(spec) -> list:
    """The dense specs of an element's tensors, composites expanded into their components
    (what a graph op passes for one element)."""
    out = []
    for s in leaves(spec):
        out += nest.flatten(s, expand_composites=True) if is_composite_spec(s) else [s]
    return out


def element_components(element) -> list:
    """An element's arrays, composites expanded (in ``component_specs``' order)."""
    return _flat_components(leaves(element))


def pack_components(spec, flat: list):
    """The element of ``spec`` made of ``flat`` (``component_specs``' order): composites are
    rebuilt from their components through their spec."""
    it = iter(flat)

    def one(s):
        if not is_composite_spec(s):
            return next(it)
        n = len(nest.flatten(s, expand_composites=True))
        parts = [next(it) for _ in range(n)]
        parts = [EagerTensor(p) if isinstance(p, np.ndarray) else p for p in parts]
        return nest.pack_sequence_as(s, parts, expand_composites=True)
    return map_struct(one, spec)


def check_int_arg(value, what: str, op: str) -> int:
    """An integer argument (Python int, NumPy integer or integer scalar tensor) as int.

    A float raises TypeError as TensorFlow's conversion to int64 does.
    """
    if isinstance(value, EagerTensor):
        value = value._value
    if isinstance(value, bool) or isinstance(value, (float, np.floating)) or (
            isinstance(value, np.ndarray) and value.dtype.kind not in "iu"):
        raise TypeError(f"{op}: cannot convert {what}={value!r} to an int64 tensor")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: {what} must be an integer, got {value!r}") from None


def _as_array(v):
    # (a string scalar comes out of the compiled graph as bytes: keep it an object array)
    if type(v) is bytes:
        return np.asarray(v, dtype=object)
    a = np.asarray(v)
    if a.dtype.kind == "U":
        a = np.char.encode(a, "utf-8")
    return a.astype(object) if a.dtype.kind == "S" else a


def _outputs_as_structure(value):
    """A user function's return value as element structure: lists become one tensor (as in
    tf.data), Python numbers and arrays become tensors."""
    if isinstance(value, dict):
        return type(value)((k, _outputs_as_structure(v)) for k, v in value.items())
    if isinstance(value, tuple):
        vals = [_outputs_as_structure(v) for v in value]
        return type(value)(*vals) if hasattr(value, "_fields") else tuple(vals)
    if isinstance(value, list):
        return array_ops.stack([_outputs_as_structure(v) for v in value]) if value \
            else array_ops.zeros([0])
    if value is None:
        raise TypeError("tw.data functions must return tensors; this one returned None")
    if getattr(value, "_tw_dataset_iter", False) or isinstance(
            value, (Tensor, Variable, CompositeTensor)):
        return value
    return convert_to_tensor(value)


def call_with_element(fn: Callable, element):
    """``fn`` called on an element: a plain tuple is unpacked into positional arguments."""
    if isinstance(element, tuple) and not hasattr(element, "_fields"):
        return fn(*element)
    return fn(element)


class StructuredFunction:
    """A user function traced once for ``input_spec``; ``self(element)`` runs it per element.

    Args:
        fn: the user's function (tuples are unpacked into its arguments).
        input_spec: the element_spec of its input.
        what: the transformation's name, for errors.
    """

    def __init__(self, fn: Callable, input_spec, what: str) -> None:
        if not callable(fn):
            raise ValueError(f"Argument `func` must be a callable. Received func={fn!r} (of "
                             f"type {type(fn)}), in {what}")
        self._fn = fn
        self._what = what
        # A lambda cannot hold statements, so AutoGraph has nothing to convert in it.
        autograph = getattr(fn, "__name__", "") != "<lambda>"

        def wrapper(*args):
            return _outputs_as_structure(call_with_element(fn, pack(input_spec, list(args))))
        wrapper.__name__ = getattr(fn, "__name__", "map_fn").replace("<lambda>", "lambda")
        arg_specs = [s if isinstance(s, TensorSpec) else s for s in leaves(input_spec)]
        self._function = _tw_function(wrapper, autograph=autograph)
        self._concrete = self._function.get_concrete_function(*arg_specs)
        outs = self._concrete.structured_outputs
        self.output_spec = map_struct(
            lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, SymbolicTensor)
            else leaf_spec(t), outs)
        flat = leaves(outs)
        # The compiled function returns its symbolic outputs in ``nest.flatten`` order (dict
        # keys sorted); elements keep the function's own key order (``leaves``): map one to
        # the other by position.
        mine = nest.flatten(pack(outs, list(range(len(flat)))))
        nested = nest.flatten(outs)
        self._positions = [mine[p] for p, t in enumerate(nested)
                           if isinstance(t, SymbolicTensor)]
        self._constants = [None if isinstance(t, SymbolicTensor) else t for t in flat]
        self._template = outs
        self._n_in = len(arg_specs)
        # Composite inputs or outputs go through nest(expand_composites=True) (slower path).
        self._composite_in = any(isinstance(x, TypeSpec) and not isinstance(x, TensorSpec)
                                 for x in arg_specs)
        self._composite_out = any(isinstance(t, CompositeTensor) for t in flat)

    def __call__(self, element):
        """The function's output (a structure of NumPy arrays) for one input element.

        Args:
            element: the input element (structure of NumPy arrays).

        Returns:
            The output element.
        """
        flat_in = leaves(element)
        if ctx.run_functions_eagerly or DEBUG_MODE[0]:
            out = call_with_element(self._fn, map_struct(to_tensor, element))
            return normalize(_outputs_as_structure(out))
        cf = self._concrete
        if self._composite_in:
            flat_in = _flat_components(flat_in)
        try:
            vals = cf._run(*flat_in)
        except errors.OpError:
            raise
        except Exception as e:  # noqa: BLE001  (re-raised naming the op and user line)
            raise cf._callable.compiled.error(e) from e
        if self._composite_out:
            it = iter(vals)
            parts = [EagerTensor(_as_array(next(it))) if isinstance(t, SymbolicTensor) else t
                     for t in nest.flatten(self._template, expand_composites=True)]
            out = nest.pack_sequence_as(self._template, parts, expand_composites=True)
            return conform(normalize(out), self._template)
        flat = list(self._constants)
        for k, v in zip(self._positions, vals):
            flat[k] = _as_array(v)
        return pack(self._template, flat)


def trace_with_state(fn: Callable, state_spec, element_spec, what: str, state_of: Callable):
    """``fn(state, element)`` traced so the state's spec is a fixed point: when the new state's
    shape differs from the old, the trace is redone with the dims that differ relaxed to None
    (as TensorFlow does for ``scan`` and ``reduce``). The dtypes must not change.

    Args:
        fn: the step function.
        state_spec: the initial state's spec.
        element_spec: the element's spec.
        what: the transformation's name, for errors.
        state_of: picks the new state out of the function's output spec.

    Returns:
        The StructuredFunction.
    """
    for _ in range(4):
        f = StructuredFunction(fn, (state_spec, element_spec), what)
        new = state_of(f.output_spec)
        if not same_structure(state_spec, new) or [s.dtype for s in leaves(new)] != [
                s.dtype for s in leaves(state_spec)]:
            raise TypeError(f"The element types for the new state must match the initial "
                            f"state in {what}. Expected {state_spec}; got {new}.")
        relaxed = most_specific_compatible(state_spec, new, what)
        if relaxed == state_spec:
            return f
        state_spec = relaxed
    raise ValueError(f"{what}: the state's shape did not settle after relaxing it")
