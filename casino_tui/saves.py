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
* Files that cannot be read (empty, truncated, not JSON, another format, a newer version, too
  large, a history that does not replay, ...) are listed with the reason and are never changed
  or deleted unless the player asks (:meth:`SaveStore.delete`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from casino_tui import __version__
from casino_tui.engine import CasinoError, State
from casino_tui.engine.notation import compass_names
from casino_tui.engine.serialize import (
    FORMAT_NAME,
    FORMAT_VERSION,
    game_from_dict,
    game_summary,
    game_to_dict,
)

if sys.platform == "win32":  # pragma: no cover - locks by msvcrt byte-range locking
    import msvcrt
else:
    import fcntl

__all__ = [
    "DATA_ENV",
    "GAMES_SUBDIR",
    "LEVELS",
    "MAX_NAME_LENGTH",
    "MAX_SAVE_BYTES",
    "GameInUseError",
    "LoadedGame",
    "SaveEntry",
    "SaveError",
    "SaveSlot",
    "SaveStore",
    "Seat",
    "data_dir",
    "games_dir",
    "open_store",
]

APP_NAME = "casino-tui"
DATA_ENV = "CASINO_TUI_DATA_DIR"
GAMES_SUBDIR = "games"
# A long six-player game is about 10 kB; anything this large is not a save (and is not read).
MAX_SAVE_BYTES = 2 * 1024 * 1024
MAX_NAME_LENGTH = 60
# The computer levels of casino_tui.ai.LEVELS (a test keeps the two equal; importing the AI
# package here would load the search code just to list saves).
LEVELS: tuple[str, ...] = ("random", "easy", "medium", "hard")
LOCK_WAIT = 0.25  # seconds to retry a busy lock (another window may be only listing games)
CACHE_FILE = ".verified.json"
CACHE_FORMAT = "casino-tui-verified"

SeatKind = Literal["human", "computer"]
ErrorKind = Literal["disk_full", "read_only", "permission", "io", "in_use", "unreadable",
                    "not_found", "cannot_save", "invalid"]


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


# ------------------------------------------------------------------------------ errors
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
    folder = path.parent if path.suffix else path
    code = err.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        return SaveError("The disk is full: your game could not be saved. Play continues; "
                         "free some space to save again.", "disk_full", path)
    if code == errno.EROFS:
        return SaveError(f"The save folder {folder} is read-only: your game could not be "
                         "saved. Play continues; it is saved again after each move.",
                         "read_only", path)
    if code in (errno.EACCES, errno.EPERM):
        return SaveError(f"casino-tui may not write in {folder}: your game could not be saved. "
                         "Play continues; it is saved again after each move.",
                         "permission", path)
    what = err.strerror or str(err)
    return SaveError(f"Your game could not be saved ({what}). Play continues; it is saved "
                     "again after each move.", "io", path)


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


# ------------------------------------------------------------------------------ seats, names
def _check_text(value: object, what: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    text = value.strip()
    if not text and not allow_empty:
        raise ValueError(f"{what} cannot be empty")
    if len(text) > MAX_NAME_LENGTH:
        raise ValueError(f"{what} can be at most {MAX_NAME_LENGTH} characters long")
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
        raise ValueError(f"{what} cannot contain control characters")
    return text


@dataclass(frozen=True)
class Seat:
    """Who plays a seat: a person, or the computer at ``level`` (one of :data:`LEVELS`)."""

    name: str
    kind: SeatKind = "human"
    level: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _check_text(self.name, "a player's name"))
        if self.kind == "human":
            if self.level is not None:
                raise ValueError("a human seat has no computer level")
        elif self.kind == "computer":
            if self.level not in LEVELS:
                raise ValueError(f"a computer seat needs a level ({', '.join(LEVELS)}), "
                                 f"not {self.level!r}")
        else:
            raise ValueError(f"a seat is 'human' or 'computer', not {self.kind!r}")

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    @classmethod
    def human(cls, name: str) -> Seat:
        return cls(name, "human")

    @classmethod
    def computer(cls, name: str, level: str) -> Seat:
        return cls(name, "computer", level)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.level is not None:
            out["level"] = self.level
        return out

    @classmethod
    def from_dict(cls, data: object) -> Seat:
        """Raises ValueError with the reason."""
        if not isinstance(data, Mapping):
            raise ValueError("a seat must be an object with a name and a kind")
        kind = data.get("kind")
        if kind not in ("human", "computer"):
            raise ValueError(f"a seat's kind must be 'human' or 'computer', not {kind!r}"[:120])
        return cls(data.get("name"), kind, data.get("level"))  # type: ignore[arg-type]


def _clean_game_name(name: str | None) -> str | None:
    if name is None:
        return None
    try:
        text = _check_text(name, "a game's name", allow_empty=True)
    except ValueError as e:
        raise SaveError(f"That name cannot be used: {e}.", "invalid") from None
    return text or None


# ------------------------------------------------------------------------------ time
def _now() -> datetime:
    return datetime.now(UTC)


# The times a save may hold: a few days inside datetime's range, so that every one can be
# shown in any time zone (UTC-24h to UTC+24h) and written back in UTC.
EARLIEST_TIME = datetime(1, 1, 3, tzinfo=UTC)
LATEST_TIME = datetime(9999, 12, 29, tzinfo=UTC)


def _usable_time(t: datetime) -> datetime | None:
    """``t`` in UTC (a naive time is taken as UTC), or None if it is outside
    EARLIEST_TIME..LATEST_TIME (it could not be shown or saved again)."""
    try:
        u = t.astimezone(UTC) if t.tzinfo is not None else t.replace(tzinfo=UTC)
    except (OverflowError, ValueError, OSError):
        return None
    return u if EARLIEST_TIME <= u <= LATEST_TIME else None


def _fmt_time(t: datetime) -> str:
    """ISO 8601 in UTC to the millisecond. A time that cannot be written (out of range; see
    _usable_time) is written as now: callers replace such times first."""
    u = _usable_time(t) or _now()
    return u.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_time(value: object) -> datetime | None:
    """A save's time, in UTC; None when it is not a usable ISO 8601 time. A damaged time is
    ignored rather than refusing the game (it is only shown on the Load screen, and the next
    save writes a good one)."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    return _usable_time(t)


# ------------------------------------------------------------------------------ records
@dataclass(frozen=True)
class SaveEntry:
    """One file of the Load screen, read from its quick-listing summary (no replay needed).

    ``error`` is None for a game that can be opened; otherwise it is why the file cannot be
    read, and only ``path``, ``game_id``, ``size`` and ``modified`` are meaningful.
    ``from_backup``: the game's file is damaged (``damage`` says how) and opening it restores
    the backup (which may lack the last move).
    """

    path: Path
    game_id: str
    size: int
    modified: datetime
    error: str | None = None
    name: str | None = None
    preset: str = ""
    overrides: Mapping[str, Any] = field(default_factory=dict, hash=False)
    num_players: int = 0
    seats: tuple[Seat, ...] = ()
    sides: tuple[tuple[int, ...], ...] = ()
    scores: tuple[int, ...] = ()
    target: int = 0
    round_no: int = 0
    moves: int = 0
    to_move: int | None = None
    finished: bool = False
    winner: int | None = None
    created: datetime | None = None
    updated: datetime | None = None
    from_backup: bool = False
    damage: str | None = None
    verified: bool = False
    in_use: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def last_played(self) -> datetime:
        return self.updated or self.modified

    @property
    def player_names(self) -> list[str]:
        return [s.name for s in self.seats]

    def side_names(self) -> list[str]:
        """Each side's players, ``"South & North"`` for a partnership."""
        return [" & ".join(self.seats[s].name for s in side if s < len(self.seats))
                for side in self.sides]

    @property
    def winner_name(self) -> str | None:
        if self.winner is None or not 0 <= self.winner < len(self.sides):
            return None
        return self.side_names()[self.winner]

    @property
    def title(self) -> str:
        """The name given by the player; else, for a game, one made of its rules, players and
        start (``Standard Cassino · you vs Medium · 14 Mar 18:05``, see :func:`game_title`);
        else the file's id (printable even if the file name is not valid UTF-8)."""
        if self.name:
            return self.name
        if self.ok and self.seats:
            return game_title(self.preset, self.seats, self.sides,
                              self.created or self.last_played)
        return self.game_id.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def game_title(preset: str, seats: tuple[Seat, ...], sides: tuple[tuple[int, ...], ...],
               started: datetime) -> str:
    """A readable name for a game the player did not name: its rules, who plays (the one
    person is "you", computers go by their level) and when it began, in local time."""
    from casino_tui.engine import PRESET_DESCRIPTIONS, CasinoError, resolve_preset_name

    try:
        key = resolve_preset_name(preset)
        rules = PRESET_DESCRIPTIONS.get(key, key).split(":", 1)[0].split("(", 1)[0].strip()
    except CasinoError:  # a preset of a newer version
        rules = preset
    people = [s for s in seats if s.is_human]

    def who(seat: Seat) -> str:
        if seat.is_human:
            return "you" if len(people) == 1 else seat.name
        return (seat.level or seat.name).capitalize()

    teams = [" & ".join(who(seats[i]) for i in side if i < len(seats)) for side in sides]
    players = f"{teams[0]} vs {', '.join(teams[1:])}" if len(teams) > 1 else "".join(teams)
    try:
        local = started.astimezone()
    except (OverflowError, OSError, ValueError):  # near the ends of datetime's range
        local = started
    when = f"{local.day} {local:%b %H:%M}"
    return " · ".join(part for part in (rules, players, when) if part)


@dataclass(eq=False)
class SaveSlot:
    """The file a game in play is saved into (see :meth:`SaveStore.autosave`)."""

    path: Path
    name: str | None
    seats: tuple[Seat, ...]
    created: datetime
    start_position: str | None = None
    last_error: SaveError | None = None  # the latest autosave's problem; None after a success
    imported: Mapping[str, Any] | None = None  # the file this copy was imported from (--load)
    # "new": not written yet; "ours": the file holds a good version of this game;
    # "damaged": the file is damaged (the game was opened from its backup) and is kept aside
    # before the first write
    _main: Literal["new", "ours", "damaged"] = "new"
    _lock_fd: int | None = None
    _closed: bool = False
    _mutex: threading.Lock = field(default_factory=threading.Lock)

    @property
    def game_id(self) -> str:
        return _stem(self.path)

    @property
    def saved(self) -> bool:
        """The game has a file on disk (its first save succeeded or it was loaded)."""
        return self._main != "new"

    @property
    def closed(self) -> bool:
        return self._closed


@dataclass
class LoadedGame:
    """A saved game, replayed and checked: continue with ``state`` and ``seats``.

    ``slot`` is where to autosave (None when opened read-only). ``notice`` is something to tell
    the player (the game was restored from its backup, or imported into the saves folder).
    """

    state: State
    seats: tuple[Seat, ...]
    name: str | None
    path: Path  # the file that was read (the .bak when restored from the backup)
    slot: SaveSlot | None
    created: datetime | None
    updated: datetime | None
    start_position: str | None = None
    from_backup: bool = False
    notice: str | None = None
    imported: Mapping[str, Any] | None = None

    @property
    def read_only(self) -> bool:
        return self.slot is None


# ------------------------------------------------------------------------------ reading
def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".json.bak", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


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


def _parse_json(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        raise _Unreadable("the file is empty")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unreadable("the file is not text (it is not a saved game, or it is "
                          "damaged)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            raise _Unreadable("the file is cut short (it ends in the middle of the game)") \
                from None
        raise _Unreadable(f"the file is not valid JSON ({e.msg}: line {e.lineno}, column "
                          f"{e.colno})") from None
    except (ValueError, RecursionError):
        raise _Unreadable("the file is not valid JSON") from None
    if not isinstance(data, dict):
        raise _Unreadable("the file is not a casino-tui saved game")
    fmt = data.get("format")
    if fmt != FORMAT_NAME:
        raise _Unreadable("the file is not a casino-tui saved game (format "
                          f"{_short(fmt)})")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Unreadable(f"its format version is missing or damaged ({_short(version)})")
    if version > FORMAT_VERSION:
        raise _Newer(f"it was saved by a newer casino-tui (save format version {version}; "
                     f"this version reads up to version {FORMAT_VERSION}): update casino-tui "
                     "to open it")
    if version < 1:
        raise _Unreadable(f"unknown save format version {version}")
    return data


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: object, what: str, lo: int = 0, hi: int = 10**9) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _Unreadable(f"its summary is damaged ({what} is {_short(value)})")
    return value


@dataclass
class _Info:
    """A file's listing fields (from its summary and extra, without replaying)."""

    name: str | None
    preset: str
    overrides: dict[str, Any]
    num_players: int
    seats: tuple[Seat, ...]
    sides: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    target: int
    round_no: int
    moves: int
    to_move: int | None
    finished: bool
    winner: int | None
    created: datetime | None
    updated: datetime | None
    start_position: str | None
    imported: Mapping[str, Any] | None = None


def _imported(value: object) -> Mapping[str, Any] | None:
    """``extra.imported``: the file a copy was imported from (its id, the SHA-256 of its
    bytes and its number of moves); anything else is ignored (it is never needed to play)."""
    if (isinstance(value, Mapping) and isinstance(value.get("id"), str)
            and isinstance(value.get("sha256"), str) and isinstance(value.get("moves"), int)):
        return {"id": value["id"], "sha256": value["sha256"], "moves": value["moves"]}
    return None


def _default_seats(n: int) -> tuple[Seat, ...]:
    return tuple(Seat.human(name) for name in compass_names(n))


def _seats_of(extra: Mapping[str, Any], n: int) -> tuple[Seat, ...]:
    raw = extra.get("seats")
    if raw is None:
        return _default_seats(n)
    if not isinstance(raw, list) or len(raw) != n:
        raise _Unreadable(f"its list of players is damaged (expected {n} seats)")
    try:
        return tuple(Seat.from_dict(s) for s in raw)
    except ValueError as e:
        raise _Unreadable(f"its list of players is damaged ({e})") from None


def _info(data: Mapping[str, Any]) -> _Info:
    rules = data.get("rules")
    if not isinstance(rules, Mapping) or not isinstance(rules.get("preset"), str):
        raise _Unreadable("its rules are missing or damaged")
    overrides = rules.get("overrides") or {}
    if not isinstance(overrides, Mapping):
        raise _Unreadable("its rule options are damaged")
    n = _int(data.get("num_players"), "the number of players", 1, 64)
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise _Unreadable("its list of moves is missing or damaged")
    summary = data.get("summary")
    if not isinstance(summary, Mapping):
        raise _Unreadable("its summary is missing or damaged")
    sides_raw = summary.get("sides")
    if not isinstance(sides_raw, list) or not sides_raw:
        raise _Unreadable("its summary is damaged (sides)")
    sides = tuple(tuple(_int(s, "a seat", 0, n - 1) for s in side)
                  if isinstance(side, list) else _bad_side() for side in sides_raw)
    scores_raw = summary.get("scores")
    if not isinstance(scores_raw, list) or len(scores_raw) != len(sides):
        raise _Unreadable("its summary is damaged (scores)")
    scores = tuple(_int(s, "a score", -10**6, 10**6) for s in scores_raw)
    finished = summary.get("finished")
    if not isinstance(finished, bool):
        raise _Unreadable("its summary is damaged (finished)")
    winner = summary.get("winner")
    if winner is not None:
        winner = _int(winner, "the winner", 0, len(sides) - 1)
    to_move = summary.get("to_move")
    if to_move is not None:
        to_move = _int(to_move, "the player to move", 0, n - 1)
    extra = data.get("extra", {})
    if not isinstance(extra, Mapping):
        raise _Unreadable("its player and name data is damaged")
    name = extra.get("name")
    if name is not None:
        try:
            name = _check_text(name, "its name", allow_empty=True) or None
        except ValueError as e:
            raise _Unreadable(f"its name is damaged ({e})") from None
    start = data.get("start_position")
    if start is not None and not isinstance(start, str):
        raise _Unreadable("its start position is damaged")
    return _Info(
        name=name, preset=rules["preset"], overrides=dict(overrides), num_players=n,
        seats=_seats_of(extra, n), sides=sides, scores=scores,
        target=_int(summary.get("target"), "the target", 0, 10**6),
        round_no=_int(summary.get("round"), "the round", 0, 10**6), moves=len(moves),
        to_move=to_move, finished=finished, winner=winner,
        created=_parse_time(extra.get("created")), updated=_parse_time(extra.get("updated")),
        start_position=start, imported=_imported(extra.get("imported")))


def _bad_side() -> tuple[int, ...]:
    raise _Unreadable("its summary is damaged (a side)")


def _replay(data: Mapping[str, Any]) -> State:
    """The game replayed from its seed and checked against its position and summary.

    Without a ``position``, the moves of a game saved just after the next round was dealt end
    at the end of the previous round: the summary's round says that the next one began."""
    try:
        state = game_from_dict(data)
        summary = data.get("summary")
        if data.get("position") is None and isinstance(summary, Mapping):
            rounds = summary.get("round")
            if (isinstance(rounds, int) and state.is_round_over
                    and state.round_no < rounds):
                state.next_round()
    except CasinoError as e:
        raise _Unreadable(_reason(e)) from None
    except RecursionError:
        raise _Unreadable("the file is nested too deeply") from None
    except Exception as e:  # a bug in the engine must not crash the Load screen
        raise _Unreadable(f"casino-tui could not check this file (internal error: "
                          f"{type(e).__name__}: {_reason(e)})") from None
    if _canon(data.get("summary")) != _canon(game_summary(state)):
        raise _Unreadable("its summary does not match its moves (the file was edited or "
                          "damaged)")
    return state


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _reason(err: Exception) -> str:
    text = str(err).strip().rstrip(".")
    return text[:300] if text else type(err).__name__


# ------------------------------------------------------------------------------ writing
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


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _encode(data: Mapping[str, Any]) -> bytes:
    """The file's text: one top-level field per line, objects one field per line and the
    moves one per line (easy to read and to compare); any JSON reader reads it."""
    fields = []
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            inner = ",\n".join(f"  {_compact(k)}: {_compact(v)}" for k, v in value.items())
            text = "{\n" + inner + "\n }"
        elif key == "moves" and isinstance(value, list) and value:
            text = "[\n" + ",\n".join(f"  {_compact(m)}" for m in value) + "\n ]"
        else:
            text = _compact(value)
        fields.append(f" {_compact(key)}: {text}")
    return ("{\n" + ",\n".join(fields) + "\n}\n").encode("utf-8")


# ------------------------------------------------------------------------------ the store
class SaveStore:
    """The saved games in directory ``root`` (created on the first save).

    ``clock`` and ``new_id`` may be replaced (tests, example saves); ids must be usable as file
    names. Thread-safe; every method may also be used by several processes at once.
    """

    def __init__(self, root: Path | str, *, clock: Callable[[], datetime] = _now,
                 new_id: Callable[[datetime], str] | None = None) -> None:
        self.root = Path(root)
        self._clock = clock
        self._new_id = new_id or (lambda t: f"{t:%Y%m%d-%H%M%S}-{secrets.token_hex(4)}")
        self._verdicts: dict[str, str | None] = {}  # sha256 of a file -> None (good) or why
        self._cache_loaded = False
        self._cache_dirty = False
        self._lock = threading.Lock()
        self._open: dict[Path, SaveSlot] = {}

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
        extra = {
            "name": slot.name,
            "seats": [s.to_dict() for s in slot.seats],
            "created": _fmt_time(slot.created),
            "updated": _fmt_time(updated),
            "saved_by": f"{APP_NAME} {__version__}",
        }
        if slot.imported is not None:
            extra["imported"] = dict(slot.imported)
        try:
            data = game_to_dict(state, extra, start_position=slot.start_position)
        except CasinoError as e:
            raise SaveError(f"This game cannot be saved ({_reason(e)}). Play continues.",
                            "cannot_save", slot.path) from None
        payload = _encode(data)
        with slot._mutex:
            self._lock_slot(slot)
            self._commit(slot, payload)
        self._remember(payload, None)

    def _lock_slot(self, slot: SaveSlot) -> None:
        """Take the slot's lock if it does not hold it yet (a new slot reserves its id)."""
        if slot._lock_fd is not None:
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            while slot._main == "new":
                try:
                    fd = os.open(self._lock_path(slot.path),
                                 os.O_RDWR | os.O_CREAT | os.O_EXCL | _CLOEXEC, 0o644)
                except FileExistsError:  # the id is taken (practically never): pick another
                    slot.path = self._path(self._new_id(self._clock()) + secrets.token_hex(2))
                    continue
                if os.path.lexists(slot.path) or os.path.lexists(self._backup(slot.path)):
                    os.close(fd)
                    slot.path = self._path(self._new_id(self._clock()) + secrets.token_hex(2))
                    continue
                try:
                    _lock_nb(fd)
                except OSError:
                    os.close(fd)
                    raise
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

    def save_copy(self, slot: SaveSlot, state: State, name: str | None) -> SaveEntry:
        """Save a named copy of the game (ctrl+s) as a new file; play continues in ``slot``.
        Raises :class:`SaveError`."""
        copy = self.new_game(slot.seats, name, start_position=slot.start_position)
        copy.created = slot.created
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

    # -------------------------------------------------------------- listing
    def entries(self, *, verify: bool = True) -> list[SaveEntry]:
        """Every saved game, most recently played first, then every file that cannot be
        read (newest first).

        With ``verify`` (the default) each file's moves are replayed once, so a history that
        does not replay is listed as unreadable; the verdict is remembered by the file's
        contents (in memory and in ``.verified.json``), so listing again is quick."""
        seen: set[str] = set()
        out = [self._entry(path, verify=verify, seen=seen) for path in self._game_files()]
        if verify:
            self._flush_cache(seen)
        out.sort(key=lambda e: (e.ok, e.last_played, e.modified, e.path.name), reverse=True)
        return out

    def latest_unfinished(self) -> SaveEntry | None:
        """The most recently played unfinished game that can be opened and is not open in
        another window (Continue, ``--continue``); None if there is none."""
        quick = [e for e in self.entries(verify=False)
                 if e.ok and not e.finished and not e.in_use]
        for e in quick:
            full = self._entry(e.path, verify=True)
            if full.ok and not full.finished:
                return full
        return None

    def unfinished_elsewhere(self) -> list[SaveEntry]:
        """The unfinished games that Continue skips because another window has them open."""
        return [e for e in self.entries(verify=False) if e.ok and not e.finished and e.in_use]

    def continue_blocked(self) -> str | None:
        """When :meth:`latest_unfinished` finds nothing although unfinished games exist
        because they are open in other windows: a message for players saying so and what to
        do; otherwise None."""
        n = len(self.unfinished_elsewhere())
        if n == 0:
            return None
        if n == 1:
            return ("Your unfinished game is open in another window: play it there, or quit "
                    "it there and Continue here. Load game opens it here read-only.")
        return (f"Your {n} unfinished games are open in other windows: play them there, or "
                "quit one there and Continue here. Load game opens them here read-only.")

    def entry(self, path: Path | str) -> SaveEntry:
        """The listing entry of one file (verified)."""
        return self._entry(Path(path), verify=True)

    def _game_files(self) -> list[Path]:
        try:
            names = os.listdir(self.root)
        except FileNotFoundError:
            return []
        except OSError as e:
            raise SaveError(f"The saved games in {self.root} cannot be listed "
                            f"({e.strerror or e}).", "io", self.root) from e
        mains = {n for n in names if n.endswith(".json") and not n.startswith(".")}
        # a backup whose game file is missing is still a game
        mains |= {n[:-4] for n in names if n.endswith(".json.bak") and not n.startswith(".")}
        return [self.root / n for n in sorted(mains)]

    def _entry(self, path: Path, *, verify: bool, seen: set[str] | None = None) -> SaveEntry:
        try:
            st = os.stat(path)
            size, modified = st.st_size, datetime.fromtimestamp(st.st_mtime, UTC)
        except (OSError, OverflowError, ValueError):  # no file, or an absurd modification time
            size, modified = 0, datetime.fromtimestamp(0, UTC)
        base: dict[str, Any] = {"path": path, "game_id": _stem(path), "size": size,
                                "modified": modified}
        try:
            info = self._quick(path, verify=verify, seen=seen)
        except _Unreadable as e:
            bak = self._backup(path)
            reason = str(e)
            if self._in_store(path) and os.path.lexists(bak) and not e.newer:
                try:
                    info = self._quick(bak, verify=verify, seen=seen)
                except _Unreadable:
                    pass
                else:
                    return self._make_entry(base, info, verify, from_backup=True, damage=reason)
            return SaveEntry(**base, error=reason)
        return self._make_entry(base, info, verify)

    def _make_entry(self, base: dict[str, Any], info: _Info, verified: bool, *,
                    from_backup: bool = False, damage: str | None = None) -> SaveEntry:
        return SaveEntry(
            **base, name=info.name, preset=info.preset, overrides=info.overrides,
            num_players=info.num_players, seats=info.seats, sides=info.sides,
            scores=info.scores, target=info.target, round_no=info.round_no, moves=info.moves,
            to_move=info.to_move, finished=info.finished, winner=info.winner,
            created=info.created, updated=info.updated, from_backup=from_backup,
            damage=damage, verified=verified, in_use=self._in_use(base["path"]))

    def _quick(self, path: Path, *, verify: bool, seen: set[str] | None = None) -> _Info:
        """Listing fields of ``path``; with ``verify`` the moves are replayed (or the verdict
        remembered for these exact bytes is used; ``seen`` collects the digests).
        Raises _Unreadable."""
        try:
            raw = _read_limited(path)
        except FileNotFoundError:
            raise _Unreadable("the file is missing") from None
        except PermissionError:
            raise _Unreadable("casino-tui may not read the file") from None
        except OSError as e:
            raise _Unreadable(f"the file cannot be read ({e.strerror or e})") from None
        data = _parse_json(raw)
        info = _info(data)
        if verify:
            digest = hashlib.sha256(raw).hexdigest()
            if seen is not None:
                seen.add(digest)
            known, verdict = self._verdict(digest)
            if not known:
                try:
                    _replay(data)
                    verdict = None
                except _Unreadable as e:
                    verdict = str(e)
                self._remember_digest(digest, verdict)
            if verdict is not None:
                raise _Unreadable(verdict)
        return info

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

    # -------------------------------------------------------------- verdict cache
    def _verdict(self, digest: str) -> tuple[bool, str | None]:
        with self._lock:
            self._load_cache()
            if digest in self._verdicts:
                return True, self._verdicts[digest]
        return False, None

    def _remember(self, payload: bytes, verdict: str | None) -> None:
        self._remember_digest(hashlib.sha256(payload).hexdigest(), verdict)

    def _remember_digest(self, digest: str, verdict: str | None) -> None:
        with self._lock:
            if self._verdicts.get(digest, "") != verdict:
                self._verdicts[digest] = verdict
                self._cache_dirty = True

    def _cache_key(self) -> str:
        return f"{__version__}/{FORMAT_VERSION}"

    def _load_cache(self) -> None:
        if self._cache_loaded:
            return
        self._cache_loaded = True
        try:
            data = json.loads(_read_limited(self.root / CACHE_FILE))
            if (isinstance(data, dict) and data.get("format") == CACHE_FORMAT
                    and data.get("key") == self._cache_key()
                    and isinstance(data.get("results"), dict)):
                for k, v in data["results"].items():
                    if isinstance(k, str) and (v is None or isinstance(v, str)):
                        self._verdicts.setdefault(k, v)
        except (OSError, ValueError, RecursionError, _Unreadable):
            pass  # no cache, or a damaged one: verify again

    def _flush_cache(self, keep: set[str]) -> None:
        """Keep only the verdicts of the files listed (``keep``) and write them to
        ``.verified.json`` if they changed (best effort: a cache that cannot be written is
        not a problem)."""
        with self._lock:
            results = {k: v for k, v in self._verdicts.items() if k in keep}
            dirty = self._cache_dirty or len(results) != len(self._verdicts)
            self._verdicts = results
            if not dirty or not self.root.is_dir():
                return
            self._cache_dirty = False
        payload = json.dumps({"format": CACHE_FORMAT, "key": self._cache_key(),
                              "results": results}).encode()
        tmp = self.root / f".{CACHE_FILE}.{os.getpid()}.{secrets.token_hex(3)}.tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(payload)
            os.replace(tmp, self.root / CACHE_FILE)
        except OSError:
            _unlink_quietly(tmp)

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
        n = 2
        while True:
            suffix = f" ({n})"
            candidate = name[:MAX_NAME_LENGTH - len(suffix)].rstrip() + suffix
            if candidate not in taken:
                return candidate
            n += 1

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
                          notice=notice, imported=info.imported)

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
        self._remember(raw, None)
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
            with self._lock:  # same verdict as before: only the name changed
                verdict = self._verdicts.get(hashlib.sha256(raw).hexdigest(), "")
            if verdict is None:
                self._remember(payload, None)
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
