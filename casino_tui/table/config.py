"""What a game at a table is: its rules, its seats (a person, or the computer at a level) and its
seed; the seats a save records, and the config of a saved game.

Pure Python (no Textual): the New game screen fills a :class:`GameConfig`, a
:class:`~casino_tui.table.controller.TableController` plays it, a table hub creates one per table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from casino_tui.engine import Rules

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.saves import LoadedGame, Seat

DEFAULT_LEVEL = "medium"
LEVELS: tuple[str, ...] = ("random", "easy", "medium", "hard")  # as casino_tui.ai.LEVELS
MIN_PLAYERS, MAX_PLAYERS = 2, 6
# a game's target: up to four digits, as the New game screen's field takes; the command line
# and a table's settings refuse more (a save holds targets up to 10**6: saves/fileformat.py)
MAX_TARGET = 9999
MAX_SEAT_NAME = 20

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
    """Everything the New game screen (or a table's creator) decides."""

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


# ---------------------------------------------------------------------- JSON (the table channel)
def config_to_json(config: GameConfig) -> dict[str, Any]:
    """A config as plain JSON (an app asking the server's hub for a new table)."""
    return {"preset": config.preset, "players": config.players,
            "seats": [{"name": s.name, "human": s.human, "level": s.level}
                      for s in config.seats],
            "partnerships": config.partnerships, "target": config.target, "seed": config.seed}


def config_from_json(value: object) -> GameConfig:
    """A config read from JSON that anyone may have sent: every field checked and bounded
    (2 to 6 players, one seat each, printable seat names of at most 20 characters, known
    computer levels, a target of 1 to MAX_TARGET, a seed as :func:`parse_seed` allows). Raises
    ValueError saying what is wrong; whether the preset exists is for the table to say."""
    if not isinstance(value, Mapping):
        raise ValueError("a game's settings must be an object")
    unknown = set(value) - {"preset", "players", "seats", "partnerships", "target", "seed"}
    if unknown:
        raise ValueError(f"unknown game settings: {', '.join(sorted(map(str, unknown)))}"[:100])
    preset = value.get("preset", "classic")
    if not isinstance(preset, str) or not 0 < len(preset) <= 40:
        raise ValueError("the preset must be a name")
    players = _whole(value.get("players"), "the number of players")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} players")
    raw = value.get("seats")
    if not isinstance(raw, list) or len(raw) != players:
        raise ValueError("the seats must be a list with one seat for each player")
    seats = tuple(_seat_from_json(s) for s in raw)
    partnerships = value.get("partnerships", True)
    if not isinstance(partnerships, bool):
        raise ValueError("partnerships must be true or false")
    target = value.get("target")
    if target is not None:
        target = _whole(target, "the target")
        if not 1 <= target <= MAX_TARGET:
            raise ValueError(f"the target must be from 1 to {MAX_TARGET}")
    seed = value.get("seed")
    if seed is not None:
        seed = _whole(seed, "the seed")
        if not 0 <= seed <= SEED_MAX:
            raise ValueError(f"the seed must be a whole number from 0 to {SEED_MAX}")
    return GameConfig(preset=preset, players=players, seats=seats, partnerships=partnerships,
                      target=target, seed=seed)


def _seat_from_json(value: object) -> SeatConfig:
    if not isinstance(value, Mapping) or set(value) - {"name", "human", "level"}:
        raise ValueError("a seat must be an object with a name, human and level")
    name, human, level = value.get("name"), value.get("human"), value.get("level",
                                                                          DEFAULT_LEVEL)
    if not isinstance(name, str) or not 0 < len(name) <= MAX_SEAT_NAME \
            or not name.isprintable():
        raise ValueError(f"a seat's name is 1 to {MAX_SEAT_NAME} printable characters")
    if not isinstance(human, bool):
        raise ValueError("a seat's human must be true or false")
    if level not in LEVELS:
        raise ValueError(f"a computer's level is one of {', '.join(LEVELS)}")
    assert isinstance(level, str)
    return SeatConfig(name, human, level)


def _whole(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number")
    return value
