"""``tw.keras.layers``."""
from .base import Input, InputLayer, KerasTensor, Layer
from .conv import (
    AveragePooling2D,
    AvgPool2D,
    Conv2D,
    Convolution2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPool2D,
    MaxPooling2D,
)
from .core import (
    Activation,
    Add,
    Average,
    Concatenate,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    Lambda,
    Maximum,
    Multiply,
    Reshape,
    Subtract,
)
from .normalization import BatchNormalization, LayerNormalization

__all__ = ["Input", "InputLayer", "KerasTensor", "Layer", "AveragePooling2D", "AvgPool2D",
           "Conv2D", "Convolution2D", "GlobalAveragePooling2D", "GlobalAvgPool2D",
           "GlobalMaxPool2D", "GlobalMaxPooling2D", "MaxPool2D", "MaxPooling2D", "Activation",
           "Add", "Average", "Concatenate", "Dense", "Dropout", "Embedding", "Flatten", "Lambda",
           "Maximum", "Multiply", "Reshape", "Subtract", "BatchNormalization",
           "LayerNormalization", "GlobalAveragePooling1D", "GlobalAvgPool1D",
           "GlobalMaxPool1D", "GlobalMaxPooling1D"]
