"""``tw.keras.applications.resnet_v2``: ResNet50V2/101V2/152V2 (pre-activation ResNets, He et
al., 2016); layer names and parameter counts as Keras 3."""
from __future__ import annotations

from collections.abc import Callable

from . import _common
from .imagenet_utils import decode_predictions
from .resnet import ResNet, stack_residual_blocks_v2, stacks

preprocess_input = _common.preprocessor("tf")


def _v2(depths: tuple, model_name: str) -> Callable:
    stack_fn = stacks(stack_residual_blocks_v2, depths, (2, 2, 2, 1))
    return _common.constructor(
        model_name.replace("resnet", "ResNet").replace("v2", "V2"),
        lambda **kw: ResNet(stack_fn, True, True, weights_name=model_name, **kw), model_name)


ResNet50V2 = _v2((3, 4, 6, 3), "resnet50v2")
ResNet101V2 = _v2((3, 4, 23, 3), "resnet101v2")
ResNet152V2 = _v2((3, 8, 36, 3), "resnet152v2")

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "decode_predictions", "preprocess_input"]
