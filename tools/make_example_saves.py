"""Write the example saved games of ``saves/`` with the app's own save code.

Each example is a seeded game played by the computer levels of ``casino_tui.ai`` (which choose
the same moves for the same seed every time) and saved by :class:`casino_tui.saves.SaveStore`
after every move, exactly as the app saves; the last version is copied out. Times and ids are
fixed, so running the script again gives the same files as long as the engine and the computer
players play the same moves.

    .venv/bin/python tools/make_example_saves.py            # writes saves/*.json
    .venv/bin/python tools/make_example_saves.py OUT_DIR    # somewhere else

Tests load the committed files (tests/test_saves_examples.py): every future version must keep
loading them, so do not regenerate them unless the save format's documentation says so.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from casino_tui.ai import choose_move
from casino_tui.engine import Build, Rules, State
from casino_tui.saves import SaveStore, Seat

ROOT = Path(__file__).resolve().parent.parent
START = datetime(2025, 3, 14, 18, 5, tzinfo=UTC)

Stop = Callable[[State], bool]


@dataclass(frozen=True)
class Example:
    file: str  # the file name in saves/ (without .json)
    title: str  # the game's name, as given with ctrl+s or rename
    rules: Rules
    seats: tuple[Seat, ...]
    seed: int
    stop: Stop  # stop playing (and keep the last save) when this is true


def _has_build(state: State) -> bool:
    return any(isinstance(p, Build) for p in state.table)


def _mid_round_with_builds(state: State) -> bool:
    # a player's turn in the middle of the second deal, with builds on the table
    return (state.current_player == 0 and _has_build(state) and state.deal_no >= 2
            and len(state.history) >= 14)


def _partnership_stop(state: State) -> bool:
    return state.round_no >= 2 and len(state.history) >= 60 and state.current_player == 0


EXAMPLES = (
    Example("fresh-game", "A fresh game", Rules.preset("classic"),
            (Seat.human("You"), Seat.computer("Computer", "medium")), 1001,
            lambda st: True),
    Example("mid-round-builds", "Builds on the table", Rules.preset("classic"),
            (Seat.human("Ann"), Seat.computer("Bob", "medium")), 2024,
            _mid_round_with_builds),
    Example("partnership-4p", "Partners, round two", Rules.preset("classic"),
            (Seat.human("South"), Seat.computer("West", "easy"),
             Seat.computer("North", "medium"), Seat.computer("East", "easy")), 4242,
            _partnership_stop),
    Example("finished-game", "A whole game", Rules.preset("classic", target=11),
            (Seat.computer("Ada", "medium"), Seat.computer("Max", "easy")), 7,
            lambda st: st.is_game_over),
)


def _clock() -> Callable[[], datetime]:
    t = [START]

    def now() -> datetime:
        t[0] += timedelta(seconds=20)
        return t[0]

    return now


def play_example(ex: Example, store_dir: Path) -> Path:
    """Play ``ex`` with autosave after the deal and every move; returns its save file."""
    store = SaveStore(store_dir, clock=_clock(), new_id=lambda _t: ex.file)
    state = State(ex.rules, len(ex.seats), ex.seed)
    slot = store.new_game(ex.seats, ex.title)
    store.autosave(slot, state)
    while not ex.stop(state):
        if state.is_round_over:
            state.next_round()
            store.autosave(slot, state)
            continue
        seat = state.current_player
        assert seat is not None
        level = ex.seats[seat].level or "medium"  # people are played by medium here
        seed = zlib.crc32(f"{ex.seed}/{state.round_no}/{len(state.history)}".encode())
        state.apply(choose_move(state.view(seat), level, seed=seed))
        store.autosave(slot, state)
    store.close(slot)
    return slot.path


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "saves"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for ex in EXAMPLES:
            path = play_example(ex, Path(tmp) / ex.file)
            shutil.copyfile(path, out / f"{ex.file}.json")
            print(out / f"{ex.file}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
