"""What the screens say when saved games cannot be written: why, where, and what to do.

From a :class:`casino_tui.saves.SaveError` of a failed write (its ``kind``, its ``path`` and the
``OSError`` it was raised from): the short line the game table shows for as long as saving
fails, and the message for a change asked for on the Load screen or with Ctrl+S ("Renaming
failed: ..."), which must not read like the autosave's. Pure Python (no Textual).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from pathlib import Path

from casino_tui.saves import SaveError, file_in_the_way


@dataclass(frozen=True)
class WriteProblem:
    """Why a file in the saves folder could not be written, and what to do about it."""

    reason: str  # "the disk is full"
    path: Path | None  # the folder, or the file standing where a folder should be
    fix: str  # "free some space on that disk"
    elsewhere: bool = False  # saving into another folder (--data-dir) is a way out too

    def status(self) -> str:
        """The game table's line while saving fails."""
        where = f" — {self.path}" if self.path is not None else ""
        fix = self.fix + (", or choose another folder with --data-dir" if self.elsewhere else "")
        return f"Not saving: {self.reason}{where}; {fix} (saved again at the next move)"

    def failed(self, action: str) -> str:
        """``action`` ("Renaming") did not happen: why, where, what to do."""
        where = f" ({self.path})" if self.path is not None else ""
        return f"{action} failed: {self.reason}{where}. {_capital(self.fix)}, then try again."


def write_problem(err: SaveError) -> WriteProblem | None:
    """The problem behind a failed write; None when it is not the folder's (the game cannot
    be saved for another reason, it is open in another window, a file is unreadable ...)."""
    cause = err.__cause__ if isinstance(err.__cause__, OSError) else None
    code = cause.errno if cause is not None else None
    folder = None if err.path is None else (err.path.parent if err.path.suffix else err.path)
    if err.kind == "disk_full":
        return WriteProblem("the disk is full", folder, "free some space on that disk")
    if err.kind == "read_only" or code == errno.EROFS:
        return WriteProblem("the folder is read-only", folder, "make it writable", True)
    if err.kind == "permission" or code in (errno.EACCES, errno.EPERM):
        return WriteProblem("casino-tui may not write in the folder", folder,
                            "give yourself write permission on it", True)
    if code in (errno.ENOTDIR, errno.EEXIST) and folder is not None:
        blocker = file_in_the_way(folder)
        if blocker is not None:
            return WriteProblem("a file stands where the saves folder should be", blocker,
                                "move that file away", True)
    if code in (errno.ENOENT, errno.ENOTDIR) and folder is not None:
        # the folder cannot be made there (a missing parent, a special file system: /proc)
        return WriteProblem("the saves folder cannot be created there", folder,
                            "choose another folder with --data-dir (or set "
                            "CASINO_TUI_DATA_DIR)")
    if cause is not None:
        return WriteProblem(cause.strerror or str(cause), folder, "check that disk", True)
    return None


def save_status(err: SaveError) -> str:
    """The game table's line while the autosave fails."""
    problem = write_problem(err)
    if problem is not None:
        return problem.status()
    return f"Not saving: {err}"


def failure_message(action: str, err: SaveError) -> str:
    """The message for a change the player asked for (``action``: "Renaming", "Deleting",
    "Saving a copy") that could not be written; the error's own words for other problems."""
    problem = write_problem(err)
    return problem.failed(action) if problem is not None else str(err)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]

