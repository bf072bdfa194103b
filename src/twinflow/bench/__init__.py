"""``twinflow bench``: twinflow's time over raw NumPy doing the same work, in one process.

Each workload (``workloads.WORKLOADS``) is timed as the best of ``repeat`` runs of a calibrated
number of calls; the report gives NumPy's absolute time, twinflow's, and their ratio, and the same
ratio for TensorFlow, PyTorch or JAX when they happen to be importable. A workload without a
NumPy counterpart (``numpy=None``: tracing and compiling) shows only its absolute time, judged
against its ``target_us``.
"""
from __future__ import annotations

import argparse
import dataclasses
import platform
import sys
import time
import timeit
from collections.abc import Callable, Sequence

import numpy as np

import twinflow as tw

from .data_workloads import DATA_WORKLOADS
from .mpi_workload import format_mpi_report, run_mpi_bench
from .workloads import WORKLOADS, Workload, optional_module

WORKLOADS.extend(DATA_WORKLOADS)  # (tw.data's rows live in their own file)

__all__ = ["Result", "run", "format_report", "main", "time_step", "time_steps", "WORKLOADS",
           "Workload"]

OTHER_FRAMEWORKS = ("tensorflow", "torch", "jax")


@dataclasses.dataclass
class Result:
    """Timings of one workload (seconds per step; None where not measured)."""

    workload: Workload
    numpy_s: float | None = None
    twinflow_s: float | None = None
    others_s: dict = dataclasses.field(default_factory=dict)
    error: str | None = None

    @property
    def ratio(self) -> float | None:
        if self.numpy_s and self.twinflow_s:
            return self.twinflow_s / self.numpy_s
        return None

    @property
    def met(self) -> bool | None:
        """Whether twinflow met the workload's target (None when it has none)."""
        w = self.workload
        if self.twinflow_s is None:
            return None
        if w.target_us is not None:
            return self.twinflow_s * 1e6 < w.target_us
        if w.target is not None and self.ratio is not None:
            return self.ratio <= w.target
        return None


# What a timed run measures: elapsed time, or the process's CPU time (all its threads: on a
# machine whose cores are busy with other work it leaves out the time spent waiting for one).
TIMERS = {"wall": time.perf_counter, "cpu": time.process_time}
_timer = ["wall"]


def _calibrate(step: Callable[[], object], min_time: float) -> tuple:
    step()  # warm up (caches, lazy imports, tracing)
    timer = timeit.Timer(step, timer=TIMERS[_timer[0]])
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_time or number >= 1 << 20:
            return timer, number, t / number
        number *= 2 if t <= 0 else max(2, min(10, int(min_time / t) + 1))


def time_step(step: Callable[[], object], repeat: int, min_time: float) -> float:
    """Best time of one call of ``step``, in seconds.

    Args:
        step: the zero-argument callable.
        repeat: how many timed runs to take the best of.
        min_time: each timed run calls ``step`` enough times to last about this long.

    Returns:
        Seconds per call (best run).
    """
    return time_steps([step], repeat, min_time)[0]


def time_steps(steps: Sequence[Callable[[], object]], repeat: int, min_time: float) -> list:
    """Best times of several steps, measured in alternation so that a change in machine load
    affects them alike (the ratios are what the bench reports).

    Args:
        steps: zero-argument callables.
        repeat: best of this many timed runs of each.
        min_time: seconds per timed run.

    Returns:
        Seconds per call of each step.
    """
    cal = [_calibrate(s, min_time) for s in steps]
    best = [c[2] for c in cal]
    for _ in range(max(repeat - 1, 0)):
        for i, (timer, number, _t) in enumerate(cal):
            best[i] = min(best[i], timer.timeit(number) / number)
    return best


def run(workloads: Sequence[Workload] | None = None, repeat: int = 5, min_time: float = 0.05,
        others: bool = True, log: Callable[[str], None] | None = None) -> list:
    """Times each workload in NumPy, twinflow and (optionally) other frameworks.

    Args:
        workloads: the workloads (default: all of ``WORKLOADS``).
        repeat: best of this many timed runs.
        min_time: seconds per timed run (the number of calls is calibrated to it).
        others: also time TensorFlow/PyTorch/JAX where importable and the workload has them.
        log: called with a line of progress per workload.

    Returns:
        A list of Result.
    """
    results = []
    modules = {n: optional_module(n) for n in OTHER_FRAMEWORKS} if others else {}
    for w in WORKLOADS if workloads is None else workloads:
        if log:
            log(f"  running {w.label} ...")
        r = Result(w)
        try:
            inputs = w.setup()
            if w.numpy is None:
                r.twinflow_s = time_step(w.twinflow(inputs, w.mode), repeat, min_time)
            else:
                r.numpy_s, r.twinflow_s = time_steps(
                    [w.numpy(inputs), w.twinflow(inputs, w.mode)], repeat, min_time)
        except Exception as e:  # noqa: BLE001 - a broken workload is reported, not fatal
            r.error = f"{type(e).__name__}: {e}".splitlines()[0][:90]
        for name, factory in w.others.items():
            mod = modules.get(name)
            if mod is None or r.error:
                continue
            try:
                r.others_s[name] = time_step(factory(mod, w.setup()), repeat, min_time)
            except Exception:  # noqa: BLE001 - other frameworks are best effort
                pass
        results.append(r)
    return results


def format_time(seconds: float | None) -> str:
    """``1.23 µs``-style text.

    Args:
        seconds: a duration, or None.

    Returns:
        The text (``-`` for None).
    """
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _target_text(w: Workload) -> str:
    if w.target_us is not None:
        return f"< {format_time(w.target_us * 1e-6)}"
    if w.target is not None:
        return f"<= {w.target:g}x"
    return ""


def format_report(results: Sequence[Result], repeat: int) -> str:
    """The report table.

    Args:
        results: from ``run``.
        repeat: the repeat count used (shown in the header).

    Returns:
        The text, one row per workload.
    """
    lines = [f"twinflow {tw.__version__} bench  (NumPy {np.__version__}, Python "
             f"{platform.python_version()}; best of {repeat}; {_timer[0]} time; ratio = time / "
             "NumPy time, same process)",
             f"{'workload':<22} {'numpy':>10} {'twinflow':>10} {'ratio':>7}  {'target':<10} "
             f"{'':<4} others"]
    for r in results:
        w = r.workload
        if r.error:
            lines.append(f"{w.label:<22} {format_time(r.numpy_s):>10} {'error':>10} "
                         f"{'-':>7}  {_target_text(w):<10} {'':<4} {r.error}")
            continue
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        status = {True: "ok", False: "MISS", None: ""}[r.met]
        extra = "  ".join(f"{name} {t / r.numpy_s:.2f}x" for name, t in r.others_s.items()
                          if r.numpy_s)
        lines.append(f"{w.label:<22} {format_time(r.numpy_s):>10} "
                     f"{format_time(r.twinflow_s):>10} {ratio:>7}  {_target_text(w):<10} "
                     f"{status:<4} {extra}".rstrip())
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``twinflow bench [--quick] [--repeat N] [--only a,b] [--mode M]
    [--timer wall|cpu]``, or ``twinflow bench --mpi [N]`` (data-parallel training on N MPI
    workers against one).

    Args:
        argv: arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status (0).
    """
    p = argparse.ArgumentParser(prog="twinflow bench", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="short runs (best of 2, ~5 ms each)")
    p.add_argument("--repeat", type=int, default=None, help="best of N timed runs (default 5)")
    p.add_argument("--min-time", type=float, default=None,
                   help="seconds per timed run (default 0.05; --quick 0.005)")
    p.add_argument("--only", default="", help="comma-separated workload names")
    p.add_argument("--mode", default="all", help="eager, function or all (default)")
    p.add_argument("--no-others", action="store_true",
                   help="skip TensorFlow/PyTorch/JAX even if importable")
    p.add_argument("--timer", choices=sorted(TIMERS), default="wall",
                   help="wall: elapsed time (default); cpu: the process's CPU time, all threads "
                        "together (steadier on a busy machine; hides multi-thread gains)")
    p.add_argument("--mpi", type=int, nargs="?", const=2, default=None, metavar="N",
                   help="instead: data-parallel MLP training on N (default 2) MPI workers vs 1 "
                        "(needs mpiexec: twinflow[distributed])")
    args = p.parse_args(argv)
    if args.mpi is not None:
        results = run_mpi_bench(workers=args.mpi, repeat=args.repeat or 5,
                                steps=10 if args.quick else 30)
        print(format_mpi_report(results))
        return 0
    _timer[0] = args.timer
    repeat = args.repeat or (2 if args.quick else 5)
    min_time = args.min_time if args.min_time is not None else (0.005 if args.quick else 0.05)
    names = {n.strip() for n in args.only.split(",") if n.strip()}
    chosen = [w for w in WORKLOADS if (not names or w.name in names)
              and (args.mode == "all" or w.mode == args.mode)]
    if names - {w.name for w in WORKLOADS}:
        p.error(f"unknown workloads: {sorted(names - {w.name for w in WORKLOADS})}; known: "
                f"{sorted({w.name for w in WORKLOADS})}")
    try:
        results = run(chosen, repeat=repeat, min_time=min_time, others=not args.no_others,
                      log=lambda s: print(s, file=sys.stderr, flush=True))
        print(format_report(results, repeat))
    finally:
        _timer[0] = "wall"
    return 0
