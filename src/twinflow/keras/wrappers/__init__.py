"""``tw.keras.wrappers``: Keras models as scikit-learn estimators (``SKLearnClassifier``,
``SKLearnRegressor``, ``SKLearnTransformer``)."""
from .sklearn import SKLearnClassifier, SKLearnRegressor, SKLearnTransformer

__all__ = ["SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]
