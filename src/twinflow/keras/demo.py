"""The training half of ``twinflow demo``: one convnet trained eagerly and as a graph.

The seed-004 convnet (widened, with 'same' padding and max pooling so it passes 95% test
accuracy on the 8x8 digits in a few seconds) is trained twice from the same seed: once with
``compile(run_eagerly=True)`` (every op runs as Python calls it) and once as a ``tw.function``
(the train step traced once, optimized, compiled). Same initial weights and same batch order,
so the two runs must report the same losses; the graph run should be faster.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

import numpy as np

from ..summary import writer as _summary
from ..train.checkpoint import Checkpoint
from . import callbacks as _callbacks
from . import layers, losses, optimizers
from .datasets import digits
from .models import Sequential
from .utils import set_random_seed


def build_model() -> Sequential:
    """The demo convnet: Conv(32, same) -> Conv(32) -> MaxPool -> Flatten -> Dense(10).

    Returns:
        An unbuilt-weights Sequential model for 8x8x1 images producing 10 logits.
    """
    return Sequential([
        layers.Conv2D(32, 3, activation="relu", padding="same", input_shape=(8, 8, 1)),
        layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dense(10),
    ])


def load_digits() -> tuple:
    """The digits scaled to [0, 1] with a channel axis.

    Returns:
        ``((x_train, y_train), (x_test, y_test))`` as float32 ``(n, 8, 8, 1)`` and int64.
    """
    (x, y), (xt, yt) = digits.load_data()
    scale = np.float32(1.0 / 16.0)
    return ((x[..., None].astype(np.float32) * scale, y.astype(np.int64)),
            (xt[..., None].astype(np.float32) * scale, yt.astype(np.int64)))


class _Recorder(_callbacks.Callback):
    """Times epochs, keeps every batch's running loss, and logs epochs to TensorBoard.

    One recorder per mode lives across the per-epoch ``fit`` calls, so each mode has one
    event file per split (``train``, ``validation``).
    """

    def __init__(self, log_dir: str) -> None:
        super().__init__()
        self.times: list = []
        self.batch_losses: list = []
        self.history: dict = {}
        self._writers = {split: _summary.create_file_writer(os.path.join(log_dir, split))
                         for split in ("train", "validation")}

    def on_epoch_begin(self, epoch, logs=None) -> None:
        self._t = time.perf_counter()

    def on_train_batch_end(self, batch, logs=None) -> None:
        self.batch_losses.append(float(logs["loss"]))

    def on_epoch_end(self, epoch, logs=None) -> None:
        self.times.append(time.perf_counter() - self._t)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(float(value))
            split, name = ("validation", key[4:]) if key.startswith("val_") else ("train", key)
            with self._writers[split].as_default():
                _summary.scalar(f"epoch_{name}", float(value), step=epoch)

    def close(self) -> None:
        for w in self._writers.values():
            w.close()


def _compiled(mode: str, seed: int, learning_rate: float) -> Sequential:
    set_random_seed(seed)  # the same initial weights in both modes
    model = build_model()
    model.compile(optimizer=optimizers.Adam(learning_rate),
                  loss=losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], run_eagerly=(mode == "eager"))
    return model


def run_demo(out_dir: str | None = None, epochs: int = 10, batch_size: int = 32, seed: int = 0,
             learning_rate: float = 0.01, verbose: int = 1,
             print_fn: Callable[[str], None] = print) -> dict:
    """Trains the demo convnet on the digits eagerly and as a graph, and compares the runs.

    The two modes train epoch by epoch in turn (eager epoch 1, graph epoch 1, eager epoch 2...)
    so a change in the machine's load affects both alike; each epoch reshuffles the data from
    the same seed in both modes. Prints per-epoch loss/accuracy with a progress bar, the test
    accuracy, the speedup of graph over eager and the largest loss difference between the
    runs; writes TensorBoard logs (``out_dir/logs/{eager,graph}/{train,validation}``) and a
    checkpoint of the graph-trained model and its optimizer (``out_dir/checkpoints/ckpt-1``).

    Args:
        out_dir: where logs and checkpoints go (default: a new temporary directory).
        epochs: training epochs per mode.
        batch_size: samples per step.
        seed: the random seed shared by both runs.
        learning_rate: Adam's learning rate.
        verbose: 1 for progress bars, 2 for a line per epoch, 0 for only the summary.
        print_fn: where text goes.

    Returns:
        A dict: ``test_accuracy`` (graph run), ``eager_accuracy``, ``eager_time``,
        ``graph_time`` (seconds of ``fit``, tracing included), ``speedup`` (eager time over
        graph time), ``steady_speedup`` (median epoch times, first epoch excluded),
        ``max_loss_diff`` (over every batch's running loss), ``eager_losses``,
        ``graph_losses`` (per epoch), ``out_dir``, ``log_dir``, ``checkpoint``.
    """
    out_dir = out_dir or tempfile.mkdtemp(prefix="twinflow-demo-")
    os.makedirs(out_dir, exist_ok=True)
    log_dir = os.path.join(out_dir, "logs")
    (x, y), (xt, yt) = load_digits()
    print_fn(f"Digits: {len(x)} training and {len(xt)} test images (8x8, shipped with "
             f"twinflow); writing to {out_dir}")
    modes = ("eager", "graph")
    models = {m: _compiled(m, seed, learning_rate) for m in modes}
    models["graph"].summary(print_fn=print_fn)
    recorders = {m: _Recorder(os.path.join(log_dir, m)) for m in modes}
    print_fn("Training the same model from the same seed eagerly (compile(run_eagerly=True)) "
             "and as a graph (tw.function), one epoch of each in turn.")
    for epoch in range(epochs):
        for mode in modes:
            if verbose:
                print_fn(f"Epoch {epoch + 1}/{epochs} ({mode})")
            # fit shuffles with NumPy's global generator: the same order for both modes.
            np.random.seed(seed * 7919 + epoch)
            models[mode].fit(x, y, batch_size=batch_size, epochs=epoch + 1,
                             initial_epoch=epoch, verbose=verbose,
                             validation_data=(xt, yt), callbacks=[recorders[mode]],
                             _epoch_header=False)
    results = {}
    for mode in modes:
        recorders[mode].close()
        loss, acc = models[mode].evaluate(xt, yt, batch_size=256, verbose=0)
        results[mode] = {"time": sum(recorders[mode].times), "accuracy": float(acc),
                         "loss": float(loss)}
    eager, graph = recorders["eager"], recorders["graph"]
    diff = float(np.max(np.abs(np.asarray(eager.batch_losses)
                               - np.asarray(graph.batch_losses))))
    ckpt = Checkpoint(model=models["graph"], optimizer=models["graph"].optimizer)
    ckpt_path = ckpt.save(os.path.join(out_dir, "checkpoints", "ckpt"))
    speedup = results["eager"]["time"] / results["graph"]["time"]
    tail = slice(1, None) if epochs > 1 else slice(None)
    steady = statistics.median(eager.times[tail]) / statistics.median(graph.times[tail])
    print_fn("\n== summary ==")
    print_fn(f"test accuracy: graph {results['graph']['accuracy']:.4f}, eager "
             f"{results['eager']['accuracy']:.4f}")
    print_fn(f"training time: eager {results['eager']['time']:.2f}s, graph "
             f"{results['graph']['time']:.2f}s (tracing included): graph/eager speedup "
             f"{speedup:.2f}x ({steady:.2f}x per epoch after the first)")
    print_fn(f"largest difference between eager and graph losses: {diff:.2e} "
             f"({'same' if diff <= 1e-5 else 'DIFFERENT'} to 1e-5)")
    print_fn(f"TensorBoard logs: {log_dir}  (tensorboard --logdir {log_dir})")
    print_fn(f"checkpoint: {ckpt_path}")
    return {"test_accuracy": results["graph"]["accuracy"],
            "eager_accuracy": results["eager"]["accuracy"],
            "eager_time": results["eager"]["time"], "graph_time": results["graph"]["time"],
            "speedup": speedup, "steady_speedup": steady, "max_loss_diff": diff,
            "eager_losses": eager.history["loss"], "graph_losses": graph.history["loss"],
            "out_dir": out_dir, "log_dir": log_dir, "checkpoint": ckpt_path}


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m twinflow.keras.demo [--out DIR] [--epochs N]``.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).

    Returns:
        0 when the run reached 95% test accuracy with matching eager and graph losses, else 1.
    """
    parser = argparse.ArgumentParser(prog="twinflow demo",
                                     description="train a convnet on the digits eagerly and "
                                                 "as a graph",
                                     epilog="twinflow demo --tour prints a short tour of "
                                            "eager execution and gradients instead.")
    parser.add_argument("--out", default=None, help="output directory (default: a new "
                                                    "temporary directory)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", type=int, default=1)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    result = run_demo(args.out, epochs=args.epochs, batch_size=args.batch_size, seed=args.seed,
                      verbose=args.verbose)
    ok = result["test_accuracy"] >= 0.95 and result["max_loss_diff"] <= 1e-5
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
