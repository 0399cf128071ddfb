"""The store of saved games (:class:`SaveStore`): new games, autosave, loading and importing,
renaming and deleting; and which directory it is (:func:`data_dir`, :func:`open_store`).

Its listing methods come from :mod:`casino_tui.saves.listing` and its files, locks and
atomic writes from :mod:`casino_tui.saves.files`.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from casino_tui.engine import CasinoError, State
from casino_tui.saves.errors import SaveError, _Unreadable, _write_error
from casino_tui.saves.fileformat import (
    APP_NAME,
    _encode,
    _game_to_bytes,
    _Info,
    _info,
    _parse_json,
    _reason,
    _replay,
)
from casino_tui.saves.files import (
    _CLOEXEC,
    _fsync_dir,
    _is_current,
    _lock_nb,
    _read_limited,
    _unlink_quietly,
)
from casino_tui.saves.listing import SaveEntry, _GameListing
from casino_tui.saves.names import _clean_game_name, _numbered_name, game_title
from casino_tui.saves.records import (
    EARLIEST_TIME,
    LoadedGame,
    SaveSlot,
    Seat,
    _now,
    _stem,
    _usable_time,
)

DATA_ENV = "CASINO_TUI_DATA_DIR"
GAMES_SUBDIR = "games"


# ------------------------------------------------------------------------------ directories
def data_dir(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``--data-dir`` beats ``CASINO_TUI_DATA_DIR`` beats platformdirs'
    ``user_data_dir("casino-tui")``. Nothing is created."""
    if cli_value is not None and str(cli_value) != "":
        return Path(cli_value).expanduser()
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def games_dir(data: Path) -> Path:
    """Where the saved games of data directory ``data`` live."""
    return data / GAMES_SUBDIR


def open_store(cli_value: str | os.PathLike[str] | None = None) -> SaveStore:
    """The :class:`SaveStore` of the data directory chosen by :func:`data_dir`."""
    return SaveStore(games_dir(data_dir(cli_value)))


class SaveStore(_GameListing):
    """The saved games in directory ``root`` (created on the first save).

    ``clock`` and ``new_id`` may be replaced (tests, example saves); ids must be usable as file
    names. Thread-safe; every method may also be used by several processes at once.
    """

    def __init__(self, root: Path | str, *, clock: Callable[[], datetime] = _now,
                 new_id: Callable[[datetime], str] | None = None) -> None:
        super().__init__(root)
        self._clock = clock
        self._new_id = new_id or (lambda t: f"{t:%Y%m%d-%H%M%S}-{secrets.token_hex(4)}")
        self._lock = threading.Lock()
        self._open: dict[Path, SaveSlot] = {}

    # -------------------------------------------------------------- new games and saving
    def new_game(self, seats: list[Seat] | tuple[Seat, ...], name: str | None = None, *,
                 start_position: str | None = None) -> SaveSlot:
        """A slot for a new game (a new file with a unique id). Nothing is written until
        :meth:`autosave`, which the app calls right after the deal. ``start_position``: the
        game was dealt from a set-up position (see serialize.game_to_dict)."""
        if not seats:
            raise ValueError("a game needs seats")
        created = self._clock()
        return SaveSlot(self._path(self._new_id(created)), _clean_game_name(name),
                        tuple(seats), created, start_position)

    def autosave(self, slot: SaveSlot, state: State) -> None:
        """Save ``state`` into the slot's file (atomically, keeping the previous version as
        the backup). Call after the deal, after every move and after each new round.

        Raises :class:`SaveError` if the game could not be saved (full disk, read-only folder,
        ...; play continues and the next autosave tries again) and :class:`GameInUseError` if
        another window holds the game. Takes a few milliseconds (the moves are replayed to
        check the save)."""
        try:
            self._save(slot, state, self._clock())
        except SaveError as e:
            slot.last_error = e
            raise
        slot.last_error = None

    def _save(self, slot: SaveSlot, state: State, updated: datetime) -> None:
        if slot.closed:
            raise ValueError("this save slot was closed")
        if len(slot.seats) != state.num_players:
            raise ValueError(f"{len(slot.seats)} seats for a game of {state.num_players}")
        updated = _usable_time(updated) or _now()
        slot.created = _usable_time(slot.created) or updated  # a time out of range: repaired
        try:
            payload = _game_to_bytes(state, slot, updated)
        except CasinoError as e:
            raise SaveError(f"This game cannot be saved ({_reason(e)}). Play continues.",
                            "cannot_save", slot.path) from None
        with slot._mutex:
            self._lock_slot(slot)
            self._commit(slot, payload)
        self._cache.remember(payload, None)

    def _lock_slot(self, slot: SaveSlot) -> None:
        """Take the slot's lock if it does not hold it yet (a new slot reserves its id)."""
        if slot._lock_fd is not None:
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            self._sweep_once()
            while slot._main == "new":
                lock = self._lock_path(slot.path)
                try:
                    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL | _CLOEXEC, 0o644)
                except FileExistsError:  # the id is taken (practically never): pick another
                    slot.path = self._path(self._new_id(self._clock()) + secrets.token_hex(2))
                    continue
                if os.path.lexists(slot.path) or os.path.lexists(self._backup(slot.path)):
                    os.close(fd)
                    slot.path = self._path(self._new_id(self._clock()) + secrets.token_hex(2))
                    continue
                try:
                    _lock_nb(fd)
                except BlockingIOError:  # a sweep of the folder holds it for a moment, and
                    os.close(fd)  # removes it (no game file yet): make it again
                    continue
                except OSError:
                    os.close(fd)
                    raise
                if not _is_current(fd, lock):  # removed by such a sweep: make it again
                    os.close(fd)
                    continue
                slot._lock_fd = fd
                break
            else:
                slot._lock_fd = self._acquire(slot.path)
        except SaveError:
            raise
        except OSError as e:
            raise _write_error(e, slot.path) from e
        with self._lock:
            self._open[slot.path] = slot

    def save_copy(self, slot: SaveSlot, state: State, name: str | None) -> SaveEntry:
        """Save a named copy of the game (ctrl+s) as a new file; play continues in ``slot``.
        Raises :class:`SaveError`."""
        copy = self.new_game(slot.seats, name, start_position=slot.start_position)
        copy.created = slot.created
        copy.undo = slot.undo
        copy.undo_last = slot.undo_last
        try:
            self._save(copy, state, self._clock())
        finally:
            self.close(copy)
        return self.entry(copy.path)

    def close(self, slot: SaveSlot | None) -> None:
        """Release the slot's lock (the game screen closed). The file stays."""
        if slot is None:
            return
        with slot._mutex:
            slot._closed = True
            fd, slot._lock_fd = slot._lock_fd, None
        with self._lock:
            if self._open.get(slot.path) is slot:
                del self._open[slot.path]
        if fd is not None:
            os.close(fd)

    # -------------------------------------------------------------- loading
    def _resolve(self, target: SaveEntry | Path | str) -> Path:
        if isinstance(target, SaveEntry):
            return target.path
        return Path(target).expanduser()

    def load(self, target: SaveEntry | Path | str, *, read_only: bool = False) -> LoadedGame:
        """Open a saved game: read it, replay every move from the seed and check the result.

        A game of this store is locked for this window (:class:`GameInUseError` if another
        window has it: offer ``read_only=True``). A file from elsewhere (``--load FILE``) is
        imported: play continues in a new file of this store and the file itself is never
        written; the same file imported again opens its copy, unless that copy has been played
        on (then it is imported again, as "<name> (2)"). A damaged game file is replaced by
        its backup (``from_backup``). Raises :class:`SaveError` (``kind="unreadable"`` or
        ``"not_found"``) with the reason."""
        path = self._resolve(target)
        in_store = self._in_store(path)
        self._sweep_once()
        lock_fd: int | None = None
        if in_store and not read_only:
            with self._lock:
                mine = self._open.get(path)
            if mine is not None and not mine.closed:
                raise SaveError("This game is already open.", "in_use", path)
            if os.path.lexists(path) or os.path.lexists(self._backup(path)):
                # lock before reading, so that no other window saves a newer version between;
                # a read-only folder gives no lock (autosave will say that it cannot save)
                with contextlib.suppress(OSError):
                    lock_fd = self._acquire(path)
        try:
            game = self._open_game(path, in_store)
        except BaseException:
            if lock_fd is not None:
                os.close(lock_fd)
            raise
        if read_only:
            return game
        info_name, seats = game.name, game.seats
        if in_store:
            slot = SaveSlot(path, info_name, seats, game.created or self._clock(),
                            game.start_position)
            slot._main = "damaged" if game.from_backup and os.path.lexists(path) else "ours"
            slot._lock_fd = lock_fd
            slot.imported = game.imported
            slot.table = game.table
            slot.undo = game.undo
            slot.undo_last = game.undo_last
            if lock_fd is not None:
                with self._lock:
                    self._open[path] = slot
        else:
            source = self._import_source(path)
            copies = self._imported_copies(source) if source is not None else []
            for copy_path, moves in copies:
                if source is not None and moves == source["moves"]:  # not played on since
                    game = self.load(copy_path)
                    game.notice = (f"This game was copied into your saved games before: that "
                                   f"copy is opened. {path} is not changed.")
                    return game
            if copies:
                info_name = self._copy_name(info_name or game_title(
                    game.state.rules.preset_name, seats, game.state.sides,
                    game.created or self._clock()))
            slot = self.new_game(seats, info_name, start_position=game.start_position)
            slot.imported = source
            slot.undo = game.undo
            slot.undo_last = game.undo_last
            if game.created is not None:
                slot.created = game.created
            game.notice = (f"This game was copied into your saved games ({self.root}); "
                           f"{path} is not changed.")
        game.slot = slot
        return game

    def _import_source(self, path: Path) -> dict[str, Any] | None:
        """What identifies a file from elsewhere: its id (file name), the SHA-256 of its
        bytes and its number of moves (None if it cannot be read again)."""
        try:
            raw = _read_limited(path)
            moves = _parse_json(raw).get("moves")
        except (OSError, _Unreadable):
            return None
        return {"id": _stem(path), "sha256": hashlib.sha256(raw).hexdigest(),
                "moves": len(moves) if isinstance(moves, list) else 0}

    def _imported_copies(self, source: Mapping[str, Any]) -> list[tuple[Path, int]]:
        """The games of this store imported from the same file (same id, same bytes), newest
        first, with their number of moves now."""
        found: list[tuple[datetime, Path, int]] = []
        for path in self._game_files():
            try:
                info = _info(_parse_json(_read_limited(path)))
            except (OSError, _Unreadable):
                continue
            mark = info.imported
            if mark is not None and (mark["id"], mark["sha256"]) == (source["id"],
                                                                    source["sha256"]):
                found.append((info.updated or info.created or EARLIEST_TIME, path, info.moves))
        found.sort(key=lambda f: f[0], reverse=True)
        return [(p, moves) for _, p, moves in found]

    def _copy_name(self, name: str) -> str:
        """``name (2)`` (or the first free number) for another copy of a game."""
        try:
            taken = {e.name for e in self.entries(verify=False)}
        except SaveError:
            taken = set()
        return _numbered_name(name, taken)

    def _open_game(self, path: Path, in_store: bool) -> LoadedGame:
        """Read and replay ``path`` (or its backup if it is damaged); no slot yet."""
        try:
            state, info = self._read_game(path)
            source, from_backup, damage = path, False, None
        except _Unreadable as e:
            bak = self._backup(path)
            if not in_store or not os.path.lexists(bak) or e.newer:
                if not os.path.lexists(path):
                    raise SaveError(f"There is no saved game at {path}.", "not_found",
                                    path) from None
                raise SaveError(f"This saved game cannot be opened: {e}.", "unreadable",
                                path) from None
            try:
                state, info = self._read_game(bak)
            except _Unreadable:
                raise SaveError(f"This saved game cannot be opened: {e}.", "unreadable",
                                path) from None
            source, from_backup, damage = bak, True, str(e)
        notice = None
        if from_backup:
            notice = (f"The latest save of this game was damaged ({damage}). It was restored "
                      "from its backup, which may lack the last move; the damaged file is "
                      "kept.")
        return LoadedGame(state=state, seats=info.seats, name=info.name, path=source,
                          slot=None, created=info.created, updated=info.updated,
                          start_position=info.start_position, from_backup=from_backup,
                          notice=notice, imported=info.imported, table=info.table,
                          undo=info.undo, undo_last=info.undo_last)

    def _read_game(self, path: Path) -> tuple[State, _Info]:
        try:
            raw = _read_limited(path)
        except FileNotFoundError:
            raise _Unreadable("the file is missing") from None
        except OSError as e:
            raise _Unreadable(f"the file cannot be read ({e.strerror or e})") from None
        data = _parse_json(raw)
        info = _info(data)
        state = _replay(data)
        self._cache.remember(raw, None)
        return state, info

    # -------------------------------------------------------------- rename and delete
    @contextlib.contextmanager
    def _holding(self, path: Path) -> Iterator[SaveSlot | None]:
        """Hold ``path``'s lock for a change asked for by the player: this window's open slot
        if it has one (yielded), else a temporary lock."""
        with self._lock:
            mine = self._open.get(path)
        if mine is not None and not mine.closed:
            with mine._mutex:
                yield mine
            return
        try:
            fd = self._acquire(path, create=True)
        except SaveError:
            raise
        except OSError as e:
            raise _write_error(e, path) from e
        try:
            yield None
        finally:
            os.close(fd)

    def rename(self, target: SaveEntry | Path | str, name: str | None) -> SaveEntry:
        """Give a saved game a new name (None or "" removes it). The game is not changed
        otherwise; damaged files cannot be renamed. Raises :class:`SaveError`."""
        path = self._resolve(target)
        new = _clean_game_name(name)
        with self._holding(path) as mine:
            try:
                raw = _read_limited(path)
                data = _parse_json(raw)
                self._quick(path, verify=True)
            except (_Unreadable, OSError) as e:
                raise SaveError(f"This saved game cannot be renamed: {e}.", "unreadable",
                                path) from None
            extra = data.get("extra")
            data["extra"] = dict(extra) if isinstance(extra, Mapping) else {}
            data["extra"]["name"] = new
            payload = _encode(data)
            slot = mine or SaveSlot(path, new, (), self._clock(), None, _main="ours")
            self._commit(slot, payload)
            if mine is not None:
                mine.name = new
            # same verdict as before: only the name changed
            known, verdict = self._cache.verdict(hashlib.sha256(raw).hexdigest())
            if known and verdict is None:
                self._cache.remember(payload, None)
        return self.entry(path)

    def delete(self, target: SaveEntry | Path | str) -> None:
        """Delete a saved game (readable or not) and its backup: only when the player asks.
        A game open in another window cannot be deleted (:class:`GameInUseError`)."""
        path = self._resolve(target)
        if not self._in_store(path):
            raise SaveError(f"{path} is not one of the saved games in {self.root}.",
                            "invalid", path)
        with self._lock:
            mine = self._open.get(path)
        if mine is not None and not mine.closed:
            raise SaveError("This game is open: close it before deleting it.", "in_use", path)
        with self._holding(path):
            try:
                for p in (path, self._backup(path)):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(p)
                for p in (self._tmp(path), self._tmp(self._backup(path)),
                          self._lock_path(path)):
                    _unlink_quietly(p)
                _fsync_dir(path.parent)
            except OSError as e:
                raise SaveError(f"This saved game could not be deleted ({e.strerror or e}).",
                                "permission" if e.errno in (errno.EACCES, errno.EPERM,
                                                            errno.EROFS) else "io",
                                path) from e
