"""``tw.keras.applications.resnet50``: ResNet50 and its preprocessing (as Keras' module)."""
from .resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "decode_predictions", "preprocess_input"]
