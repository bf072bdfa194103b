"""``tw.keras.preprocessing.sequence``: Keras' legacy sequence utilities (``pad_sequences``,
``TimeseriesGenerator``, ``make_sampling_table``, ``skipgrams``), NumPy in and out."""
from __future__ import annotations

import json
import random

import numpy as np

from ..py_dataset import PyDataset
from ..utils import pad_sequences

__all__ = ["TimeseriesGenerator", "make_sampling_table", "pad_sequences", "skipgrams"]


class TimeseriesGenerator(PyDataset):
    """Batches of windows over a time series (a ``PyDataset``: usable in ``fit``).

    Batch ``i`` holds the windows ending just before rows ``start + i*batch_size*stride``,
    ``+stride``...; each window is ``data[row - length:row:sampling_rate]`` and its target
    ``targets[row]``.

    Args:
        data: an indexable of time steps (array or list), axis 0 is time.
        targets: aligned with ``data``.
        length: the window length, in time steps.
        sampling_rate: the step between time steps inside a window.
        stride: the step between successive windows.
        start_index: the first row that may start a window.
        end_index: the last row that may end a window (default ``len(data) - 1``).
        shuffle: draw the rows of each batch at random (NumPy's global generator, as Keras).
        reverse: reverse the time steps of each window.
        batch_size: windows per batch.
    """

    def __init__(self, data, targets, length: int, sampling_rate: int = 1, stride: int = 1,
                 start_index: int = 0, end_index: int | None = None, shuffle: bool = False,
                 reverse: bool = False, batch_size: int = 128) -> None:
        super().__init__()
        if len(data) != len(targets):
            raise ValueError(f"Data and targets have to be of same length. Data length is "
                             f"{len(data)} while target length is {len(targets)}")
        self.data, self.targets = data, targets
        self.length, self.sampling_rate, self.stride = length, sampling_rate, stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle, self.reverse, self.batch_size = shuffle, reverse, batch_size
        if self.start_index > self.end_index:
            raise ValueError(f"`start_index+length={self.start_index} > "
                             f"end_index={self.end_index}` is disallowed, as no part of the "
                             "sequence would be left to be used as current step.")

    def __len__(self) -> int:
        span = self.batch_size * self.stride
        return (self.end_index - self.start_index + span) // span

    def __getitem__(self, index: int) -> tuple:
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            i = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(i, min(i + self.batch_size * self.stride, self.end_index + 1),
                             self.stride)
        samples = np.array([self.data[r - self.length:r:self.sampling_rate] for r in rows])
        targets = np.array([self.targets[r] for r in rows])
        if self.reverse:
            samples = samples[:, ::-1, ...]
        return samples, targets

    def get_config(self) -> dict:
        """The generator's arguments, data included as lists (JSON-serializable).

        Returns:
            A dict.
        """
        as_list = lambda v: np.asarray(v).tolist()  # noqa: E731
        return {"data": as_list(self.data), "targets": as_list(self.targets),
                "length": self.length, "sampling_rate": self.sampling_rate,
                "stride": self.stride, "start_index": self.start_index - self.length,
                "end_index": self.end_index, "shuffle": self.shuffle,
                "reverse": self.reverse, "batch_size": self.batch_size}

    def to_json(self, **kwargs) -> str:
        """The generator as a JSON string (``{"class_name": ..., "config": ...}``).

        Args:
            **kwargs: passed to ``json.dumps``.

        Returns:
            The JSON text.
        """
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> np.ndarray:
    """word2vec's probability of keeping the word of each frequency rank, assuming Zipf's law.

    Args:
        size: the number of ranks.
        sampling_factor: the word2vec sampling factor.

    Returns:
        A float array of ``size`` probabilities (rank 0 is treated as rank 1).
    """
    rank = np.arange(size)
    rank[0] = 1
    # Zipf frequencies: 1 / (r (ln r + gamma) + 1/2 - 1/(12 r)), gamma as Keras rounds it
    inv_freq = rank * (np.log(rank) + 0.577) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_freq
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(sequence, vocabulary_size: int, window_size: int = 4,
              negative_samples: float = 1.0, shuffle: bool = True, categorical: bool = False,
              sampling_table=None, seed: int | None = None) -> tuple:
    """Skip-gram pairs of a sequence of word indices: (word, neighbour) pairs labelled 1 and
    (word, random word) pairs labelled 0. Index 0 is a non-word and is skipped.

    Args:
        sequence: word indices.
        vocabulary_size: the largest index + 1.
        window_size: how many words on each side are neighbours.
        negative_samples: negative pairs per positive pair (0: none).
        shuffle: shuffle the pairs (pairs and labels the same way).
        categorical: labels as ``[0, 1]``/``[1, 0]`` instead of 1/0.
        sampling_table: the probability of keeping each word index as a centre word.
        seed: seeds all the draws (twinflow uses one ``random.Random(seed)``; Keras seeds the
            global generator for the shuffle only).

    Returns:
        ``(couples, labels)``: lists.
    """
    rng = random.Random(seed)
    couples, labels = [], []
    pos, neg = ([0, 1], [1, 0]) if categorical else (1, 0)
    for i, wi in enumerate(sequence):
        if not wi or (sampling_table is not None and sampling_table[wi] < rng.random()):
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([wi, sequence[j]])
                labels.append(pos)
    if negative_samples > 0 and couples:
        n_neg = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        rng.shuffle(words)
        couples += [[words[i % len(words)], rng.randint(1, vocabulary_size - 1)]
                    for i in range(n_neg)]
        labels += [neg] * n_neg
    if shuffle:
        order = list(range(len(couples)))
        rng.shuffle(order)
        couples = [couples[k] for k in order]
        labels = [labels[k] for k in order]
    return couples, labels
