"""``tw.profiler``: traces of executed ops, written for Perfetto / chrome://tracing
(``core/profiler.py``).

``tw.profiler.experimental.start(logdir)`` ... ``stop()`` (or ``with Profile(logdir):``)
records one event per op run, eagerly or inside a ``tw.function``, plus ``Trace`` spans, and
writes ``<logdir>/plugins/profile/<run>/<host>.trace.json.gz``. There is no remote profiling:
``server.start`` and ``client.trace``/``client.monitor`` raise UnimplementedError.
"""
import types as _types

from .core import profiler as _p
from .core.errors import UnimplementedError as _Unimplemented

__all__ = ["experimental"]

_REMOTE = ("twinflow has no profiler server: remote profiling (TensorFlow's gRPC profiler "
           "service) is not supported. Profile in-process with "
           "tw.profiler.experimental.start(logdir)/stop() or `with Profile(logdir):`.")


def _server_start(port) -> None:
    """Would start a profiler server on ``port`` (not supported: raises).

    Args:
        port: the port.

    Raises:
        UnimplementedError: always; see the message for what is supported.
    """
    raise _Unimplemented(None, None, _REMOTE)


def _client_trace(service_addr, logdir, duration_ms, worker_list="", num_tracing_attempts=3,
                  options=None) -> None:
    """Would trace a remote profiler server (not supported: raises).

    Args:
        service_addr: the server address.
        logdir: where the trace would go.
        duration_ms: how long to trace.
        worker_list: workers to trace.
        num_tracing_attempts: retries.
        options: a ProfilerOptions.

    Raises:
        UnimplementedError: always; see the message for what is supported.
    """
    raise _Unimplemented(None, None, _REMOTE)


def _client_monitor(service_addr, duration_ms, level=1) -> str:
    """Would sample a remote profiler server's metrics (not supported: raises).

    Args:
        service_addr: the server address.
        duration_ms: how long to monitor.
        level: the detail level.

    Raises:
        UnimplementedError: always; see the message for what is supported.
    """
    raise _Unimplemented(None, None, _REMOTE)


_server_start.__name__ = "start"
_client_trace.__name__ = "trace"
_client_monitor.__name__ = "monitor"

experimental = _types.SimpleNamespace(
    start=_p.start, stop=_p.stop, Trace=_p.Trace, Profile=_p.Profile,
    ProfilerOptions=_p.ProfilerOptions,
    server=_types.SimpleNamespace(start=_server_start),
    client=_types.SimpleNamespace(trace=_client_trace, monitor=_client_monitor))
