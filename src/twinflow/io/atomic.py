"""Atomic file writes: a temporary file in the same folder, fsync, rename."""
from __future__ import annotations

import os
import tempfile

TMP_PREFIX = ".twinflow-tmp-"


class AtomicFile:
    """A binary file that appears at ``path`` only when closed without error.

    Args:
        path: the final path.
    """

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(self.path))
        fd, self._tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=folder)
        self._f = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> int:
        """Writes bytes.

        Args:
            data: the bytes.

        Returns:
            The number written.
        """
        return self._f.write(data)

    def flush(self) -> None:
        """Flushes the temporary file."""
        self._f.flush()

    def close(self) -> None:
        """Syncs the data and renames the temporary file into place."""
        if self._f.closed:
            return
        try:
            self._f.flush()
            os.fsync(self._f.fileno())
        finally:
            self._f.close()
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        """Drops the temporary file (the old file at ``path``, if any, stays)."""
        if not self._f.closed:
            self._f.close()
        try:
            os.unlink(self._tmp)
        except FileNotFoundError:
            pass

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def write_atomic(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` atomically.

    Args:
        path: the file.
        data: its new contents.
    """
    with AtomicFile(path) as f:
        f.write(data)
