"""``tw.keras.datasets``: Keras' data sets, read from Keras' cache (``~/.keras/datasets`` or
``$KERAS_HOME``) in Keras' file formats, downloaded when missing and the network allows; and
``digits``, a small set shipped with twinflow."""
from . import (
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    digits,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)

__all__ = ["boston_housing", "california_housing", "cifar10", "cifar100", "digits",
           "fashion_mnist", "imdb", "mnist", "reuters"]
