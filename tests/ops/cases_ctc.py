"""Cases for the CTC ops: losses against a brute-force sum over alignments, decoders and label
helpers against small NumPy references."""
import itertools

import numpy as np

import twinflow as tw
from twinflow.ops.nn.ctc import ctc_loss_v1

from .harness import Case

rng = np.random.default_rng(3)
X = rng.normal(size=(4, 2, 3))
LABELS = np.array([[1, 1], [2, 0]], np.int32)
LL = np.array([2, 1], np.int32)
LGL = np.array([4, 3], np.int32)


def _log_softmax(x):
    z = x - x.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def _brute(x, labels, lengths, blank):
    """-log of the summed probability of every path that collapses to each label row."""
    lp = _log_softmax(x)
    out = []
    for b, lab in enumerate(labels):
        total = -np.inf
        for path in itertools.product(range(x.shape[2]), repeat=int(LGL[b])):
            merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
            if [k for k in merged if k != blank] == list(lab):
                total = np.logaddexp(total, sum(lp[t, b, k] for t, k in enumerate(path)))
        out.append(-total)
    return np.array(out)


def _greedy(x):
    best = x.argmax(-1)                           # [T, B]; blank = 2
    rows = []
    for b in range(2):
        seq = best[:LGL[b], b]
        rows.append([k for i, k in enumerate(seq) if k != 2 and (i == 0 or k != seq[i - 1])])
    return rows


def _greedy_ref(x):
    rows = _greedy(x)
    idx = np.array([(b, i) for b, r in enumerate(rows) for i in range(len(r))], np.int64)
    vals = np.array([k for r in rows for k in r], np.int64)
    shape = np.array([2, max(len(r) for r in rows)], np.int64)
    lp = np.array([[-x[:LGL[b], b].max(-1).sum()] for b in range(2)])
    return idx, vals, shape, lp


def _beam_values(x):
    (d,), _ = tw.nn.ctc_beam_search_decoder(x, LGL, beam_width=8)
    return d.values


CASES = [
    Case(lambda x: tw.nn.ctc_loss(LABELS, x, LL, LGL, blank_index=0), [X],
         lambda x: _brute(x, [[1, 1], [2]], LL, 0), name="ctc_loss_dense"),
    Case(lambda x: ctc_loss_v1(tw.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 1, 0], [2, 2]),
                               x, LGL), [X],
         lambda x: _brute(x, [[1, 1], [0]], LL, 2), name="ctc_loss_sparse"),
    Case(lambda x: (lambda d, lp: (d[0].indices, d[0].values, d[0].dense_shape, lp))(
        *tw.nn.ctc_greedy_decoder(x, LGL)), [X], _greedy_ref, grad=(),
         name="ctc_greedy_decoder", graph=False),  # decoded lengths: data-dependent shapes
    # with a wide beam the best path of these peaked logits is the greedy one
    Case(_beam_values, [X * 20], lambda x: np.array(sum(_greedy(x), []), np.int64), grad=(),
         name="ctc_beam_search_decoder", graph=False),
    Case(lambda a: tw.nn.collapse_repeated(a, [5, 3]), [np.array([[1, 1, 2, 2, 3],
                                                                  [4, 4, 4, 0, 0]])],
         lambda a: (np.array([[1, 2, 3], [4, 0, 0]]), np.array([3, 1], np.int32)),
         name="collapse_repeated", graph=False),
    Case(tw.nn.ctc_unique_labels, [np.array([[3, 4, 4, 3], [1, 2, 1, 0]], np.int32)],
         lambda a: (np.array([[3, 4, 0, 0], [1, 2, 0, 0]], np.int32),
                    np.array([[0, 1, 1, 0], [0, 1, 0, 2]], np.int32)),
         name="ctc_unique_labels"),
]

# data-dependent output shapes: checked in graph mode by test_ctc.py's tw.function test
COVERED_ELSEWHERE = {name: "tests/ops/test_ctc.py::test_decoders_in_a_function_match_eager"
                     for name in ("CTCBeamSearchDecoder", "CTCCollapseRepeated",
                                  "CTCGreedyDecoder")}
