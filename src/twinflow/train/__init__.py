"""``tw.train``: object-based checkpoints and ``tw.Module``."""
import types as _types

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
from .coordinator import Coordinator
from .module import Module
from .moving_averages import ExponentialMovingAverage
from .state import (
    CheckpointOptions,
    CheckpointView,
    ClusterDef,
    JobDef,
    PythonState,
    ServerDef,
    TrackableView,
    get_checkpoint_state,
)
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
           "load_checkpoint", "load_variable", "checkpoints_iterator", "ClusterSpec",
           "Coordinator", "ExponentialMovingAverage", "CheckpointOptions", "CheckpointView",
           "TrackableView", "get_checkpoint_state", "ClusterDef", "JobDef", "ServerDef",
           "experimental"]

experimental = _types.SimpleNamespace(PythonState=PythonState)
