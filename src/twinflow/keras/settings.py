"""Keras' session-wide settings (``floatx``, ``epsilon``, ``image_data_format``, the backend's
name): below ``keras.backend`` and ``keras.ops`` so both read them without importing each other
(``keras.backend`` wraps ``keras.ops`` functions; ``keras.ops`` needs ``floatx``)."""
from __future__ import annotations

import functools
import logging
import os
import sys
import types
from collections.abc import Callable

_SETTINGS = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last"}


def floatx() -> str:
    """The default float type of Keras layers.

    Returns:
        ``'float32'`` unless ``set_floatx`` changed it.
    """
    return _SETTINGS["floatx"]


def set_floatx(value: str) -> None:
    """Sets the default float type.

    Args:
        value: ``'float16'``, ``'bfloat16'``, ``'float32'`` or ``'float64'``.
    """
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {{'float16', "
                         "'bfloat16', 'float32', 'float64'}")
    _SETTINGS["floatx"] = str(value)


def epsilon() -> float:
    """The fuzz factor used by losses and metrics.

    Returns:
        1e-7 unless ``set_epsilon`` changed it.
    """
    return _SETTINGS["epsilon"]


def set_epsilon(value: float) -> None:
    """Sets the fuzz factor.

    Args:
        value: the new epsilon.
    """
    _SETTINGS["epsilon"] = float(value)


def image_data_format() -> str:
    """The default image layout.

    Returns:
        ``'channels_last'`` unless changed.
    """
    return _SETTINGS["image_data_format"]


def set_image_data_format(data_format: str) -> None:
    """Sets the default image layout.

    Args:
        data_format: ``'channels_last'`` or ``'channels_first'``.
    """
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', "
                         f"'channels_last'}}. Received: data_format={data_format}")
    _SETTINGS["image_data_format"] = data_format


def backend() -> str:
    """The backend's name.

    Returns:
        ``'tensorflow'`` (twinflow stands in for it).
    """
    return "tensorflow"


_FLAGS = {"interactive_logging": True, "traceback_filtering": True}


def enable_interactive_logging() -> None:
    """Progress bars and ``print_msg`` write to standard output (the default)."""
    _FLAGS["interactive_logging"] = True


def disable_interactive_logging() -> None:
    """Progress bars and ``print_msg`` go to Python's ``logging`` (logger ``twinflow.keras``,
    level INFO) instead of standard output, for jobs whose output is a log file."""
    _FLAGS["interactive_logging"] = False


def is_interactive_logging_enabled() -> bool:
    """Whether Keras writes its messages to standard output.

    Returns:
        The flag (True unless ``disable_interactive_logging`` was called).
    """
    return _FLAGS["interactive_logging"]


def enable_traceback_filtering() -> None:
    """Errors raised by ``fit``/``evaluate``/``predict`` show the user's frames only (the
    default): twinflow's internal frames are dropped from the traceback."""
    _FLAGS["traceback_filtering"] = True


def disable_traceback_filtering() -> None:
    """Errors keep their full traceback, twinflow's frames included (for debugging
    twinflow itself)."""
    _FLAGS["traceback_filtering"] = False


def is_traceback_filtering_enabled() -> bool:
    """Whether tracebacks are filtered.

    Returns:
        The flag (True unless ``disable_traceback_filtering`` was called).
    """
    return _FLAGS["traceback_filtering"]


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def filter_traceback(fn: Callable) -> Callable:
    """Decorates ``fn`` so that an exception leaving it, while traceback filtering is on,
    carries a traceback without twinflow's own frames (its last frame is kept, so the line
    that raised stays visible).

    Args:
        fn: the function (``Model.fit``...).

    Returns:
        The wrapped function.
    """
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _FLAGS["traceback_filtering"]:
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001  (re-raised with a shorter traceback)
            tb = e.__traceback__
            frames = []
            while tb is not None:
                frames.append(tb)
                tb = tb.tb_next
            kept = [f for f in frames[:-1]
                    if not f.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR)]
            kept.append(frames[-1])
            new = None
            for f in reversed(kept):
                new = types.TracebackType(new, f.tb_frame, f.tb_lasti, f.tb_lineno)
            raise e.with_traceback(new)  # noqa: B904  (the same exception, re-raised)
    return wrapper


def print_msg(message: str, line_break: bool = True) -> None:
    """Writes ``message`` to standard output, or to ``logging`` when interactive logging is
    off.

    Args:
        message: the text.
        line_break: end with a new line.
    """
    if _FLAGS["interactive_logging"]:
        sys.stdout.write(message + ("\n" if line_break else ""))
        sys.stdout.flush()
    else:
        logging.getLogger("twinflow.keras").info(message)
