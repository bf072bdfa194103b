"""``tw.io.gfile``: file-system functions over local paths (TensorFlow's names and errors)."""
from __future__ import annotations

import glob as _glob
import os
import shutil
import stat as stat_mode
from collections.abc import Callable, Iterator
from typing import Any

from ..core.errors import AlreadyExistsError, NotFoundError


def _path(p) -> str:
    return os.fspath(p.decode() if isinstance(p, bytes) else p)


def _not_found(path: str) -> NotFoundError:
    return NotFoundError(None, None, f"{path}; No such file or directory")


def _on_existing(fn: Callable[[str], Any], path: str) -> Any:
    """``fn(path)``, a missing ``path`` raising NotFoundError."""
    try:
        return fn(path)
    except FileNotFoundError:
        raise _not_found(path) from None


class GFile:
    """A file object (``tf.io.gfile.GFile``): read/write/readline/seek, text or binary.

    Args:
        name: the path.
        mode: 'r', 'w', 'a' with optional 'b' (binary) or '+'.
    """

    def __init__(self, name, mode: str = "r") -> None:
        self.name = _path(name)
        self.mode = mode
        text = {} if "b" in mode else {"encoding": "utf-8", "newline": ""}
        self._f = _on_existing(lambda p: open(p, mode, **text), self.name)  # noqa: SIM115

    def read(self, n: int = -1) -> Any:
        """Reads ``n`` characters/bytes (all when -1).

        Args:
            n: how many characters (text mode) or bytes (binary mode).

        Returns:
            str (text mode) or bytes (binary mode).
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


def _path_test(name: str, test: Callable[[str], bool], what: str) -> Callable[[Any], bool]:
    """``gfile.<name>(path)``: ``test`` of the local path."""
    def path_test(path) -> bool:
        return test(_path(path))
    path_test.__name__ = path_test.__qualname__ = name
    path_test.__doc__ = (f"Whether ``path`` {what}.\n\nArgs:\n    path: the path.\n\n"
                         "Returns:\n    True or False.\n")
    return path_test


exists = _path_test("exists", os.path.exists, "exists")
isdir = _path_test("isdir", os.path.isdir, "is a directory")


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
    _on_existing(os.remove, _path(path))


def _source_and_destination(src, dst, overwrite: bool) -> tuple:
    a, b = _path(src), _path(dst)
    if not os.path.exists(a):
        raise _not_found(a)
    if os.path.exists(b) and not overwrite:
        raise AlreadyExistsError(None, None, f"{b}; File exists")
    return a, b


def rmtree(path) -> None:
    """Deletes a directory and everything under it.

    Args:
        path: the directory.
    """
    p = _path(path)
    if not os.path.exists(p):
        raise _not_found(p)
    shutil.rmtree(p)


def _transfer(name: str, move: Callable[[str, str], Any], what: str) -> Callable[..., None]:
    """``gfile.<name>(src, dst, overwrite=False)``: ``move`` one file to a new path."""
    def transfer(src, dst, overwrite: bool = False) -> None:
        a, b = _source_and_destination(src, dst, overwrite)
        move(a, b)
    transfer.__name__ = transfer.__qualname__ = name
    transfer.__doc__ = (f"{what} a file.\n\nArgs:\n    src: the file.\n    dst: the new path.\n"
                        "    overwrite: replace an existing ``dst``.\n")
    return transfer


rename = _transfer("rename", os.replace, "Renames")
copy = _transfer("copy", shutil.copyfile, "Copies")


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
    st = _on_existing(os.stat, _path(path))
    return FileStatistics(st.st_size, st.st_mtime_ns, stat_mode.S_ISDIR(st.st_mode))


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
