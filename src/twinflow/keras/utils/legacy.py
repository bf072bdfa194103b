"""``keras.utils.legacy``: the TF-Keras 2 serialization functions (``keras.legacy.saving``)."""
# ruff: noqa: F401  (a re-export module: every import is public)
from ..legacy.saving import deserialize_keras_object, serialize_keras_object
