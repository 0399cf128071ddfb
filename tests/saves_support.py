"""Helpers shared by the saved-games tests."""

from __future__ import annotations

import random
from pathlib import Path

from casino_tui.engine import Rules, State
from casino_tui.saves import SaveSlot, SaveStore, Seat

REPO = Path(__file__).resolve().parent.parent
EXAMPLES_DIR = REPO / "saves"

TWO = (Seat.human("Ann"), Seat.computer("Bob", "medium"))
FOUR = (Seat.human("South"), Seat.computer("West", "easy"), Seat.computer("North", "hard"),
        Seat.computer("East", "random"))


def random_move(state: State, rng: random.Random) -> None:
    """Play one random legal move (starting the next round first if one is over)."""
    if state.is_round_over:
        state.next_round()
        return
    legal = [m for m in state.legal_moves() if m.kind != "claim"] or state.legal_moves()
    state.apply(rng.choice(legal))


def play(state: State, moves: int, seed: int = 0, store: SaveStore | None = None,
         slot: SaveSlot | None = None) -> State:
    """Up to ``moves`` random moves, autosaving after each one when a slot is given."""
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_game_over:
            break
        random_move(state, rng)
        if store is not None and slot is not None:
            store.autosave(slot, state)
    return state


def saved_game(store: SaveStore, moves: int = 12, *, seed: int = 3, name: str | None = "Train",
               seats: tuple[Seat, ...] = TWO, rules: Rules | None = None) -> tuple[SaveSlot,
                                                                                   State]:
    """A game of ``len(seats)`` players saved after ``moves`` random moves (slot still open)."""
    state = State(rules or Rules.preset("classic"), len(seats), seed)
    slot = store.new_game(seats, name)
    store.autosave(slot, state)
    play(state, moves, seed)
    store.autosave(slot, state)
    return slot, state
