"""The rest of ``tw.train``: CheckpointOptions, CheckpointView, TrackableView,
get_checkpoint_state, experimental.PythonState and TensorFlow's cluster messages (ClusterDef,
JobDef, ServerDef: protobuf, TensorFlow's field numbers, built on first use)."""
from __future__ import annotations

import abc
import os

from ..core.errors import UnimplementedError
from ..graph.protos import file_message_class, lazy_message
from ..ops.variables import Variable
from .checkpoint_files import _inside, _read_state
from .tf_checkpoint import CheckpointReader

# ---------------------------------------------------------------------------------------------
# CheckpointOptions


class CheckpointOptions:
    """Options of ``Checkpoint.write/save/read/restore`` (TensorFlow's fields).

    twinflow writes on the host, synchronously, one shard: an ``experimental_io_device`` other
    than the local CPU, asynchronous checkpoints, skipping slot variables and sharding callbacks
    are refused with UnimplementedError when a checkpoint uses the options.
    ``experimental_write_callbacks`` run after each write, with the path if they take one.
    """

    __slots__ = ("experimental_io_device", "experimental_enable_async_checkpoint",
                 "experimental_write_callbacks", "enable_async",
                 "experimental_skip_slot_variables", "experimental_sharding_callback")

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False,
                 experimental_sharding_callback=None) -> None:
        """Collects the options.

        Args:
            experimental_io_device: the device doing the I/O (None or the local CPU).
            experimental_enable_async_checkpoint: deprecated name of ``enable_async``.
            experimental_write_callbacks: callables run after each checkpoint write.
            enable_async: write in the background (not supported).
            experimental_skip_slot_variables: leave optimizer slots out (not supported).
            experimental_sharding_callback: how to shard tensors (not supported: one shard).
        """
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = list(experimental_write_callbacks or [])
        self.enable_async = enable_async or experimental_enable_async_checkpoint
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback

    def __repr__(self) -> str:
        return "CheckpointOptions(" + ", ".join(f"{k}={getattr(self, k)!r}"
                                                for k in self.__slots__) + ")"


def check_options(options) -> CheckpointOptions | None:
    """Refuses what twinflow's checkpoints cannot do (called by ``Checkpoint``).

    Args:
        options: None or a CheckpointOptions.

    Returns:
        The options (None stays None).

    Raises:
        TypeError: not a CheckpointOptions.
        UnimplementedError: an option twinflow does not support.
    """
    if options is None:
        return None
    if not isinstance(options, CheckpointOptions):
        raise TypeError(f"options must be a tw.train.CheckpointOptions, got {options!r}")
    dev = (options.experimental_io_device or "").lower()
    if dev and not any(dev.endswith(s) for s in ("cpu:0", "/cpu", "cpu")):
        raise UnimplementedError(None, None, f"experimental_io_device={dev!r}: twinflow "
                                 "reads and writes checkpoints on the local host (CPU:0) only")
    for flag, what in (("enable_async", "asynchronous checkpoints"),
                       ("experimental_skip_slot_variables", "skipping slot variables"),
                       ("experimental_sharding_callback", "sharding callbacks (twinflow "
                        "writes one shard)")):
        if getattr(options, flag):
            raise UnimplementedError(None, None, f"CheckpointOptions.{flag}: {what} are not "
                                     "supported")
    return options


def run_write_callbacks(options, path: str) -> None:
    """Runs ``options.experimental_write_callbacks`` after a write.

    Args:
        options: None or a CheckpointOptions.
        path: the checkpoint written.
    """
    for cb in (options.experimental_write_callbacks if options is not None else ()):
        try:
            code = cb.__code__
            takes = code.co_argcount - (1 if hasattr(cb, "__self__") else 0)
        except AttributeError:
            takes = 1
        cb(path) if takes else cb()


# ---------------------------------------------------------------------------------------------
# get_checkpoint_state


class CheckpointState:
    """TensorFlow's ``CheckpointState``: the latest checkpoint and all kept ones (paths joined
    to the directory when relative)."""

    def __init__(self, model_checkpoint_path: str, all_model_checkpoint_paths: list,
                 all_model_checkpoint_timestamps: list, last_preserved_timestamp: float) -> None:
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __repr__(self) -> str:
        lines = [f'model_checkpoint_path: "{self.model_checkpoint_path}"']
        lines += [f'all_model_checkpoint_paths: "{p}"' for p in self.all_model_checkpoint_paths]
        return "\n".join(lines) + "\n"


def get_checkpoint_state(checkpoint_dir, latest_filename=None) -> CheckpointState | None:
    """Reads the ``checkpoint`` state file of ``checkpoint_dir`` (TensorFlow's text proto or
    twinflow's JSON).

    Args:
        checkpoint_dir: the directory.
        latest_filename: the state file's name (only ``"checkpoint"``, the default).

    Returns:
        A CheckpointState, or None when there is no state file.

    Raises:
        DataLossError: the file is corrupt.
        PermissionDeniedError: it names a checkpoint outside ``checkpoint_dir``.
    """
    if latest_filename not in (None, "checkpoint"):
        raise UnimplementedError(None, None, f"latest_filename={latest_filename!r}: twinflow "
                                 "reads the state file named 'checkpoint' only")
    directory = os.fspath(checkpoint_dir)
    state = _read_state(directory)
    if state is None or not state.get("model_checkpoint_path"):
        return None
    latest = _inside(directory, state["model_checkpoint_path"])
    paths = [_inside(directory, p) for p in state.get("all_model_checkpoint_paths", [])]
    return CheckpointState(latest, paths, state.get("all_model_checkpoint_timestamps", []),
                           state.get("last_preserved_timestamp", 0.0))


# ---------------------------------------------------------------------------------------------
# Views of object graphs


class TrackableView:
    """The object graph below ``root``: its children, and every object reachable."""

    def __init__(self, root) -> None:
        """Wraps the root.

        Args:
            root: a trackable object (Module, Layer, Checkpoint, Variable...).
        """
        self._root = root

    @property
    def root(self):
        """The root object."""
        return self._root

    @staticmethod
    def children(obj, save_type=None, **kwargs) -> dict:
        """The direct children of ``obj`` by name.

        Args:
            obj: a trackable object.
            save_type: accepted for TensorFlow's signature ("checkpoint", "savedmodel"):
                twinflow's objects have one set of children.
            **kwargs: passed on by TensorFlow; none are used by twinflow's objects.

        Returns:
            dict name -> child.
        """
        if save_type not in (None, "checkpoint", "savedmodel"):
            raise ValueError(f"save_type must be 'checkpoint' or 'savedmodel', got {save_type!r}")
        if isinstance(obj, Variable) or not hasattr(obj, "_trackable_children"):
            return {}
        return dict(obj._trackable_children())

    def descendants(self) -> list:
        """Every object reachable from the root, breadth first, root first.

        Returns:
            The list of objects.
        """
        out, seen, queue = [], set(), [self._root]
        while queue:
            obj = queue.pop(0)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append(obj)
            queue.extend(self.children(obj).values())
        return out


class CheckpointView:
    """What a checkpoint holds, read without restoring (its keys, shapes and dtypes)."""

    def __init__(self, save_path) -> None:
        """Opens the checkpoint.

        Args:
            save_path: a checkpoint prefix (twinflow's or TensorFlow's format).
        """
        self._reader = CheckpointReader(os.fspath(save_path))

    def children(self, node_id=None) -> dict:
        """The top-level names of the checkpoint's object graph.

        Args:
            node_id: must be 0 or None (the root): twinflow's format keeps paths, not node
                ids.

        Returns:
            dict name -> the variable keys under it.
        """
        if node_id not in (None, 0):
            raise UnimplementedError(None, None, "CheckpointView.children: only the root "
                                     "(node 0) is addressable in twinflow")
        out: dict = {}
        for key in self._reader.get_variable_to_shape_map():
            out.setdefault(key.split("/")[0], []).append(key)
        return out

    def descendants(self) -> list:
        """Every variable key of the checkpoint.

        Returns:
            The sorted keys.
        """
        return sorted(self._reader.get_variable_to_shape_map())

    def match(self, obj) -> dict:
        """The checkpoint keys that variables of ``obj``'s object graph would restore from.

        Args:
            obj: a trackable object.

        Returns:
            dict key -> Variable.
        """
        keys = set(self._reader.get_variable_to_shape_map())
        out = {}
        for path, var in _variables_of(obj).items():
            for key in (path, f"{path}/.ATTRIBUTES/VARIABLE_VALUE"):
                if key in keys:
                    out[key] = var
        return out


def _variables_of(obj) -> dict:
    out: dict = {}

    def visit(o, prefix: str, seen: set) -> None:
        for name, child in TrackableView.children(o).items():
            path = f"{prefix}{name}"
            if isinstance(child, Variable):
                out.setdefault(path, child)
            elif id(child) not in seen:
                seen.add(id(child))
                visit(child, path + "/", seen)
    visit(obj, "", set())
    return out


# ---------------------------------------------------------------------------------------------
# experimental.PythonState


class PythonState(abc.ABC):
    """A Python object whose state goes into checkpoints as a string (TensorFlow's
    ``tf.train.experimental.PythonState``): subclasses define ``serialize`` (-> str) and
    ``deserialize(string)``. ``tw.train.Checkpoint`` saves it as a string value and calls
    ``deserialize`` on restore."""

    @abc.abstractmethod
    def serialize(self) -> str:
        """The state as a string."""

    @abc.abstractmethod
    def deserialize(self, string_value) -> None:
        """Restores the state.

        Args:
            string_value: what ``serialize`` returned (str).
        """

    def _trackable_children(self) -> dict:
        return {}


# ---------------------------------------------------------------------------------------------
# Cluster messages

_M = "msg"
CLUSTER_MESSAGES = {
    "JobDef": [("name", 1, "o", "string", None), ("tasks", 2, "map_i32", "string", None)],
    "ClusterDef": [("job", 1, "r", _M, "JobDef")],
    "TaskDeviceFilters": [("device_filters", 1, "r", "string", None)],
    "JobDeviceFilters": [("name", 1, "o", "string", None),
                         ("tasks", 2, "map_i32", _M, "TaskDeviceFilters")],
    "ClusterDeviceFilters": [("jobs", 1, "r", _M, "JobDeviceFilters")],
    # The scalar fields of TensorFlow's ConfigProto (field numbers as TensorFlow's; its nested
    # option messages are not described, so they pass through as unknown fields).
    "ConfigProto": [("device_count", 1, "map", "int32", None),
                    ("intra_op_parallelism_threads", 2, "o", "int32", None),
                    ("inter_op_parallelism_threads", 5, "o", "int32", None),
                    ("use_per_session_threads", 9, "o", "bool", None),
                    ("placement_period", 3, "o", "int32", None),
                    ("device_filters", 4, "r", "string", None),
                    ("allow_soft_placement", 7, "o", "bool", None),
                    ("log_device_placement", 8, "o", "bool", None),
                    ("operation_timeout_in_ms", 11, "o", "int64", None),
                    ("isolate_session_state", 15, "o", "bool", None),
                    ("share_cluster_devices_in_session", 17, "o", "bool", None)],
    "ServerDef": [("cluster", 1, "o", _M, "ClusterDef"), ("job_name", 2, "o", "string", None),
                  ("task_index", 3, "o", "int32", None),
                  ("default_session_config", 4, "o", _M, "ConfigProto"),
                  ("protocol", 5, "o", "string", None), ("port", 6, "o", "int32", None),
                  ("cluster_device_filters", 7, "o", _M, "ClusterDeviceFilters"),
                  ("replica", 8, "o", "int32", None)],
}


# ``message_class(name)``: ``ClusterDef``, ``JobDef``, ``ServerDef``... (ImportError, saying how
# to install protobuf, when it is missing).
message_class = file_message_class("twinflow/cluster.proto", CLUSTER_MESSAGES,
                                   needed_by="tf.train.ClusterDef/JobDef/ServerDef")


ClusterDef = lazy_message("ClusterDef", message_class)
JobDef = lazy_message("JobDef", message_class)
ServerDef = lazy_message("ServerDef", message_class)
