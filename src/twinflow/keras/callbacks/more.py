"""Keras 3's SwapEMAWeights (evaluate and predict with the optimizer's moving averages) and
RemoteMonitor (each epoch's logs posted to a server as JSON, through ``urllib``)."""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import warnings

import numpy as np

from .base import Callback


class SwapEMAWeights(Callback):
    """Swaps the model's weights with the optimizer's exponential moving averages (the
    optimizer needs ``use_ema=True``) for evaluation and prediction, and back afterwards;
    with ``swap_on_epoch=True`` also at the end of each epoch, so checkpoints written then
    hold the averages.

    Args:
        swap_on_epoch: also swap at each epoch's end (and back at the next epoch's start).
    """

    def __init__(self, swap_on_epoch: bool = False) -> None:
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_in_model = False

    def _optimizers(self) -> list:
        opt = self.model.optimizer
        opt = getattr(opt, "inner_optimizer", opt)
        subs = getattr(opt, "optimizers", None)
        if subs is not None:
            found = [o for o in subs if getattr(o, "use_ema", False)]
            if not found:
                raise ValueError("SwapEMAWeights must be used when at least one inner "
                                 "optimizer has `use_ema=True` set. Received a "
                                 "MultiOptimizer with all inner optimizers having "
                                 "`use_ema=False`.")
            return found
        if not getattr(opt, "use_ema", False):
            raise ValueError("SwapEMAWeights must be used when `use_ema=True` is set on the "
                             f"optimizer. Received: use_ema={getattr(opt, 'use_ema', None)}")
        return [opt]

    def _pairs(self):
        for opt in self._optimizers():
            for var in opt._tw_tracked:
                yield var, opt.get_slot(var, "ema")

    def _swap(self) -> None:
        for var, ema in self._pairs():
            current = var.numpy().copy()
            var.assign(ema.read_value())
            ema.assign(current)

    def _finalize(self) -> None:
        for var, ema in self._pairs():
            ema.assign(var.read_value())

    def on_epoch_begin(self, epoch, logs=None) -> None:
        """Swaps the trained weights back in (after an end-of-epoch swap).

        Args:
            epoch: the epoch index.
            logs: unused.
        """
        if self.swap_on_epoch and self._ema_in_model:
            self._swap()
            self._ema_in_model = False

    def on_epoch_end(self, epoch, logs=None) -> None:
        """With ``swap_on_epoch``, puts the averages in the model (for later callbacks).

        Args:
            epoch: the epoch index.
            logs: unused.
        """
        if self.swap_on_epoch and not self._ema_in_model:
            self._swap()
            self._ema_in_model = True
            if epoch == self.params.get("epochs", 0) - 1:
                self._finalize()

    def on_test_begin(self, logs=None) -> None:
        """Evaluation uses the averages.

        Args:
            logs: unused.
        """
        if not self._ema_in_model:
            self._swap()
            self._ema_in_model = True

    def on_test_end(self, logs=None) -> None:
        """Training resumes with the trained weights.

        Args:
            logs: unused.
        """
        if self._ema_in_model:
            self._swap()
            self._ema_in_model = False

    def on_predict_begin(self, logs=None) -> None:
        """Prediction uses the averages.

        Args:
            logs: unused.
        """
        self.on_test_begin(logs)

    def on_predict_end(self, logs=None) -> None:
        """The trained weights come back.

        Args:
            logs: unused.
        """
        self.on_test_end(logs)


class RemoteMonitor(Callback):
    """Posts ``{"epoch": i, **logs}`` to ``root + path`` at the end of each epoch: as a form
    field ``field`` holding the JSON text, or as a JSON body with ``send_as_json``. An
    unreachable server gives a warning naming it (training goes on), as in Keras.

    Args:
        root: the server's root URL (``http://localhost:9000``).
        path: the path posted to.
        field: the form field holding the JSON (without ``send_as_json``).
        headers: extra HTTP headers.
        send_as_json: send ``application/json`` instead of a form.
        timeout: seconds to wait for the server.
    """

    def __init__(self, root: str = "http://localhost:9000", path: str = "/publish/epoch/end/",
                 field: str = "data", headers: dict | None = None, send_as_json: bool = False,
                 timeout: float = 10.0) -> None:
        super().__init__()
        scheme = urllib.parse.urlparse(root).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"RemoteMonitor: root must be an http(s) URL; received {root!r}")
        self.root, self.path, self.field = root, path, field
        self.headers = dict(headers or {})
        self.send_as_json = send_as_json
        self.timeout = timeout

    def payload(self, epoch: int, logs: dict | None) -> dict:
        """What is sent for an epoch: its index and its logs as plain numbers.

        Args:
            epoch: the epoch index.
            logs: the epoch's logs.

        Returns:
            A JSON-able dict.
        """
        send = {"epoch": epoch}
        for k, v in (logs or {}).items():
            send[k] = v.item() if isinstance(v, (np.ndarray, np.generic)) else v
        return send

    def on_epoch_end(self, epoch, logs=None) -> None:
        """Posts the epoch's logs.

        Args:
            epoch: the epoch index.
            logs: the epoch's metrics.
        """
        send = self.payload(epoch, logs)
        headers = dict(self.headers)
        if self.send_as_json:
            body = json.dumps(send).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                response.read()
        except (urllib.error.URLError, OSError) as e:
            warnings.warn(f"Could not reach RemoteMonitor root server at {self.root} ({e})",
                          stacklevel=2)
