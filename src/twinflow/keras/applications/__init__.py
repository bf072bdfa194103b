"""``tw.keras.applications``: Keras' image-classification architectures, built with
``weights=None`` (twinflow downloads nothing; see ``_common.py`` for ``weights=``), with the
same layer names, layer counts and parameter counts as Keras 3.

Each module on its own lines, alphabetically: ``from . import <module>`` and its model
constructors (add new architectures the same way; pyproject's ruff settings let this file
keep that layout).
"""
from . import imagenet_utils

from . import convnext
from .convnext import ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge

from . import densenet
from .densenet import DenseNet121, DenseNet169, DenseNet201

from . import efficientnet
from .efficientnet import EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3
from .efficientnet import EfficientNetB4, EfficientNetB5, EfficientNetB6, EfficientNetB7

from . import efficientnet_v2
from .efficientnet_v2 import EfficientNetV2B0, EfficientNetV2B1, EfficientNetV2B2
from .efficientnet_v2 import EfficientNetV2B3, EfficientNetV2L, EfficientNetV2M, EfficientNetV2S

from . import inception_resnet_v2
from .inception_resnet_v2 import InceptionResNetV2

from . import inception_v3
from .inception_v3 import InceptionV3

from . import mobilenet
from .mobilenet import MobileNet

from . import mobilenet_v2
from .mobilenet_v2 import MobileNetV2

from . import mobilenet_v3
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small

from . import nasnet
from .nasnet import NASNetLarge, NASNetMobile

from . import resnet
from .resnet import ResNet50, ResNet101, ResNet152

from . import resnet50

from . import resnet_v2
from .resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2

from . import vgg16
from .vgg16 import VGG16

from . import vgg19
from .vgg19 import VGG19

from . import xception
from .xception import Xception
