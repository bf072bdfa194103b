"""Keras models as scikit-learn estimators. They follow scikit-learn's conventions
(``get_params``/``set_params``, ``fit`` returning ``self``, fitted attributes ending in
``_``, ``classes_``, ``score``, cloning through ``__sklearn_clone__``, tags) without
importing scikit-learn, so they work (and ``sklearn.clone``, pipelines and grid searches
take them) whether or not it is installed; the features that need scikit-learn itself
(metadata routing) raise a clear ImportError when it is absent."""
from __future__ import annotations

import copy
import inspect
from typing import Any

import numpy as np

from ..models import clone_model
from ..models.model import Model


def _sklearn():
    try:
        import sklearn  # noqa: PLC0415  (optional dependency, imported on use)
    except ImportError:
        raise ImportError("This feature requires `scikit-learn` to be installed. Run `pip "
                          "install scikit-learn` to install it.") from None
    return sklearn


def _as_2d_float(x) -> np.ndarray:
    arr = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    if arr.ndim == 1:
        raise ValueError("Expected 2D array, got 1D array instead. Reshape your data either "
                         "using array.reshape(-1, 1) if your data has a single feature or "
                         "array.reshape(1, -1) if it contains a single sample.")
    if arr.dtype.kind not in "fiub":
        raise ValueError(f"Expected numeric input data, got dtype {arr.dtype}")
    return arr.astype(np.float32) if arr.dtype == np.float64 else arr


def _check_model(model) -> None:
    if not getattr(model, "loss", None) or not getattr(model, "optimizer", None):
        raise RuntimeError("Given model needs to be compiled, and have a loss and an "
                           "optimizer.")


class _SKLBase:
    """The shared estimator: builds (or clones) the model, fits it, predicts.

    Args:
        model: a compiled Keras model (cloned, with fresh weights, at each ``fit``) or a
            callable ``model(X=..., y=..., **model_kwargs)`` returning a compiled model.
        warm_start: keep training the fitted model on the next ``fit``.
        model_kwargs: keyword arguments for the ``model`` callable.
        fit_kwargs: keyword arguments for ``Model.fit`` (epochs, batch_size...).
    """

    _estimator_type = "estimator"

    def __init__(self, model, warm_start: bool = False, model_kwargs: dict | None = None,
                 fit_kwargs: dict | None = None) -> None:
        self.model, self.warm_start = model, warm_start
        self.model_kwargs, self.fit_kwargs = model_kwargs, fit_kwargs

    @classmethod
    def _param_names(cls) -> list:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments (scikit-learn's protocol).

        Args:
            deep: accepted for scikit-learn (no nested estimators).

        Returns:
            A dict.
        """
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params) -> _SKLBase:
        """Sets constructor arguments (scikit-learn's protocol).

        Args:
            **params: the new values.

        Returns:
            self.
        """
        valid = set(self._param_names())
        for k, v in params.items():
            if k not in valid:
                raise ValueError(f"Invalid parameter {k!r} for estimator {self!r}. Valid "
                                 f"parameters are: {sorted(valid)}.")
            setattr(self, k, v)
        return self

    def __sklearn_clone__(self) -> _SKLBase:
        # The template model is shared: ``fit`` trains a fresh clone of it, never the
        # template itself.
        return type(self)(model=self.model, warm_start=self.warm_start,
                          model_kwargs=self.model_kwargs, fit_kwargs=self.fit_kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"

    def _more_tags(self) -> dict:
        return {"non_deterministic": True}

    def __sklearn_tags__(self):
        sk = _sklearn()
        tags = sk.utils.Tags(estimator_type=None if self._estimator_type == "estimator"
                             else self._estimator_type,
                             target_tags=sk.utils.TargetTags(required=True),
                             transformer_tags=None, regressor_tags=None,
                             classifier_tags=None)
        tags.non_deterministic = True
        return tags

    @property
    def epoch_(self) -> int:
        """The number of epochs trained."""
        return len(getattr(self, "history_", {}).get("loss", []))

    def set_fit_request(self, **kwargs) -> _SKLBase:
        """scikit-learn's metadata routing (needs scikit-learn with routing enabled).

        Args:
            **kwargs: parameter -> alias.

        Returns:
            self.
        """
        sk = _sklearn()
        if not sk.get_config().get("enable_metadata_routing", False):
            raise RuntimeError("This method is only available when metadata routing is "
                               "enabled. You can enable it using "
                               "sklearn.set_config(enable_metadata_routing=True).")
        self._metadata_request = sk.utils.metadata_routing.MetadataRequest(
            owner=type(self).__name__)
        for param, alias in kwargs.items():
            self._metadata_request.score.add_request(param=param, alias=alias)
        return self

    def _get_model(self, x, y) -> Model:
        if self.warm_start and hasattr(self, "model_"):
            return self.model_
        if isinstance(self.model, Model):
            return _clone_compiled(self.model)
        if not callable(self.model):
            raise TypeError(f"`model` must be a Keras model or a callable returning one, got "
                            f"{type(self.model).__name__}")
        return self.model(X=x, y=y, **(self.model_kwargs or {}))

    def _encode(self, y, reset: bool) -> np.ndarray:
        y = np.asarray(y)
        if reset:
            self._y_ndim = y.ndim
        return y.reshape(-1, 1) if y.ndim == 1 else y

    def _decode(self, out: np.ndarray) -> np.ndarray:
        return out[:, 0] if self._y_ndim == 1 and out.ndim == 2 and out.shape[1] == 1 else out

    def fit(self, X, y, **kwargs) -> _SKLBase:  # noqa: N803  (scikit-learn's names)
        """Builds or clones the model and trains it.

        Args:
            X: ``(n_samples, n_features)`` inputs.
            y: targets.
            **kwargs: more ``Model.fit`` arguments (override ``fit_kwargs``).

        Returns:
            self.
        """
        x = _as_2d_float(X)
        if len(x) != len(y):
            raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                             f"[{len(x)}, {len(y)}]")
        target = self._encode(y, reset=True)
        model = self._get_model(x, target)
        _check_model(model)
        self.n_features_in_ = x.shape[1]
        args = dict(self.fit_kwargs or {})
        args.update(kwargs)
        args.setdefault("verbose", 0)
        self.history_ = model.fit(x, target, **args).history
        self.model_ = model
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise _not_fitted(self)

    def _raw_predict(self, X) -> np.ndarray:  # noqa: N803
        self._check_fitted()
        x = _as_2d_float(X)
        if x.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {x.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        return np.asarray(self.model_.predict(x, verbose=0))

    def predict(self, X) -> np.ndarray:  # noqa: N803
        """The model's predictions, shaped like the training targets.

        Args:
            X: ``(n_samples, n_features)`` inputs.

        Returns:
            The predictions.
        """
        return self._decode(self._raw_predict(X))


def _clone_compiled(model: Model) -> Model:
    """A fresh copy of ``model`` compiled as it was (Keras 3's ``clone_model`` does this)."""
    clone = clone_model(model)
    args = getattr(model, "_tw_compile_args", None)
    if args is not None and model.optimizer is not None:
        opt = type(model.optimizer).from_config(model.optimizer.get_config())
        clone.compile(optimizer=opt, **{k: copy.deepcopy(v) for k, v in args.items()})
    return clone


def _not_fitted(est) -> Exception:
    try:
        from sklearn.exceptions import NotFittedError  # noqa: PLC0415  (optional)
    except ImportError:
        return AttributeError(f"This {type(est).__name__} instance is not fitted yet. Call "
                              "'fit' with appropriate arguments before using this estimator.")
    return NotFittedError(f"This {type(est).__name__} instance is not fitted yet. Call 'fit' "
                          "with appropriate arguments before using this estimator.")


class SKLearnClassifier(_SKLBase):
    """A Keras classifier as a scikit-learn estimator: labels (any values, binary or
    multiclass) are one-hot encoded for training (``classes_`` sorted); ``predict`` returns
    the class of the largest output; ``score`` is the accuracy.

    Args:
        model, warm_start, model_kwargs, fit_kwargs: as in the base class ``_SKLBase``.
    """

    _estimator_type = "classifier"

    def _encode(self, y, reset: bool) -> np.ndarray:
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1 or y.dtype.kind == "f" and np.any(y != np.round(y)):
            raise ValueError("Only binary and multiclass target types are supported.")
        if reset:
            self.classes_ = np.unique(y)
            if len(self.classes_) == 1:
                raise ValueError("Classifier can't train when only one class is present.")
        idx = np.searchsorted(self.classes_, y)
        return np.eye(len(self.classes_), dtype=np.float32)[idx]

    def decision_function(self, X) -> np.ndarray:  # noqa: N803
        """The model's raw outputs.

        Args:
            X: inputs.

        Returns:
            ``(n_samples, n_classes)``.
        """
        return self._raw_predict(X)

    def predict(self, X) -> np.ndarray:  # noqa: N803
        """The predicted class of each sample.

        Args:
            X: inputs.

        Returns:
            Labels from ``classes_``.
        """
        raw = self._raw_predict(X)  # checks that the estimator is fitted
        return self.classes_[np.argmax(raw, axis=1)]

    def score(self, X, y, sample_weight=None) -> float:  # noqa: N803
        """The (weighted) accuracy.

        Args:
            X: inputs.
            y: true labels.
            sample_weight: optional weights.

        Returns:
            A float.
        """
        hits = (self.predict(X) == np.asarray(y).reshape(-1)).astype(np.float64)
        return float(np.average(hits, weights=sample_weight))

    def _more_tags(self) -> dict:
        return {"non_deterministic": True, "poor_score": True}


class SKLearnRegressor(_SKLBase):
    """A Keras regressor as a scikit-learn estimator; ``score`` is R².

    Args:
        model, warm_start, model_kwargs, fit_kwargs: as in the base class ``_SKLBase``.
    """

    _estimator_type = "regressor"

    def score(self, X, y, sample_weight=None) -> float:  # noqa: N803
        """The coefficient of determination R² (uniform average over outputs).

        Args:
            X: inputs.
            y: true targets.
            sample_weight: optional weights.

        Returns:
            A float.
        """
        y = np.asarray(y, np.float64)
        pred = np.asarray(self.predict(X), np.float64).reshape(y.shape)
        w = None if sample_weight is None else np.asarray(sample_weight, np.float64)
        y2, p2 = y.reshape(len(y), -1), pred.reshape(len(y), -1)
        mean = np.average(y2, axis=0, weights=w)
        ss_res = np.average((y2 - p2) ** 2, axis=0, weights=w)
        ss_tot = np.average((y2 - mean) ** 2, axis=0, weights=w)
        r2 = np.where(ss_tot > 0, 1 - ss_res / np.where(ss_tot > 0, ss_tot, 1),
                      np.where(ss_res > 0, 0.0, 1.0))
        return float(np.mean(r2))

    def _more_tags(self) -> dict:
        return {"non_deterministic": True, "poor_score": True}


class SKLearnTransformer(_SKLBase):
    """A Keras model as a scikit-learn transformer: ``transform`` returns its outputs
    (e.g. an encoder's features).

    Args:
        model, warm_start, model_kwargs, fit_kwargs: as in the base class ``_SKLBase``.
    """

    _estimator_type = "transformer"

    def transform(self, X) -> np.ndarray:  # noqa: N803
        """The model's outputs.

        Args:
            X: inputs.

        Returns:
            The outputs.
        """
        return self._raw_predict(X)

    def fit_transform(self, X, y=None, **kwargs) -> Any:  # noqa: N803
        """``fit`` then ``transform``.

        Args:
            X: inputs.
            y: targets.
            **kwargs: ``fit`` arguments.

        Returns:
            The outputs.
        """
        return self.fit(X, y, **kwargs).transform(X)

    def _more_tags(self) -> dict:
        return {"non_deterministic": True, "preserves_dtype": []}
