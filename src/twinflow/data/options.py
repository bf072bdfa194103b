"""``tw.data.Options``: the options a pipeline carries (``Dataset.with_options``).

``deterministic`` changes what twinflow does (parallel maps may then yield in completion
order), and ``experimental_distribute.auto_shard_policy`` how a multi-worker strategy shards
the dataset (``data/autoshard.py``); the other groups exist so programs that set them run, and
each of their fields is checked for its type. Setting an unknown attribute is an error, as in
TensorFlow.
"""
from __future__ import annotations


class _Group:
    _fields: dict = {}

    def __init__(self) -> None:
        for k, v in self._fields.items():
            object.__setattr__(self, k, v[0])

    def __setattr__(self, name: str, value) -> None:
        if name not in self._fields:
            raise AttributeError(f"{type(self).__name__} has no option {name!r}")
        types = self._fields[name][1]
        if value is not None and not isinstance(value, types):
            raise TypeError(f"{type(self).__name__}.{name} must be {types}, got {value!r}")
        object.__setattr__(self, name, value)

    def _merged(self, other):
        out = type(self)()
        for k in self._fields:
            mine = getattr(self, k)
            object.__setattr__(out, k, mine if mine is not None else getattr(other, k))
        return out

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields)
        return f"{type(self).__name__}({fields})"


class ThreadingOptions(_Group):
    """Thread pool options (``max_intra_op_parallelism``, ``private_threadpool_size``)."""

    _fields = {"max_intra_op_parallelism": (None, int), "private_threadpool_size": (None, int)}


class OptimizationOptions(_Group):
    """Graph optimization switches; twinflow's pipelines are not rewritten."""

    _fields = {"apply_default_optimizations": (None, bool), "map_and_batch_fusion": (None, bool),
               "map_parallelization": (None, bool), "noop_elimination": (None, bool),
               "parallel_batch": (None, bool), "shuffle_and_repeat_fusion": (None, bool),
               "inject_prefetch": (None, bool)}


class DistributeOptions(_Group):
    """Auto-sharding options for distributed input."""

    _fields = {"auto_shard_policy": (None, int), "num_devices": (None, int)}


class AutotuneOptions(_Group):
    """Autotuning options."""

    _fields = {"enabled": (None, bool), "cpu_budget": (None, int), "ram_budget": (None, int),
               "autotune_algorithm": (None, int)}


class Options(_Group):
    """Options of a dataset (``deterministic``, ``threading``, ``experimental_*``)."""

    _fields = {"deterministic": (None, bool), "experimental_deterministic": (None, bool),
               "experimental_optimization": (None, OptimizationOptions),
               "experimental_distribute": (None, DistributeOptions),
               "autotune": (None, AutotuneOptions), "threading": (None, ThreadingOptions),
               "experimental_threading": (None, ThreadingOptions),
               "experimental_slack": (None, bool), "experimental_warm_start": (None, bool),
               "experimental_external_state_policy": (None, int),
               "experimental_symbolic_checkpoint": (None, bool)}

    def __init__(self) -> None:
        super().__init__()
        object.__setattr__(self, "experimental_optimization", OptimizationOptions())
        object.__setattr__(self, "experimental_distribute", DistributeOptions())
        object.__setattr__(self, "autotune", AutotuneOptions())
        object.__setattr__(self, "threading", ThreadingOptions())
        object.__setattr__(self, "experimental_threading", self.threading)

    def merge(self, options: Options) -> Options:
        """These options, with unset fields taken from ``options``.

        Args:
            options: the other options.

        Returns:
            The merged options.
        """
        out = Options()
        for k in self._fields:
            mine, theirs = getattr(self, k), getattr(options, k)
            if isinstance(mine, _Group):
                object.__setattr__(out, k, mine._merged(theirs))
            else:
                object.__setattr__(out, k, mine if mine is not None else theirs)
        return out
