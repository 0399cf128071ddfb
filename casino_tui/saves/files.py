"""The files of a games directory: where each game's file, backup, temporary file and lock file
are, the advisory locks (``flock``; ``msvcrt`` on Windows), bounded reads, and atomic writes
(a temporary file in the same directory, flushed, fsynced and renamed over the old version,
then the directory fsynced; the previous version kept as ``<file>.bak``)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import time
from pathlib import Path

from casino_tui.saves.errors import (
    GameInUseError,
    SaveError,
    _Unreadable,
    _write_error,
    file_in_the_way,
)
from casino_tui.saves.records import SaveSlot, _stem

if sys.platform == "win32":  # pragma: no cover - locks by msvcrt byte-range locking
    import msvcrt
else:
    import fcntl

# A long six-player game is about 10 kB; anything this large is not a save (and is not read).
MAX_SAVE_BYTES = 2 * 1024 * 1024
LOCK_WAIT = 0.25  # seconds to retry a busy lock (another window may be only listing games)


# os.open flags that only some systems have
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO named *.json must not hang
_BINARY = getattr(os, "O_BINARY", 0)
_RDONLY = os.O_RDONLY | _CLOEXEC | _BINARY


def _lock_nb(fd: int, *, shared: bool = False) -> None:
    """Lock an open lock file without waiting; BlockingIOError if another holder has it."""
    if sys.platform == "win32":  # pragma: no cover
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as e:
            raise BlockingIOError(errno.EAGAIN, "locked") from e
    else:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)


def _read_limited(path: Path) -> bytes:
    """The file's bytes; raises _Unreadable for non-files and files over the size limit
    (read no further than the limit) and OSError for I/O problems."""
    fd = os.open(path, _RDONLY | _NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Unreadable("it is not a regular file")
        if st.st_size > MAX_SAVE_BYTES:
            raise _Unreadable(f"the file is too large to be a saved game ({_size(st.st_size)}; "
                              f"saves are at most {_size(MAX_SAVE_BYTES)})")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 16, MAX_SAVE_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > MAX_SAVE_BYTES:
                raise _Unreadable("the file is too large to be a saved game (it grew past "
                                  f"{_size(MAX_SAVE_BYTES)} while being read)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    return f"{n / 1024:.1f} kB" if n >= 1024 else f"{n} bytes"


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _fsync_dir(directory: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - directories cannot be fsynced there
        return
    try:
        fd = os.open(directory, _RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # some systems cannot open directories; the rename is done regardless
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


class _GameFiles:
    """The files of the saved games in directory ``root``: their paths, locks and writes."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    # -------------------------------------------------------------- paths
    def _path(self, game_id: str) -> Path:
        return self.root / f"{game_id}.json"

    @staticmethod
    def _backup(path: Path) -> Path:
        return path.with_name(path.name + ".bak")

    @staticmethod
    def _tmp(path: Path) -> Path:
        return path.with_name(f".{path.name}.tmp")

    def _lock_path(self, path: Path) -> Path:
        return path.with_name(f".{_stem(path)}.lock")

    def _in_store(self, path: Path) -> bool:
        if not path.name.endswith(".json") or path.name.startswith("."):
            return False
        try:
            return path.parent.resolve() == self.root.resolve()
        except OSError:
            return False

    def _game_files(self) -> list[Path]:
        try:
            names = os.listdir(self.root)
        except FileNotFoundError:
            return []
        except OSError as e:
            blocker = file_in_the_way(self.root)
            why = (f"{blocker} is a file, not a folder. Move that file away or choose another "
                   "folder with --data-dir" if blocker is not None else e.strerror or str(e))
            raise SaveError(f"The saved games in {self.root} cannot be listed ({why}).", "io",
                            self.root) from e
        mains = {n for n in names if n.endswith(".json") and not n.startswith(".")}
        # a backup whose game file is missing is still a game
        mains |= {n[:-4] for n in names if n.endswith(".json.bak") and not n.startswith(".")}
        return [self.root / n for n in sorted(mains)]

    # -------------------------------------------------------------- locks
    def _acquire(self, path: Path, *, create: bool = True) -> int:
        """Lock ``path``'s game (retrying briefly); GameInUseError if another holder keeps it.
        Raises OSError if the lock file cannot be opened or created (in a read-only folder
        without lock files: the error that says why the folder cannot be written)."""
        lock = self._lock_path(path)
        try:
            fd = os.open(lock, os.O_RDWR | _CLOEXEC | (os.O_CREAT if create else 0), 0o644)
        except OSError as e:
            if e.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
            try:
                fd = os.open(lock, _RDONLY)  # flock works on read-only files
            except FileNotFoundError:  # none to lock, and none can be made (saves copied
                raise e from None  # onto read-only media): the folder's problem
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                _lock_nb(fd)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise GameInUseError(path) from None
                time.sleep(0.02)
            except OSError:
                os.close(fd)
                raise

    def _in_use(self, path: Path) -> bool:
        """Another holder (window) has the game's lock."""
        try:
            fd = os.open(self._lock_path(path), _RDONLY)
        except OSError:
            return False
        try:
            _lock_nb(fd, shared=True)
        except OSError:
            return True
        finally:
            os.close(fd)
        return False

    # -------------------------------------------------------------- atomic writes
    def _commit(self, slot: SaveSlot, payload: bytes) -> None:
        path = slot.path
        tmp = self._tmp(path)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _CLOEXEC | _BINARY,
                         0o644)
            try:
                _write_all(fd, payload)
                os.fsync(fd)
            finally:
                os.close(fd)
            if os.path.lexists(path):
                if slot._main == "damaged":
                    self._keep_damaged(path)
                elif slot._main == "ours":
                    self._keep_backup(path)
            os.replace(tmp, path)
            _fsync_dir(path.parent)
        except OSError as e:
            _unlink_quietly(tmp)
            raise _write_error(e, path) from e
        slot._main = "ours"

    def _keep_backup(self, path: Path) -> None:
        """Make the current (good) version ``<file>.bak``; best effort (hard links)."""
        bak = self._backup(path)
        bak_tmp = self._tmp(bak)
        _unlink_quietly(bak_tmp)
        try:
            os.link(path, bak_tmp)
            os.replace(bak_tmp, bak)
        except OSError:
            _unlink_quietly(bak_tmp)

    def _keep_damaged(self, path: Path) -> None:
        """Keep a damaged file as ``<id>.damaged[-N].json`` before it is replaced."""
        stem = _stem(path)
        for i in range(1, 1000):
            keep = path.with_name(f"{stem}.damaged{'' if i == 1 else f'-{i}'}.json")
            try:
                os.link(path, keep)
                return
            except FileExistsError:
                continue
        raise OSError(errno.EEXIST, "too many damaged copies")  # pragma: no cover
