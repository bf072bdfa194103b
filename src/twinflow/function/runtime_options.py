"""``tw.experimental`` execution switches: ``async_scope``/``async_clear_error``,
``enable_strict_mode`` and ``function_executor_type``.

twinflow runs every op synchronously on the calling thread, so an async scope raises errors
where they happen (what TensorFlow's async mode would raise at the end of the scope, earlier)
and leaves no pending error to clear.
"""
from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

from ..core.errors import FailedPreconditionError
from ..core.workers import one_at_a_time

_strict = [False]
EXECUTORS = (None, "", "DEFAULT", "SINGLE_THREADED_EXECUTOR")


@contextlib.contextmanager
def async_scope() -> Iterator[None]:
    """A block whose ops TensorFlow may run asynchronously; twinflow runs them as usual
    (synchronously), so errors surface at the op that fails.

    Yields:
        Nothing.
    """
    yield


def async_clear_error() -> None:
    """Clears pending asynchronous errors: twinflow never has any (ops run synchronously)."""


def enable_strict_mode() -> None:
    """Makes uses of deprecated twinflow behaviour errors: every ``DeprecationWarning`` raised
    from twinflow's code becomes an exception (as TensorFlow's strict mode turns its
    deprecation warnings into errors)."""
    if not _strict[0]:
        warnings.filterwarnings("error", category=DeprecationWarning, module=r"twinflow(\.|$)")
        _strict[0] = True


def strict_mode_enabled() -> bool:
    """Whether ``enable_strict_mode`` ran.

    Returns:
        The flag.
    """
    return _strict[0]


@contextlib.contextmanager
def function_executor_type(executor_type) -> Iterator[None]:
    """Selects the executor of functions called in the block. The default runs independent
    heavy ops at once (``compiler/schedule.py``); ``SINGLE_THREADED_EXECUTOR`` runs a
    function's ops one at a time, as TensorFlow's does, and its matrix products unsplit.

    Args:
        executor_type: None, ``"DEFAULT"`` or ``"SINGLE_THREADED_EXECUTOR"``.

    Yields:
        Nothing.

    Raises:
        ValueError: another executor.
    """
    if executor_type not in EXECUTORS:
        raise ValueError(f"function_executor_type({executor_type!r}): twinflow has one "
                         "executor, concurrent (DEFAULT) or SINGLE_THREADED_EXECUTOR")
    if executor_type != "SINGLE_THREADED_EXECUTOR":
        yield
        return
    with one_at_a_time():
        yield


def check_pinned(tensor, name=None) -> None:
    """Checks that ``tensor`` is in host memory pinned for a GPU: twinflow has no CUDA build,
    so, as TensorFlow built without CUDA, it reports FailedPreconditionError.

    Args:
        tensor: a tensor.
        name: the op name.

    Raises:
        FailedPreconditionError: always (no CUDA).
    """
    raise FailedPreconditionError(None, None, "check_pinned: twinflow is not built with CUDA, "
                                  "so no tensor is in pinned GPU host memory [Op:CheckPinned]")
