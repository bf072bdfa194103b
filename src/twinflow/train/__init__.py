"""``tw.train``: object-based checkpoints and ``tw.Module``."""
from .checkpoint import Checkpoint, CheckpointManager, LoadStatus, latest_checkpoint
from .module import Module

CheckpointLoadStatus = LoadStatus

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointLoadStatus", "latest_checkpoint",
           "Module"]
