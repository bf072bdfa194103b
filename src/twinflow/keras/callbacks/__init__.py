"""``tw.keras.callbacks``: hooks called by ``fit``/``evaluate``/``predict``.

``base.py``: the Callback base, CallbackList, History and the standard callbacks;
``more.py``: SwapEMAWeights and RemoteMonitor; ``tensorboard.py``: TensorBoard.
"""
# ruff: noqa: F401  (a re-export module)
from .base import (
    BackupAndRestore,
    Callback,
    CallbackList,
    CSVLogger,
    EarlyStopping,
    History,
    LambdaCallback,
    LearningRateScheduler,
    ModelCheckpoint,
    ProgbarLogger,
    ReduceLROnPlateau,
    TerminateOnNaN,
)
from .more import RemoteMonitor, SwapEMAWeights
from .tensorboard import TensorBoard
