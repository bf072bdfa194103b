"""``tw.saved_model`` options, constants and the ``Asset`` trackable (TensorFlow's names)."""
from __future__ import annotations

import os

from ..eager.execute import constant

__all__ = ["SaveOptions", "LoadOptions", "Asset", "VariablePolicy", "TrackableResource"]

SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
FINGERPRINT_FILENAME = "fingerprint.pb"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_INPUTS = "inputs"
PREDICT_OUTPUTS = "outputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_INPUTS = "inputs"
REGRESS_OUTPUTS = "outputs"


class VariablePolicy:
    """How variables' devices are saved (``tw.saved_model.experimental.VariablePolicy``);
    twinflow has one device, so only ``NONE`` is meaningful."""

    NONE = None
    SAVE_VARIABLE_DEVICES = "save_variable_devices"
    EXPAND_DISTRIBUTED_VARIABLES = "expand_distributed_variables"


def _unsupported(what: str, value, default) -> None:
    if value != default:
        raise ValueError(f"tw.saved_model: {what}={value!r} is not supported by twinflow "
                         f"(only {default!r})")


class SaveOptions:
    """Options of ``tw.saved_model.save``.

    Args:
        namespace_whitelist: accepted for TensorFlow compatibility (twinflow writes only
            TensorFlow's own ops).
        save_debug_info: must be False (no debug info is written).
        function_aliases: {alias: tw.function} recorded in the MetaGraph's function aliases.
        experimental_debug_stripper: must be False.
        experimental_io_device: must be None (one device).
        experimental_variable_policy: must be None.
        experimental_custom_gradients: True (TensorFlow's default) keeps functions that use
            ``tw.custom_gradient`` only if they can be saved; see docs/saved_model.md.
        experimental_image_format: must be False.
        experimental_skip_saver: accepted (twinflow never writes saver functions).
        experimental_sharding_callback: must be None (one shard).
        extra_tags: more MetaGraph tags besides ``serve``.
    """

    def __init__(self, namespace_whitelist=None, save_debug_info: bool = False,
                 function_aliases=None, experimental_debug_stripper: bool = False,
                 experimental_io_device=None, experimental_variable_policy=None,
                 experimental_custom_gradients: bool = True,
                 experimental_image_format: bool = False, experimental_skip_saver: bool = False,
                 experimental_sharding_callback=None, extra_tags=None) -> None:
        _unsupported("save_debug_info", bool(save_debug_info), False)
        _unsupported("experimental_debug_stripper", bool(experimental_debug_stripper), False)
        _unsupported("experimental_io_device", experimental_io_device, None)
        _unsupported("experimental_variable_policy", experimental_variable_policy, None)
        _unsupported("experimental_image_format", bool(experimental_image_format), False)
        _unsupported("experimental_sharding_callback", experimental_sharding_callback, None)
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = False
        self.function_aliases = dict(function_aliases or {})
        self.experimental_custom_gradients = bool(experimental_custom_gradients)
        self.experimental_skip_saver = bool(experimental_skip_saver)
        self.extra_tags = list(extra_tags or [])


class LoadOptions:
    """Options of ``tw.saved_model.load``.

    Args:
        allow_partial_checkpoint: restore the variables the checkpoint has, leave the others
            at their saved initial value of zero instead of failing.
        experimental_io_device: must be None (one device).
        experimental_skip_checkpoint: do not read ``variables/``: variables start at zero.
        experimental_variable_policy: must be None.
        experimental_load_function_aliases: expose the MetaGraph's function aliases as
            ``loaded.function_aliases``.
    """

    def __init__(self, allow_partial_checkpoint: bool = False, experimental_io_device=None,
                 experimental_skip_checkpoint: bool = False, experimental_variable_policy=None,
                 experimental_load_function_aliases: bool = False) -> None:
        _unsupported("experimental_io_device", experimental_io_device, None)
        _unsupported("experimental_variable_policy", experimental_variable_policy, None)
        self.allow_partial_checkpoint = bool(allow_partial_checkpoint)
        self.experimental_skip_checkpoint = bool(experimental_skip_checkpoint)
        self.experimental_load_function_aliases = bool(experimental_load_function_aliases)


class Asset:
    """A file a SavedModel carries: copied into ``assets/`` on save; after loading,
    ``asset_path`` is the copy's path.

    Args:
        path: the file's path (a string or a string scalar tensor).
    """

    def __init__(self, path) -> None:
        raw = path.numpy() if hasattr(path, "numpy") else path
        raw = raw.decode() if isinstance(raw, bytes) else str(raw)
        self._path = raw
        self.asset_path = constant(raw)

    def _trackable_children(self) -> dict:
        return {}

    def __repr__(self) -> str:
        return f"<tw.saved_model.Asset {os.path.basename(self._path)!r}>"


class TrackableResource:
    """Base class of resources a SavedModel tracks (``tw.saved_model.experimental.
    TrackableResource``): subclasses create their resource in ``_create_resource``."""

    def __init__(self, device: str = "") -> None:
        self._resource_device = device
        self._resource_handle = None

    @property
    def resource_handle(self):
        """The resource, created on first use by ``_create_resource``."""
        if self._resource_handle is None:
            self._resource_handle = self._create_resource()
        return self._resource_handle

    def _create_resource(self):
        raise NotImplementedError("subclasses of TrackableResource define _create_resource")

    def _trackable_children(self) -> dict:
        return {}
