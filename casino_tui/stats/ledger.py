"""The player's ledger: one JSON line per finished game, in the data directory.

``DATA/ledger.jsonl`` is appended when a game ends (:meth:`Ledger.record`). Each line is one
:class:`GameRecord` (see :meth:`GameRecord.to_json`). It is kept apart from the saved games, so
deleting saves never changes the statistics.

Safety:

* An append is one ``write`` of a whole line to a file opened with ``O_APPEND``, followed by
  ``fsync``, under an advisory lock (``.ledger.lock``) shared with other windows. A crash in the
  middle leaves at most one damaged last line; the next append starts on a new line.
* A line that cannot be read is skipped and reported (:attr:`LedgerRead.damaged`), never fatal.
* A ledger that is missing or damaged is rebuilt (:meth:`Ledger.load`): its good lines, plus
  every finished game of the saves that it lacks (by the save's id), are written to a new file
  that replaces the old one atomically; a damaged ledger is first kept as
  ``ledger.damaged.jsonl``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, NamedTuple

from casino_tui.engine import RoundSummary, Rules, State
from casino_tui.saves import SaveError, SaveStore, Seat

LEDGER_FILE = "ledger.jsonl"
DAMAGED_FILE = "ledger.damaged.jsonl"
LOCK_FILE = ".ledger.lock"
RECORD_VERSION = 1
MAX_LINE = 64 * 1024  # a longer line is damage, not a record

Result = Literal["win", "loss", "draw"]
RESULTS: tuple[Result, ...] = ("win", "loss", "draw")

# The daily deal: classic, two players, a person against the computer at this level.
DAILY_PRESET = "classic"
DAILY_LEVEL = "hard"
DAILY_SEED_MAX = 2**53 - 1  # the largest seed a save holds exactly


def daily_seed(day: date) -> int:
    """The seed of the deal of UTC date ``day``: the same for everyone, on every machine."""
    import hashlib

    digest = hashlib.sha256(f"casino-tui daily deal {day.isoformat()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (DAILY_SEED_MAX + 1)


def _is_daily_game(state: State, seats: Sequence[Seat]) -> bool:
    if state.num_players != 2 or len(seats) != 2:
        return False
    if state.rules != Rules.preset(DAILY_PRESET):
        return False
    kinds = sorted((s.kind, s.level or "") for s in seats)
    return kinds == [("computer", DAILY_LEVEL), ("human", "")]


def daily_date(state: State, seats: Sequence[Seat], *times: datetime | None) -> date | None:
    """The UTC date whose daily deal this game is, or None: a classic game of a person against
    Hard dealt with that date's seed. ``times``: when the game started or ended (the seed is
    taken when it starts and the save's creation time a moment later, and a game may end the
    next day, so each time's date and the day before it are tried)."""
    if not isinstance(state.seed, int) or not _is_daily_game(state, seats):
        return None
    for t in times:
        if t is None:
            continue
        day = (t if t.tzinfo is not None else t.replace(tzinfo=UTC)).astimezone(UTC).date()
        for d in (day, day - timedelta(days=1)):
            if daily_seed(d) == state.seed:
                return d
    return None


class LedgerError(Exception):
    """The ledger could not be written; ``str()`` is a sentence for the player."""


class GameRecord(NamedTuple):
    """One finished game, seen from one person's seat (a named tuple: thousands are read at
    once, and a tuple is made several times faster than a frozen dataclass).

    ``seat``/``side`` are None when several people shared the keyboard (nobody's game in
    particular: counted apart, not in the figures). ``opponents``: each seat not on the
    person's side, as a computer level or ``"person"``. ``rounds`` and ``sweeps``: the
    person's side's points and sweeps in each round (a game won in the middle of a round
    counts that round too). ``scores``: each side's final score."""

    game: str
    ended: datetime
    preset: str
    players: int
    opponents: tuple[str, ...]
    seat: int | None
    side: int | None
    result: Result | None
    rounds: tuple[int, ...]
    sweeps: tuple[int, ...]
    scores: tuple[int, ...]
    undo: bool = False
    daily: date | None = None

    @property
    def counted(self) -> bool:
        """Whether the figures count this game (one person played it)."""
        return self.side is not None and self.result is not None

    @property
    def score(self) -> int | None:
        """The person's side's final score."""
        if self.side is None or not 0 <= self.side < len(self.scores):
            return None
        return self.scores[self.side]

    @property
    def opponent_level(self) -> str:
        """The opponents' level for the figures: the one level of the computers, ``people``
        when every opponent is a person, ``mixed`` otherwise."""
        kinds = set(self.opponents)
        if len(kinds) == 1:
            only = next(iter(kinds))
            return "people" if only == "person" else only
        return "mixed" if kinds else "none"

    def to_json(self) -> dict[str, Any]:
        return {
            "v": RECORD_VERSION, "game": self.game,
            "ended": self.ended.astimezone(UTC).isoformat(timespec="seconds").replace(
                "+00:00", "Z"),
            "preset": self.preset, "players": self.players, "opponents": list(self.opponents),
            "seat": self.seat, "side": self.side, "result": self.result,
            "rounds": list(self.rounds), "sweeps": list(self.sweeps),
            "scores": list(self.scores), "undo": self.undo,
            "daily": self.daily.isoformat() if self.daily is not None else None,
        }

    def to_line(self) -> bytes:
        return json.dumps(self.to_json(), separators=(",", ":"),
                          ensure_ascii=True).encode("ascii") + b"\n"

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        """Raises ValueError with the reason. (Quick: the statistics screen reads thousands.)"""
        if type(data) is not dict:
            raise ValueError("not a JSON object")
        if data.get("v") != RECORD_VERSION:
            raise ValueError(f"unknown record version {data.get('v')!r}"[:80])
        game, ended_text, preset = data.get("game"), data.get("ended"), data.get("preset")
        for key, v in (("game", game), ("ended", ended_text), ("preset", preset)):
            if type(v) is not str or not v or len(v) > 200:
                raise ValueError(f"{key!r} must be text")
        assert isinstance(game, str) and isinstance(ended_text, str) \
            and isinstance(preset, str)
        lists: list[tuple[int, ...]] = []
        for key in ("rounds", "sweeps", "scores"):
            v = data.get(key)
            if type(v) is not list or not set(map(type, v)) <= _INTS:
                raise ValueError(f"{key!r} must be a list of whole numbers")
            lists.append(tuple(v))
        rounds, sweeps, scores = lists
        players, seat, side = data.get("players"), data.get("seat"), data.get("side")
        if type(players) is not int or not 1 <= players <= 12:
            raise ValueError("'players' must be a whole number from 1 to 12")
        if seat is not None and type(seat) is not int:
            raise ValueError("'seat' must be a whole number")
        if side is not None and (type(side) is not int or not 0 <= side < len(scores)):
            raise ValueError("'side' is not one of the scores")
        result = data.get("result")
        if result is not None and result not in RESULTS:
            raise ValueError(f"unknown result {result!r}"[:80])
        if (side is None) != (result is None):
            raise ValueError("'side' and 'result' go together")
        opponents = data.get("opponents")
        if type(opponents) is not list or not all(
                type(o) is str and 0 < len(o) <= 20 for o in opponents):
            raise ValueError("'opponents' must be a list of levels")
        undo = data.get("undo", False)
        if type(undo) is not bool:
            raise ValueError("'undo' must be true or false")
        try:
            ended = datetime.fromisoformat(ended_text)
        except ValueError:
            raise ValueError("'ended' is not a time") from None
        ended = ended.astimezone(UTC) if ended.tzinfo is not None \
            else ended.replace(tzinfo=UTC)
        daily_text = data.get("daily")
        daily: date | None = None
        if daily_text is not None:
            if type(daily_text) is not str:
                raise ValueError("'daily' must be a date")
            try:
                daily = date.fromisoformat(daily_text)
            except ValueError:
                raise ValueError("'daily' is not a date") from None
        return cls(game=game, ended=ended, preset=preset, players=players,
                   opponents=tuple(opponents), seat=seat, side=side, result=result,
                   rounds=rounds, sweeps=sweeps, scores=scores, undo=undo, daily=daily)


_INTS = frozenset({int})


def record_from_game(state: State, seats: Sequence[Seat], *, game: str, ended: datetime,
                     created: datetime | None = None, seat: int | None = None,
                     undo: bool = False) -> GameRecord:
    """The record of a finished game ``state`` played by ``seats``.

    ``seat``: the person's seat; by default the only human seat (None when several people
    played at one keyboard). ``created``: when the game started (its daily date comes from
    it). ``game``: the save's id (a game is recorded once)."""
    if not state.is_game_over:
        raise ValueError("the game is not over")
    if seat is None:
        humans = [i for i, s in enumerate(seats) if s.is_human]
        seat = humans[0] if len(humans) == 1 else None
    return record_from_play(
        preset=state.rules.preset_name, players=state.num_players, sides=state.sides,
        seats=seats,
        summaries=state.round_summaries, round_no=state.round_no, scores=state.scores,
        sweeps=state.sweeps, winner=state.winner, game=game, ended=ended, seat=seat,
        undo=undo, daily=daily_date(state, seats, created, ended))


def record_from_play(*, preset: str, players: int, sides: Sequence[Sequence[int]],
                     seats: Sequence[Seat], summaries: Sequence[RoundSummary],
                     round_no: int, scores: Sequence[int],
                     sweeps: Sequence[int], winner: int | None, game: str, ended: datetime,
                     seat: int | None, undo: bool = False,
                     daily: date | None = None) -> GameRecord:
    """The record of a finished game from what everyone at its table saw (no hidden card):
    its ``sides`` (seats by side), its ``seats``, the summaries of its finished rounds in
    order, its last ``round_no``, the final ``scores`` (by side), the seats' ``sweeps`` in its
    last round and the ``winner`` (a side, None: a draw), seen from ``seat`` (None: nobody's
    game in particular). A table's game on a server is recorded this way (the player's app
    never holds the game's State)."""
    side_of = {s: i for i, members in enumerate(sides) for s in members}
    side = side_of.get(seat) if seat is not None else None
    rounds: list[int] = []
    swept: list[int] = []
    result: Result | None = None
    opponents: list[str] = []
    if side is not None:
        members = sides[side]
        before = 0
        for summary in summaries:
            rounds.append(summary.game_scores[side] - before)
            before = summary.game_scores[side]
            swept.append(sum(summary.sweeps[s] for s in members if s < len(summary.sweeps)))
        if round_no > len(summaries):  # won in the middle of a round
            rounds.append(scores[side] - before)
            swept.append(sum(sweeps[s] for s in members if s < len(sweeps)))
        result = "draw" if winner is None else "win" if winner == side else "loss"
        for i, s in enumerate(seats):
            if side_of.get(i) != side:
                opponents.append(s.level or "computer" if not s.is_human else "person")
    else:
        opponents = [s.level or "computer" for s in seats if not s.is_human]
    return GameRecord(game=game, ended=ended.astimezone(UTC).replace(microsecond=0),
                      preset=preset, players=players, opponents=tuple(opponents),
                      seat=seat, side=side, result=result, rounds=tuple(rounds),
                      sweeps=tuple(swept), scores=tuple(scores), undo=undo, daily=daily)


@dataclass
class LedgerRead:
    """What reading the ledger found: the records in the order they were written, and the
    damaged lines (line number, why), skipped. ``rebuilt``: the ledger was missing or damaged
    and was made again from its good lines and the finished saves (``added`` of them);
    ``problem``: it could not be written back (the figures are right all the same)."""

    records: list[GameRecord] = field(default_factory=list)
    damaged: list[tuple[int, str]] = field(default_factory=list)
    missing: bool = False
    rebuilt: bool = False
    added: int = 0
    problem: str | None = None

    def report(self) -> str | None:
        """A sentence for the player about damaged lines and the rebuild, or None."""
        parts: list[str] = []
        if self.damaged:
            lines = ", ".join(str(n) for n, _ in self.damaged[:5])
            more = "…" if len(self.damaged) > 5 else ""
            n = len(self.damaged)
            parts.append(f"{n} damaged line{'s' if n != 1 else ''} of the statistics ledger "
                         f"(line{'s' if n != 1 else ''} {lines}{more}: {self.damaged[0][1]}) "
                         f"{'were' if n != 1 else 'was'} skipped.")
            if self.rebuilt:
                parts.append(f"The ledger was rebuilt from its good lines and your finished "
                             f"saved games; the damaged copy is kept as {DAMAGED_FILE}.")
        elif self.rebuilt and self.added:
            parts.append(f"The statistics ledger was missing: it was rebuilt from "
                         f"{self.added} finished saved game{'s' if self.added != 1 else ''}.")
        if self.problem:
            parts.append(self.problem)
        return " ".join(parts) or None


class Ledger:
    """The ledger of data directory ``data`` (``DATA/ledger.jsonl``)."""

    def __init__(self, data: Path) -> None:
        self.data = Path(data)
        self.path = self.data / LEDGER_FILE

    # ------------------------------------------------------------------ reading
    def read(self) -> LedgerRead:
        """The records and the damaged lines, as they are on disk (nothing is written)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return LedgerRead(missing=True)
        except OSError as e:
            return LedgerRead(damaged=[(0, f"the file cannot be read ({e.strerror or e})")])
        return parse_ledger(raw)

    # ------------------------------------------------------------------ writing
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.data.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.data / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def append(self, record: GameRecord) -> None:
        """Append one record (fsynced). Raises :class:`LedgerError`."""
        try:
            with self._locked():
                self._append(record.to_line())
        except OSError as e:
            raise _error(e, self.path) from e

    def _append(self, line: bytes) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size:  # a crash in the middle of an append left no newline: start a new line
                with open(self.path, "rb") as f:
                    f.seek(size - 1)
                    if f.read(1) != b"\n":
                        line = b"\n" + line
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def load(self, store: SaveStore | None = None, *,
             skip: frozenset[str] = frozenset()) -> LedgerRead:
        """The records; a missing or damaged ledger is rebuilt first (with the finished games
        of ``store`` when given, but those whose id is in ``skip``). Never raises: a failure
        to write is in ``problem``."""
        found = self.read()
        if not found.missing and not found.damaged:
            return found
        try:
            with self._locked():
                found = self.read()  # another window may have rebuilt it meanwhile
                if not found.missing and not found.damaged:
                    return found
                return self._rebuild(found, store, skip)
        except OSError as e:
            found.problem = str(_error(e, self.path))
            if store is not None:
                found.added += _add_saves(found.records, store, skip)
            return found

    def _rebuild(self, found: LedgerRead, store: SaveStore | None,
                 skip: frozenset[str]) -> LedgerRead:
        if store is not None:
            found.added = _add_saves(found.records, store, skip)
        if found.missing and not found.records:
            return found  # nothing to write: no ledger yet
        if found.damaged and self.path.exists():
            os.replace(self.path, self.data / DAMAGED_FILE)
        tmp = self.data / f".{LEDGER_FILE}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, b"".join(r.to_line() for r in found.records))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        dfd = os.open(self.data, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
        found.rebuilt = True
        return found

    def record(self, record: GameRecord, store: SaveStore | None = None) -> bool:
        """Add a finished game unless the ledger has it (a finished game opened again: its
        id is looked for in the lines, which this module writes); False when it had it. A
        missing ledger is first rebuilt from the finished games of ``store`` (this one
        aside); damaged lines are left for the next reading to report and rebuild. Raises
        :class:`LedgerError`."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            found = self.load(store, skip=frozenset({record.game}))
            if found.problem is not None:
                raise LedgerError(found.problem) from None
        except OSError as e:
            raise _error(e, self.path) from e
        else:
            if _id_field(record.game) in raw:
                return False
        self.append(record)
        return True


def _id_field(game: str) -> bytes:
    """How a record's line holds its game's id (see GameRecord.to_line)."""
    return b'"game":' + json.dumps(game, ensure_ascii=True).encode("ascii") + b","


def parse_ledger(raw: bytes) -> LedgerRead:
    """The records of a ledger's bytes; damaged lines are listed (1-based), not fatal."""
    lines = raw.split(b"\n")
    kept = [line for line in lines if line.strip()]
    try:  # every line good (the usual case): one JSON array, read at once
        if max(map(len, kept), default=0) > MAX_LINE:
            raise ValueError("a line is too long")
        parsed = json.loads(b"[" + b",".join(kept) + b"]")
        if len(parsed) != len(kept):
            raise ValueError("a line holds more than one value")
        return LedgerRead(records=[GameRecord.from_json(d) for d in parsed])
    except (ValueError, RecursionError):
        pass
    out = LedgerRead()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            out.damaged.append((number, "the line is too long"))
            continue
        try:
            out.records.append(GameRecord.from_json(json.loads(line)))
        except (ValueError, RecursionError) as e:
            bad_json = isinstance(e, json.JSONDecodeError | UnicodeDecodeError)
            out.damaged.append((number, "not JSON" if bad_json else str(e)))
    return out


def _add_saves(records: list[GameRecord], store: SaveStore,
               skip: frozenset[str] = frozenset()) -> int:
    """Add the finished saved games that ``records`` lacks (but those in ``skip``); returns
    how many."""
    have = {r.game for r in records} | skip
    try:
        entries = [e for e in store.entries(verify=False)
                   if e.ok and e.finished and e.game_id not in have]
    except SaveError:
        return 0
    added: list[GameRecord] = []
    for entry in entries:
        try:
            game = store.load(entry, read_only=True)
        except SaveError:
            continue
        if not game.state.is_game_over or len(game.seats) != game.state.num_players:
            continue
        ended = game.updated or entry.last_played
        added.append(record_from_game(game.state, game.seats, game=entry.game_id,
                                      ended=ended, created=game.created, undo=game.undo))
    added.sort(key=lambda r: (r.ended, r.game))
    records.extend(added)
    return len(added)


def _error(e: OSError, path: Path) -> LedgerError:
    return LedgerError(f"The statistics ledger {path} could not be written "
                       f"({e.strerror or e}): this game is not in your statistics.")
