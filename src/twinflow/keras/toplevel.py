"""Keras 3's top-level names besides models and layers: ``keras.Variable``, ``Function``,
``Operation``, ``name_scope``, ``device``, ``version``, ``remat``/``RematScope`` and the
``StatelessScope``/``SymbolicScope`` context managers, on twinflow's own machinery."""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autodiff.extras import recompute_grad
from ..core import devices as _devices
from ..core import nest
from ..core.context import eager_mode
from ..graph import graph as _graph
from ..ops.variables import Variable as _TwVariable
from . import initializers as _initializers
from .layers.base import Layer
from .models import Model as _Model
from .settings import floatx


class Variable(_TwVariable):
    """A Keras 3 variable: made from an initializer (or a value) and a shape, with Keras'
    ``path`` (``dense/kernel``) and ``value``.

    Args:
        initializer: a value, an initializer name or object, or a callable
            ``f(shape, dtype)``.
        shape: the shape (needed with an initializer).
        dtype: the dtype (default: the value's, else ``floatx()``).
        trainable: whether training updates it.
        autocast: whether a mixed-precision layer's ``call`` reads it in the compute dtype
            (False: always in its own dtype).
        aggregation: how replicas combine it (``'none'``, ``'mean'``, ``'sum'``,
            ``'only_first_replica'``).
        synchronization: accepted as in Keras (``'auto'``).
        name: the variable's name.
    """

    def __init__(self, initializer, shape=None, dtype=None, trainable: bool = True,
                 autocast: bool = True, aggregation: str = "none",
                 synchronization: str = "auto", name: str | None = None) -> None:
        if isinstance(initializer, str) or isinstance(initializer, _initializers.Initializer) \
                or (callable(initializer) and not hasattr(initializer, "shape")):
            if shape is None:
                raise ValueError("When creating a Variable from an initializer, the `shape` "
                                 f"argument should be specified. Received: "
                                 f"initializer={initializer} and shape={shape}")
            init = _initializers.get(initializer) if not callable(initializer) or \
                isinstance(initializer, str) else initializer
            with eager_mode():
                value = init(tuple(shape), dtype=dtype or floatx())
        else:
            value = initializer
            if dtype is None and not hasattr(value, "dtype"):
                arr = np.asarray(value)
                dtype = floatx() if arr.dtype.kind == "f" else None
        self.autocast = autocast
        self._tw_autocast = bool(autocast)  # read by Variable._read_autocast
        self._keras_aggregation = aggregation
        super().__init__(value, trainable=trainable, name=name, dtype=dtype)

    @property
    def path(self) -> str:
        """The variable's name without the ``:0`` suffix (Keras' path)."""
        return self.name.split(":")[0]

    @property
    def value(self):
        """The current value as a tensor."""
        return self.read_value()


class Operation(Layer):
    """Keras 3's base of ops and layers: ``call`` computes; calling runs ``call``. In
    twinflow an Operation is a Layer without weights.

    Args:
        name: the operation's name.
        **kwargs: Layer arguments.
    """

    def __init__(self, name: str | None = None, **kwargs) -> None:
        super().__init__(name=name, **kwargs)

    def compute_output_spec(self, *args, **kwargs) -> Any:
        """Calls ``call`` (twinflow infers shapes by running ops on symbolic tensors).

        Args:
            *args: the inputs.
            **kwargs: the call's keywords.

        Returns:
            The outputs.
        """
        return self.call(*args, **kwargs)


class Function(Operation):
    """A graph of Operations between symbolic inputs and outputs (Keras 3's
    ``keras.Function``), run by calling it on tensors.

    Args:
        inputs: the ``keras.Input`` tensors (a structure).
        outputs: tensors computed from them (a structure).
        name: the function's name.
    """

    def __init__(self, inputs, outputs, name: str | None = None) -> None:
        super().__init__(name=name)
        self._inputs_struct, self._outputs_struct = inputs, outputs
        self._model = _Model(inputs, outputs, name=self.name)

    @property
    def inputs(self) -> list:
        """The flat symbolic inputs."""
        return nest.flatten(self._inputs_struct)

    @property
    def outputs(self) -> list:
        """The flat symbolic outputs."""
        return nest.flatten(self._outputs_struct)

    @property
    def operations(self) -> list:
        """The operations (layers) between the inputs and outputs."""
        return list(self._model.layers)

    def call(self, inputs, training=None, mask=None) -> Any:
        return self._model(inputs, training=training, mask=mask)


class name_scope:  # noqa: N801  (Keras' name)
    """Opens a name scope: ops created in a graph under it are prefixed with ``name``.

    Args:
        name: the scope's name.
        caller: the object opening the scope (Keras records it; names only).
        deduplicate: Keras' rule against ``a/a`` when a scope re-opens its own name; it
            changes op names in a graph only, never values (twinflow's weight names come
            from the layers, not from scopes).
        override_parent: Keras' replacement of the parent scope: op names only, as above.
    """

    def __init__(self, name: str, caller=None, deduplicate: bool = True,
                 override_parent=None) -> None:
        if not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name}")
        self.name = name
        self._cm = None

    def __enter__(self) -> name_scope:
        self._cm = _graph.name_scope(self.name)
        self._cm.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._cm.__exit__(*exc)


def device(device_name: str) -> contextlib.AbstractContextManager:
    """``tw.device`` under Keras' name (``'cpu:0'``, ``'gpu:0'``...).

    Args:
        device_name: the device.

    Returns:
        A context manager placing the ops created under it.
    """
    return _devices.device(device_name)


KERAS_API_VERSION = "3.15.1"


def version() -> str:
    """The version of the Keras API ``tw.keras`` follows (``keras.version()`` gives Keras'
    version; twinflow's own is ``tw.__version__``).

    Returns:
        ``'3.15.1'``.
    """
    return KERAS_API_VERSION


_SCOPES = threading.local()


class RematScope:
    """Keras' scope that makes layers rematerialize their activations. twinflow's layers do
    not (``keras.remat(f)`` does, for a function of tensors): only ``mode=None`` (no
    rematerialization) is accepted; any other mode raises.

    Args:
        mode: must be None.
        output_size_threshold: as in Keras.
        layer_names: as in Keras.
    """

    def __init__(self, mode: str | None = "full", output_size_threshold: int = 1024,
                 layer_names=None) -> None:
        if mode is not None:
            raise NotImplementedError(
                f"RematScope(mode={mode!r}): twinflow's layers do not rematerialize; wrap a "
                "function of tensors in keras.remat(f) instead")
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = list(layer_names or [])

    def __enter__(self) -> RematScope:
        return self

    def __exit__(self, *exc) -> None:
        return None


def remat(f: Callable) -> Callable:
    """``f`` whose intermediate values are recomputed in the backward pass (gradient
    checkpointing) rather than kept: ``tw.recompute_grad``.

    Args:
        f: a function of tensors.

    Returns:
        The wrapped function (same values and gradients).
    """
    return recompute_grad(f)


class StatelessScope:
    """Variable assignments inside the scope go to a side table instead of the variables
    (Keras 3's stateless execution); ``get_current_value(v)`` reads them.

    Args:
        state_mapping: ``[(variable, value), ...]`` the scope starts from.
        collect_rng_state: accepted as in Keras.
        initialize_variables: accepted as in Keras.
    """

    def __init__(self, state_mapping=None, collect_rng_state: bool = False,
                 initialize_variables: bool = True) -> None:
        self.state_mapping: dict = {}
        for var, value in state_mapping or []:
            if not isinstance(var, _TwVariable):
                raise ValueError("All keys in argument `mapping` must be Variable instances. "
                                 f"Received instead: {var}")
            self.state_mapping[id(var)] = (var, value)
        self._saved: list = []

    def add_update(self, update) -> None:
        """Records ``(variable, value)`` in the scope.

        Args:
            update: the pair.
        """
        var, value = update
        self.state_mapping[id(var)] = (var, value)

    def get_current_value(self, variable) -> Any:
        """The value ``variable`` has in this scope (None when not set here).

        Args:
            variable: the variable.

        Returns:
            The value or None.
        """
        entry = self.state_mapping.get(id(variable))
        return None if entry is None else entry[1]

    def __enter__(self) -> StatelessScope:
        # The scope's values are swapped in, and the real values restored at exit: the
        # variables themselves end unchanged, and what was assigned is kept in the table.
        self._saved = []
        for var, value in self.state_mapping.values():
            self._saved.append((var, var.numpy()))
            var.assign(value)
        return self

    def __exit__(self, *exc) -> None:
        for var, old in self._saved:
            self.state_mapping[id(var)] = (var, var.read_value())
            var.assign(old)
        self._saved = []


class SymbolicScope:
    """Marks code that runs on symbolic tensors (Keras' shape inference); in twinflow
    symbolic tensors need no scope, so entering it only records that it is active."""

    def __enter__(self) -> SymbolicScope:
        stack = getattr(_SCOPES, "symbolic", 0)
        _SCOPES.symbolic = stack + 1
        return self

    def __exit__(self, *exc) -> None:
        _SCOPES.symbolic -= 1


def in_symbolic_scope() -> bool:
    """Whether a ``SymbolicScope`` is active in this thread.

    Returns:
        The flag.
    """
    return getattr(_SCOPES, "symbolic", 0) > 0

