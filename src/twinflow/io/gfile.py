"""``tw.io.gfile``: file-system functions over local paths (TensorFlow's names and errors)."""
from __future__ import annotations

import glob as _glob
import os
import shutil
from collections.abc import Iterator
from typing import Any

from ..core.errors import AlreadyExistsError, NotFoundError


def _path(p) -> str:
    return os.fspath(p.decode() if isinstance(p, bytes) else p)


def _not_found(path: str) -> NotFoundError:
    return NotFoundError(None, None, f"{path}; No such file or directory")


class GFile:
    """A file object (``tf.io.gfile.GFile``): read/write/readline/seek, text or binary.

    Args:
        name: the path.
        mode: 'r', 'w', 'a' with optional 'b' (binary) or '+'.
    """

    def __init__(self, name, mode: str = "r") -> None:
        self.name = _path(name)
        self.mode = mode
        try:
            self._f = open(self.name, mode if "b" in mode else mode, **(  # noqa: SIM115
                {} if "b" in mode else {"encoding": "utf-8", "newline": ""}))
        except FileNotFoundError:
            raise _not_found(self.name) from None

    def read(self, n: int = -1) -> Any:
        """Reads ``n`` characters/bytes (all when -1).

        Args:
            n: how many.

        Returns:
            str or bytes.
        """
        return self._f.read(n)

    def readline(self) -> Any:
        """Reads one line (with its newline).

        Returns:
            str or bytes.
        """
        return self._f.readline()

    def readlines(self) -> list:
        """All remaining lines.

        Returns:
            A list of lines.
        """
        return self._f.readlines()

    def write(self, data) -> None:
        """Writes ``data``.

        Args:
            data: str or bytes.
        """
        self._f.write(data)

    def seek(self, offset: int, whence: int = 0) -> None:
        """Moves the position.

        Args:
            offset: the offset.
            whence: 0 (start), 1 (current) or 2 (end).
        """
        self._f.seek(offset, whence)

    def tell(self) -> int:
        """The position.

        Returns:
            The offset.
        """
        return self._f.tell()

    def size(self) -> int:
        """The file's size in bytes.

        Returns:
            The size.
        """
        self._f.flush()
        return os.path.getsize(self.name)

    def flush(self) -> None:
        """Flushes written data."""
        self._f.flush()

    def close(self) -> None:
        """Closes the file."""
        self._f.close()

    def __iter__(self) -> Iterator:
        return iter(self._f)

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def exists(path) -> bool:
    """Whether ``path`` exists.

    Args:
        path: the path.

    Returns:
        True or False.
    """
    return os.path.exists(_path(path))


def isdir(path) -> bool:
    """Whether ``path`` is a directory.

    Args:
        path: the path.

    Returns:
        True or False.
    """
    return os.path.isdir(_path(path))


def glob(pattern) -> list:
    """The paths matching a glob pattern, sorted.

    Args:
        pattern: the pattern (or a list of patterns).

    Returns:
        The matching paths.
    """
    pats = pattern if isinstance(pattern, (list, tuple)) else [pattern]
    return sorted({m for p in pats for m in _glob.glob(_path(p))})


def makedirs(path) -> None:
    """Creates ``path`` and its parents (no error if it exists).

    Args:
        path: the directory.
    """
    os.makedirs(_path(path), exist_ok=True)


def mkdir(path) -> None:
    """Creates the directory ``path`` (its parent must exist).

    Args:
        path: the directory.
    """
    p = _path(path)
    try:
        os.mkdir(p)
    except FileExistsError:
        raise AlreadyExistsError(None, None, f"{p}; File exists") from None
    except FileNotFoundError:
        raise _not_found(os.path.dirname(p)) from None


def listdir(path) -> list:
    """The entries of a directory (directories without a trailing '/').

    Args:
        path: the directory.

    Returns:
        The names.
    """
    p = _path(path)
    if not os.path.isdir(p):
        raise _not_found(p)
    return sorted(os.listdir(p))


def remove(path) -> None:
    """Deletes a file.

    Args:
        path: the file.
    """
    p = _path(path)
    try:
        os.remove(p)
    except FileNotFoundError:
        raise _not_found(p) from None


def _source_and_destination(src, dst, overwrite: bool) -> tuple:
    a, b = _path(src), _path(dst)
    if not os.path.exists(a):
        raise _not_found(a)
    if os.path.exists(b) and not overwrite:
        raise AlreadyExistsError(None, None, f"{b}; File exists")
    return a, b


def rename(src, dst, overwrite: bool = False) -> None:
    """Renames a file.

    Args:
        src: the current path.
        dst: the new path.
        overwrite: replace an existing ``dst``.
    """
    a, b = _source_and_destination(src, dst, overwrite)
    os.replace(a, b)


def rmtree(path) -> None:
    """Deletes a directory and everything under it.

    Args:
        path: the directory.
    """
    p = _path(path)
    if not os.path.exists(p):
        raise _not_found(p)
    shutil.rmtree(p)


def copy(src, dst, overwrite: bool = False) -> None:
    """Copies a file.

    Args:
        src: the source.
        dst: the destination.
        overwrite: replace an existing destination.
    """
    a, b = _source_and_destination(src, dst, overwrite)
    shutil.copyfile(a, b)


class FileStatistics:
    """``stat``'s result: ``length``, ``mtime_nsec``, ``is_directory``.

    Args:
        length: size in bytes.
        mtime_nsec: modification time in nanoseconds.
        is_directory: whether it is a directory.
    """

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool) -> None:
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def stat(path) -> FileStatistics:
    """Size, modification time and kind of ``path``.

    Args:
        path: the path.

    Returns:
        A FileStatistics.
    """
    p = _path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise _not_found(p) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(p))


def walk(top, topdown: bool = True, onerror=None) -> Iterator:
    """``(dirname, subdirs, files)`` for each directory under ``top``.

    Args:
        top: the root.
        topdown: parents before children.
        onerror: called with the OSError of an unreadable directory.

    Returns:
        An iterator.
    """
    return os.walk(_path(top), topdown=topdown, onerror=onerror)


def join(path, *paths) -> str:
    """Joins path components.

    Args:
        path: the first component.
        *paths: the others.

    Returns:
        The joined path.
    """
    return os.path.join(_path(path), *[_path(p) for p in paths])


def get_registered_schemes() -> list:
    """The file-system schemes understood besides local paths (none).

    Returns:
        An empty list.
    """
    return []
