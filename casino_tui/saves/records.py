"""The records of saved games: who plays (:class:`Seat`), the file a game in play is saved into
(:class:`SaveSlot`), a game opened from a save (:class:`LoadedGame`), and the times a save
holds (always UTC, within EARLIEST_TIME..LATEST_TIME)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from casino_tui.engine import State
from casino_tui.saves.errors import SaveError

MAX_NAME_LENGTH = 60
MAX_PLAYER_LENGTH = 200  # a player identity (a server's id of a person: a key's profile)
# The computer levels of casino_tui.ai.LEVELS (a test keeps the two equal; importing the AI
# package here would load the search code just to list saves).
LEVELS: tuple[str, ...] = ("random", "easy", "medium", "hard")

SeatKind = Literal["human", "computer"]


# ------------------------------------------------------------------------------ seats
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
    """Who plays a seat: a person, or the computer at ``level`` (one of :data:`LEVELS`).

    ``player``: the identity of the person who holds a human seat at a server's table (the
    server's id of their key), None for a local game or a seat nobody holds yet."""

    name: str
    kind: SeatKind = "human"
    level: str | None = None
    player: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _check_text(self.name, "a player's name"))
        if self.player is not None:
            if self.kind != "human":
                raise ValueError("only a person's seat has a player identity")
            if not isinstance(self.player, str) or not self.player.strip() \
                    or len(self.player) > MAX_PLAYER_LENGTH \
                    or any(ord(c) < 33 or 127 <= ord(c) < 160 for c in self.player):
                raise ValueError(f"a player identity is 1 to {MAX_PLAYER_LENGTH} characters "
                                 "without spaces or control characters")
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
        if self.player is not None:
            out["player"] = self.player
        return out

    @classmethod
    def from_dict(cls, data: object) -> Seat:
        """Raises ValueError with the reason."""
        if not isinstance(data, Mapping):
            raise ValueError("a seat must be an object with a name and a kind")
        kind = data.get("kind")
        if kind not in ("human", "computer"):
            raise ValueError(f"a seat's kind must be 'human' or 'computer', not {kind!r}"[:120])
        return cls(data.get("name"), kind, data.get("level"),  # type: ignore[arg-type]
                   data.get("player"))


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
    table: Mapping[str, Any] | None = None  # a server's table: its id, code, creator, ...
    undo: bool = False  # a play was taken back in this game (extra.undo)
    # the latest undo: how many moves the game kept, how many plays it took back
    # (extra.undo_last), so that a resumed game's log says where it happened
    undo_last: tuple[int, int] | None = None
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
    table: Mapping[str, Any] | None = None  # extra.table: the game is a server's table
    undo: bool = False  # extra.undo: a play was taken back in this game
    undo_last: tuple[int, int] | None = None  # extra.undo_last: (moves kept, plays taken)

    @property
    def read_only(self) -> bool:
        return self.slot is None


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".json.bak", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem

