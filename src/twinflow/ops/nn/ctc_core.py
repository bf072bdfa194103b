"""The NumPy core of connectionist temporal classification (Graves et al., 2006): the
forward-backward recursion in log space, batched, and the greedy and beam-search decoders.

Kept apart from the op declarations (``ctc.py``) so that other front ends (Keras' ``ctc_*``)
reuse the same arithmetic through the ops. Everything here takes and returns NumPy arrays.

The recursion runs over the "extended" label sequence ``blank l1 blank l2 ... lL blank``
(``S = 2L + 1`` states). A state may stay (always for a blank; for a label only when repeats
merge), advance by one, or skip a blank between two labels that differ (or between equal labels
when repeats do not merge, TensorFlow's ``ctc_merge_repeated=False`` topology).
"""
from __future__ import annotations

import numpy as np

NEG_INF = -np.inf


def log_softmax(x: np.ndarray) -> np.ndarray:
    """log(softmax(x)) over the last axis, in the dtype of ``x``."""
    with np.errstate(invalid="ignore", over="ignore"):
        z = x - np.max(x, axis=-1, keepdims=True)
        return z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))


def _topology(labels: list, blank: int, merge_repeated: bool):
    """Extended sequences [B, S] (padded with blanks), their lengths, stay and skip masks."""
    n = len(labels)
    s_max = 2 * max((len(lab) for lab in labels), default=0) + 1
    ext = np.full((n, s_max), blank, np.int64)
    s_len = np.empty(n, np.int64)
    for b, lab in enumerate(labels):
        ext[b, 1:2 * len(lab):2] = lab
        s_len[b] = 2 * len(lab) + 1
    is_blank = ext == blank
    stay = np.ones_like(is_blank) if merge_repeated else is_blank
    skip = np.zeros_like(is_blank)
    same = ext[:, 2:] == ext[:, :-2]
    skip[:, 2:] = ~is_blank[:, 2:] & ~(same & merge_repeated)
    return ext, s_len, stay, skip


def _step(prev: np.ndarray, stay, skip, forward: bool) -> np.ndarray:
    """One transition of the recursion (alpha when ``forward``, beta otherwise)."""
    out = np.where(stay, prev, NEG_INF)
    if forward:
        out[:, 1:] = np.logaddexp(out[:, 1:], prev[:, :-1])
        out[:, 2:] = np.where(skip[:, 2:], np.logaddexp(out[:, 2:], prev[:, :-2]), out[:, 2:])
    else:
        out[:, :-1] = np.logaddexp(out[:, :-1], prev[:, 1:])
        out[:, :-2] = np.where(skip[:, 2:], np.logaddexp(out[:, :-2], prev[:, 2:]),
                               out[:, :-2])
    return out


def ctc_loss_and_grad(logits: np.ndarray, labels: list, seq_len: np.ndarray, blank: int,
                      merge_repeated: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The negative log-likelihood of each label sequence and its gradient wrt the logits.

    Args:
        logits: ``[max_time, batch, num_classes]`` unnormalized scores (softmax applied here).
        labels: one int array of label ids per batch entry.
        seq_len: ``[batch]`` valid time steps per entry.
        blank: the blank class id.
        merge_repeated: standard CTC (True) or TensorFlow's non-merging topology.

    Returns:
        ``(loss [batch], gradient [max_time, batch, num_classes])`` in the logits' dtype. An
        impossible alignment has loss inf and gradient softmax (TensorFlow's CTCLoss); steps
        past ``seq_len`` have gradient 0.
    """
    t_max, batch, _ = logits.shape
    x = logits.astype(np.float64)
    logp = log_softmax(x)
    ext, s_len, stay, skip = _topology(labels, blank, merge_repeated)
    s_max = ext.shape[1]
    rows = np.arange(batch)[:, None]
    valid_s = np.arange(s_max)[None, :] < s_len[:, None]
    lp = np.where(valid_s[None], logp[:, rows, ext], NEG_INF)       # [T, B, S]
    alpha = np.full((t_max, batch, s_max), NEG_INF)
    beta = np.full((t_max, batch, s_max), NEG_INF)
    with np.errstate(invalid="ignore", divide="ignore"):
        if t_max:
            alpha[0, :, :2] = lp[0, :, :2]
        for t in range(1, t_max):
            alpha[t] = _step(alpha[t - 1], stay, skip, True) + lp[t]
        last = np.clip(seq_len - 1, 0, None)
        end_init = np.full((batch, s_max), NEG_INF)
        for b in range(batch):
            if seq_len[b] > 0:
                end_init[b, s_len[b] - 2 if s_len[b] > 1 else 0:s_len[b]] = 0.0
        for t in range(t_max - 1, -1, -1):
            nxt = _step(beta[t + 1], stay, skip, False) if t + 1 < t_max else end_init
            start = (seq_len - 1 == t)[:, None]
            beta[t] = np.where(start, end_init, np.where((t < seq_len)[:, None], nxt, NEG_INF))
            beta[t] += lp[t]
        fin = alpha[last, np.arange(batch)]                        # [B, S]
        fin = np.where(end_init == 0.0, fin, NEG_INF)
        log_z = np.logaddexp.reduce(fin, axis=1)
        log_z = np.where(seq_len > 0, log_z, np.where(s_len == 1, 0.0, NEG_INF))
        occ = alpha + beta - lp - log_z[None, :, None]
        occ = np.where(np.isfinite(occ), np.exp(occ), 0.0)          # [T, B, S]
    onehot = (ext[:, :, None] == np.arange(x.shape[2])[None, None, :]).astype(np.float64)
    post = np.einsum("tbs,bsc->tbc", occ, onehot)
    grad = np.exp(logp) - post
    grad = np.where((np.arange(t_max)[:, None] < seq_len[None, :])[:, :, None], grad, 0.0)
    return (-log_z).astype(logits.dtype), grad.astype(logits.dtype)


def greedy_decode(logits: np.ndarray, seq_len: np.ndarray, blank: int,
                  merge_repeated: bool) -> tuple[list, np.ndarray]:
    """Best-path decoding: the arg-max class per step, repeats merged, blanks removed.

    Args:
        logits: ``[max_time, batch, num_classes]``.
        seq_len: ``[batch]``.
        blank: the blank class id.
        merge_repeated: merge runs of one class into one label.

    Returns:
        ``(decoded, log_probability)``: one int64 array per batch entry, and ``[batch, 1]``
        minus the sum of each step's largest logit.
    """
    decoded, log_prob = [], np.zeros((logits.shape[1], 1), logits.dtype)
    for b in range(logits.shape[1]):
        steps = logits[:int(seq_len[b]), b]
        best = np.argmax(steps, axis=1) if len(steps) else np.zeros(0, np.int64)
        log_prob[b, 0] = -np.sum(np.max(steps, axis=1)) if len(steps) else 0.0
        keep = best != blank
        if merge_repeated and len(best):
            keep[1:] &= best[1:] != best[:-1]
        decoded.append(best[keep].astype(np.int64))
    return decoded, log_prob


def _candidate(total: float, size: int, beam_width: int, bottom) -> bool:
    """Whether a beam of this total enters the beam (TensorFlow's ``is_candidate``)."""
    return total > NEG_INF and (size < beam_width or total > bottom)


def _beam_one(logp: np.ndarray, beam_width: int) -> dict:
    """TensorFlow's prefix beam search over one sequence (blank = the last class).

    Each beam (a label prefix) carries log-probabilities of ending in a blank, in its last
    label, and their total. Pass 1 updates the beams kept from the last step; pass 2 extends
    each by every non-blank class, evicting the lowest-scoring beam once the beam is full.
    """
    blank = logp.shape[1] - 1
    beams = {(): (0.0, NEG_INF, 0.0)}                     # prefix -> (blank, label, total)
    for row in logp:
        old = beams
        leaves = {}
        for prefix, (_, p_label, p_total) in old.items():
            label = NEG_INF
            if prefix:
                parent = old.get(prefix[:-1])
                label = p_label
                if parent is not None:
                    prev = parent[0] if len(prefix) > 1 and prefix[-1] == prefix[-2] \
                        else parent[2]
                    label = np.logaddexp(label, prev)
                label += row[prefix[-1]]
            blank_p = p_total + row[blank]
            leaves[prefix] = (blank_p, label, np.logaddexp(blank_p, label))

        # TensorFlow's is_candidate: enter while the beam has room, else beat its bottom.
        # The bottom only rises once the beam is full, so a vector pre-filter is safe.
        bottom = min(v[2] for v in leaves.values()) if len(leaves) >= beam_width else None
        for prefix, (p_blank, _, p_total) in old.items():
            if not _candidate(p_total, len(leaves), beam_width, bottom):
                continue
            totals = row[:blank] + p_total
            if prefix:
                totals[prefix[-1]] = row[prefix[-1]] + p_blank
            floor = bottom if len(leaves) >= beam_width else NEG_INF
            for c in np.flatnonzero(totals > floor).tolist():
                child = prefix + (c,)
                total = float(totals[c])
                if child in leaves or not _candidate(total, len(leaves), beam_width, bottom):
                    continue
                if len(leaves) >= beam_width:
                    del leaves[min(leaves, key=lambda k: leaves[k][2])]
                leaves[child] = (NEG_INF, total, total)
                if len(leaves) >= beam_width:
                    bottom = min(v[2] for v in leaves.values())
        beams = leaves
    return beams


def beam_search_decode(logits: np.ndarray, seq_len: np.ndarray, beam_width: int,
                       top_paths: int, merge_repeated: bool) -> tuple[list, np.ndarray]:
    """The ``top_paths`` most likely labelings by prefix beam search (blank = last class).

    Args:
        logits: ``[max_time, batch, num_classes]`` (log-softmax applied per step).
        seq_len: ``[batch]``.
        beam_width: beams kept per step.
        top_paths: labelings returned per entry (at most ``beam_width``).
        merge_repeated: merge equal consecutive labels of a returned labeling.

    Returns:
        ``(paths, log_probability)``: ``paths[k][b]`` an int64 array, and
        ``[batch, top_paths]`` log-probabilities.
    """
    batch = logits.shape[1]
    paths = [[None] * batch for _ in range(top_paths)]
    log_prob = np.zeros((batch, top_paths), logits.dtype)
    for b in range(batch):
        logp = log_softmax(logits[:int(seq_len[b]), b].astype(np.float64))
        beams = _beam_one(logp, beam_width)
        ranked = sorted(beams.items(), key=lambda kv: -kv[1][2])
        if len(ranked) < top_paths:
            raise ValueError(f"fewer beams ({len(ranked)}) than top_paths ({top_paths})")
        for k in range(top_paths):
            prefix = np.asarray(ranked[k][0], np.int64)
            if merge_repeated and len(prefix):
                prefix = prefix[np.r_[True, prefix[1:] != prefix[:-1]]]
            paths[k][b] = prefix
            log_prob[b, k] = ranked[k][1][2]
    return paths, log_prob


def to_sparse(seqs: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One int64 array per batch entry as a SparseTensor's (indices, values, dense_shape)."""
    idx = [(b, i) for b, s in enumerate(seqs) for i in range(len(s))]
    indices = np.asarray(idx, np.int64).reshape(-1, 2)
    values = np.concatenate([np.asarray(s, np.int64) for s in seqs]) if seqs \
        else np.zeros(0, np.int64)
    shape = np.array([len(seqs), max((len(s) for s in seqs), default=0)], np.int64)
    return indices, values.astype(np.int64), shape
