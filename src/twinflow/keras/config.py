"""``tw.keras.config``: Keras 3's global settings (floatx, epsilon, image data format, the
dtype policy, the backend's name)."""
from __future__ import annotations

from .dtype_policies import dtype_policy, set_dtype_policy  # noqa: F401
from .settings import (  # noqa: F401  (re-exported: Keras 3 publishes them here)
    backend,
    disable_interactive_logging,
    disable_traceback_filtering,
    enable_interactive_logging,
    enable_traceback_filtering,
    epsilon,
    floatx,
    image_data_format,
    is_interactive_logging_enabled,
    is_traceback_filtering_enabled,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)

_STATE = {"unsafe_deserialization": False, "max_epochs": None, "max_steps_per_epoch": None}


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


def _cap(name: str, value) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or
                              value < 1):
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    _STATE[name] = value


def set_max_epochs(max_epochs: int | None) -> None:
    """Caps the epochs of every ``fit`` (None removes the cap), as Keras 3.

    Args:
        max_epochs: the cap.
    """
    _cap("max_epochs", max_epochs)


def max_epochs() -> int | None:
    """The cap on ``fit``'s epochs (None: none).

    Returns:
        The cap.
    """
    return _STATE["max_epochs"]


def set_max_steps_per_epoch(max_steps_per_epoch: int | None) -> None:
    """Caps the steps of every epoch of ``fit`` (None removes the cap), as Keras 3.

    Args:
        max_steps_per_epoch: the cap.
    """
    _cap("max_steps_per_epoch", max_steps_per_epoch)


def max_steps_per_epoch() -> int | None:
    """The cap on the steps of an epoch (None: none).

    Returns:
        The cap.
    """
    return _STATE["max_steps_per_epoch"]


__all__ = ["set_max_epochs", "max_epochs", "set_max_steps_per_epoch", "max_steps_per_epoch",
           "backend", "epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx",
           "set_image_data_format", "dtype_policy", "set_dtype_policy", "set_backend",
           "enable_unsafe_deserialization", "is_flash_attention_enabled",
           "enable_flash_attention", "disable_flash_attention", "is_nnx_enabled"]
