"""Listing saved games: :class:`SaveEntry` (one file of the Load screen), the listing methods
of the store (most recently played first, unreadable files after them, Continue's choice),
and the cache of replay verdicts (``.verified.json``) that keeps listing again quick."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from casino_tui.engine.serialize import FORMAT_VERSION
from casino_tui.saves.errors import _Unreadable
from casino_tui.saves.fileformat import APP_VERSION, _Info, _info, _parse_json, _replay
from casino_tui.saves.files import _GameFiles, _owned_tmp, _read_limited, _unlink_quietly
from casino_tui.saves.names import game_title
from casino_tui.saves.records import Seat, _stem

CACHE_FILE = ".verified.json"
CACHE_FORMAT = "casino-tui-verified"


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


class _VerifiedCache:
    """Whether the files of directory ``root`` replay, remembered by the SHA-256 of their
    bytes: None (a good save) or why not. Kept in memory and in ``.verified.json`` (for this
    version of casino-tui and of the format). Thread-safe."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._verdicts: dict[str, str | None] = {}  # sha256 of a file -> None (good) or why
        self._loaded = False
        self._dirty = False
        self._lock = threading.Lock()

    def verdict(self, digest: str) -> tuple[bool, str | None]:
        with self._lock:
            self._load()
            if digest in self._verdicts:
                return True, self._verdicts[digest]
        return False, None

    def remember(self, payload: bytes, verdict: str | None) -> None:
        self.remember_digest(hashlib.sha256(payload).hexdigest(), verdict)

    def remember_digest(self, digest: str, verdict: str | None) -> None:
        with self._lock:
            if self._verdicts.get(digest, "") != verdict:
                self._verdicts[digest] = verdict
                self._dirty = True

    def _key(self) -> str:
        return f"{APP_VERSION}/{FORMAT_VERSION}"

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        try:
            data = json.loads(_read_limited(self.root / CACHE_FILE))
            if (isinstance(data, dict) and data.get("format") == CACHE_FORMAT
                    and data.get("key") == self._key()
                    and isinstance(data.get("results"), dict)):
                for k, v in data["results"].items():
                    if isinstance(k, str) and (v is None or isinstance(v, str)):
                        self._verdicts.setdefault(k, v)
        except (OSError, ValueError, RecursionError, _Unreadable):
            pass  # no cache, or a damaged one: verify again

    def flush(self, keep: set[str]) -> None:
        """Keep only the verdicts of the files listed (``keep``) and write them to
        ``.verified.json`` if they changed (best effort: a cache that cannot be written is
        not a problem)."""
        with self._lock:
            results = {k: v for k, v in self._verdicts.items() if k in keep}
            dirty = self._dirty or len(results) != len(self._verdicts)
            self._verdicts = results
            if not dirty or not self.root.is_dir():
                return
            self._dirty = False
        payload = json.dumps({"format": CACHE_FORMAT, "key": self._key(),
                              "results": results}).encode()
        with _owned_tmp(self.root / CACHE_FILE) as tmp:  # swept if its writer is killed
            try:
                with open(tmp, "wb") as f:
                    f.write(payload)
                os.replace(tmp, self.root / CACHE_FILE)
            except OSError:
                _unlink_quietly(tmp)


class _GameListing(_GameFiles):
    """The listing half of :class:`~casino_tui.saves.store.SaveStore`."""

    def __init__(self, root: Path | str) -> None:
        super().__init__(root)
        self._cache = _VerifiedCache(self.root)

    def entries(self, *, verify: bool = True) -> list[SaveEntry]:
        """Every saved game, most recently played first, then every file that cannot be
        read (newest first).

        With ``verify`` (the default) each file's moves are replayed once, so a history that
        does not replay is listed as unreadable; the verdict is remembered by the file's
        contents (in memory and in ``.verified.json``), so listing again is quick."""
        seen: set[str] = set()
        out = [self._entry(path, verify=verify, seen=seen) for path in self._game_files()]
        if verify:
            self._cache.flush(seen)
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
            known, verdict = self._cache.verdict(digest)
            if not known:
                try:
                    _replay(data)
                    verdict = None
                except _Unreadable as e:
                    verdict = str(e)
                self._cache.remember_digest(digest, verdict)
            if verdict is not None:
                raise _Unreadable(verdict)
        return info

