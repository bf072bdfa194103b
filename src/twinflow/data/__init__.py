"""``tw.data``: input pipelines (``Dataset``) and the readers of record files."""
# (importing the node modules registers the dataset nodes; see registry.py)
from . import control, experimental, grouping, parallel, saving, sources, transforms
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .iterator_ops import Iterator, IteratorSpec
from .options import Options, ThreadingOptions
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from .structure import DatasetSpec

NumpyIterator = type(iter(()))  # (what as_numpy_iterator returns: a Python iterator)

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "DatasetSpec",
           "FixedLengthRecordDataset", "Iterator", "IteratorSpec", "NumpyIterator", "Options",
           "TFRecordDataset", "TextLineDataset", "ThreadingOptions", "control", "experimental",
           "grouping", "parallel", "saving", "sources", "transforms"]
