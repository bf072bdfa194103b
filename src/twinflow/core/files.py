"""Atomic file writes: the one way twinflow replaces a file or a directory on disk.

Every save (checkpoints, ``save_weights``, ``model.save``, the ``checkpoint`` state file) goes
through ``atomic_write`` (one file), ``atomic_write_dir`` (a directory of files) or
``atomic_write_group`` (several files that must change together, e.g. TensorFlow's
``.index`` + ``.data-*`` pair):

1. the new content goes to a temporary file *in the same directory* (a rename across file
   systems is not atomic), named ``.<target>.tw-tmp-<pid>-<machine><random>``;
2. it is flushed and ``fsync``-ed, so the rename cannot reach the disk before the data;
3. ``os.replace`` moves it over the target (atomic on POSIX and Windows);
4. the directory is ``fsync``-ed, so the rename itself survives a power loss.

A save that fails removes its temporary file. A save that is killed cannot, so each save first
removes the stale temporary files of that directory: those whose process (the ``<pid>`` in the
name) is gone, or is this process but no longer writing them (another machine's, on a shared
file system, only once a day old). Only names with the ``.tw-tmp-``
/ ``.tw-old-`` marks are ever touched, so files twinflow did not write are never deleted.

Temporary files get the permissions of a plain ``open(path, 'w')`` (0o666 less the umask), not
the 0o600 of ``tempfile.mkstemp``.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any

TEMP_MARK = ".tw-tmp-"
OLD_MARK = ".tw-old-"
_STALE = re.compile(
    r"^\.(?P<target>.+)\.tw-(?P<kind>tmp|old)-(?P<pid>\d+)-(?P<host>[0-9a-f]{8})"
    r"(?P<token>[0-9a-f]{12})$")
# Which machine wrote a temporary file (a folder on a network file system may be shared): a
# process id says whether the writer is alive only on the same machine.
_NODE = os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")
_HOST = f"{zlib.crc32(_NODE.encode()):08x}"
# Another machine's temporary files count as stale once they are this old (seconds).
FOREIGN_STALE_AFTER = 24 * 3600
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
_active: set = set()          # temporary paths this process is writing right now
_active_lock = threading.Lock()


def temp_path(path: str, kind: str = "tmp", token: str | None = None) -> str:
    """A fresh, recognisable sibling name for ``path``: ``.<name>.tw-<kind>-<pid>-<hex>``.

    Args:
        path: the file or directory being written.
        kind: ``"tmp"`` (new content) or ``"old"`` (a previous version kept aside).
        token: the ``<hex>`` part (12 hex digits) shared by the files of one group save
            (``atomic_write_group``); None draws a fresh one.

    Returns:
        The path of the temporary sibling (not created).
    """
    directory, name = os.path.split(os.path.abspath(path))
    token = os.urandom(6).hex() if token is None else token
    return os.path.join(directory, f".{name}.tw-{kind}-{os.getpid()}-{_HOST}{token}")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists but belongs to someone else: leave its files alone
    return True


def _stale(path: str, pid: int, host: str) -> bool:
    """Whether the temporary file ``path`` of process ``pid`` on ``host`` is abandoned."""
    if host != _HOST:
        try:
            return time.time() - os.lstat(path).st_mtime > FOREIGN_STALE_AFTER
        except OSError:
            return False
    return pid == os.getpid() or not _alive(pid)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)


def _leftovers(directory: str) -> dict:
    """The temporary files in ``directory`` by save: (pid, host, token) -> [(kind, path,
    target)]. The files of one ``atomic_write_group`` share their key."""
    try:
        names = os.listdir(directory)
    except OSError:
        return {}
    groups: dict = {}
    for name in sorted(names):
        m = _STALE.match(name)
        if m is not None:
            key = (int(m.group("pid")), m.group("host"), m.group("token"))
            groups.setdefault(key, []).append((m.group("kind"), os.path.join(directory, name),
                                               os.path.join(directory, m.group("target"))))
    return groups


def _swapping(group: list) -> bool:
    """Whether a group save stopped mid-swap: previous versions are kept aside and some new
    file is not in place yet (its targets may be a mix of old and new)."""
    kinds = {kind for kind, _, _ in group}
    return kinds == {"tmp", "old"}


def clean_stale(directory: str) -> list:
    """Removes the temporary files that killed saves left in ``directory``.

    A previous version (``.tw-old-``) whose save was killed before the new version took its
    place is moved back instead, so the old save is what loads; so is every previous version
    of a group save (``atomic_write_group``) killed mid-swap.

    Args:
        directory: the folder about to receive a save.

    Returns:
        The names removed or restored.
    """
    done = []
    for (pid, host, _), group in _leftovers(directory).items():
        with _active_lock:
            busy = any(path in _active for _, path, _ in group)
        stale = [g for g in group if _stale(g[1], pid, host)]
        swapping = _swapping(group)
        if busy or (swapping and len(stale) < len(group)):
            continue  # a swap is undone as a whole, once nothing of it is in use
        # Previous versions first: until they are back, the temporary files mark the swap.
        for kind, path, target in sorted(stale, key=lambda g: g[0] != "old"):
            if kind == "old" and (swapping or not os.path.lexists(target)):
                with contextlib.suppress(OSError):
                    _restore(path, target)
                    done.append(os.path.basename(path))
                continue
            _remove(path)
            done.append(os.path.basename(path))
    if done:
        fsync_dir(directory)
    return done


def committed_paths(paths: list) -> list:
    """Where to read each file of a group save (``atomic_write_group``) now: the file itself,
    or its previous version while a swap is under way or was interrupted. Touches nothing.

    Args:
        paths: the group's files.

    Returns:
        A path to read for each of ``paths``, in order.
    """
    out = [os.fspath(p) for p in paths]
    paths = [os.path.abspath(p) for p in out]
    for directory in {os.path.dirname(p) for p in paths}:
        for group in _leftovers(directory).values():
            swapping = _swapping(group)
            for kind, path, target in group:
                if kind == "old" and target in paths and \
                        (swapping or not os.path.lexists(target)):
                    out[paths.index(target)] = path
    return out


def recover(path: str) -> None:
    """Restores ``path`` from the previous version a killed directory save left aside.

    Args:
        path: a saved directory that may be missing after a killed save.
    """
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.lexists(path) and os.path.isdir(directory):
        clean_stale(directory)


def fsync_dir(directory: str) -> None:
    """Flushes a directory's entries (new and renamed names) to disk; a no-op on Windows.

    Args:
        directory: the directory.
    """
    if os.name == "nt":
        return
    fd = os.open(directory or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _claimed(path: str) -> Iterator[str]:
    with _active_lock:
        _active.add(path)
    try:
        yield path
    finally:
        with _active_lock:
            _active.discard(path)


@contextlib.contextmanager
def atomic_open(path: str) -> Iterator[IO[bytes]]:
    """Opens a temporary file for binary writing that replaces ``path`` when the block ends.

    If the block raises, ``path`` is untouched and the temporary file is removed.

    Args:
        path: the file to (re)write.

    Returns:
        A context manager yielding the open temporary file.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    clean_stale(directory)
    tmp = temp_path(path)
    with _claimed(tmp):
        fd = os.open(tmp, _FLAGS, 0o666)  # O_EXCL: never someone else's file
        try:
            with os.fdopen(fd, "wb") as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(tmp)
            raise
    fsync_dir(directory)


def atomic_write(path: str, write: Callable[[IO[bytes]], Any] | bytes) -> None:
    """Writes ``path`` atomically: the old content or the new, never a mix or nothing.

    Args:
        path: the file to write.
        write: the bytes to write, or a function called with the open temporary file.
    """
    with atomic_open(path) as f:
        if isinstance(write, (bytes, bytearray, memoryview)):
            f.write(write)
        else:
            write(f)


@contextlib.contextmanager
def atomic_dir(path: str) -> Iterator[str]:
    """Yields a new, empty temporary folder that replaces the directory ``path`` as a whole
    when the block ends (files can be streamed into it one at a time).

    The new directory is synced beside ``path``; the old one is renamed aside, the new one
    takes its name, then the old one is deleted. A save killed between the two renames leaves
    the old version aside, which ``recover`` (called by loaders) and the next save into the
    folder move back. If the block raises, ``path`` is untouched and the folder is removed.

    Args:
        path: the directory to write.

    Returns:
        A context manager yielding the temporary folder's path.
    """
    path = os.path.abspath(os.fspath(path))
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    clean_stale(parent)
    tmp, old = temp_path(path), temp_path(path, "old")
    with _claimed(tmp), _claimed(old):
        moved = False
        os.mkdir(tmp, 0o777)
        try:
            yield tmp
            fsync_dir(tmp)
            if os.path.lexists(path):
                os.replace(path, old)
                moved = True
            os.replace(tmp, path)
        except BaseException:
            if moved and not os.path.lexists(path):
                os.replace(old, path)
                moved = False
            _remove(tmp)
            raise
        try:
            fsync_dir(parent)
        finally:
            if moved:
                remove_replaced(old)


def atomic_write_dir(path: str, files: dict) -> None:
    """Writes ``files`` (name -> bytes) as the directory ``path``, replacing it as a whole
    (see ``atomic_dir``).

    Args:
        path: the directory to write.
        files: file name -> content.
    """
    with atomic_dir(path) as tmp:
        for name, data in files.items():
            _write_synced(os.path.join(tmp, name), data)


def remove_replaced(old: str) -> None:
    """Deletes the previous version of a directory save once the new one is in place, retried
    once if removal fails half-way (what is still left is stale; the next save removes it).

    Args:
        old: the previous version's path (a ``.tw-old-`` sibling).
    """
    for _ in range(2):
        try:
            _remove(old)
        except OSError:
            continue
        if not os.path.lexists(old):
            break


def atomic_write_group(files: dict) -> None:
    """Replaces several files as one save: a load sees all the old files or all the new ones.

    Each new file is written and synced under a ``.tw-tmp-`` name; each existing file is kept
    under a ``.tw-old-`` name (a hard link, or a rename where links are not supported); then
    the new files take their names in order (the last one completes the save), the folder is
    synced and the previous versions are deleted. Every name of one save shares its token,
    so after a kill mid-swap ``committed_paths`` reads the previous versions and
    ``clean_stale`` (the next save) moves them back. A save that fails restores them.

    Args:
        files: path -> bytes, in the order the new files should take their names.
    """
    paths = {os.path.abspath(os.fspath(p)): data for p, data in files.items()}
    parents = sorted({os.path.dirname(p) for p in paths})
    for parent in parents:
        os.makedirs(parent, exist_ok=True)
        clean_stale(parent)
    token = os.urandom(6).hex()
    tmps = {p: temp_path(p, token=token) for p in paths}
    olds = {p: temp_path(p, "old", token=token) for p in paths}
    with contextlib.ExitStack() as claims:
        for name in [*tmps.values(), *olds.values()]:
            claims.enter_context(_claimed(name))
        kept, placed = [], 0
        try:
            for path, data in paths.items():
                _write_synced(tmps[path], data)
            for path in paths:
                if os.path.lexists(path):
                    _keep(path, olds[path])
                    kept.append(path)
            for parent in parents:
                fsync_dir(parent)
            for path in paths:
                os.replace(tmps[path], path)
                placed += 1
        except BaseException:
            if placed < len(paths):  # not complete: the previous versions come back first
                for path in kept:
                    _restore(olds[path], path)
            for tmp in tmps.values():
                with contextlib.suppress(OSError):
                    os.remove(tmp)
            raise
        try:
            for parent in parents:
                fsync_dir(parent)
        finally:
            for path in kept:
                remove_replaced(olds[path])


def _write_synced(path: str, data: bytes) -> None:
    fd = os.open(path, _FLAGS, 0o666)  # O_EXCL: never someone else's file
    try:
        f = os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise
    with f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _restore(old: str, path: str) -> None:
    """Moves the previous version ``old`` back to ``path``. A hard link of the file still at
    ``path`` is removed instead: renaming one link of a file onto another does nothing."""
    try:
        same = os.path.samefile(old, path)
    except OSError:
        same = False
    if same:
        os.remove(old)
    else:
        os.replace(old, path)


def _keep(path: str, old: str) -> None:
    """Keeps ``path``'s current version as ``old``: a hard link (``path`` stays readable), or
    a rename where the file system has no links."""
    try:
        os.link(path, old)
    except OSError:
        os.rename(path, old)
