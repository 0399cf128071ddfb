"""Saved games: one JSON file per game, written after every move, never lost or damaged.

The app keeps one :class:`SaveStore` for the games directory of the data directory
(:func:`open_store`); ``docs/SAVE_FORMAT.md`` describes the files. Typical use::

    store = open_store(args.data_dir)                 # --data-dir, $CASINO_TUI_DATA_DIR or default
    slot = store.new_game(seats, name=None)           # no disk access yet
    store.autosave(slot, state)                       # after the deal and after every move
    ...
    entry = store.latest_unfinished()                 # Continue / --continue
    game = store.load(entry)                          # or store.load(Path(args.load))
    slot = game.slot                                  # autosave into it from now on
    store.close(slot)                                 # when the game screen closes

Every problem the player must hear about is a :class:`SaveError`, whose ``str()`` is a message
for players. Writing problems (full disk, read-only folder) never stop play: show the message
and keep playing; the next autosave tries again.

Guarantees:

* Writes are atomic: the new version goes to a temporary file in the same directory, which is
  flushed, fsynced and renamed over the old one, and the directory is fsynced. The previous
  version stays complete on disk until the new one is, and is kept as ``<file>.bak``; a game
  whose file is damaged is opened from its backup, and the damaged file is kept.
* Each game file has an advisory lock (``flock`` on ``.<id>.lock``) held while a window
  plays it: a second window gets :class:`GameInUseError` (and may open it read-only).
* What a killed process leaves behind (temporary files, the lock of a new game never saved)
  is removed the next time the folder is listed or a game opened or saved, never a file that
  a live process holds (see :mod:`~casino_tui.saves.files`); such files are never listed.
* Files that cannot be read (empty, truncated, not JSON, another format, a newer version, too
  large, a history that does not replay, ...) are listed with the reason and are never changed
  or deleted unless the player asks (:meth:`SaveStore.delete`).

The package, each module importing only those above it:

* :mod:`~casino_tui.saves.errors`: :class:`SaveError`, :class:`GameInUseError`, the messages of
  failed writes (:func:`file_in_the_way`: the file standing where a folder should be), and why
  a file is not a readable save;
* :mod:`~casino_tui.saves.records`: :class:`Seat`, :class:`SaveSlot`, :class:`LoadedGame`, and
  the times a save holds;
* :mod:`~casino_tui.saves.names`: names given by players, :func:`game_title` for the others;
* :mod:`~casino_tui.saves.fileformat`: the file format: parsing, checking, replaying, writing;
* :mod:`~casino_tui.saves.files`: the files of a games directory: paths, locks, bounded reads,
  atomic writes;
* :mod:`~casino_tui.saves.listing`: :class:`SaveEntry`, listing the saved games, the cache of
  replay verdicts;
* :mod:`~casino_tui.saves.store`: :class:`SaveStore` and where it is (:func:`open_store`).

The package imports neither Textual nor the app: it needs only the engine.
"""

from __future__ import annotations

from casino_tui.saves.errors import ErrorKind, GameInUseError, SaveError, file_in_the_way
from casino_tui.saves.fileformat import APP_NAME
from casino_tui.saves.files import LOCK_WAIT, MAX_SAVE_BYTES
from casino_tui.saves.listing import CACHE_FILE, CACHE_FORMAT, SaveEntry
from casino_tui.saves.names import game_title
from casino_tui.saves.records import (
    EARLIEST_TIME,
    LATEST_TIME,
    LEVELS,
    MAX_NAME_LENGTH,
    LoadedGame,
    SaveSlot,
    Seat,
    SeatKind,
)
from casino_tui.saves.store import (
    DATA_ENV,
    GAMES_SUBDIR,
    SaveStore,
    data_dir,
    games_dir,
    open_store,
)

__all__ = [
    "APP_NAME",
    "CACHE_FILE",
    "CACHE_FORMAT",
    "DATA_ENV",
    "EARLIEST_TIME",
    "GAMES_SUBDIR",
    "LATEST_TIME",
    "LEVELS",
    "LOCK_WAIT",
    "MAX_NAME_LENGTH",
    "MAX_SAVE_BYTES",
    "ErrorKind",
    "GameInUseError",
    "LoadedGame",
    "SaveEntry",
    "SaveError",
    "SaveSlot",
    "SaveStore",
    "Seat",
    "SeatKind",
    "data_dir",
    "file_in_the_way",
    "game_title",
    "games_dir",
    "open_store",
]
