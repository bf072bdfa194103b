"""``tw.experimental.ExtensionType``: user-defined composite values on the TypeSpec mechanism.

A subclass declares its fields as class annotations::

    class Masked(tw.experimental.ExtensionType):
        values: tw.Tensor
        mask: tw.Tensor
        name: str = "m"

Fields annotated ``tw.Tensor`` are converted to tensors; fields holding a composite
(RaggedTensor...) or another ExtensionType stay as they are; every other field is a static
Python value that becomes part of the type (a different value is a different type, as a Python
argument of ``tw.function`` is). Instances are immutable and get ``__init__``, ``__repr__``
and ``__eq__`` (field by field; tensors by identity of their values), and a ``Spec`` class;
``tw.function``, ``tw.nest(expand_composites=True)``, cond and while_loop carry them through
their tensor fields.
"""
from __future__ import annotations

import typing

from ..eager.func_graph import TensorSpec
from ..framework.type_spec import BatchableTypeSpec, CompositeTensor
from ..graph.tensor import Tensor
from .core import convert
from .extension_batch import encoder_of, stack_values, unstack_value

_MISSING = object()


class ExtensionTypeSpec(BatchableTypeSpec):
    """The TypeSpec of an ExtensionType: a spec per tensor field, the static fields' values.

    Args:
        value_type: the ExtensionType subclass.
        fields: ``(name, spec or static value)`` pairs in declaration order.
    """

    __slots__ = ("_value_type", "_fields")
    _tw_extension_spec = True  # (what ExtensionTypeBatchEncoder checks for)

    def __init__(self, value_type: type, fields: tuple) -> None:
        self._value_type = value_type
        self._fields = tuple(fields)

    @property
    def value_type(self) -> type:
        return self._value_type

    def _serialize(self) -> tuple:
        return (self._value_type, self._fields)

    def _trace_key(self) -> tuple:
        return (type(self), self._value_type,
                tuple((n, s._trace_key() if hasattr(s, "_trace_key") else s)
                      for n, s in self._fields))

    @property
    def _component_specs(self) -> dict:
        return {n: s for n, s in self._fields if hasattr(s, "_trace_key")}

    def _to_components(self, value) -> dict:
        return {n: getattr(value, n) for n, s in self._fields if hasattr(s, "_trace_key")}

    def _from_components(self, components: dict):
        obj = object.__new__(self._value_type)
        for n, s in self._fields:
            object.__setattr__(obj, n, components[n] if hasattr(s, "_trace_key") else s)
        return obj

    def is_compatible_with(self, spec_or_value) -> bool:
        """True if ``spec_or_value`` has this type, its static fields and compatible tensors.

        Args:
            spec_or_value: an ExtensionTypeSpec or ExtensionType value.

        Returns:
            Whether it fits.
        """
        other = spec_or_value if isinstance(spec_or_value, ExtensionTypeSpec) else \
            getattr(spec_or_value, "_type_spec", None)
        if not isinstance(other, ExtensionTypeSpec) or other._value_type is not \
                self._value_type:
            return False
        for (_, a), (_, b) in zip(self._fields, other._fields):
            if hasattr(a, "_trace_key") != hasattr(b, "_trace_key"):
                return False
            if hasattr(a, "_trace_key") and not a.is_compatible_with(b):
                return False
            if not hasattr(a, "_trace_key") and a != b:
                return False
        return True

    # ----- batching (tw.data), through the value type's __batch_encoder__ -----
    def _batch(self, batch_size) -> ExtensionTypeSpec:
        return encoder_of(self).batch(self, batch_size)

    def _unbatch(self) -> ExtensionTypeSpec:
        return encoder_of(self).unbatch(self)

    def _tw_stack(self, values: list):
        return stack_values(self, values)

    def _tw_unstack(self, value) -> list:
        return unstack_value(self, value)

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={s!r}" for n, s in self._fields)
        return f"{self._value_type.__name__}.Spec({inner})"


def _field_names(cls) -> list:
    names = []
    for klass in reversed(cls.__mro__):
        for n in klass.__dict__.get("__annotations__", {}):
            if not n.startswith("_") and n not in names:
                names.append(n)
    return names


def _is_tensor_annotation(ann) -> bool:
    if isinstance(ann, str):
        return ann.split(".")[-1] in ("Tensor",)
    return ann is Tensor or (isinstance(ann, type) and issubclass(ann, Tensor))


class ExtensionType(CompositeTensor):
    """Base of user-defined composite types (``tw.experimental.ExtensionType``).

    Args:
        **fields: one value per annotated field (positional arguments in declaration order).
    """

    __slots__ = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._tw_fields = _field_names(cls)
        owner = cls

        def spec_init(self, *args, **fields) -> None:
            """``Cls.Spec(field=spec_or_value, ...)`` (TensorSpecs for tensor fields)."""
            if args:  # (value_type, fields) from ExtensionType._type_spec
                ExtensionTypeSpec.__init__(self, *args)
                return
            missing = [n for n in owner._tw_fields if n not in fields]
            if missing:
                raise TypeError(f"{owner.__name__}.Spec: missing fields {missing}")
            ExtensionTypeSpec.__init__(self, owner, tuple((n, fields[n])
                                                          for n in owner._tw_fields))

        cls.Spec = type(f"{cls.__name__}.Spec", (ExtensionTypeSpec,),
                        {"__slots__": (), "__init__": spec_init})

    def __init__(self, *args, **kwargs) -> None:
        names = type(self)._tw_fields
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} fields, got {len(args)} "
                            f"positional arguments")
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{type(self).__name__} has no field {k!r}")
            if k in values:
                raise TypeError(f"{type(self).__name__}: field {k!r} given twice")
            values[k] = v
        hints = typing.get_type_hints(type(self)) if _annotations_resolvable(type(self)) \
            else {}
        anns = {}
        for klass in type(self).__mro__:
            anns = {**klass.__dict__.get("__annotations__", {}), **anns}
        for n in names:
            v = values.get(n, getattr(type(self), n, _MISSING))
            if v is _MISSING:
                raise TypeError(f"{type(self).__name__}: missing field {n!r}")
            ann = hints.get(n, anns.get(n))
            if _is_tensor_annotation(ann) and not isinstance(v, CompositeTensor):
                v = convert(v)
            object.__setattr__(self, n, v)
        validate = getattr(self, "__validate__", None)
        if validate is not None:
            validate()

    def __setattr__(self, name, value) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    @property
    def _type_spec(self) -> ExtensionTypeSpec:
        fields = []
        for n in type(self)._tw_fields:
            v = getattr(self, n)
            if isinstance(v, CompositeTensor):
                fields.append((n, v._type_spec))
            elif isinstance(v, Tensor):
                fields.append((n, TensorSpec.from_tensor(v)))
            else:
                fields.append((n, v))
        return type(self).Spec(type(self), tuple(fields))

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in type(self)._tw_fields)
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) is getattr(other, n) or (
            not isinstance(getattr(self, n), (Tensor, CompositeTensor))
            and getattr(self, n) == getattr(other, n)) for n in type(self)._tw_fields)

    __hash__ = None


def _annotations_resolvable(cls) -> bool:
    try:
        typing.get_type_hints(cls)
        return True
    except Exception:  # noqa: BLE001  (string annotations naming things not importable here)
        return False


class BatchableExtensionType(ExtensionType):
    """An ExtensionType whose values can be batched (``tw.experimental.BatchableExtensionType``);
    twinflow's specs are all batchable, so this adds nothing to ExtensionType.

    Args:
        **fields: one value per annotated field.
    """

    __slots__ = ()


def as_dict(value: ExtensionType) -> dict:
    """The fields of an ExtensionType value (``tw.experimental.extension_type.as_dict``).

    Args:
        value: an ExtensionType instance.

    Returns:
        ``{field name: value}`` in declaration order.
    """
    if not isinstance(value, ExtensionType):
        raise TypeError(f"as_dict expects an ExtensionType, got {type(value).__name__}")
    return {n: getattr(value, n) for n in type(value)._tw_fields}
