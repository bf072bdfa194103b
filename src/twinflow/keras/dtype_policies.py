"""``tw.keras.dtype_policies``: the dtype a layer computes in and the dtype of its variables.

``'mixed_float16'`` computes in float16 with float32 variables: a layer casts its floating
inputs to float16 and, while its ``call`` runs, reads its float32 variables as float16
(``ops.variables.autocast_variables``), so gradients flow back to the float32 variables
through the casts. Losses are computed in float32. ``'mixed_bfloat16'`` does the same in
bfloat16 (no loss scaling: bfloat16 has float32's exponent range).
"""
from __future__ import annotations

from ..core import dtypes
from .configurable import Configurable

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}
_FLOATS = ("float16", "float32", "float64", "bfloat16")


class DTypePolicy(Configurable):
    """A dtype policy (Keras 3's ``keras.DTypePolicy``).

    Args:
        name: a dtype name (``'float32'``, ``'float16'``...) or ``'mixed_float16'``.
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = global_policy().name
        if isinstance(name, dtypes.DType):
            name = name.name
        if not isinstance(name, str):
            raise TypeError(f"DTypePolicy needs a string name, got {name!r}")
        if name in _MIXED:
            compute, variable = _MIXED[name]
        else:
            try:
                compute = variable = dtypes.as_dtype(name).name
            except TypeError:
                compute = variable = None
        if compute is None:
            raise ValueError(f"Cannot convert {name!r} to a dtype policy: valid names are "
                             f"'mixed_float16', 'mixed_bfloat16' and dtypes {_FLOATS}")
        self._name = name
        self._compute = compute
        self._variable = variable

    @property
    def name(self) -> str:
        """The policy's name."""
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype layers compute in."""
        return self._compute

    @property
    def variable_dtype(self) -> str:
        """The dtype of layers' variables."""
        return self._variable

    @property
    def is_mixed(self) -> bool:
        """Whether computations and variables have different dtypes."""
        return self._compute != self._variable

    _config_keys = ("name",)  # get_config() is {"name": ...}

    def __eq__(self, other) -> bool:
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'


class FloatDTypePolicy(DTypePolicy):
    """Keras 3's name for a policy of one float dtype (kept for compatibility)."""


_PROCESS = [None]  # the policy set by set_dtype_policy (process-wide, as in Keras)


def get(identifier) -> DTypePolicy:
    """A policy from a name, a dtype, a policy or its serialized dict.

    Args:
        identifier: ``'mixed_float16'``, ``'float32'``, ``tw.float16``, a DTypePolicy, a dict
            ``{"class_name": "DTypePolicy", "config": {"name": ...}}``, or None (the global
            policy).

    Returns:
        The policy.
    """
    if identifier is None:
        return global_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        cfg = identifier.get("config", identifier)
        if not isinstance(cfg, dict) or not isinstance(cfg.get("name"), str):
            raise ValueError(f"Cannot interpret the dtype policy {identifier!r}")
        return DTypePolicy(cfg["name"])
    return DTypePolicy(identifier)


def serialize(policy: DTypePolicy) -> dict:
    """Keras 3's serialized form of a policy.

    Args:
        policy: the policy.

    Returns:
        ``{"module": "keras", "class_name": "DTypePolicy", "config": {...}, ...}``.
    """
    return {"module": "keras", "class_name": "DTypePolicy", "config": policy.get_config(),
            "registered_name": None}


def deserialize(config: dict, custom_objects: dict | None = None) -> DTypePolicy:
    """The policy of a ``serialize`` dict.

    Args:
        config: the dict.
        custom_objects: unused (policies are never custom).

    Returns:
        The policy.
    """
    return get(config)


def set_dtype_policy(policy) -> None:
    """Sets the global dtype policy (``keras.config.set_dtype_policy``).

    Args:
        policy: a policy or its name.
    """
    _PROCESS[0] = get(policy) if policy is not None else None


def dtype_policy() -> DTypePolicy:
    """The global dtype policy (``'float32'`` unless set).

    Returns:
        The policy.
    """
    return global_policy()


def global_policy() -> DTypePolicy:
    """The global dtype policy (``'float32'`` unless set).

    Returns:
        The policy.
    """
    return _PROCESS[0] or _FLOAT32


_FLOAT32 = DTypePolicy("float32")
