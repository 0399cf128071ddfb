"""A saved game as a read-only replay: every position of the game, rebuilt by replaying its moves
with the engine, and which hands the viewer may see at each (no user interface).

A replay has one step per round's deal (the position before its first play) and one per move
(the position after it). Finished rounds show every hand. In the round a game still in
progress is in, the hands stay as hidden as they were at the table: a game of one person shows
that person's hand only, a game of two or more people at one keyboard shows nobody's (a game
of computers only shows the first seat's, as its table did).

:func:`open_replay` reads a file without ever writing it (a foreign or damaged file raises the
same :class:`~casino_tui.saves.SaveError` as loading it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from casino_tui.engine import MoveEvent, Pile, State
from casino_tui.engine.serialize import replay
from casino_tui.saves import LoadedGame, SaveEntry, SaveStore, Seat, game_title


@dataclass(frozen=True)
class ReplayStep:
    """One position of the game: after ``event`` (None: the round was just dealt)."""

    index: int
    round_no: int
    state: State  # the position after this step (a copy: never changed)
    event: MoveEvent | None
    table_before: tuple[Pile, ...]  # the table before the move (empty for a deal)
    move_no: int  # moves played in the game up to this step


class Replay:
    """Every step of a game (``state``: the game as saved, whose history is replayed from its
    seed or ``start_position``) played by ``seats``; ``title``: what to call it."""

    def __init__(self, state: State, seats: Sequence[Seat], *, title: str = "",
                 start_position: str | None = None, undo: bool = False) -> None:
        if len(seats) != state.num_players:
            raise ValueError(f"{len(seats)} seats for a game of {state.num_players}")
        self.final = state
        self.seats = tuple(seats)
        self.title = title
        self.undo = undo
        self.names = [s.name for s in seats]
        self.steps: list[ReplayStep] = []
        self._build(start_position)
        self.round_starts = [s.index for s in self.steps if s.event is None]

    def _build(self, start_position: str | None) -> None:
        final = self.final
        st = replay(final.rules, final.num_players, final.seed, [],
                    start_position=start_position)
        self._add(st, None, ())
        for move in final.history:
            if st.is_round_over:
                st.next_round()
                self._add(st, None, ())
            before = tuple(st.table)
            ev = st.apply(move, validate=False)
            self._add(st, ev, before)
        if st.round_no < final.round_no:  # saved just after the next round was dealt
            self._add(final, None, ())

    def _add(self, st: State, ev: MoveEvent | None, before: tuple[Pile, ...]) -> None:
        moves = self.steps[-1].move_no if self.steps else 0
        if ev is not None:
            moves += 1
        self.steps.append(ReplayStep(len(self.steps), st.round_no, st.clone(), ev, before,
                                     moves))

    # ------------------------------------------------------------------ who sees what
    @property
    def finished(self) -> bool:
        return self.final.is_game_over

    @property
    def moves(self) -> int:
        return len(self.final.history)

    @property
    def rounds(self) -> int:
        return len(self.round_starts)

    def round_finished(self, round_no: int) -> bool:
        """The round is over in the saved game: every hand of it may be shown."""
        final = self.final
        return round_no < final.round_no or final.is_round_over or final.is_game_over

    @property
    def viewer(self) -> int | None:
        """The seat whose hand the viewer may see in a round still in progress (None: none,
        two or more people shared the keyboard)."""
        humans = [i for i, s in enumerate(self.seats) if s.is_human]
        if len(humans) == 1:
            return humans[0]
        return 0 if not humans else None

    def shown(self, step: ReplayStep, seat: int) -> bool:
        """Whether ``seat``'s hand is shown at ``step``."""
        return self.round_finished(step.round_no) or seat == self.viewer

    # ------------------------------------------------------------------ moving about
    def round_of(self, index: int) -> int:
        """The position in :attr:`round_starts` of the round ``index`` belongs to."""
        return max(i for i, start in enumerate(self.round_starts) if start <= index)

    def jump_round(self, index: int, delta: int) -> int:
        """The first step of the next (``delta`` 1) or previous (-1) round; back from inside
        a round goes to its own start first."""
        r = self.round_of(index)
        if delta < 0 and index > self.round_starts[r]:
            return self.round_starts[r]
        r = min(max(r + delta, 0), len(self.round_starts) - 1)
        return self.round_starts[r]


def replay_of(game: LoadedGame, title: str = "") -> Replay:
    """The replay of a game opened from its save."""
    return Replay(game.state, game.seats, title=title or game.name or "",
                  start_position=game.start_position, undo=game.undo)


def open_replay(store: SaveStore, target: SaveEntry | Path | str) -> Replay:
    """The replay of a saved game (of the store, or a file from elsewhere), read only: the file
    is never written, copied or locked. Raises :class:`~casino_tui.saves.SaveError` with the
    reason when it cannot be opened."""
    game = store.load(target, read_only=True)
    if isinstance(target, SaveEntry):
        title = target.title
    else:
        title = game.name or game_title(game.state.rules.preset_name, game.seats,
                                        game.state.sides, game.created or game.updated
                                        or _file_time(Path(target)))
    return replay_of(game, title)


def _file_time(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except (OSError, OverflowError, ValueError):
        return datetime.now(UTC)
