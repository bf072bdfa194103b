"""``tw.keras.applications``: Keras' image-classification architectures, built with
``weights=None`` (twinflow downloads nothing; see ``_common.py`` for ``weights=``), with the
same layer names, layer counts and parameter counts as Keras 3.

One import line per module (add new architectures the same way).
"""
from . import (
    convnext,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    nasnet,
    xception,
)
from .convnext import ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge
from .efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from .efficientnet_v2 import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from .inception_resnet_v2 import InceptionResNetV2
from .inception_v3 import InceptionV3
from .nasnet import NASNetLarge, NASNetMobile
from .xception import Xception
