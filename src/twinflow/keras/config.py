"""``tw.keras.config``: Keras 3's global settings (floatx, epsilon, image data format, the
dtype policy, the backend's name)."""
from __future__ import annotations

from .backend import (  # noqa: F401  (re-exported: Keras 3 publishes them here)
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from .dtype_policies import dtype_policy, set_dtype_policy  # noqa: F401

_STATE = {"unsafe_deserialization": False}


def set_backend(backend: str) -> None:  # noqa: F811 (Keras' name)
    """Keras switches backends here; twinflow is its own (it answers to ``'tensorflow'``).

    Args:
        backend: the backend's name.

    Raises:
        ValueError: for any backend other than ``'tensorflow'``.
    """
    if backend != "tensorflow":
        raise ValueError(f"twinflow cannot switch Keras to the {backend!r} backend; it runs "
                         "Keras on twinflow, which stands in for 'tensorflow'")


def enable_unsafe_deserialization() -> None:
    """Lets ``load_model`` rebuild Lambda layers from the functions given in
    ``custom_objects`` without ``safe_mode=False`` (twinflow never loads bytecode)."""
    _STATE["unsafe_deserialization"] = True


def unsafe_deserialization_enabled() -> bool:
    """Whether ``enable_unsafe_deserialization`` was called.

    Returns:
        The flag.
    """
    return _STATE["unsafe_deserialization"]


def is_flash_attention_enabled() -> bool:
    """Flash attention is a GPU kernel: never available in twinflow.

    Returns:
        False.
    """
    return False


def enable_flash_attention() -> None:
    """Refuses: twinflow has no flash-attention kernel.

    Raises:
        ValueError: always.
    """
    raise ValueError("Flash attention is not available in twinflow (a NumPy backend)")


def disable_flash_attention() -> None:
    """Flash attention is always off in twinflow: nothing to do."""


def is_nnx_enabled() -> bool:
    """Flax NNX integration exists only on the JAX backend.

    Returns:
        False.
    """
    return False


__all__ = ["backend", "epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx",
           "set_image_data_format", "dtype_policy", "set_dtype_policy", "set_backend",
           "enable_unsafe_deserialization", "is_flash_attention_enabled",
           "enable_flash_attention", "disable_flash_attention", "is_nnx_enabled"]
