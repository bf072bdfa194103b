"""``tw.CriticalSection``: runs a function under a lock, so that no two executions of the
same section overlap (across threads, eagerly and inside ``tw.function``).

Eagerly ``execute(fn)`` calls ``fn`` holding the lock. In a graph, ``fn`` is traced into a
sub-graph held by one stateful op (``_CriticalSectionExecute``) whose kernel takes the lock,
runs the compiled sub-graph and releases the lock, also when it raises: the ops of ``fn`` run
atomically at every call of the function. The op has no gradient (as TensorFlow's).
"""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

from ..core import nest
from ..core.context import ctx
from ..eager.execute import bind
from ..graph.registry import register_op
from .subgraph import compiled, finish, raise_explained, trace

_ids = itertools.count()


@register_op("_CriticalSectionExecute", stateful=True, multi_output=True)
class CriticalSectionExecute:
    """Runs sub-graph ``body`` on the captured inputs while holding ``section``'s lock."""

    def infer(*inputs, body, section):
        return [(t.dtype, t.shape) for t in body.outputs]

    def kernel(*inputs, body, section):
        run = compiled(body)
        with section._locked():
            try:
                return tuple(run.run(*inputs))
            except Exception as e:  # noqa: BLE001  (re-raised naming the op inside fn)
                raise_explained(e, run)


class CriticalSection:
    """A lock for ``execute(fn)``: executions of one section never overlap."""

    def __init__(self, name=None, shared_name=None, critical_section_def=None,
                 import_scope=None) -> None:
        """Creates the section.

        Args:
            name: the section's name.
            shared_name: not supported (share the object).
            critical_section_def: not supported (no TF1 collections).
            import_scope: not supported.
        """
        if shared_name or critical_section_def is not None or import_scope is not None:
            raise ValueError("CriticalSection: shared_name, critical_section_def and "
                             "import_scope are not supported (share the Python object)")
        self._name = name or f"CriticalSection_{next(_ids)}"
        self._lock = threading.Lock()
        self._owner = None
        self._tracing = threading.local()

    @property
    def name(self) -> str:
        """The section's name."""
        return self._name

    def _locked(self):
        section = self

        class _Held:
            def __enter__(self):
                if section._owner == threading.get_ident():
                    raise ValueError(f"Attempting to lock a CriticalSection ({section._name}) "
                                     "in which we are already running. This is illegal and "
                                     "may cause deadlocks.")
                section._lock.acquire()
                section._owner = threading.get_ident()

            def __exit__(self, *exc):
                section._owner = None
                section._lock.release()
                return False
        return _Held()

    def execute(self, fn: Callable, exclusive_resource_access: bool = True,
                name=None) -> object:
        """Runs ``fn()`` inside the section.

        Args:
            fn: a function of no arguments returning tensors (a nested structure).
            exclusive_resource_access: TensorFlow's check that no other section uses the same
                resources is not made: twinflow locks per section only.
            name: the op's name (in a graph).

        Returns:
            What ``fn`` returns.

        Raises:
            ValueError: ``execute`` of this section nested inside its own ``fn``.
        """
        if getattr(self._tracing, "active", False):
            raise ValueError(f"Attempting to lock a CriticalSection ({self._name}) in which we "
                             "are already running. This is illegal and may cause deadlocks.")
        if ctx.graph is None:
            with self._locked():
                return fn()
        self._tracing.active = True
        try:
            g, result = trace(lambda: fn(), [], f"{self._name}_body")
        finally:
            self._tracing.active = False
        flat = nest.flatten(result)
        finish(g, flat)
        outs = bind(CriticalSectionExecute, [outer for outer, _ in g.captures],
                    {"body": g, "section": self}, name=name or f"{self._name}_execute")
        return nest.pack_sequence_as(result, list(outs))
