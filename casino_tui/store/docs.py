"""Saved games as documents in memory: the save format (docs/SAVE_FORMAT.md) without files.

A table hub saves each table after every move through a store (`LocalHub(store=...)`); on
the shared store that store is a :class:`DocStore`, which keeps the document of each game
(the very bytes a save file would hold) until the table's owner writes it to PostgreSQL, and
:func:`load_document` reads such a document back (checked and replayed, as a file is) for the
host that takes the table over.
"""

from __future__ import annotations

import secrets
import threading
from datetime import UTC, datetime
from pathlib import Path

from casino_tui.engine import CasinoError, State
from casino_tui.saves import SaveError
from casino_tui.saves.errors import _Unreadable
from casino_tui.saves.fileformat import _game_to_bytes, _info, _parse_json, _reason, _replay
from casino_tui.saves.records import LoadedGame, SaveSlot, Seat


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def new_game_id(t: datetime | None = None) -> str:
    """A game's id, as the file store makes them (time and a random part)."""
    return f"{(t or _now()):%Y%m%d-%H%M%S}-{secrets.token_hex(4)}"


class DocStore:
    """What a :class:`~casino_tui.table.hub.LocalHub` needs of a save store, in memory:
    each autosave renders the game's document and keeps it as the game's latest
    (:meth:`take` hands the documents of one table to whoever writes them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: dict[str, tuple[str | None, bytes]] = {}  # game id -> (table id, doc)

    def new_game(self, seats: list[Seat] | tuple[Seat, ...], name: str | None = None, *,
                 start_position: str | None = None) -> SaveSlot:
        if not seats:
            raise ValueError("a game needs seats")
        created = _now()
        return SaveSlot(Path(f"{new_game_id(created)}.json"), name, tuple(seats), created,
                        start_position)

    def autosave(self, slot: SaveSlot, state: State) -> None:
        if slot.closed:
            raise ValueError("this save slot was closed")
        try:
            payload = _game_to_bytes(state, slot, _now())
        except CasinoError as e:
            err = SaveError(f"This game cannot be saved ({_reason(e)}). Play continues.",
                            "cannot_save", slot.path)
            slot.last_error = err
            raise err from None
        table = slot.table.get("id") if slot.table is not None else None
        with self._lock:
            self._latest[slot.game_id] = (table if isinstance(table, str) else None, payload)
        slot.last_error = None

    def close(self, slot: SaveSlot | None) -> None:
        if slot is not None:
            slot._closed = True

    def take(self, table_id: str) -> dict[str, bytes]:
        """The documents saved for ``table_id``'s games since the last call ({game id: doc})."""
        with self._lock:
            mine = {g: d for g, (t, d) in self._latest.items() if t == table_id}
            for g in mine:
                del self._latest[g]
        return mine

    def put_back(self, table_id: str, docs: dict[str, bytes]) -> None:
        """Documents :meth:`take` gave that could not be written (unless newer came)."""
        with self._lock:
            for game, doc in docs.items():
                self._latest.setdefault(game, (table_id, doc))

    def forget(self, table_id: str) -> None:
        """Drop what is waiting for ``table_id`` (another host runs it now)."""
        self.take(table_id)


def load_document(game_id: str, doc: bytes | str) -> LoadedGame:
    """A game from its document, checked and replayed as a save file is, with a slot to go on
    saving it into a :class:`DocStore`. Raises :class:`SaveError` (``unreadable``) with the
    reason."""
    raw = doc.encode() if isinstance(doc, str) else doc
    path = Path(f"{game_id}.json")
    try:
        data = _parse_json(raw)
        info = _info(data)
        state = _replay(data)
    except _Unreadable as e:
        raise SaveError(f"This saved game cannot be opened: {e}.", "unreadable",
                        path) from None
    slot = SaveSlot(path, info.name, info.seats, info.created or _now(), info.start_position)
    slot._main = "ours"
    slot.table = info.table
    slot.undo = info.undo
    slot.undo_last = info.undo_last
    return LoadedGame(state=state, seats=info.seats, name=info.name, path=path, slot=slot,
                      created=info.created, updated=info.updated,
                      start_position=info.start_position, table=info.table, undo=info.undo,
                      undo_last=info.undo_last)
