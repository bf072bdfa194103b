"""``tw.keras.applications.vgg19``: VGG19 (Simonyan & Zisserman, 2014); layer names and
parameter counts as Keras 3."""
from . import _common
from .imagenet_utils import decode_predictions
from .vgg16 import vgg_constructor

preprocess_input = _common.preprocessor("caffe")

VGG19 = vgg_constructor((2, 2, 4, 4, 4), "vgg19")

__all__ = ["VGG19", "decode_predictions", "preprocess_input"]
