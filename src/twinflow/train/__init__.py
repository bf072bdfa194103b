"""``tw.train``: object-based checkpoints and ``tw.Module``."""
from ..distribute.mpi_cluster import ClusterSpec
from ..io.protos import (
                         BytesList,
                         Example,
                         Feature,
                         FeatureList,
                         FeatureLists,
                         Features,
                         FloatList,
                         Int64List,
                         SequenceExample,
)
from .checkpoint import Checkpoint, CheckpointManager, LoadStatus, latest_checkpoint
from .module import Module
from .tf_checkpoint import (
                            CheckpointReader,
                            checkpoints_iterator,
                            list_variables,
                            load_checkpoint,
                            load_variable,
)

CheckpointLoadStatus = LoadStatus

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointLoadStatus", "latest_checkpoint",
           "Module", "BytesList", "Example", "Feature", "FeatureList", "FeatureLists", "Features",
           "FloatList", "Int64List", "SequenceExample", "CheckpointReader", "list_variables",
           "load_checkpoint", "load_variable", "checkpoints_iterator", "ClusterSpec"]
