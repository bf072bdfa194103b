"""``tw.keras.layers``."""
from .base import Input, InputLayer, KerasTensor, Layer
from .conv import (AveragePooling2D, AvgPool2D, Conv2D, Convolution2D, GlobalAveragePooling2D,
                   GlobalAvgPool2D, GlobalMaxPool2D, GlobalMaxPooling2D, MaxPool2D,
                   MaxPooling2D)
from .core import (Activation, Add, Concatenate, Dense, Dropout, Embedding, Flatten, Lambda,
                   Reshape)
from .normalization import BatchNormalization

__all__ = ["Input", "InputLayer", "KerasTensor", "Layer", "AveragePooling2D", "AvgPool2D",
           "Conv2D", "Convolution2D", "GlobalAveragePooling2D", "GlobalAvgPool2D",
           "GlobalMaxPool2D", "GlobalMaxPooling2D", "MaxPool2D", "MaxPooling2D", "Activation",
           "Add", "Concatenate", "Dense", "Dropout", "Embedding", "Flatten", "Lambda", "Reshape",
           "BatchNormalization"]
