"""The problems of saving and loading: :class:`SaveError` (a message for players) and the
package-internal reason why a file is not a readable save (:class:`_Unreadable`)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Literal

ErrorKind = Literal["disk_full", "read_only", "permission", "io", "in_use", "unreadable",
                    "not_found", "cannot_save", "invalid"]


class SaveError(Exception):
    """A saving or loading problem. ``str(err)`` is a message for players; ``kind`` says which
    problem it is (``disk_full``, ``read_only``, ``permission``, ``io``, ``in_use``,
    ``unreadable``, ``not_found``, ``cannot_save``, ``invalid``)."""

    def __init__(self, message: str, kind: ErrorKind = "io", path: Path | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind: ErrorKind = kind
        self.path = path


class GameInUseError(SaveError):
    """The game is being played in another window (its lock is held)."""

    def __init__(self, path: Path) -> None:
        super().__init__("This game is open in another window. Finish or close it there, or "
                         "open it here read-only.", "in_use", path)


class _Unreadable(Exception):
    """Why a file is not a readable save (a reason for players, without a full stop)."""

    newer = False  # written by a newer casino-tui: not damaged, so no backup replaces it


class _Newer(_Unreadable):
    newer = True


def _write_error(err: OSError, path: Path) -> SaveError:
    """The player's message for a failed write of ``path``: why, the folder, what to do."""
    folder = path.parent if path.suffix else path
    code = err.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        return SaveError("The disk is full: your game could not be saved. Play continues; "
                         f"free some space to save again. The saves are in {folder}.",
                         "disk_full", path)
    if code == errno.EROFS:
        return SaveError(f"The save folder {folder} is read-only: your game could not be "
                         "saved. Play continues; make the folder writable (or choose another "
                         "with --data-dir) and it is saved again after the next move.",
                         "read_only", path)
    if code in (errno.EACCES, errno.EPERM):
        return SaveError(f"casino-tui may not write in {folder}: your game could not be saved. "
                         "Play continues; give yourself write permission on it (or choose "
                         "another folder with --data-dir) and it is saved again after the "
                         "next move.", "permission", path)
    blocker = file_in_the_way(folder) if code in (errno.ENOTDIR, errno.EEXIST) else None
    if blocker is not None:
        return SaveError(f"The save folder {folder} cannot be made: {blocker} is a file, not a "
                         "folder. Play continues; move that file away (or choose another "
                         "folder with --data-dir) to save again.", "io", path)
    what = err.strerror or str(err)
    return SaveError(f"Your game could not be saved ({what}) in {folder}. Play continues; it is "
                     "saved again after the next move that can be written.", "io", path)


def file_in_the_way(folder: Path) -> Path | None:
    """The file (not a folder) standing where ``folder`` or one of its parents should be."""
    for p in (folder, *folder.parents):
        if p.is_dir():
            return None
        if p.exists():
            return p
    return None
