"""A file written over time that appears at its path only when closed without error
(TFRecordWriter), on top of ``core.files``' atomic writes (a recognisable temporary sibling,
fsync, rename, fsync of the directory; stale temporaries of killed writers are cleaned)."""
from __future__ import annotations

import os

from ..core.files import atomic_open, atomic_write


class AtomicFile:
    """A binary file that replaces ``path`` when closed; ``abort()`` leaves ``path`` as it was.

    Args:
        path: the final path.
    """

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)
        self._cm = atomic_open(self.path)
        self._f = self._cm.__enter__()
        self._done = False

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
        if not self._done:
            self._done = True
            self._cm.__exit__(None, None, None)

    def abort(self) -> None:
        """Drops the temporary file (the old file at ``path``, if any, stays)."""
        if not self._done:
            self._done = True
            err = RuntimeError("write aborted")
            try:
                self._cm.__exit__(RuntimeError, err, None)
            except RuntimeError as e:
                if e is not err:
                    raise

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
    atomic_write(os.fspath(path), data)
