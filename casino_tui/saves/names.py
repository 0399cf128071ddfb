"""Names of saved games: the name a player gives (checked), the title of a game without one
(:func:`game_title`), the players of a file that names none, and numbered names for copies."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from casino_tui.engine import PRESET_DESCRIPTIONS, CasinoError, resolve_preset_name
from casino_tui.engine.notation import compass_names
from casino_tui.saves.errors import SaveError
from casino_tui.saves.records import MAX_NAME_LENGTH, Seat, _check_text


def _clean_game_name(name: str | None) -> str | None:
    if name is None:
        return None
    try:
        text = _check_text(name, "a game's name", allow_empty=True)
    except ValueError as e:
        raise SaveError(f"That name cannot be used: {e}.", "invalid") from None
    return text or None


def game_title(preset: str, seats: Sequence[Seat], sides: Sequence[Sequence[int]],
               started: datetime) -> str:
    """A readable name for a game the player did not name: its rules, who plays (the one
    person is "you", computers go by their level) and when it began, in local time."""
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


def _default_seats(n: int) -> tuple[Seat, ...]:
    return tuple(Seat.human(name) for name in compass_names(n))


def _numbered_name(name: str, taken: Collection[str | None]) -> str:
    """``name (2)`` (or the first free number: not in ``taken``) for another copy of a game."""
    n = 2
    while True:
        suffix = f" ({n})"
        candidate = name[:MAX_NAME_LENGTH - len(suffix)].rstrip() + suffix
        if candidate not in taken:
            return candidate
        n += 1
