"""``keras.utils.FeatureSpace``: one layer that preprocesses a dict of structured features
(numbers, categories, hashes, crosses) into one vector, built from twinflow's Keras
preprocessing layers as Keras builds it."""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...data import Dataset
from ...eager.execute import convert_to_tensor
from ...graph.tensor import Tensor
from ...ops import array_ops, math_ops
from .. import serialization as _serialization
from ..configurable import Configurable
from ..layers import base as _base
from ..layers.core import Identity
from ..layers.input_layer import Input
from ..layers.merging import Concatenate
from ..layers.preprocessing import (
    CategoryEncoding,
    Discretization,
    HashedCrossing,
    Hashing,
    IntegerLookup,
    Normalization,
    Rescaling,
    StringLookup,
)
from ..layers.preprocessing.base import PreprocessingLayer

_COUNTER = itertools.count()


def _auto(prefix: str) -> str:
    return f"{prefix}_{next(_COUNTER)}"


class Cross(Configurable):
    """A crossing of features (hashed into ``crossing_dim`` bins).

    Args:
        feature_names: the crossed feature names.
        crossing_dim: the number of hash bins.
        output_mode: "one_hot" or "int".
    """

    def __init__(self, feature_names, crossing_dim: int, output_mode: str = "one_hot") -> None:
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of "
                             f"{{'int', 'one_hot'}}. Received: output_mode={output_mode}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim, self.output_mode = crossing_dim, output_mode

    @property
    def name(self) -> str:
        """The cross' name: the feature names joined by ``_X_``."""
        return "_X_".join(self.feature_names)

    _config_keys = ("feature_names", "crossing_dim", "output_mode")


class Feature(Configurable):
    """A feature: its input dtype, the layer that preprocesses it and how it is encoded.

    Args:
        dtype: the input dtype ("float32", "int32", "string").
        preprocessor: a layer (or its serialized form).
        output_mode: "float", "int" or "one_hot".
    """

    def __init__(self, dtype: str, preprocessor, output_mode: str) -> None:
        if output_mode not in ("int", "one_hot", "float"):
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of "
                             f"{{'int', 'one_hot', 'float'}}. Received: "
                             f"output_mode={output_mode}")
        if isinstance(preprocessor, dict):
            preprocessor = _serialization.deserialize_keras_object(preprocessor)
        self.dtype, self.preprocessor, self.output_mode = dtype, preprocessor, output_mode

    def get_config(self) -> dict:
        """The constructor arguments (the preprocessor serialized).

        Returns:
            A dict.
        """
        return {"dtype": self.dtype,
                "preprocessor": _serialization.serialize_keras_object(self.preprocessor),
                "output_mode": self.output_mode}


def _feature(dtype: str, layer_class: type, kind: str, name: str | None, output_mode: str,
             **layer_kwargs) -> Feature:
    """A Feature preprocessed by ``layer_class(**layer_kwargs)``, named
    ``<name or kind_N>_preprocessor``."""
    layer = layer_class(**layer_kwargs, name=f"{name or _auto(kind)}_preprocessor")
    return Feature(dtype, layer, output_mode)


def _cardinality(layer) -> int | None:
    if isinstance(layer, (IntegerLookup, StringLookup)):
        return int(layer.vocabulary_size())
    if isinstance(layer, CategoryEncoding):
        return int(layer.num_tokens)
    if isinstance(layer, Discretization):
        return int(layer.num_bins) if layer.num_bins else len(layer.bin_boundaries) + 1
    if isinstance(layer, (Hashing, HashedCrossing)):
        return int(layer.num_bins)
    return None


class FeatureSpace(_base.Layer):
    """Preprocesses a dict of features into one float vector (``output_mode="concat"``) or a
    dict of encoded features. Features are given as Keras' preset names ("float",
    "float_normalized", "float_rescaled", "float_discretized", "integer_categorical",
    "string_categorical", "integer_hashed", "string_hashed") or built with the class
    methods; ``adapt`` learns the statistics and vocabularies.

    Args:
        features: name -> preset name or ``Feature``.
        output_mode: "concat" or "dict".
        crosses: tuples of feature names (or ``Cross`` objects) to cross.
        crossing_dim: hash bins of the crosses.
        hashing_dim: hash bins of the "*_hashed" presets.
        num_discretization_bins: bins of the "float_discretized" preset.
        name: the layer name.
    """

    @classmethod
    def cross(cls, feature_names, crossing_dim: int, output_mode: str = "one_hot") -> Cross:
        """A crossing of features.

        Args:
            feature_names: the crossed features.
            crossing_dim: hash bins.
            output_mode: "one_hot" or "int".

        Returns:
            A Cross.
        """
        return Cross(feature_names, crossing_dim, output_mode)

    @classmethod
    def feature(cls, dtype: str, preprocessor, output_mode: str) -> Feature:
        """A custom feature.

        Args:
            dtype: the input dtype.
            preprocessor: the preprocessing layer.
            output_mode: "float", "int" or "one_hot".

        Returns:
            A Feature.
        """
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name: str | None = None) -> Feature:
        """A float feature passed through.

        Args:
            name: the preprocessor's name prefix.

        Returns:
            A Feature.
        """
        return _feature("float32", Identity, "float", name, "float")

    @classmethod
    def float_rescaled(cls, scale: float = 1.0, offset: float = 0.0,
                       name: str | None = None) -> Feature:
        """A float feature times ``scale`` plus ``offset``.

        Args:
            scale: the scale.
            offset: the offset.
            name: the preprocessor's name prefix.

        Returns:
            A Feature.
        """
        return _feature("float32", Rescaling, "float_rescaled", name, "float", scale=scale,
                        offset=offset)

    @classmethod
    def float_normalized(cls, name: str | None = None) -> Feature:
        """A float feature standardized (mean and variance learned by ``adapt``).

        Args:
            name: as in ``float``.

        Returns:
            A Feature.
        """
        return _feature("float32", Normalization, "float_normalized", name, "float", axis=-1)

    @classmethod
    def float_discretized(cls, num_bins: int, bin_boundaries=None,
                          output_mode: str = "one_hot", name: str | None = None) -> Feature:
        """A float feature bucketized (bins learned by ``adapt`` unless given).

        Args:
            num_bins: the number of bins.
            bin_boundaries: explicit boundaries.
            output_mode: "one_hot" or "int".
            name: the preprocessor's name prefix.

        Returns:
            A Feature.
        """
        return _feature("float32", Discretization, "float_discretized", name, output_mode,
                        num_bins=None if bin_boundaries is not None else num_bins,
                        bin_boundaries=bin_boundaries)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices: int = 1,
                            output_mode: str = "one_hot", name: str | None = None) -> Feature:
        """An integer category (vocabulary learned by ``adapt``).

        Args:
            max_tokens: the vocabulary size limit.
            num_oov_indices: out-of-vocabulary indices.
            output_mode, name: as in ``float_discretized``.

        Returns:
            A Feature.
        """
        return _feature("int32", IntegerLookup, "integer_categorical", name, output_mode,
                        max_tokens=max_tokens, num_oov_indices=num_oov_indices)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices: int = 1,
                           output_mode: str = "one_hot", name: str | None = None) -> Feature:
        """A string category: as ``integer_categorical``, for strings.

        Args:
            max_tokens, num_oov_indices, output_mode, name: as in ``integer_categorical``.

        Returns:
            A Feature.
        """
        return _feature("string", StringLookup, "string_categorical", name, output_mode,
                        max_tokens=max_tokens, num_oov_indices=num_oov_indices)

    @classmethod
    def string_hashed(cls, num_bins: int, output_mode: str = "one_hot",
                      name: str | None = None) -> Feature:
        """A string hashed into ``num_bins`` bins.

        Args:
            num_bins: hash bins.
            output_mode, name: as in ``float_discretized``.

        Returns:
            A Feature.
        """
        return _feature("string", Hashing, "string_hashed", name, output_mode,
                        num_bins=num_bins)

    @classmethod
    def integer_hashed(cls, num_bins: int, output_mode: str = "one_hot",
                       name: str | None = None) -> Feature:
        """An integer hashed into ``num_bins`` bins: as ``string_hashed``, for integers.

        Args:
            num_bins, output_mode, name: as in ``string_hashed``.

        Returns:
            A Feature.
        """
        return _feature("int32", Hashing, "integer_hashed", name, output_mode,
                        num_bins=num_bins)

    def __init__(self, features: dict, output_mode: str = "concat", crosses=None,
                 crossing_dim: int = 32, hashing_dim: int = 32,
                 num_discretization_bins: int = 32, name: str | None = None) -> None:
        super().__init__(name=name)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        if output_mode not in ("dict", "concat"):
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of "
                             f"{{'dict', 'concat'}}. Received: output_mode={output_mode}")
        self.crossing_dim, self.hashing_dim = crossing_dim, hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.output_mode = output_mode
        self.features = {k: self._standardize(k, v) for k, v in features.items()}
        self.crosses = []
        for cross in crosses or []:
            if isinstance(cross, dict):
                cross = Cross.from_config(cross.get("config", cross))
            if not isinstance(cross, Cross):
                unknown = [k for k in cross if k not in self.features]
                if unknown:
                    raise ValueError(f"All features referenced in the `crosses` argument "
                                     f"should be present in the `features` dict. Received "
                                     f"unknown features: {cross}")
                cross = Cross(cross, crossing_dim)
            self.crosses.append(cross)
        self.preprocessors = {k: f.preprocessor for k, f in self.features.items()}
        self.crossers = {c.name: HashedCrossing(c.crossing_dim, name=c.name)
                         for c in self.crosses}
        self.one_hot_encoders: dict = {}
        self._is_adapted = not self._adaptable()
        self.inputs = None
        self.encoded_features = None

    def _standardize(self, name: str, feature) -> Feature:
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return Feature.from_config(feature.get("config", feature))
        presets = {
            "float": lambda: self.float(name=name),
            "float_normalized": lambda: self.float_normalized(name=name),
            "float_rescaled": lambda: self.float_rescaled(name=name),
            "float_discretized": lambda: self.float_discretized(
                self.num_discretization_bins, name=name),
            "integer_categorical": lambda: self.integer_categorical(name=name),
            "string_categorical": lambda: self.string_categorical(name=name),
            "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
            "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name),
        }
        if feature not in presets:
            raise ValueError(f"Invalid feature type: {feature}")
        return presets[feature]()

    def _adaptable(self) -> list:
        out = []
        for name, layer in self.preprocessors.items():
            if isinstance(layer, Normalization) and layer.input_mean is not None:
                continue
            if isinstance(layer, Discretization) and layer.bin_boundaries is not None and \
                    not layer.num_bins:
                continue
            # a layer with adaptable state (Hashing and Rescaling inherit ``adapt`` without)
            if hasattr(layer, "adapt") and getattr(type(layer), "update_state", None) is not \
                    PreprocessingLayer.update_state:
                out.append(name)
        return out

    def adapt(self, dataset) -> None:
        """Learns every adaptable preprocessor's state from the data.

        Args:
            dataset: a ``tw.data.Dataset`` of feature dicts (batched or not), or a dict of
                arrays.

        Returns:
            None.
        """
        if isinstance(dataset, dict):
            columns = {k: np.asarray(v) for k, v in dataset.items()}
        elif isinstance(dataset, Dataset):
            parts: dict = {}
            for element in dataset.as_numpy_iterator():
                for k, v in element.items():
                    parts.setdefault(k, []).append(np.reshape(np.asarray(v), (-1,) +
                                                              np.shape(v)[1:]))
            columns = {k: np.concatenate(v) for k, v in parts.items()}
        else:
            raise ValueError(f"`adapt()` can only be called on a tf.data.Dataset or a dict of "
                             f"arrays/lists. Received instead: {dataset} (of type "
                             f"{type(dataset)})")
        for name in self._adaptable():
            col = columns[name]
            self.preprocessors[name].adapt(col.reshape(-1, 1) if col.ndim <= 1 else col)
        self._is_adapted = True
        self.encoded_features = None
        self.one_hot_encoders = {}

    def _check_adapted(self) -> None:
        if not self._is_adapted:
            raise ValueError("You need to call `.adapt(dataset)` on the FeatureSpace before "
                             "you can start using it.")

    def get_inputs(self) -> dict:
        """One ``keras.Input((1,))`` per feature, by name.

        Returns:
            A dict of KerasTensors.
        """
        if self.inputs is None:
            self.inputs = {k: Input(shape=(1,), dtype=f.dtype, name=k)
                           for k, f in self.features.items()}
        return self.inputs

    def get_encoded_features(self) -> Any:
        """The symbolic encoding of ``get_inputs()`` (to build a model on top).

        Returns:
            A KerasTensor (concat) or a dict of them.
        """
        self._check_adapted()
        if self.encoded_features is None:
            self.encoded_features = self._encode(self.get_inputs())
        return self.encoded_features

    def _encoder(self, name: str, layer) -> CategoryEncoding:
        if name not in self.one_hot_encoders:
            size = _cardinality(layer)
            if size is None:
                raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. However it "
                                 "isn't a standard feature and the dimensionality of its "
                                 "output space is not known, thus it cannot be one-hot "
                                 "encoded. Try using `output_mode='int'`.")
            self.one_hot_encoders[name] = CategoryEncoding(num_tokens=size,
                                                           output_mode="multi_hot")
        return self.one_hot_encoders[name]

    def _encode(self, data: dict) -> Any:
        pre = {}
        for name in sorted(self.features):
            x = data[name]
            if self.features[name].output_mode == "float" and not isinstance(x, dict):
                x = math_ops.cast(x, "float32") if isinstance(x, Tensor) else x
            pre[name] = self.preprocessors[name](x)
        crossed = {c.name: self.crossers[c.name](tuple(pre[k] for k in c.feature_names))
                   for c in sorted(self.crosses, key=lambda c: c.name)}
        specs = {**{k: (self.features[k], self.preprocessors[k]) for k in pre},
                 **{c.name: (c, self.crossers[c.name]) for c in self.crosses}}
        out = {}
        for name, value in list(pre.items()) + list(crossed.items()):
            spec, layer = specs[name]
            if spec.output_mode == "one_hot":
                if not value.dtype.is_integer:
                    raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. Thus "
                                     "its preprocessor should return an integer dtype. "
                                     f"Instead it returns a {value.dtype.name} dtype.")
                value = self._encoder(name, layer)(value)
            out[name] = value
        if self.output_mode == "dict":
            return out
        for name, value in out.items():
            if value.dtype.is_integer or value.dtype.name == "string":
                raise ValueError(f"Cannot concatenate features because feature '{name}' has "
                                 f"not been encoded (it has dtype {value.dtype.name}). "
                                 "Consider using `output_mode='dict'`.")
        return Concatenate(axis=-1)(list(out.values()))

    def __call__(self, data: dict) -> Any:
        self._check_adapted()
        if not isinstance(data, dict):
            raise ValueError(f"A FeatureSpace can only be called with a dict. Received: "
                             f"data={data} (of type {type(data)}")
        converted, single = {}, False
        for name, x in data.items():
            t = x if isinstance(x, Tensor) or hasattr(x, "_node") else \
                convert_to_tensor(np.asarray(x) if not isinstance(x, (str, bytes)) else x)
            rank = t.shape.rank
            if rank == 0:
                t, single = array_ops.reshape(t, [1, 1]), True
            elif rank == 1:
                t = array_ops.expand_dims(t, -1)
            converted[name] = t
        out = self._encode(converted)
        if single:
            if isinstance(out, dict):
                return {k: v[0] for k, v in out.items()}
            return out[0]
        return out

    def call(self, inputs) -> Any:
        return self(inputs)

    def get_config(self) -> dict:
        """The constructor arguments (features and crosses serialized).

        Returns:
            A dict.
        """
        return {"name": self.name,
                "features": {k: {"class_name": "Feature", "config": f.get_config()}
                             for k, f in self.features.items()},
                "output_mode": self.output_mode,
                "crosses": [{"class_name": "Cross", "config": c.get_config()}
                            for c in self.crosses],
                "crossing_dim": self.crossing_dim, "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins}

    @classmethod
    def from_config(cls, config: dict) -> FeatureSpace:
        """A FeatureSpace from ``get_config()`` (adapted state included for lookups and
        normalizations whose configs carry it).

        Args:
            config: the dict.

        Returns:
            The FeatureSpace.
        """
        return cls(**config)
