"""``tw.keras.applications.resnet_v2``: ResNet50V2/101V2/152V2 (pre-activation ResNets, He et
al., 2016); layer names and parameter counts as Keras 3."""
from __future__ import annotations

from collections.abc import Callable

from ..models import Model
from . import _common
from .imagenet_utils import decode_predictions
from .resnet import ResNet, stack_residual_blocks_v2

preprocess_input = _common.preprocessor("tf")


def _v2(depths: tuple, model_name: str) -> Callable:
    def ResNetNV2(include_top: bool = True, weights="imagenet", input_tensor=None,
                  input_shape=None, pooling=None, classes: int = 1000,
                  classifier_activation="softmax", name: str = model_name) -> Model:
        def stack_fn(x):
            x = stack_residual_blocks_v2(x, 64, depths[0], name="conv2")
            x = stack_residual_blocks_v2(x, 128, depths[1], name="conv3")
            x = stack_residual_blocks_v2(x, 256, depths[2], name="conv4")
            return stack_residual_blocks_v2(x, 512, depths[3], stride1=1, name="conv5")
        return ResNet(stack_fn, True, True, include_top, weights, input_tensor, input_shape,
                      pooling, classes, classifier_activation, name=name,
                      weights_name=model_name)
    title = model_name.replace("resnet", "ResNet").replace("v2", "V2")
    ResNetNV2.__name__ = ResNetNV2.__qualname__ = title
    return _common.document(ResNetNV2, title)


ResNet50V2 = _v2((3, 4, 6, 3), "resnet50v2")
ResNet101V2 = _v2((3, 4, 23, 3), "resnet101v2")
ResNet152V2 = _v2((3, 8, 36, 3), "resnet152v2")

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "decode_predictions", "preprocess_input"]
