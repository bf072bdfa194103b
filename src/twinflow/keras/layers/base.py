"""The Keras ``Layer`` base class, symbolic ``KerasTensor``s, ``Input`` and ``InputLayer``.

A layer creates its weights lazily: the first call builds it from the input shape (always
eagerly, even while a ``tw.function`` is being traced, so the variables outlive the trace).
Called on ``KerasTensor``s (from ``Input``) a layer records a node instead of computing; the
output shapes come from tracing the layer once into a scratch graph with placeholders, so every
layer gets shape inference for free from the ops' ``infer`` rules.
"""
from __future__ import annotations

import contextlib
import gc
import inspect
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from ...core import dtypes, nest
from ...core.context import ctx, eager_mode
from ...core.props import readonly
from ...core.shapes import TensorShape
from ...eager.execute import convert_to_tensor
from ...framework.type_spec import TypeSpec
from ...graph.graph import name_scope as _name_scope
from ...graph.tensor import Tensor
from ...ops import array_ops, math_ops
from ...ops.variables import _AUTOCAST, Variable, VariableAggregation, autocast_variables
from ...train.checkpoint import apply_deferred
from ...train.module import Module, camel_to_snake
from .. import constraints as _constraints
from .. import dtype_policies as _policies
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from ..configurable import Configurable
from .input_spec import assert_input_compatibility
from .keras_tensor import (
    _MASKS,
    KerasTensor,
    Node,
    _has_keras_tensor,
    _map_pairs,
    get_keras_mask,
    set_keras_mask,
    symbolic_call,
)
from .structures import (
    _as_shape_tuples,
    _is_shape,
    _leaves,
    _shape_structure,
    _unique,
    _walk,
)

_NAME_COUNTS: dict = {}
_NAME_LOCK = threading.Lock()


def unique_layer_name(base: str) -> str:
    """``base``, ``base_1``, ``base_2``... across the session (Keras' layer naming).

    Args:
        base: the base name.

    Returns:
        A name not handed out before (until ``clear_session``).
    """
    with _NAME_LOCK:  # threads creating layers at once never get the same name
        n = _NAME_COUNTS.get(base, 0)
        _NAME_COUNTS[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def clear_session(free_memory: bool = True) -> None:
    """Resets layer naming (``tw.keras.backend.clear_session``).

    Args:
        free_memory: Keras also runs the garbage collector when true.

    Returns:
        None.
    """
    _NAME_COUNTS.clear()
    if free_memory:
        gc.collect()


class _CallContext(threading.local):
    """The ``training`` flag of the outermost layer call, seen by nested layers (per thread)."""

    training = None
    depth = 0


_BUILD_LOCK = threading.RLock()
# Set by keras.saving while it rebuilds a saved model: the most elements any weight can have.
LOADING = threading.local()


@contextlib.contextmanager
def max_weight_elements(limit: int) -> Iterator[None]:
    """Refuses, in the block and this thread, any weight with more than ``limit`` elements.

    Args:
        limit: the largest number of elements a weight may have.

    Returns:
        A context manager.
    """
    LOADING.max_elements = limit
    try:
        yield
    finally:
        LOADING.max_elements = None
_CALL = _CallContext()
_ACCEPTS: dict = {}


def _call_accepts(cls: type, arg: str) -> bool:
    key = (cls, arg)
    hit = _ACCEPTS.get(key)
    if hit is None:
        params = inspect.signature(cls.call).parameters
        hit = arg in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
        _ACCEPTS[key] = hit
    return hit


def _call_takes_mask(cls: type) -> bool:
    key = (cls, "mask!")
    hit = _ACCEPTS.get(key)
    if hit is None:
        hit = "mask" in inspect.signature(cls.call).parameters
        _ACCEPTS[key] = hit
    return hit


def _input_mask(inputs):
    """The masks attached to ``inputs`` (same structure), or None when there are none."""
    if isinstance(inputs, Tensor):
        return get_keras_mask(inputs)
    masks = nest.map_structure(
        lambda t: get_keras_mask(t) if isinstance(t, Tensor) else None, inputs)
    return masks if any(m is not None for m in nest.flatten(masks)) else None



# ---------------------------------------------------------------------------------------------
# Layer

def _called_shape(end: str, doc: str) -> property:
    """``Layer.input_shape``/``output_shape``: known once the layer was called."""
    def get(self) -> Any:
        shape = getattr(self, f"_tw_{end}_shape")
        if shape is None:
            raise AttributeError(f"The layer {self.name!r} has never been called and thus has "
                                 f"no defined {end} shape.")
        return shape
    return property(get, doc=doc)


class Layer(Module, Configurable):
    """Base class of Keras layers (``tw.keras.layers.Layer``).

    Args:
        trainable: whether the layer's weights are trained.
        name: the layer name (unique by default).
        dtype: a dtype policy or its name: ``'float32'`` (the default, unless
            ``keras.mixed_precision.set_global_policy`` set another), ``'mixed_float16'``
            (compute in float16, float32 weights)...
        dynamic: tf.keras 2's flag for a layer that only runs eagerly: a model holding one
            trains and predicts eagerly (``Model.run_eagerly`` is True).
        input_shape: the shape of one sample (first layer of a Sequential model).
        batch_input_shape: the shape including the batch dimension.
        input_dim: shorthand for ``input_shape=(input_dim,)``.
        activity_regularizer: a penalty on the layer's outputs (a regularizer, its name or
            config): after each call, ``regularizer(output) / batch_size`` of each floating
            output joins ``losses`` (Keras 3's scaling; a 0-d output is not divided).
        autocast: False (Keras 3): floating inputs are not cast to the compute dtype, and
            inside an outer layer's autocast the weights read in their own dtype.
        **kwargs: ``batch_size`` (with ``input_shape``) and tf.keras 2's ``weights`` (the
            initial weights, set once the layer is built).
    """

    input_spec = None  # an InputSpec (or a list): every call is checked against it

    def __init__(self, trainable: bool = True, name: str | None = None, dtype=None,
                 dynamic: bool = False, input_shape=None, batch_input_shape=None,
                 input_dim: int | None = None, activity_regularizer=None,
                 autocast: bool = True, **kwargs) -> None:
        unknown = set(kwargs) - {"batch_size", "weights"}
        if unknown:
            raise TypeError(f"Keyword argument not understood: {sorted(unknown)}")
        base = name or unique_layer_name(camel_to_snake(type(self).__name__))
        # Keras accepts any layer name; tw.Module's identifier check does not apply.
        Module.__init__(self, None)
        self._name = self._scope_name = base
        self._tw_weights: list = []
        self._tw_trainable = trainable
        self._tw_losses: list = []
        self._tw_regularizers: list = []
        self.activity_regularizer = _regularizers.get(activity_regularizer)
        self.autocast = bool(autocast)
        self._tw_dynamic = bool(dynamic)
        self._tw_initial_weights = kwargs.get("weights")
        self.built = False
        self._set_policy(dtype)
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is not None:
            self._tw_batch_input_shape = tuple(batch_input_shape)
        elif input_shape is not None:
            self._tw_batch_input_shape = (kwargs.get("batch_size"),) + tuple(input_shape)
        else:
            self._tw_batch_input_shape = None
        self._tw_output_shape = None
        self._tw_input_shape = None
        self._tw_nodes: list = []
        self.supports_masking = False

    # ----- properties -----
    def _set_policy(self, dtype) -> None:
        policy = _policies.get(dtype)
        self._tw_policy = policy
        self._tw_dtype = dtypes.as_dtype(policy.variable_dtype)
        self._tw_compute_dtype = dtypes.as_dtype(policy.compute_dtype)

    dtype = readonly("_tw_dtype.name", "The dtype of the layer's weights, as a string (Keras).")
    compute_dtype = readonly("_tw_compute_dtype.name",
                             "The dtype the layer computes in (float16 under "
                             "``'mixed_float16'``).")
    variable_dtype = readonly("_tw_dtype.name", "The dtype of the layer's weights.")

    @property
    def dtype_policy(self) -> _policies.DTypePolicy:
        """The layer's dtype policy."""
        return self._tw_policy

    @dtype_policy.setter
    def dtype_policy(self, value) -> None:
        self._set_policy(value)

    @property
    def trainable(self) -> bool:
        """Whether ``trainable_weights`` includes this layer's weights."""
        return self._tw_trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._tw_trainable = bool(value)
        for sub in self._tracked_layers():
            sub.trainable = value

    input_shape = _called_shape("input", "The shape the layer was built for.")
    output_shape = _called_shape("output", "The shape of the layer's output (known once it was "
                                           "called or built symbolically).")

    def __getattr__(self, attr: str):
        # Python retries a property that raised AttributeError here: keep its message.
        if attr in ("input", "output"):
            self._first_node(attr)
        if attr in ("input_shape", "output_shape"):
            raise AttributeError(f"The layer {self.name!r} has never been called and thus has "
                                 f"no defined {attr.replace('_', ' ')}.")
        return super().__getattr__(attr)

    def _first_node(self, what: str):
        if not self._tw_nodes:
            raise AttributeError(f"Layer {self.name!r} has never been called and thus has no "
                                 f"defined {what}.")
        return self._tw_nodes[0]

    @property
    def input(self) -> Any:
        """The KerasTensor(s) this layer was first called on in a functional model."""
        if "_user_input" in self.__dict__:
            return self.__dict__["_user_input"]
        node = self._first_node("input")
        return node.args[0] if len(node.args) == 1 else list(node.args)

    @input.setter
    def input(self, value) -> None:
        # Subclasses may use the name for their own attribute (tf.keras 2 allowed it).
        self.__dict__["_user_input"] = value

    @property
    def output(self) -> Any:
        """The KerasTensor(s) of this layer's first call in a functional model."""
        if "_user_output" in self.__dict__:
            return self.__dict__["_user_output"]
        return self._first_node("output").outputs

    @output.setter
    def output(self, value) -> None:
        self.__dict__["_user_output"] = value

    @property
    def dynamic(self) -> bool:
        """Whether this layer or one of its sub-layers was made with ``dynamic=True`` (only
        runs eagerly; tf.keras 2)."""
        return self._tw_dynamic or any(getattr(sub, "dynamic", False)
                                       for sub in self._tracked_layers())

    # ----- weights -----
    def add_weight(self, name: str | None = None, shape=None, dtype=None, initializer=None,
                   regularizer=None, trainable: bool | None = None, constraint=None,
                   use_resource=None, synchronization=None, aggregation=None, *,
                   autocast: bool = True, overwrite_with_gradient: bool = False) -> Variable:
        """Creates a weight variable owned by this layer.

        The positional order is tf.keras 2's (``name, shape, dtype``); Keras 3's
        ``add_weight(shape, initializer, dtype)`` is recognised by a first argument that is not
        a string. Other keywords raise TypeError (as Keras 3).

        Args:
            name: the weight's name (``kernel``, ``bias``...).
            shape: its shape.
            dtype: its dtype (the layer's by default).
            initializer: an initializer, name or callable (glorot_uniform for floats).
            regularizer: a penalty on the weight, added to ``losses`` (name or callable).
            trainable: whether it is trained (default True).
            constraint: a projection applied after each optimizer update (a name such as
                ``'non_neg'``, a ``tw.keras.constraints`` object or a callable).
            use_resource: a hint that changes nothing: every twinflow variable is a resource
                variable (as every TensorFlow 2 variable).
            synchronization: recorded on the variable (``tw.distribute``).
            aggregation: recorded on the variable: None, ``'none'``, ``'mean'``, ``'sum'``,
                ``'only_first_replica'`` or a ``tw.VariableAggregation``.
            autocast: False: the weight reads in its own dtype even inside a mixed-precision
                layer's ``call`` (Keras 3).
            overwrite_with_gradient: True: optimizers assign the weight its gradient
                instead of updating it (Keras 3's float8 scales); not with gradient
                accumulation.

        Returns:
            The new variable.
        """
        if name is not None and not isinstance(name, str):  # Keras 3: (shape, initializer,
            if initializer is not None:                      # dtype) positionally
                raise TypeError(f"add_weight: `initializer` given twice (positionally after "
                                f"the shape {name!r} and as a keyword)")
            name, shape, initializer = None, name, shape
        if not (aggregation is None or isinstance(aggregation, VariableAggregation) or
                aggregation in ("none", "mean", "sum", "only_first_replica")):
            raise ValueError("Invalid value for argument `aggregation`. Expected one of "
                             "`None`, `'none'`, `'mean'`, `'sum'`, `'only_first_replica'`. "
                             f"Received: aggregation={aggregation}")
        shape = () if shape is None else tuple(shape)
        dt = dtypes.as_dtype(dtype or self._tw_dtype)
        limit = getattr(LOADING, "max_elements", None)
        if limit is not None and all(type(d) is int for d in shape) and \
                int(np.prod(shape, dtype=object)) > limit:
            # Rebuilding a saved model: a weight larger than the whole file cannot be restored,
            # so refuse before its initializer allocates it (a config saying units=2**40).
            raise ValueError(f"weight {name!r} of layer {self.name!r} would have shape "
                             f"{list(shape)}, more elements than the file can hold ({limit})")
        init = _initializers.get(initializer) or (
            _initializers.GlorotUniform() if dt.is_floating else _initializers.Zeros())
        with eager_mode():
            value = init(shape, dtype=dt)
            var = Variable(value, trainable=True if trainable is None else trainable,
                           name=f"{self.name}/{name or 'Variable'}", dtype=dt,
                           constraint=_constraints.get(constraint),
                           synchronization=synchronization,
                           aggregation=aggregation)
        var._tw_short_name = name or f"Variable{len(self._tw_weights)}"
        var._tw_autocast = bool(autocast)
        var._tw_overwrite_with_gradient = bool(overwrite_with_gradient)
        self._tw_weights.append(var)
        reg = _regularizers.get(regularizer)
        if reg is not None:
            self._tw_regularizers.append((var, reg))
        return var

    def _attribute_leaves(self) -> Iterator:
        """The leaves of the layer's own attributes (not twinflow's bookkeeping)."""
        for key, value in vars(self).items():
            if not (key.startswith("_tw_") or key == "_deferred_restores"):
                yield from _leaves(value)

    def _tracked_layers(self) -> list:
        return _unique(leaf for leaf in self._attribute_leaves() if isinstance(leaf, Module))

    def _own_variables(self) -> list:
        return _unique([*self._tw_weights, *(leaf for leaf in self._attribute_leaves()
                                             if isinstance(leaf, Variable))])

    def _gather(self, want_trainable: bool | None) -> list:
        out: list = []
        seen: set = set()

        def add(v, layer_trainable: bool) -> None:
            if id(v) in seen:
                return
            is_t = v.trainable and layer_trainable
            if want_trainable is None or want_trainable == is_t:
                seen.add(id(v))
                out.append(v)

        def visit(layer, layer_trainable: bool) -> None:
            layer_trainable = layer_trainable and getattr(layer, "trainable", True)
            if isinstance(layer, Layer):
                for v in layer._own_variables():
                    add(v, layer_trainable)
                for sub in layer._tracked_layers():
                    # A metric's state is not a weight of the model that holds it (Keras).
                    if not getattr(sub, "_tw_is_metric", False):
                        visit(sub, layer_trainable)
            else:
                for v in layer.variables:
                    add(v, layer_trainable)
        visit(self, True)
        return out

    @property
    def trainable_weights(self) -> list:
        """Trainable weights of this layer and its sub-layers, in creation order."""
        return self._gather(True)

    @property
    def non_trainable_weights(self) -> list:
        """Weights that are not trained (frozen layers, BatchNormalization statistics)."""
        return self._gather(False)

    @property
    def weights(self) -> list:
        """``trainable_weights + non_trainable_weights``."""
        return self.trainable_weights + self.non_trainable_weights

    variables = readonly("weights", "As ``weights``.")
    trainable_variables = readonly("trainable_weights", "As ``trainable_weights``.")
    non_trainable_variables = readonly("non_trainable_weights", "As ``non_trainable_weights``.")

    @property
    def submodules(self) -> tuple:
        out, seen = [], set()

        def visit(layer) -> None:
            for sub in (layer._tracked_layers() if isinstance(layer, Layer)
                        else layer.submodules):
                if id(sub) not in seen:
                    seen.add(id(sub))
                    out.append(sub)
                    if isinstance(sub, Layer):
                        visit(sub)
        visit(self)
        return tuple(out)

    @property
    def losses(self) -> list:
        """Weight penalties and losses added with ``add_loss`` during the last call (this layer
        and its sub-layers)."""
        out = [reg(v) for v, reg in self._tw_regularizers] + list(self._tw_losses)
        for sub in self._tracked_layers():
            out.extend(getattr(sub, "losses", []))
        return out

    def add_loss(self, loss) -> None:
        """Adds a loss to be added to the training objective (cleared on each call).

        Args:
            loss: a scalar tensor or a zero-argument callable returning one.
        """
        self._tw_losses.append(loss() if callable(loss) else loss)

    def get_weights(self) -> list:
        """The weights' values as NumPy arrays.

        Returns:
            A list of arrays, in ``weights`` order.
        """
        return [np.array(v._value) for v in self.weights]

    def set_weights(self, weights: list) -> None:
        """Sets the weights from NumPy arrays (in ``weights`` order).

        Args:
            weights: the arrays.
        """
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"Layer {self.name!r} expects {len(params)} weights, but the "
                             f"given weights list has {len(weights)} elements")
        for v, w in zip(params, weights):
            w = np.asarray(w)
            if tuple(v.shape.as_list()) != w.shape:
                raise ValueError(f"Layer {self.name!r} weight {v.name} has shape "
                                 f"{tuple(v.shape.as_list())}, but the value has shape "
                                 f"{w.shape}")
        for v, w in zip(params, weights):
            v._set(np.array(w, dtype=v.dtype.np))

    def count_params(self) -> int:
        """The number of scalars in the layer's weights.

        Returns:
            The count.
        """
        return int(sum(int(np.prod(v.shape.as_list())) for v in self.weights))

    # ----- checkpoint object graph -----
    def _trackable_children(self) -> dict:
        out: dict = {}
        for v in self._tw_weights:
            out.setdefault(v._tw_short_name, v)
        for key, value in vars(self).items():
            if key.startswith("_tw_") or key == "_deferred_restores" or key in out:
                continue
            _walk(key, value, out)
        return out

    # ----- building and calling -----
    def build(self, input_shape) -> None:
        """Creates the layer's weights for inputs of ``input_shape`` (override in subclasses).

        Args:
            input_shape: a TensorShape or structure of them.
        """
        self.built = True

    def call(self, inputs, *args, **kwargs) -> Any:
        """The layer's computation (override in subclasses).

        Args:
            inputs: the input tensor(s).
            *args: other arguments.
            **kwargs: other keyword arguments (``training``, ``mask``).

        Returns:
            The output tensor(s).
        """
        return inputs

    def _maybe_build(self, inputs) -> None:
        shapes = nest.map_structure(lambda t: t.shape if hasattr(t, "shape") else None, inputs)
        self._tw_input_shape = _as_shape_tuples(shapes)
        with eager_mode():
            self.build(shapes)
        self.built = True
        if self._tw_initial_weights is not None:  # tf.keras 2's Layer(weights=[...])
            self.set_weights(self._tw_initial_weights)
            self._tw_initial_weights = None
        apply_deferred(self)

    def _convert_inputs(self, inputs):
        # Keras 3: a layer made with autocast=False keeps its floating inputs' dtype
        dt = self._tw_compute_dtype
        cast = self.autocast and dt.is_floating
        if isinstance(inputs, Tensor):
            if cast and inputs.dtype is not dt and inputs.dtype.is_floating:
                return math_ops.cast(inputs, dt)
            return inputs

        def conv(x):
            if isinstance(x, Tensor):
                return self._convert_inputs(x)
            if isinstance(x, Variable):
                return x.read_value()
            if isinstance(x, (np.ndarray, np.generic, float, int, list)):
                arr = np.asarray(x)
                if arr.dtype.kind == "f" and cast:
                    arr = arr.astype(dt.np, copy=False)
                return convert_to_tensor(arr)
            return x
        return nest.map_structure(conv, inputs)

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Builds the layer if needed and runs ``call`` (symbolically on KerasTensors).

        Args:
            inputs: a tensor, or a structure of tensors or KerasTensors.
            *args: passed to ``call``.
            **kwargs: passed to ``call``; a None ``training`` takes the outer call's value.

        Returns:
            The output of ``call`` (KerasTensors for symbolic inputs).
        """
        if _has_keras_tensor(inputs, args, kwargs):
            return self._functional_call(inputs, args, kwargs)
        inputs = self._convert_inputs(inputs)
        cls = type(self)
        outer = _CALL.training
        if "training" in kwargs:
            training = kwargs["training"]
            if training is None:
                training = outer
                if _call_accepts(cls, "training"):
                    kwargs["training"] = training
                else:
                    del kwargs["training"]
            elif not _call_accepts(cls, "training"):
                del kwargs["training"]
        else:
            training = outer
            if training is not None and _call_accepts(cls, "training"):
                kwargs["training"] = training
        mask = kwargs.get("mask")
        if "mask" in kwargs and not _call_takes_mask(cls):
            del kwargs["mask"]  # as Keras: only a call that takes a mask gets one (configs
            # saved by Keras 3 write "mask": null for every layer that supports masking)
        if mask is None and _MASKS:
            mask = _input_mask(inputs)
            if mask is not None and _call_takes_mask(cls):
                kwargs["mask"] = mask
        if self.input_spec is not None:  # keras.layers.InputSpec, checked as Keras does
            assert_input_compatibility(self.input_spec, inputs, self.name)
        first = not self.built
        if first:
            with _BUILD_LOCK:  # two threads calling an unbuilt layer build it once
                if not self.built:
                    self._maybe_build(inputs)
        if self._tw_losses:
            self._tw_losses = []
        _CALL.training = training
        try:
            mixed = self._tw_compute_dtype is not self._tw_dtype
            if mixed or _AUTOCAST.dtype is not None:  # a float32 layer inside a mixed one
                # (autocast=False inside an outer autocast reads weights as stored: Keras 3)
                inner = None if _AUTOCAST.dtype is not None and not self.autocast else \
                    self._tw_compute_dtype if mixed else None
                with autocast_variables(inner):
                    outputs = self._call_in_scope(inputs, args, kwargs)
            else:
                outputs = self._call_in_scope(inputs, args, kwargs)
        finally:
            _CALL.training = outer
        if mask is not None or type(self).compute_mask is not Layer.compute_mask:
            self._attach_mask(inputs, outputs, mask)
        if first:
            self._tw_output_shape = _as_shape_tuples(nest.map_structure(
                lambda t: t.shape if hasattr(t, "shape") else None, outputs))
        if self.activity_regularizer is not None:
            self._add_activity_losses(outputs)
        return outputs

    def _add_activity_losses(self, outputs) -> None:
        """Adds ``activity_regularizer(output)`` of each floating output to ``losses``, divided
        by the batch size (the first dimension) unless the output is 0-d, as Keras 3 does."""
        for out in nest.flatten(outputs):
            if not isinstance(out, Tensor) or not out.dtype.is_floating:
                continue  # integer outputs have no gradient to regularize
            loss = self.activity_regularizer(out)
            if out.shape.rank != 0:
                batch = math_ops.cast(array_ops.shape(out)[0], loss.dtype)
                loss = math_ops.div_no_nan(loss, batch)
            self._tw_losses.append(loss)

    def _call_in_scope(self, inputs, args: tuple, kwargs: dict):
        if ctx.graph is None:
            return self.call(inputs, *args, **kwargs)
        with _name_scope(self.name):
            return self.call(inputs, *args, **kwargs)

    def quantize(self, mode: str | None = None, type_check: bool = True, config=None) -> None:
        """Quantizes the layer's weights; ``Dense``, ``EinsumDense`` and ``Embedding`` can.

        Args:
            mode: ``'int8'``, ``'int4'``...
            type_check: refuse subclasses of the quantizable layers.
            config: a ``keras.quantizers.QuantizationConfig``.
        """
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `quantize()` "
                                  "method implemented.")

    @property
    def quantization_mode(self) -> str | None:
        """The mode the layer is quantized in (None: not quantized)."""
        return self._tw_policy.quantization_mode

    def compute_mask(self, inputs, mask=None) -> Any:
        """The mask of this layer's output: the input mask for layers that support masking
        (``supports_masking``), else None (override for layers that make or change masks).

        Args:
            inputs: the layer's inputs.
            mask: their mask (or a structure of masks).

        Returns:
            The output mask or None.
        """
        return mask if self.supports_masking else None

    def _attach_mask(self, inputs, outputs, mask) -> None:
        out_mask = self.compute_mask(inputs, mask)
        flat = nest.flatten(outputs)
        masks = nest.flatten(out_mask) if isinstance(out_mask, (list, tuple)) else \
            [out_mask] * len(flat)
        for t, m in zip(flat, masks):
            set_keras_mask(t, m)

    def _functional_call(self, inputs, args: tuple, kwargs: dict):
        specs = symbolic_call(self.__call__, (inputs,) + tuple(args), kwargs)
        node = Node(self, (inputs,) + tuple(args), kwargs, None)
        n_out = [0]
        _map_pairs(specs, lambda p: n_out.__setitem__(0, n_out[0] + 1))
        counter = [0]

        def make(spec):
            composite = isinstance(spec, TypeSpec)
            shape, dt = (spec.shape, spec.dtype) if composite else spec
            i = counter[0]
            counter[0] += 1
            return KerasTensor(shape, dt, layer=self, node=node, index=i,
                               name=self.name if n_out[0] == 1 else f"{self.name}_{i}",
                               type_spec=spec if composite else None)
        outputs = _map_pairs(specs, make)
        node.outputs = outputs
        self._tw_nodes.append(node)
        self._tw_output_shape = _as_shape_tuples(
            nest.map_structure(lambda t: t.shape, outputs))
        return outputs

    def compute_output_shape(self, input_shape) -> Any:
        """The output shape for inputs of ``input_shape`` (by tracing the layer symbolically).

        Args:
            input_shape: a shape or structure of shapes including the batch dimension.

        Returns:
            The output TensorShape (or structure).
        """
        spec = nest.map_structure_up_to(
            _shape_structure(input_shape), lambda s: KerasTensor(TensorShape(s)), input_shape) \
            if not _is_shape(input_shape) else KerasTensor(TensorShape(input_shape))
        out = symbolic_call(self.__call__, (spec,), {})
        return _map_pairs(out, lambda p: p[0])

    # ----- weight arguments (Conv, EinsumDense, MultiHeadAttention, RNN cells, norms) -----
    def _set_weight_args(self, weight: str, initializer, regularizer, constraint) -> None:
        """Stores a weight's constructor arguments as ``<weight>_initializer`` and
        ``<weight>_regularizer`` (resolved by name) and ``<weight>_constraint``."""
        setattr(self, f"{weight}_initializer", _initializers.get(initializer))
        setattr(self, f"{weight}_regularizer", _regularizers.get(regularizer))
        setattr(self, f"{weight}_constraint", constraint)

    def _add_weight_for(self, weight: str, name: str, shape: tuple, initializer=None):
        """Adds weight ``name`` with the arguments ``_set_weight_args(weight, ...)`` stored
        (``initializer``, when given, replaces the stored initializer)."""
        if initializer is None:
            initializer = getattr(self, f"{weight}_initializer")
        return self.add_weight(name, shape, initializer=initializer,
                               regularizer=getattr(self, f"{weight}_regularizer"),
                               constraint=getattr(self, f"{weight}_constraint"))

    def _kernel_bias_config(self) -> dict:
        """The serialized initializers and regularizers of the kernel and the bias."""
        return {"kernel_initializer": _initializers.serialize(self.kernel_initializer),
                "bias_initializer": _initializers.serialize(self.bias_initializer),
                "kernel_regularizer": _regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": _regularizers.serialize(self.bias_regularizer)}

    # ----- config -----
    def get_config(self) -> dict:
        """The constructor arguments of this layer.

        Returns:
            A dict (subclasses add their own arguments).
        """
        cfg = {"name": self.name, "trainable": self.trainable, "dtype": self._tw_policy.name}
        if self.activity_regularizer is not None:  # Keras 3 writes it only when set
            cfg["activity_regularizer"] = _regularizers.serialize(self.activity_regularizer)
        if not self.autocast:
            cfg["autocast"] = False
        if self._tw_batch_input_shape is not None:
            cfg["batch_input_shape"] = self._tw_batch_input_shape
        cfg.update(Configurable.get_config(self))  # the subclass's _config_keys
        return cfg

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"
