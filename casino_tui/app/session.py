"""A game being played in the UI: who sits where, the engine State and the move log, and how
it is saved (the seats of a new game's save, the setup of a loaded game, the autosave after the
deal, every move and every new round).

Pure Python (no Textual): the screens drive it, tests can use it directly (the kill test plays
and saves through it). It talks to the engine only through its public API (State, Rules, Move,
MoveEvent, SeatView).
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from casino_tui.engine import (
    PRESET_DESCRIPTIONS,
    Build,
    Card,
    Move,
    MoveEvent,
    Pile,
    Rules,
    SeatView,
    State,
    resolve_preset_name,
)
from casino_tui.engine.cards import ACE, rank_of
from casino_tui.engine.serialize import replay

from .cardfmt import CardPainter
from .describe import move_log_line

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.saves import LoadedGame, SaveSlot, SaveStore, Seat

DEFAULT_LEVEL = "medium"

SEAT_NAMES: dict[int, tuple[str, ...]] = {
    2: ("South", "North"),
    3: ("South", "West", "East"),
    4: ("South", "West", "North", "East"),
    5: ("South", "West", "Northwest", "Northeast", "East"),
    6: ("South", "Southwest", "Northwest", "North", "Northeast", "Southeast"),
}


# Seeds a player may give: the engine shuffles from any whole number (it keys its random
# generator by the seed's text), but a save must read back the same number in every JSON reader
# (exact up to 2**53), and a negative seed is most likely a typing mistake.
SEED_MAX = 2**53 - 1


def parse_seed(text: str) -> int:
    """A seed typed by the player (``--seed``, the New game screen). Raises ValueError with a
    sentence for the player."""
    shown = text.strip()
    if len(shown) > 24:
        shown = shown[:21] + "..."
    try:
        seed = int(text.strip())
    except ValueError:  # not a number (or thousands of digits)
        seed = -1
    if not 0 <= seed <= SEED_MAX:
        raise ValueError(f"the seed must be a whole number from 0 to {SEED_MAX}, not {shown}")
    return seed


# Short labels of the compass seat names (score columns, the five- and six-player table).
SEAT_LABELS: dict[str, str] = {
    "South": "S", "West": "W", "North": "N", "East": "E",
    "Southwest": "SW", "Northwest": "NW", "Northeast": "NE", "Southeast": "SE",
}


def seat_labels(names: Sequence[str]) -> list[str]:
    """A short label (one or two characters) for every seat, all different: S, SW, NW ... for
    the compass names; otherwise initials (``Ada Byron`` AB, ``Max`` M), the first two letters
    where initials clash (``Ann`` and ``Amy``: An, Am), and initial plus seat number (A2) if
    even those clash."""
    def initials(name: str) -> str:
        words = name.split()
        return "".join(w[0] for w in words[:2]).upper() if words else ""

    labels = [SEAT_LABELS.get(n) or initials(n) for n in names]
    steps: tuple[Callable[[int], str], ...] = (
        lambda i: names[i].strip()[:2].title(),
        lambda i: (names[i].strip()[:1].upper() or "P") + str(i + 1))
    for step in steps:
        clash = [i for i, lab in enumerate(labels) if not lab or labels.count(lab) > 1]
        if not clash:
            break
        for i in clash:
            if names[i] not in SEAT_LABELS:
                labels[i] = step(i)
    return labels


def preset_title(name: str) -> str:
    """A preset's display name: the text of its description before the colon."""
    key = resolve_preset_name(name)
    desc = PRESET_DESCRIPTIONS.get(key, key)
    head = desc.split(":", 1)[0]
    if "(" in head:
        head = head.split("(", 1)[0]
    return head.strip() or key


def seat_names(n: int) -> tuple[str, ...]:
    return SEAT_NAMES.get(n, tuple(f"Player {i + 1}" for i in range(n)))


@dataclass(frozen=True)
class SeatConfig:
    """One seat: its player's name and whether a person or the computer (at a level) plays."""

    name: str
    human: bool
    level: str = DEFAULT_LEVEL


def default_seats(n: int, humans: int = 1, level: str = DEFAULT_LEVEL) -> tuple[SeatConfig, ...]:
    names = seat_names(n)
    return tuple(SeatConfig(names[i], i < humans, level) for i in range(n))


@dataclass(frozen=True)
class GameConfig:
    """Everything the New game screen decides."""

    preset: str = "classic"
    players: int = 2
    seats: tuple[SeatConfig, ...] = field(default_factory=lambda: default_seats(2))
    partnerships: bool = True  # four players only, where the preset has partnerships
    target: int | None = None  # None: the preset's target
    seed: int | None = None  # None: a random seed chosen when the game starts

    def rules(self) -> Rules:
        base = Rules.preset(self.preset)
        over: dict[str, object] = {}
        if self.target is not None and self.target != base.target:
            over["target"] = self.target
        if self.players == 4 and base.partnerships_for_4 and not self.partnerships:
            over["partnerships_for_4"] = False
        return base.with_options(**over) if over else base

    def with_players(self, n: int) -> GameConfig:
        """The same game for ``n`` players, keeping the names and kinds of existing seats."""
        defaults = default_seats(n, humans=1)
        seats = tuple(self.seats[i] if i < len(self.seats) else defaults[i] for i in range(n))
        return replace(self, players=n, seats=seats)


@dataclass
class LogEntry:
    text: str
    seat: int | None  # None: a note from the table (new deal, round over)
    round_no: int


@dataclass
class SideCounts:
    """A side's running counts in the current round (for the score panel)."""

    cards: int
    suit: int  # cards of the suit that scores "most" (spades in most presets)
    aces: int
    casinos: tuple[Card, ...]
    sweeps: int


class GameSession:
    """The engine State plus the seats, names and log of one game in the UI."""

    def __init__(self, config: GameConfig, state: State | None = None, *,
                 resumed: bool = False) -> None:
        self.config = config
        self.rules = state.rules if state is not None else config.rules()
        if state is not None:
            self.seed: int | str = state.seed
        else:
            self.seed = config.seed if config.seed is not None else random.randrange(1, 10**6)
        self.state = state if state is not None else State(self.rules, config.players, self.seed)
        self.names: list[str] = [s.name for s in config.seats]
        self.log: list[LogEntry] = []
        self.summaries_shown = 0
        if resumed and state is not None:  # earlier rounds' summaries were seen before
            pending = state.is_round_over or state.is_game_over
            self.summaries_shown = max(0, len(state.round_summaries) - (1 if pending else 0))

    # ------------------------------------------------------------------ seats and sides
    @property
    def num_players(self) -> int:
        return self.state.num_players

    def is_human(self, seat: int) -> bool:
        return self.config.seats[seat].human

    @property
    def human_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.config.seats) if s.human]

    @property
    def hot_seat(self) -> bool:
        """Two or more people share the keyboard: hands are hidden between their turns."""
        return len(self.human_seats) >= 2

    def level(self, seat: int) -> str:
        return self.config.seats[seat].level

    @property
    def side_names(self) -> list[str]:
        return [" & ".join(self.names[s] for s in side) for side in self.state.sides]

    @property
    def side_labels(self) -> list[str]:
        """Short labels of the sides for narrow score columns: ``S``, ``NW``, ``S+N``."""
        labels = seat_labels(self.names)
        return ["+".join(labels[s] for s in side) for side in self.state.sides]

    @property
    def sweeps_score(self) -> bool:
        """The rules score sweeps: only then are sweeps shown (log, seats, score panel)."""
        return self.rules.sweep_points > 0

    def partner_of(self, seat: int) -> int | None:
        side = self.state.sides[self.state.side_of[seat]]
        others = [s for s in side if s != seat]
        return others[0] if others else None

    # ------------------------------------------------------------------ playing
    def ai_seed(self) -> int:
        """A seed for the computer's next decision, fixed by the game seed and the move number
        (so a seeded game replays identically)."""
        st = self.state
        return zlib.crc32(f"{self.seed}/{st.round_no}/{len(st.history)}".encode())

    def apply(self, move: Move, painter: CardPainter) -> tuple[MoveEvent, list[Pile]]:
        """Play ``move`` for the player to move (raises IllegalMoveError, changing nothing)."""
        return self._play(self.state, move, painter, validate=True)

    def _play(self, st: State, move: Move, painter: CardPainter, *,
              validate: bool) -> tuple[MoveEvent, list[Pile]]:
        """Apply ``move`` to ``st`` and log it (the game's state, or a replay of it)."""
        table_before = list(st.table)
        deal_before = st.deal_no
        ev = st.apply(move, validate=validate)
        self.log.append(LogEntry(move_log_line(table_before, ev, self.names, self.side_names,
                                               painter, sweeps=self.sweeps_score),
                                 ev.seat, st.round_no))
        if ev.redeal and not st.is_round_over:
            note = "New deal" + (": the last one" if st.is_last_deal else "")
            if st.deal_no != deal_before:
                note += f" ({st.deal_no} of {len(st.deal_sizes)})"
            self.log.append(LogEntry(note, None, st.round_no))
        return ev, table_before

    def add_note(self, text: str) -> None:
        self.log.append(LogEntry(text, None, self.state.round_no))

    def next_round(self) -> None:
        self.state.next_round()
        self.round_start_notes()

    def round_start_notes(self, st: State | None = None) -> None:
        st = self.state if st is None else st
        self.log.append(LogEntry(f"Round {st.round_no}: {self.names[st.dealer]} deals", None,
                                 st.round_no))
        if st.initial_grant is not None:
            seat, cards = st.initial_grant
            self.log.append(LogEntry(f"{self.names[seat]} took the {len(cards)} paired table "
                                     "cards", None, st.round_no))

    def rebuild_log(self, painter: CardPainter, start_position: str | None = None) -> None:
        """The log of a resumed game, as it was when the game was saved: its moves replayed
        from the seed (or from ``start_position``), with the same lines and notes."""
        self.log = []
        st = replay(self.rules, self.num_players, self.seed, [], start_position=start_position)
        self.round_start_notes(st)
        for move in self.state.history:
            if st.is_round_over:
                self.log.append(LogEntry(f"Round {st.round_no} over", None, st.round_no))
                st.next_round()
                self.round_start_notes(st)
            self._play(st, move, painter, validate=False)
        if st.round_no < self.state.round_no:  # saved just after the next round was dealt
            self.log.append(LogEntry(f"Round {st.round_no} over", None, st.round_no))
            self.round_start_notes(self.state)

    # ------------------------------------------------------------------ counts
    def side_counts(self, view: SeatView) -> list[SideCounts]:
        rules = self.rules
        suit = 2 if rules.diamond_scoring else rules.majority_suit_index
        out = []
        for side in view.sides:
            cards = [c for s in side for c in view.captured[s]]
            out.append(SideCounts(
                cards=len(cards),
                suit=sum(1 for c in cards if c & 3 == suit),
                aces=sum(1 for c in cards if rank_of(c) == ACE),
                casinos=tuple(c for c in (rules.big_casino, rules.little_casino) if c in cards),
                sweeps=sum(view.sweeps[s] for s in side),
            ))
        return out

    @property
    def majority_suit(self) -> int:
        return 2 if self.rules.diamond_scoring else self.rules.majority_suit_index


# ---------------------------------------------------------------------- saving
def save_seats(config: GameConfig, num_players: int) -> list[Seat]:
    """The seats a new game's save records (names, and the computers' levels)."""
    from casino_tui.saves import Seat

    return [Seat(s.name, "human") if s.human else Seat(s.name, "computer", s.level)
            for s in config.seats[:num_players]]


def loaded_config(game: LoadedGame) -> GameConfig:
    """The GameConfig of a saved game: its preset, seats, names and computer levels."""
    st = game.state
    seats = tuple(SeatConfig(s.name, s.is_human, s.level or DEFAULT_LEVEL) for s in game.seats)
    return GameConfig(preset=st.rules.preset_name, players=st.num_players, seats=seats,
                      seed=st.seed if isinstance(st.seed, int) else None)


@dataclass(frozen=True)
class SaveNotice:
    """Something to tell the player about saving: a problem (``error``) or that it works
    again."""

    text: str
    error: bool


def autosave(store: SaveStore | None, slot: SaveSlot | None, state: State) -> SaveNotice | None:
    """Save ``state`` into ``slot`` (after the deal, every move and every new round; nothing
    when the game is not saved: read-only, or no store). Play always continues: a problem is
    returned once (until a save succeeds again), then that saving works again."""
    from casino_tui.saves import SaveError

    if slot is None or store is None or slot.closed:
        return None
    before = slot.last_error
    try:
        store.autosave(slot, state)
    except SaveError as e:
        if before is None or str(before) != str(e):
            return SaveNotice(str(e), error=True)
        return None
    if before is not None:
        return SaveNotice("The game is being saved again.", error=False)
    return None


def pile_index_of(table: Sequence[Pile], card: Card) -> int | None:
    """Index of the pile holding ``card`` (loose or in a build)."""
    for i, p in enumerate(table):
        if p == card or (isinstance(p, Build) and card in p.cards):
            return i
    return None
