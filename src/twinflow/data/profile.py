"""``twinflow.data.profile``: where a pipeline spends its time, stage by stage.

``profile(dataset, num_elements)`` runs one pass (up to ``num_elements`` elements) with each
node's generator timed, and returns one row per stage, from the source to the output: the
elements it produced, the wall time spent inside its ``next()`` calls (``total``, which
includes the stages it pulls from) and its own share (``self``). A stage run on another thread
(the input of ``prefetch``) shows the time its thread spent, and the ``prefetch`` row's own
share is then the time the consumer waited for it. ``format_profile`` prints the rows as a
table.
"""
from __future__ import annotations

import dataclasses
import time

from .dataset import Dataset


@dataclasses.dataclass
class StageStats:
    """One stage of a profiled pipeline.

    Attributes:
        name: the node's class name.
        depth: 0 for the output, larger for stages further upstream.
        elements: how many elements it produced.
        total_s: seconds inside its next() calls, upstream included.
        self_s: ``total_s`` minus its direct inputs' ``total_s``.
    """

    name: str
    depth: int
    elements: int = 0
    total_s: float = 0.0
    self_s: float = 0.0


def _inputs(node: Dataset) -> list:
    out = []
    for attr in ("_input", "_a", "_b", "_choice", "_tolerant_input"):
        child = getattr(node, attr, None)
        if isinstance(child, Dataset):
            out.append(child)
    for attr in ("_datasets",):
        group = getattr(node, attr, None)
        if isinstance(group, (list, tuple)):
            out.extend(d for d in group if isinstance(d, Dataset))
    return out


def _timed(original, stats: StageStats):
    def gen():
        it = original()
        try:
            while True:
                t0 = time.perf_counter()
                try:
                    e = next(it)
                except StopIteration:
                    stats.total_s += time.perf_counter() - t0
                    return
                stats.total_s += time.perf_counter() - t0
                stats.elements += 1
                yield e
        finally:
            it.close()
    return gen


def profile(dataset: Dataset, num_elements: int | None = None) -> list:
    """Runs ``dataset`` once (at most ``num_elements`` elements) timing every stage.

    Args:
        dataset: the pipeline.
        num_elements: stop after this many output elements (None: the whole pass).

    Returns:
        A list of StageStats, the output stage first.
    """
    rows, order, children = [], [], {}
    seen: set = set()

    def walk(node: Dataset, depth: int) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        stats = StageStats(type(node).__name__.lstrip("_"), depth)
        rows.append((node, stats))
        kids = _inputs(node)
        children[id(node)] = kids
        order.append(node)
        for k in kids:
            walk(k, depth + 1)

    walk(dataset, 0)
    by_id = {id(n): s for n, s in rows}
    try:
        for node, stats in rows:
            node._gen = _timed(type(node)._gen.__get__(node), stats)
        it = dataset._gen()
        try:
            for i, _ in enumerate(it):
                if num_elements is not None and i + 1 >= num_elements:
                    break
        finally:
            it.close()
    finally:
        for node, _ in rows:
            node.__dict__.pop("_gen", None)
    for node, stats in rows:
        stats.self_s = max(0.0, stats.total_s - sum(by_id[id(k)].total_s
                                                    for k in children[id(node)]))
    return [s for _, s in rows]


def format_profile(rows: list) -> str:
    """The profile as a text table (one line per stage, indented by depth).

    Args:
        rows: what ``profile`` returned.

    Returns:
        The table.
    """
    lines = [f"{'stage':<28}{'elements':>9}{'total ms':>11}{'self ms':>10}{'self %':>8}"]
    whole = sum(r.self_s for r in rows) or 1.0
    for r in rows:
        lines.append(f"{'  ' * r.depth + r.name:<28}{r.elements:>9}{r.total_s * 1e3:>11.2f}"
                     f"{r.self_s * 1e3:>10.2f}{100 * r.self_s / whole:>7.0f}%")
    return "\n".join(lines)
