"""``tw.keras.applications``: Keras' image-classification architectures, built with
``weights=None`` (twinflow downloads nothing; see ``_common.py`` for ``weights=``), with the
same layer names, layer counts and parameter counts as Keras 3.

Each module on its own lines, alphabetically: ``from . import <module>`` and its model
constructors (add new architectures the same way; pyproject's ruff settings let this file
keep that layout).
"""
from . import imagenet_utils

from . import densenet
from .densenet import DenseNet121, DenseNet169, DenseNet201

from . import mobilenet
from .mobilenet import MobileNet

from . import mobilenet_v2
from .mobilenet_v2 import MobileNetV2

from . import mobilenet_v3
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small

from . import resnet
from .resnet import ResNet50, ResNet101, ResNet152

from . import resnet50

from . import resnet_v2
from .resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2

from . import vgg16
from .vgg16 import VGG16

from . import vgg19
from .vgg19 import VGG19
