"""``tw.keras.dtype_policies``: the dtype a layer computes in and the dtype of its variables.

``'mixed_float16'`` computes in float16 with float32 variables: a layer casts its floating
inputs to float16 and, while its ``call`` runs, reads its float32 variables as float16
(``ops.variables.autocast_variables``), so gradients flow back to the float32 variables
through the casts. Losses are computed in float32. ``'mixed_bfloat16'`` does the same in
bfloat16 (no loss scaling: bfloat16 has float32's exponent range).

The quantized policies (``'int8_from_float32'``...) are what ``Layer.quantize`` gives a
layer: its compute and variable dtypes stay the source policy's and ``quantization_mode``
names the mode. ``DTypePolicyMap`` maps layer paths (regular expressions) to policies.
"""
from __future__ import annotations

import re
from collections.abc import MutableMapping

from ..core import dtypes
from ..core.props import readonly
from .configurable import Configurable

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
# The modes twinflow quantizes layers in (GPTQ and AWQ are not provided).
SUPPORTED_MODES = ("int8", "float8", "int4")

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

    name = readonly("_name", "The policy's name.")
    compute_dtype = readonly("_compute", "The dtype layers compute in.")
    variable_dtype = readonly("_variable", "The dtype of layers' variables.")

    @property
    def quantization_mode(self) -> str | None:
        """The quantization mode (None: not quantized)."""
        return None

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
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier.startswith(QUANTIZATION_MODES):
        return _quantized_by_name(identifier)
    return DTypePolicy(identifier)


def serialize(policy: DTypePolicy) -> dict:
    """Keras 3's serialized form of a policy.

    Args:
        policy: the policy.

    Returns:
        ``{"module": "keras", "class_name": "DTypePolicy", "config": {...}, ...}``.
    """
    name = type(policy).__name__
    return {"module": "keras.dtype_policies" if name != "DTypePolicy" else "keras",
            "class_name": "DTypePolicy" if name == "FloatDTypePolicy" else name,
            "config": policy.get_config(), "registered_name": None}


def deserialize(config: dict, custom_objects: dict | None = None) -> DTypePolicy:
    """The policy of a ``serialize`` dict.

    Args:
        config: the dict (or only its ``"config"`` part: a ``DTypePolicy``'s).
        custom_objects: name -> class, looked up first.

    Returns:
        The policy.
    """
    if not isinstance(config, dict):
        raise ValueError(f"Cannot interpret the dtype policy {config!r}")
    name = config.get("class_name", "DTypePolicy")
    cfg = config.get("config", config)
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None or not isinstance(cfg, dict):
        raise ValueError(f"Cannot interpret the dtype policy {config!r}")
    if cls is DTypePolicy or cls is FloatDTypePolicy:
        if not isinstance(cfg.get("name"), str):
            raise ValueError(f"Cannot interpret the dtype policy {config!r}")
        return DTypePolicy(cfg["name"])
    return cls.from_config(cfg)


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


class QuantizedDTypePolicy(DTypePolicy):
    """The policy of a layer quantized by ``Layer.quantize(mode)``: named
    ``'<mode>_from_<source_name>'``, computing and keeping variables as ``source_name`` says.

    Args:
        mode: ``'int8'``, ``'int4'`` or ``'float8'``.
        source_name: the source policy's name (default: the global policy's).
    """

    def __init__(self, mode: str, source_name: str | None = None) -> None:
        source_name = global_policy().name if source_name is None else source_name
        src = DTypePolicy(source_name)
        _check_mode(mode, src.compute_dtype)
        self._name = f"{mode}_from_{source_name}"
        self._compute, self._variable = src.compute_dtype, src.variable_dtype
        self._source_name = source_name
        self._quantization_mode = mode

    quantization_mode = readonly("_quantization_mode", "The quantization mode.")
    source_name = readonly("_source_name", "The source policy's name.")

    def get_config(self) -> dict:
        """``{"mode", "source_name"}``.

        Returns:
            A dict.
        """
        return {"mode": self._quantization_mode, "source_name": self._source_name}

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.get_config() == self.get_config()

    __hash__ = DTypePolicy.__hash__  # (defining __eq__ alone would unset it)

    def __repr__(self) -> str:
        return f'<{type(self).__name__} "{self._name}">'


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """The float8 quantized policy, with the length of the amax history used for the scales.

    Args:
        mode: ``'float8'``.
        source_name: the source policy's name.
        amax_history_length: the window of the delayed scaling.
    """

    default_amax_history_length = 1024

    def __init__(self, mode: str, source_name: str | None = None,
                 amax_history_length: int = 1024) -> None:
        super().__init__(mode, source_name)
        if not isinstance(amax_history_length, int) or isinstance(amax_history_length, bool):
            raise TypeError(f"`amax_history_length` must be an integer. Received: "
                            f"amax_history_length={amax_history_length}")
        self._amax_history_length = amax_history_length

    amax_history_length = readonly("_amax_history_length",
                                   "The length of the amax history window.")

    def get_config(self) -> dict:
        """``{"mode", "source_name", "amax_history_length"}``.

        Returns:
            A dict.
        """
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


class Int4DTypePolicy(QuantizedDTypePolicy):
    """The int4 policy with its block size, ``mode='int4/<block_size>'`` (-1: per channel).

    Args:
        mode: ``'int4/128'``, ``'int4/-1'``...
        source_name: the source policy's name.
    """

    def __init__(self, mode: str, source_name: str | None = None) -> None:
        parts = mode.split("/") if isinstance(mode, str) else []
        if len(parts) != 2 or parts[0] != "int4":
            raise ValueError(f"Invalid mode for Int4DTypePolicy. Expected format "
                             f"'int4/<block_size>', but got '{mode}'.")
        try:
            block_size = int(parts[1])
        except ValueError:
            raise ValueError(f"Invalid mode for Int4DTypePolicy. <block_size> must be an "
                             f"integer. Expected format 'int4/<block_size>', but got "
                             f"'{mode}'.") from None
        if block_size < -1 or block_size == 0:
            raise ValueError(f"Invalid block_size in mode. Supported values are -1 "
                             f"(per-channel) or a positive integer (sub-channel), but got "
                             f"{block_size} from '{mode}'.")
        super().__init__("int4", source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.block_size = block_size

    def get_config(self) -> dict:
        """``{"mode": "int4/<block_size>", "source_name"}``.

        Returns:
            A dict.
        """
        return {"mode": f"int4/{self.block_size}", "source_name": self._source_name}


def _check_mode(mode: str, compute_dtype: str) -> None:
    if mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                         f"Received: mode={mode}")
    if mode not in SUPPORTED_MODES:
        raise ValueError(f"Quantization mode '{mode}' (GPTQ/AWQ) is not provided by twinflow")
    if compute_dtype == "float16" and mode == "int8":
        raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                         "compute_dtype='float16'.")


def _quantized_by_name(name: str) -> QuantizedDTypePolicy:
    mode, sep, source = name.partition("_from_")
    if not sep or "_from_" in source:
        raise ValueError(f"Cannot convert `policy` into a valid pair (`mode`, `source_name`) "
                         f"to instantiate `QuantizedDTypePolicy`. Received: policy={name}")
    if mode.startswith("float8"):
        return QuantizedFloat8DTypePolicy(mode, source)
    if mode.startswith("int4") and "/" in mode:
        return Int4DTypePolicy(mode, source)
    return QuantizedDTypePolicy(mode, source)


class DTypePolicyMap(DTypePolicy, MutableMapping):
    """Policies by layer path: ``policy_map[path]`` is the policy of the key that matches the
    path exactly or, failing that, the one key that matches it as a regular expression (else
    ``default_policy``). A ``DTypePolicyMap`` acts as its default policy elsewhere.

    Args:
        default_policy: the policy of unmatched paths (default: the global policy).
        policy_map: path (or pattern) -> policy.
    """

    def __init__(self, default_policy=None, policy_map: dict | None = None) -> None:
        if isinstance(default_policy, DTypePolicyMap):
            raise ValueError("`default_policy` cannot be a `DTypePolicyMap`.")
        if policy_map is not None and not isinstance(policy_map, dict):
            raise TypeError(f"If specified, `policy_map` must be a dict. Received: "
                            f"policy_map={policy_map} of type {type(policy_map)}")
        self._default_policy_arg = default_policy
        self._default_policy = get(default_policy)
        self._policy_map = {k: get(v) for k, v in (policy_map or {}).items()}

    @property
    def name(self) -> str:
        """``'map_<default policy name>'``."""
        return f"map_{self.default_policy.name}"

    default_policy = readonly("_default_policy", "The policy of paths no key matches.")
    compute_dtype = readonly("_default_policy.compute_dtype",
                             "The default policy's compute dtype.")
    variable_dtype = readonly("_default_policy.variable_dtype",
                              "The default policy's variable dtype.")
    quantization_mode = readonly("_default_policy.quantization_mode",
                                 "The default policy's quantization mode.")

    def __getitem__(self, key: str) -> DTypePolicy:
        if key in self._policy_map:
            return self._policy_map[key]
        hits = [p for p in self._policy_map if re.fullmatch(p, key)]
        if len(hits) > 1:
            raise ValueError(f"Path '{key}' matches multiple dtype policy specification keys: "
                             f"{hits}. Please make sure each path only matches at most one "
                             "dtype policy specification key in the DTypePolicyMap.")
        return self._policy_map[hits[0]] if hits else self.default_policy

    def __setitem__(self, key: str, policy) -> None:
        if key in self._policy_map:
            raise ValueError(f"{key} already exist in the DTypePolicyMap with value "
                             f"{self._policy_map[key]}. Please make sure to not use "
                             "duplicated keys.")
        try:
            self._policy_map[key] = get(policy)
        except (TypeError, ValueError) as e:
            raise ValueError(f"Cannot interpret the assigned value by "
                             f"`keras.dtype_policies.get`. Received: {policy} of type "
                             f"{type(policy)}") from e

    def __delitem__(self, key: str) -> None:
        del self._policy_map[key]

    def __contains__(self, key) -> bool:
        return key in self._policy_map

    def __iter__(self):
        return iter(self._policy_map)

    def __len__(self) -> int:
        return len(self._policy_map)

    def __eq__(self, other) -> bool:
        return isinstance(other, DTypePolicyMap) and other.get_config() == self.get_config()

    def __hash__(self) -> int:
        return id(self)

    def get_config(self) -> dict:
        """``{"default_policy", "policy_map"}`` (the policies serialized).

        Returns:
            A dict.
        """
        default = self._default_policy_arg
        if isinstance(default, DTypePolicy):
            default = serialize(default)
        return {"default_policy": default,
                "policy_map": {k: serialize(v) for k, v in self._policy_map.items()}}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> DTypePolicyMap:
        """The map of ``get_config()``'s output.

        Args:
            config: the dict.
            custom_objects: name -> class, for the policies.

        Returns:
            The map.
        """
        default = config.get("default_policy")
        if isinstance(default, dict):
            default = deserialize(default, custom_objects)
        return cls(default, {k: deserialize(v, custom_objects) if isinstance(v, dict) else v
                             for k, v in (config.get("policy_map") or {}).items()})

    def __repr__(self) -> str:
        pairs = [(k, v.name) for k, v in self._policy_map.items()]
        return f"<DTypePolicyMap default_policy={self.default_policy.name}, mapping={pairs}>"


_CLASSES = {c.__name__: c for c in (DTypePolicy, FloatDTypePolicy, QuantizedDTypePolicy,
                                    QuantizedFloat8DTypePolicy, Int4DTypePolicy,
                                    DTypePolicyMap)}
_FLOAT32 = DTypePolicy("float32")
