"""The files of a games directory: where each game's file, backup, temporary file and lock file
are, the advisory locks (``flock``; ``msvcrt`` on Windows), bounded reads, atomic writes
(a temporary file in the same directory, flushed, fsynced and renamed over the old version,
then the directory fsynced; the previous version kept as ``<file>.bak``), and the sweeping up
of the temporary and lock files that killed processes leave behind (:meth:`_GameFiles._sweep`).

Who owns which file, which is what makes sweeping safe:

* ``.<id>.lock``: the lock of game ``<id>.json``. A window holds it (``flock``, exclusive)
  for as long as it plays the game, and every write of the game's files is made under it.
  A lock file may be removed only by a process that holds it; so whoever takes a lock checks,
  once it holds it, that the file it locked is still the one at that path (:func:`_is_current`)
  and starts again if not, and no two processes can ever hold "the" lock of one game.
* ``.<id>.json.tmp`` and ``.<id>.json.bak.tmp``: the game's new version and its backup on
  their way, written only by the holder of the game's lock. Whoever holds the lock owns them.
* ``.<name>.<pid>.<hex>.tmp`` (:func:`_owned_tmp`, for files written without a game's lock,
  such as the listing's cache): the writer's process id is in the name.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import secrets
import stat
import sys
import threading
import time
from collections.abc import Iterable, Iterator
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
# A temporary file named with the id of a live process, but this old, is not being written
# (writes take milliseconds): its process id has been given to another process since.
STALE_TMP_AGE = 3600.0


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


def _is_current(fd: int, lock: Path) -> bool:
    """The open lock file ``fd`` is still the file at ``lock``: nobody removed it (a sweep,
    or a game being deleted) between our opening it and our locking it."""
    try:
        there = os.stat(lock)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: as before this check
    mine = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


# The temporary files this process is writing now (_owned_tmp): not to be swept by its own
# threads (or by a later process given the same id, once they are done).
_WRITING: set[str] = set()
_WRITING_LOCK = threading.Lock()
_OWNED_TMP = re.compile(r"\..+\.(\d+)\.[0-9a-f]+\.tmp")


@contextlib.contextmanager
def _owned_tmp(path: Path) -> Iterator[Path]:
    """A temporary file for ``path`` that names its writer, ``.<name>.<pid>.<hex>.tmp``, for
    files written without a game's lock. While the block runs it is known to be in use."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(3)}.tmp")
    with _WRITING_LOCK:
        _WRITING.add(tmp.name)
    try:
        yield tmp
    finally:
        with _WRITING_LOCK:
            _WRITING.discard(tmp.name)


def _writer_gone(path: Path, pid: int) -> bool:
    """No live process is writing ``path``, the temporary file of process ``pid``.

    This process: when none of its threads is writing it (it is left from an earlier process
    that had the same id). Another process: when no process has that id any more (on this
    machine), or when the file has not changed for STALE_TMP_AGE (the id has been reused)."""
    if pid == os.getpid():
        with _WRITING_LOCK:
            return path.name not in _WRITING
    if pid > 0 and sys.platform != "win32":  # os.kill would end the process on Windows
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass  # it lives (as another user)
    try:
        return time.time() - os.lstat(path).st_mtime > STALE_TMP_AGE
    except OSError:
        return False


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


def _fsync_dir(directory: Path | str) -> None:
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


def _unlink_quietly(path: Path | str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


@functools.lru_cache(maxsize=512)
def _names(path: Path) -> tuple[str, str, str, str, str]:
    """The files of game ``path`` as a save names them: the game, its temporary file, its
    backup, the backup's temporary file, and the folder (pathlib builds each name anew, which
    cost more than the system calls that use them)."""
    folder = os.fspath(path.parent)
    name = path.name
    return (os.path.join(folder, name), os.path.join(folder, f".{name}.tmp"),
            os.path.join(folder, f"{name}.bak"), os.path.join(folder, f".{name}.bak.tmp"),
            folder)


class _GameFiles:
    """The files of the saved games in directory ``root``: their paths, locks and writes."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._swept = False  # the folder was swept by this store (_sweep)

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
        self._sweep(names)
        # temporary and lock files start with a dot: never games, never shown
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
        deadline = time.monotonic() + LOCK_WAIT
        for _ in range(100):
            fd = self._open_lock(lock, create)
            while True:
                try:
                    _lock_nb(fd)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        os.close(fd)
                        raise GameInUseError(path) from None
                    time.sleep(0.02)
                except OSError:
                    os.close(fd)
                    raise
            if _is_current(fd, lock):
                return fd
            os.close(fd)  # its holder removed it meanwhile: lock the file there now
        raise GameInUseError(path)  # pragma: no cover - removed a hundred times in a row

    @staticmethod
    def _open_lock(lock: Path, create: bool) -> int:
        try:
            return os.open(lock, os.O_RDWR | _CLOEXEC | (os.O_CREAT if create else 0), 0o644)
        except OSError as e:
            if e.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
            try:
                return os.open(lock, _RDONLY)  # flock works on read-only files
            except FileNotFoundError:  # none to lock, and none can be made (saves copied
                raise e from None  # onto read-only media): the folder's problem

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

    # -------------------------------------------------------------- sweeping up
    def _sweep_once(self) -> None:
        """Sweep the folder (:meth:`_sweep`) if this store has not listed it yet."""
        if self._swept:
            return
        try:
            names = os.listdir(self.root)
        except OSError:
            return
        self._sweep(names)

    def _sweep(self, names: Iterable[str]) -> None:
        """Remove the temporary and lock files that processes killed while saving left in the
        folder (``names``: its files); never one that a live process holds. Best effort and
        silent: a folder that cannot be written keeps them, and the games are never touched.

        * A game's temporary files (``.<id>.json.tmp``, ``.<id>.json.bak.tmp``) are written
          only under the game's lock: they are removed while holding that lock, so no live
          window is writing them (one that holds the lock keeps them, and its game).
        * A lock file whose game has no file (``.<id>.lock`` without ``<id>.json`` or its
          backup: a new game whose first save never completed) is removed while holding it,
          after checking again under the lock that the game has no file. A lock that is held
          is left alone; one whose game exists stays (every window that opens the game uses
          it). Takers of a lock check that they hold the file still there (:func:`_is_current`).
        * A temporary file named with its writer's process id (:func:`_owned_tmp`) is removed
          when that writer is gone (:func:`_writer_gone`)."""
        self._swept = True
        present = set(names)
        games: set[str] = set()
        for name in present:
            if not name.startswith("."):
                continue
            if name.endswith(".tmp"):
                inner = name[1:-4]
                if inner.endswith((".json", ".json.bak")):
                    games.add(_stem(Path(inner)))
                    continue
                owned = _OWNED_TMP.fullmatch(name)
                if owned is not None and _writer_gone(self.root / name, int(owned[1])):
                    _unlink_quietly(self.root / name)
            elif name.endswith(".lock"):
                stem = name[1:-5]
                if f"{stem}.json" not in present and f"{stem}.json.bak" not in present:
                    games.add(stem)
        for stem in sorted(games):
            if stem and not stem.startswith(".") and os.sep not in stem:
                self._sweep_game(self._path(stem))

    def _sweep_game(self, path: Path) -> None:
        """Remove the temporary files of game ``path``, and its lock if it has no file, unless
        a live process holds its lock."""
        lock = self._lock_path(path)
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | _CLOEXEC, 0o644)
        except OSError:
            return  # a folder that cannot be written: nothing can be removed from it either
        try:
            try:
                _lock_nb(fd)
            except OSError:
                return  # held: a window plays (or saves) this game, and owns its files
            if not _is_current(fd, lock):
                return  # removed meanwhile by its holder: nothing is left to sweep
            for tmp in (self._tmp(path), self._tmp(self._backup(path))):
                _unlink_quietly(tmp)
            if not os.path.lexists(path) and not os.path.lexists(self._backup(path)):
                _unlink_quietly(lock)  # while holding it; takers check _is_current
        finally:
            os.close(fd)

    # -------------------------------------------------------------- atomic writes
    def _commit(self, slot: SaveSlot, payload: bytes) -> None:
        path = slot.path
        game, tmp, bak, bak_tmp, folder = _names(path)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _CLOEXEC | _BINARY,
                         0o644)
            try:
                _write_all(fd, payload)
                os.fsync(fd)
            finally:
                os.close(fd)
            if slot._main == "ours":
                self._keep_backup(game, bak, bak_tmp)
            elif slot._main == "damaged" and os.path.lexists(game):
                self._keep_damaged(path)
            os.replace(tmp, game)
            _fsync_dir(folder)
        except OSError as e:
            _unlink_quietly(tmp)
            raise _write_error(e, path) from e
        slot._main = "ours"

    def _keep_backup(self, game: str, bak: str, bak_tmp: str) -> None:
        """Make the current (good) version of ``game`` its backup ``bak``: hard-linked as
        ``bak_tmp``, renamed over ``bak``. Best effort: a game file that is not there (deleted
        by hand since) keeps the backup it had. A ``bak_tmp`` left by a process killed while
        saving is replaced (looked for only when it is in the way: a save makes no call for
        it otherwise)."""
        try:
            try:
                os.link(game, bak_tmp)
            except FileExistsError:
                _unlink_quietly(bak_tmp)
                os.link(game, bak_tmp)
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
