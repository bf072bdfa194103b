"""``tw.keras.export``: ``ExportArchive``, Keras 3's way to write a SavedModel with chosen
endpoints and variable collections, on twinflow's ``saved_model`` package."""
from __future__ import annotations

import inspect
from collections.abc import Callable

from ..core import dtypes, nest
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..function.function import ConcreteFunction, Function
from ..ops.variables import Variable
from ..saved_model.save import save as _save_model
from .layers.base import Layer
from .settings import print_msg


def _spec(x, i: int) -> TensorSpec:
    """A TensorSpec for ``x``: a TensorSpec, an InputSpec-like object (``shape``, ``dtype``),
    a KerasTensor or a tensor."""
    if isinstance(x, TensorSpec):
        return x
    shape = getattr(x, "shape", None)
    if shape is None:
        raise ValueError(f"Cannot make an input signature from {x!r}: expected a TensorSpec, "
                         "a keras.InputSpec, a KerasTensor or a tensor")
    dtype = getattr(x, "dtype", None) or "float32"
    return TensorSpec(TensorShape(shape), dtypes.as_dtype(dtype),
                      getattr(x, "name", None) or f"input_{i}")


class _Holder:
    """The object written: endpoints as attributes (``tw.function`` s), variable collections
    and the tracked resources' variables as children."""

    def __init__(self) -> None:
        self._tw_children: dict = {}

    def _trackable_children(self) -> dict:
        return dict(self._tw_children)


class ExportArchive:
    """Builds a SavedModel for inference: ``track`` the layers or models whose variables the
    endpoints use, ``add_endpoint`` the functions to serve, optionally
    ``add_variable_collection``, then ``write_out(path)``. ``tw.saved_model.load(path)``
    (or TensorFlow's) gives an object with those endpoints and collections as attributes.
    """

    def __init__(self) -> None:
        self._holder = _Holder()
        self._tracked: list = []
        self._endpoint_names: list = []
        self._endpoint_signatures: dict = {}
        self._collections: dict = {}

    # ----- variables -----
    def _tracked_variables(self, attr: str) -> list:
        out, seen = [], set()
        for res in self._tracked:
            for v in getattr(res, attr, []):
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    @property
    def variables(self) -> list:
        """The variables of the tracked resources."""
        return self._tracked_variables("variables")

    @property
    def trainable_variables(self) -> list:
        """Their trainable variables."""
        return self._tracked_variables("trainable_variables")

    @property
    def non_trainable_variables(self) -> list:
        """Their non-trainable variables."""
        return self._tracked_variables("non_trainable_variables")

    def track(self, resource) -> None:
        """Makes the variables of ``resource`` (a built layer or model, or any object with
        ``variables``) part of the archive.

        Args:
            resource: the layer, model or trackable.

        Raises:
            ValueError: an unbuilt layer, or something without variables.
        """
        if isinstance(resource, Layer) and not resource.built:
            raise ValueError("The layer provided has not yet been built. It must be built "
                             "before export.")
        if not (isinstance(resource, Layer) or hasattr(resource, "_trackable_children") or
                hasattr(resource, "variables")):
            raise ValueError("Invalid resource type. Expected a Keras `Layer` or `Model` or a "
                             f"trackable object. Received object {resource} of type "
                             f"'{type(resource)}'.")
        self._tracked.append(resource)

    # ----- endpoints -----
    def add_endpoint(self, name: str, fn: Callable, input_signature=None,
                     **kwargs) -> Function:
        """Adds the serving function ``name``.

        Args:
            name: the endpoint's (and signature's) name.
            fn: a Python callable (with ``input_signature``), or a ``tw.function`` already
                called at least once.
            input_signature: a list of TensorSpecs / InputSpecs / KerasTensors, one per
                positional argument of ``fn``.
            **kwargs: JAX-only Keras arguments, refused.

        Returns:
            The endpoint's ``tw.function``.

        Raises:
            ValueError: a name already taken, or no way to know the arguments' specs.
        """
        if name in self._endpoint_names:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        if kwargs:
            raise ValueError(f"{sorted(kwargs)} are only supported with the jax backend. "
                             "Current backend: tensorflow")
        if input_signature is None:
            if not isinstance(fn, Function):
                raise ValueError(
                    "If the `fn` argument provided is not a `tf.function`, you must provide "
                    "an `input_signature` argument to specify the shape and dtype of the "
                    "function arguments.")
            if fn.input_signature is None and not fn._concretes:
                raise ValueError(f"The provided tf.function '{fn}' has never been called. To "
                                 "specify the expected shape and dtype of the function's "
                                 "arguments, you must either provide a function that has "
                                 "been called at least once, or alternatively pass an "
                                 "`input_signature` argument in `add_endpoint()`.")
            endpoint = fn
        else:
            specs = [_spec(s, i) for i, s in enumerate(nest.flatten(input_signature))]
            structure = input_signature
            python_fn = fn.python_function if isinstance(fn, Function) else fn

            def serve(*args):
                return python_fn(*nest.pack_sequence_as(structure, list(args)))
            # Named parameters (not *args) in the saved function spec: TensorFlow's loader
            # names the arguments after them.
            serve.__signature__ = inspect.Signature([
                inspect.Parameter(s.name or f"args_{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD)
                for i, s in enumerate(specs)])
            endpoint = Function(serve, name=name, input_signature=specs, autograph=False)
            endpoint.get_concrete_function()
            self._endpoint_signatures[name] = specs
        setattr(self._holder, name, endpoint)
        self._endpoint_names.append(name)
        return endpoint

    def track_and_add_endpoint(self, name: str, resource, input_signature,
                               **kwargs) -> Function:
        """``track(resource)`` then ``add_endpoint(name, resource.__call__, ...)``.

        Args:
            name: the endpoint's name.
            resource: a layer or model.
            input_signature: the specs of its inputs.
            **kwargs: as ``add_endpoint``.

        Returns:
            The endpoint's ``tw.function``.
        """
        self.track(resource)
        return self.add_endpoint(name, resource.__call__, input_signature, **kwargs)

    def add_variable_collection(self, name: str, variables) -> None:
        """Saves ``variables`` as the list attribute ``name`` of the loaded object.

        Args:
            name: the attribute's name.
            variables: a list, tuple or set of variables.

        Raises:
            ValueError: not a list/tuple/set of variables.
        """
        if not isinstance(variables, (list, tuple, set)):
            raise ValueError("Expected `variables` to be a list/tuple/set. Received instead "
                             f"object of type '{type(variables)}'.")
        if not all(isinstance(v, Variable) for v in variables):
            raise ValueError("Expected all elements in `variables` to be `tf.Variable` "
                             "instances. Found instead the following types: "
                             f"{sorted({type(v).__name__ for v in variables})}")
        self._collections[name] = list(variables)

    def _concrete(self, name: str) -> ConcreteFunction:
        fn = getattr(self._holder, name)
        if fn.input_signature is not None:
            return fn.get_concrete_function()
        return fn._concretes[0][1]

    def write_out(self, filepath: str, options=None, verbose: bool = True) -> None:
        """Writes the SavedModel (atomically): every endpoint is a signature too, and the
        first is also ``serving_default`` unless one has that name.

        Args:
            filepath: the directory.
            options: a ``tw.saved_model.SaveOptions``.
            verbose: print the endpoints written.

        Raises:
            ValueError: no endpoint was added.
        """
        if not self._endpoint_names:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        children: dict = {}
        for attr in ("variables", "trainable_variables", "non_trainable_variables"):
            for i, v in enumerate(getattr(self, attr)):
                children[f"{attr}/{i}"] = v
        for name, vs in self._collections.items():
            for i, v in enumerate(vs):
                children[f"{name}/{i}"] = v
        self._holder._tw_children = children
        signatures = {name: self._concrete(name) for name in self._endpoint_names}
        if "serving_default" not in signatures:
            signatures["serving_default"] = signatures[self._endpoint_names[0]]
        _save_model(self._holder, str(filepath), signatures=signatures, options=options)
        if verbose:
            lines = [f"Saved artifact at '{filepath}'. The following endpoints are available:"]
            for name in self._endpoint_names:
                specs = getattr(self._holder, name).input_signature or []
                args = ", ".join(f"{s.name or f'args_{i}'}: {s.dtype.name}"
                                 f"{tuple(s.shape.as_list())}" for i, s in enumerate(specs))
                lines.append(f"* Endpoint '{name}'\n  args: {args}")
            print_msg("\n\n".join(lines))

