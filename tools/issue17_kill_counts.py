"""Counts, per save path of tests/train/test_atomic_saves.py, how many interruptions (an
OSError, or a kill, at each file-system call of a save over an earlier one) lose the earlier
save or leave a temporary file: issue 17's "counts before and after".

Run from the worktree root: ``PYTHONPATH=src:. python tools/issue17_kill_counts.py`` (point
the first entry of PYTHONPATH at another checkout's ``src`` to count an older version; imports
that version lacks are dropped, and save paths it lacks are reported as such).
"""
from __future__ import annotations

import os
import shutil
import tempfile

from tests.helpers.killsave import check_every_kill

_TEST = "tests/train/test_atomic_saves.py"
_NEWER = ("from twinflow.core import files\n",
          "from twinflow.core.errors import PermissionDeniedError\n")


def main() -> None:
    """Prints one line per save path."""
    with open(_TEST) as f:
        src = f.read()
    for line in _NEWER:
        src = src.replace(line, "")
    ns: dict = {"__name__": "issue17_kill_counts"}
    exec(compile(src, _TEST, "exec"), ns)  # noqa: S102  (the project's own test file)
    scratch = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    for name in sorted(ns["SAVE_PATHS"]):
        d = tempfile.mkdtemp(dir=scratch)
        try:
            save, load = ns["SAVE_PATHS"][name](d)
            r = check_every_kill(d, save, load)
            print(f"{name}: {r.calls} calls, {2 * r.calls} interruptions: "
                  f"lost {len(r.lost)}, temporary files left {len(r.temp_left)}")
        except Exception as e:  # noqa: BLE001  (a save path the version lacks)
            print(f"{name}: cannot run ({type(e).__name__}: {str(e)[:80]})")
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
