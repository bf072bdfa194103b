"""Kill a save at every file-system call and check that nothing is lost.

Reusable for any save path (checkpoints, ``save_weights``, ``.keras``, ``.weights.h5``...)::

    from tests.helpers.killsave import check_every_kill

    def save(value):          # writes a save whose every weight is ``value``
        ...
    def load():               # loads the save in the folder and returns its weights' value
        ...
    report = check_every_kill(folder, save, load, old=1.0, new=2.0)
    assert report.ok, report

``check_every_kill`` writes the old save, counts the file-system calls of writing the new one
(``open``/``os.open``/``fdopen``/``write``/``fsync``/``replace``/``rename``/``remove``/``unlink``/
``mkdir``/``makedirs``/``rmdir``/``rmtree``), then for every k = 1..n:

* **fail**: the k-th call raises ``OSError`` in this process; afterwards the folder must load
  the old or the new value, and hold no temporary file;
* **kill**: a forked child is ``os._exit``-ed right before its k-th call (no cleanup runs, as
  with SIGKILL or a power cut); afterwards the folder must load the old or the new value, and
  the next save (of ``old``) must remove every temporary file the kill left.

Only Python-level calls are seen: a library writing through its own C I/O (h5py writing a
path) is invisible, so such a writer should build the file in memory (``h5py.File(io.BytesIO(),
"w")``) and hand the bytes to ``twinflow.core.files.atomic_write``, whose calls are counted.

``load`` sees no patched calls. ``save``/``load`` should build fresh objects (a restarted
process), so in-memory state of the parent does not hide what is on disk.
"""
from __future__ import annotations

import builtins
import dataclasses
import io
import os
import shutil

_TEMP_MARKS = (".tw-tmp-", ".tw-old-")
_TEMP_PREFIXES = (".tmp-", ".old-")  # names older twinflow versions used
_PATCHED = [(os, "open"), (os, "fdopen"), (os, "fsync"), (os, "replace"), (os, "rename"),
            (os, "remove"), (os, "unlink"), (os, "mkdir"), (os, "makedirs"), (os, "rmdir"),
            (builtins, "open"), (io, "open"), (shutil, "rmtree")]


class _Counter:
    def __init__(self, fail_at: int | None, action: str) -> None:
        self.n = 0
        self.fail_at = fail_at
        self.action = action
        self.names: list = []

    def tick(self, name: str) -> None:
        self.n += 1
        self.names.append(name)
        if self.n == self.fail_at:
            if self.action == "kill":
                os._exit(0)  # like SIGKILL: no finally blocks, no cleanup
            raise OSError(5, f"injected failure at file-system call {self.n} ({name})")


class _File:
    """Wraps a file opened for writing so each ``write`` counts as a file-system call."""

    def __init__(self, f, counter: _Counter) -> None:
        self._f, self._counter = f, counter

    def write(self, data):
        self._counter.tick("write")
        return self._f.write(data)

    def __enter__(self):
        self._f.__enter__()
        return self

    def __exit__(self, *exc):
        return self._f.__exit__(*exc)

    def __iter__(self):
        return iter(self._f)

    def __getattr__(self, name):
        return getattr(self._f, name)


def _writing(args, kwargs) -> bool:
    mode = kwargs.get("mode", args[1] if len(args) > 1 else "r")
    return isinstance(mode, str) and any(c in mode for c in "wax+")


class _Patch:
    def __init__(self, counter: _Counter) -> None:
        self.counter = counter
        self.saved: list = []

    def __enter__(self):
        for mod, name in _PATCHED:
            real = getattr(mod, name)
            self.saved.append((mod, name, real))
            setattr(mod, name, self._wrap(name, real))
        return self.counter

    def _wrap(self, name, real):
        counter = self.counter

        def call(*args, **kwargs):
            counter.tick(name)
            out = real(*args, **kwargs)
            if name in ("open", "fdopen") and not isinstance(out, int) and \
                    _writing(args, kwargs):
                return _File(out, counter)
            return out
        return call

    def __exit__(self, *exc):
        for mod, name, real in reversed(self.saved):
            setattr(mod, name, real)


def temp_files(folder: str) -> list:
    """Temporary files and folders of saves under ``folder`` (recursively).

    Args:
        folder: the save folder.

    Returns:
        Their paths relative to ``folder``.
    """
    out = []
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            if any(m in name for m in _TEMP_MARKS) or name.startswith(_TEMP_PREFIXES):
                out.append(os.path.relpath(os.path.join(root, name), folder))
    return sorted(out)


@dataclasses.dataclass
class KillReport:
    """What ``check_every_kill`` found."""

    calls: int = 0
    lost: list = dataclasses.field(default_factory=list)        # (mode, k, call, what)
    temp_left: list = dataclasses.field(default_factory=list)   # (mode, k, call, names)
    kept_old: int = 0
    got_new: int = 0

    @property
    def ok(self) -> bool:
        return self.calls > 0 and not self.lost and not self.temp_left


def count_calls(save, value) -> list:
    """The file-system calls ``save(value)`` makes, in order."""
    with _Patch(_Counter(None, "count")) as counter:
        save(value)
    return counter.names


def _outcome(load, old, new):
    try:
        got = load()
    except Exception as e:  # noqa: BLE001  (any error means the save was lost)
        return f"load raised {type(e).__name__}: {e}"
    if got == old or got == new:
        return got
    return f"loaded {got!r}, neither the old {old!r} nor the new {new!r}"


def check_every_kill(folder: str, save, load, old=1.0, new=2.0,
                     modes: tuple = ("fail", "kill")) -> KillReport:
    """Interrupts ``save(new)`` at each of its file-system calls, over an earlier ``save(old)``.

    Args:
        folder: the folder the save writes into (checked for temporary files).
        save: writes a save of ``value`` (a callable of one argument).
        load: loads what is in the folder and returns the saved value.
        old: the value of the save that must survive.
        new: the value of the interrupted save.
        modes: ``"fail"`` (an OSError at call k) and/or ``"kill"`` (a forked child exits).

    Returns:
        A KillReport (``report.ok`` when nothing was lost and no temporary file was left).
    """
    report = KillReport()
    save(old)
    names = count_calls(save, new)
    report.calls = len(names)
    for mode in modes:
        if mode == "kill" and not hasattr(os, "fork"):
            continue
        for k in range(1, len(names) + 1):
            save(old)
            if mode == "fail":
                try:
                    with _Patch(_Counter(k, "fail")):
                        save(new)
                except OSError:
                    pass
            else:
                pid = os.fork()
                if pid == 0:  # the child: save, dying at call k
                    try:
                        with _Patch(_Counter(k, "kill")):
                            save(new)
                    finally:
                        os._exit(0)
                os.waitpid(pid, 0)
            got = _outcome(load, old, new)
            if isinstance(got, str):
                report.lost.append((mode, k, names[k - 1], got))
                continue
            report.kept_old += got == old
            report.got_new += got == new
            if mode == "kill":
                save(old)  # the next save cleans what the killed one left
                if _outcome(load, old, new) != old:
                    report.lost.append((mode, k, names[k - 1], "the next save did not load"))
            left = temp_files(folder)
            if left:
                report.temp_left.append((mode, k, names[k - 1], left))
                for name in left:  # start the next k from a clean folder
                    path = os.path.join(folder, name)
                    if os.path.isdir(path):
                        shutil.rmtree(path, ignore_errors=True)
                    elif os.path.exists(path):
                        os.remove(path)
    return report


def scratch_dir(tmp_path) -> str:
    """A fresh folder on a RAM file system when there is one (fsync is free there, which keeps
    hundreds of interrupted saves fast), else ``tmp_path``. Remove it with ``shutil.rmtree``.

    Args:
        tmp_path: pytest's ``tmp_path`` (the fallback).

    Returns:
        The folder's path.
    """
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        import tempfile
        return tempfile.mkdtemp(prefix="tw-killsave-", dir="/dev/shm")
    return str(tmp_path)
