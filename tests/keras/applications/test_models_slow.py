"""The full-size keras.applications models (and ResNet/VGG/DenseNet at small input sizes)
match Keras 3 layer for layer: names, counts, weight shapes and parameter counts. Marked
``slow`` (run by CI: .ci/run; locally ``python -m pytest -m slow``)."""
import pytest

from .fixture_check import MODELS, check

BIG = sorted(k for k in MODELS if not k.endswith("_small") or k.startswith(
    ("ResNet", "VGG", "DenseNet")))

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("key", BIG)
def test_matches_keras(key):
    check(key)
