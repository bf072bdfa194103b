"""``tw.keras.utils``: the progress bar, ``to_categorical``, ``set_random_seed``."""
from __future__ import annotations

import os
import random
import sys
import time

import numpy as np

from ..ops import random_ops


def _interactive(stream) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)()) or \
        os.environ.get("TWINFLOW_PROGRESS") == "1"


def _fmt_value(v) -> str:
    v = float(v)
    return f"{v:.4f}" if abs(v) >= 1e-3 or v == 0 else f"{v:.4e}"


def _fmt_time(seconds: float) -> str:
    if seconds >= 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds >= 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


class Progbar:
    """Keras' progress bar: ``12/45 [=====>........] - ETA: 1s - loss: 0.3421``.

    On a terminal the line is redrawn in place; otherwise only the final line of each run is
    printed, so logs stay readable.

    Args:
        target: the number of steps (None: unknown).
        width: the bar's width in characters.
        verbose: 1 for the bar, 2 for one line at the end, 0 for nothing.
        interval: minimum seconds between redraws.
        stateful_metrics: ignored (every value shown is already an average).
        unit_name: the unit in the speed display.
        stream: where to write (stdout by default).
    """

    def __init__(self, target: int | None, width: int = 30, verbose: int = 1,
                 interval: float = 0.05, stateful_metrics=None, unit_name: str = "step",
                 stream=None) -> None:
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stream = stream or sys.stdout
        self._start = time.perf_counter()
        self._last_update = 0.0
        self._values: dict = {}
        self._interactive = _interactive(self.stream)
        self._prev_len = 0
        self._seen = 0

    def update(self, current: int, values=None, finalize: bool | None = None) -> None:
        """Moves the bar to ``current`` and shows ``values`` (name -> number pairs).

        Args:
            current: the step reached.
            values: a list of ``(name, value)`` pairs or a dict.
            finalize: whether this is the last update (default: ``current >= target``).
        """
        if values:
            items = values.items() if isinstance(values, dict) else values
            for k, v in items:
                self._values[k] = v
        self._seen = current
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        if self.verbose == 0:
            return
        now = time.perf_counter()
        if not finalize and (now - self._last_update < self.interval or
                             not self._interactive or self.verbose != 1):
            return
        self._last_update = now
        line = self._line(current, now, finalize)
        if self._interactive and self.verbose == 1:
            pad = max(0, self._prev_len - len(line))
            self.stream.write("\r" + line + " " * pad)
            self._prev_len = len(line)
            if finalize:
                self.stream.write("\n")
        elif finalize:
            self.stream.write(line + "\n")
        self.stream.flush()

    def add(self, n: int, values=None) -> None:
        """Advances the bar by ``n`` steps.

        Args:
            n: steps.
            values: as in ``update``.
        """
        self.update(self._seen + n, values)

    def _line(self, current: int, now: float, finalize: bool) -> str:
        elapsed = now - self._start
        per_step = elapsed / max(current, 1)
        parts = []
        if self.verbose == 1:
            if self.target is not None:
                digits = len(str(self.target))
                bar = f"{current:{digits}d}/{self.target} ["
                filled = int(self.width * min(current, self.target) / max(self.target, 1))
                if filled > 0:
                    bar += "=" * (filled - 1) + (">" if current < self.target else "=")
                bar += "." * (self.width - filled) + "]"
            else:
                bar = f"{current:7d}/Unknown"
            parts.append(bar)
        if finalize or self.target is None:
            unit = f"{per_step * 1e3:.0f}ms/{self.unit_name}" if per_step >= 1e-3 else \
                f"{per_step * 1e6:.0f}us/{self.unit_name}"
            parts.append(f"{_fmt_time(elapsed)} {unit}")
        else:
            parts.append(f"ETA: {_fmt_time(per_step * (self.target - current))}")
        for k, v in self._values.items():
            parts.append(f"{k}: {_fmt_value(v)}")
        return " - ".join(parts)


def to_categorical(y, num_classes: int | None = None, dtype: str = "float32") -> np.ndarray:
    """One-hot encodes integer class ids.

    Args:
        y: class ids (any shape; a trailing axis of 1 is dropped).
        num_classes: the number of classes (default: ``max(y) + 1``).
        dtype: the result dtype.

    Returns:
        An array of shape ``y.shape + (num_classes,)``.
    """
    y = np.asarray(y, dtype="int64")
    if y.ndim > 1 and y.shape[-1] == 1:
        y = y.reshape(y.shape[:-1])
    n = int(num_classes) if num_classes is not None else int(y.max()) + 1
    out = np.zeros(y.shape + (n,), dtype=dtype)
    np.put_along_axis(out, y[..., None], 1, axis=-1)
    return out


def set_random_seed(seed: int) -> None:
    """Seeds Python's, NumPy's and twinflow's random generators.

    Args:
        seed: the seed.
    """
    random.seed(seed)
    np.random.seed(seed)
    random_ops.set_seed(int(seed))
