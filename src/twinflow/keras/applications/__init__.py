"""``tw.keras.applications``: Keras' image-classification architectures, built with
``weights=None`` (twinflow downloads nothing; see ``_common.py`` for ``weights=``), with the
same layer names, layer counts and parameter counts as Keras 3.

One import line per module (add new architectures the same way).
"""
from . import imagenet_utils
