"""Helpers of the statistics tests: finished games played with the engine and saved, and
ledgers of fixed records."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from casino_tui.engine import Rules, State
from casino_tui.saves import SaveStore, Seat, games_dir
from casino_tui.stats import GameRecord, Ledger

YOU_V_HARD = (Seat.human("Ann"), Seat.computer("Bob", "hard"))
YOU_V_EASY = (Seat.human("Ann"), Seat.computer("Bob", "easy"))


def play_out(state: State, seed: int) -> State:
    """Random legal moves until the game is over."""
    rng = random.Random(seed)
    while not state.is_game_over:
        if state.is_round_over:
            state.next_round()
        else:
            state.apply(rng.choice(state.legal_moves()))
    return state


def finished_save(store: SaveStore, seed: int, seats: tuple[Seat, ...] = YOU_V_HARD,
                  preset: str = "classic", *, finish: bool = True) -> tuple[str, State]:
    """A game saved after the deal and again at its end (or after a few moves)."""
    state = State(Rules.preset(preset), len(seats), seed)
    slot = store.new_game(seats)
    store.autosave(slot, state)
    if finish:
        play_out(state, seed)
    else:
        for _ in range(5):
            state.apply(state.legal_moves()[0])
    store.autosave(slot, state)
    store.close(slot)
    return slot.game_id, state


def store_of(data: Path) -> SaveStore:
    return SaveStore(games_dir(data))


START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)


def record(n: int, result: str, *, preset: str = "classic", level: str = "hard",
           rounds: tuple[int, ...] = (5, 6), sweeps: tuple[int, ...] = (0, 1),
           scores: tuple[int, int] | None = None, daily: date | None = None,
           day: int | None = None) -> GameRecord:
    """A fixed record: game ``g<n>``, ended ``n`` hours after START (or on day ``day``)."""
    ended = START + (timedelta(days=day) if day is not None else timedelta(hours=n))
    if scores is None:
        mine = sum(rounds)
        scores = (mine, mine - 3) if result == "win" else (mine, mine + 4)
    return GameRecord(game=f"g{n}", ended=ended, preset=preset, players=2, opponents=(level,),
                      seat=0, side=0, result=result,  # type: ignore[arg-type]
                      rounds=rounds, sweeps=sweeps, scores=scores, daily=daily)


def write_ledger(data: Path, records: list[GameRecord]) -> Ledger:
    ledger = Ledger(data)
    for r in records:
        ledger.append(r)
    return ledger
