"""Engine benchmark: ``python -m benchmarks.engine [--json]``.

Plays complete rounds of uniformly random legal play (builds included) on one core and prints
rounds per second, then times legal move generation on every position reached. Figures are
medians over several runs of CPU time of this process (``time.process_time``), so another busy
process on the machine disturbs them less than wall-clock time would.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence

from casino_tui.engine import fastgen
from casino_tui.engine._hotpath import is_compiled, is_native
from casino_tui.engine.cards import parse_cards
from casino_tui.engine.moves import Pile
from casino_tui.engine.rules import Rules
from casino_tui.engine.state import Phase, State

CONFIGS: tuple[tuple[str, str, int], ...] = (
    ("classic_2p", "classic", 2),
    ("classic_4p", "classic", 4),
    ("royal_2p", "royal_cassino", 2),
)


def play_rounds(rules: Rules, players: int, rounds: int, seed: int,
                positions: list[tuple[list[Pile], list[int], int]] | None = None) -> float:
    """Play ``rounds`` complete rounds of random legal play; return the CPU seconds taken.

    With ``positions``, every position reached is recorded (table, hand, mover).
    """
    state = State(rules, players, seed=seed)
    legal, apply = state.legal_moves, state.apply
    rnd = random.Random(seed).random
    done = 0
    play, pluck = Phase.PLAY, Phase.PLUCK
    t0 = time.process_time()
    while done < rounds:
        phase = state.phase
        if phase is not play and phase is not pluck:
            if state.is_round_over:
                state.next_round()
                done += 1
            else:  # pragma: no cover - the game is over: the target is out of reach
                state = State(rules, players, seed=seed + done + 1)
                legal, apply = state.legal_moves, state.apply
            continue
        moves = legal()
        if positions is not None:
            seat = state.to_move
            positions.append((list(state.table), list(state.hands[seat]), seat))
        apply(moves[int(rnd() * len(moves))], validate=False)
    return time.process_time() - t0


def rounds_per_second(preset: str, players: int, rounds: int, runs: int, seed: int) -> float:
    rules = Rules.preset(preset, target=10**9)  # no game end: rounds only
    play_rounds(rules, players, max(rounds // 4, 50), seed)  # warm-up (caches, interning)
    rates = [rounds / play_rounds(rules, players, rounds, seed + 1 + i) for i in range(runs)]
    return statistics.median(rates)


def time_movegen(rules: Rules, positions: Sequence[tuple[list[Pile], list[int], int]]
                 ) -> list[float]:
    """Microseconds to generate the legal moves of each position (fresh, uncached list)."""
    out = []
    pc = time.perf_counter
    gen = fastgen.generate
    gc.disable()
    try:
        for table, hand, mover in positions:
            t0 = pc()
            gen(rules, table, hand, mover)
            out.append((pc() - t0) * 1e6)
        # the slowest positions are timed again (best of 5) so that an interrupt or a page
        # fault is not reported as the cost of a position
        worst = sorted(range(len(out)), key=out.__getitem__)[-max(20, len(out) // 1000):]
        for i in worst:
            table, hand, mover = positions[i]
            best = out[i]
            for _ in range(5):
                t0 = pc()
                gen(rules, table, hand, mover)
                best = min(best, (pc() - t0) * 1e6)
            out[i] = best
    finally:
        gc.enable()
    return out


def clone_us(runs: int, seed: int) -> float:
    """Microseconds per ``State.clone()`` of a classic 2-player game twenty moves into its first
    round (what a search does before each playout), median over ``runs`` runs of 10,000."""
    state = State(Rules.preset("classic"), 2, seed=seed)
    rnd = random.Random(seed).random
    for _ in range(20):
        moves = state.legal_moves()
        state.apply(moves[int(rnd() * len(moves))], validate=False)
    clone = state.clone
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        for _ in range(10_000):
            clone()
        times.append((time.process_time() - t0) / 10_000 * 1e6)
    return statistics.median(times)


STRESS_TABLE = "AS 2H 3D 4C 5S 6H 7D 8C 9S 10H JD QC KS AH 2D 3C 4S 5H 6D 7C"
STRESS_HAND = "8S 9H 10D 5C"
STRESS_CAPTURE = "AS 9S 10H 4C 6H"  # taken with 10D in the stress position


def stress_position() -> tuple[int, float, float]:
    """A 20-card table (tens of thousands of legal moves): the number of moves, the time to
    list them all (ms), and the time to decide one freely chosen capture (ms).

    Like the move generation figures, timed with the garbage collector paused: the tens of
    thousands of new moves would otherwise set off collections whose cost depends on
    everything else this process holds (here, the positions of the whole benchmark).
    """
    rules = Rules.preset("classic")
    hand = parse_cards(STRESS_HAND)
    st = State.from_position(rules, 2, table=parse_cards(STRESS_TABLE), hands=[hand, []],
                             to_move=0, complete=False)
    gc.disable()
    try:
        t0 = time.perf_counter()
        moves = fastgen.generate(rules, st.table, hand, 0)
        listed = (time.perf_counter() - t0) * 1e3
        piles = [st.table.index(c) for c in parse_cards(STRESS_CAPTURE)]
        t0 = time.perf_counter()
        st.check_capture(parse_cards("10D")[0], piles)
        checked = (time.perf_counter() - t0) * 1e3
    finally:
        gc.enable()
    return len(moves), listed, checked


def run(rounds: int, runs: int, seed: int) -> dict[str, object]:
    result: dict[str, object] = {
        "python": platform.python_version(),
        "engine_compiled": is_compiled(),
        "movegen_native": is_native(),
        "rounds_per_run": rounds,
        "runs": runs,
        "timer": "process_time (CPU seconds of this process), median over runs",
    }
    for key, preset, players in CONFIGS:
        result[f"{key}_rounds_per_s"] = round(rounds_per_second(preset, players, rounds, runs,
                                                                seed))
    positions: list[tuple[list[Pile], list[int], int]] = []
    rules = Rules.preset("classic", target=10**9)
    play_rounds(rules, 2, max(rounds // 2, 100), seed, positions)
    times = sorted(time_movegen(rules, positions))
    result["movegen_positions"] = len(times)
    result["movegen_us_median"] = round(statistics.median(times), 2)
    result["movegen_us_p99"] = round(times[int(len(times) * 0.99)], 2)
    result["movegen_us_max"] = round(times[-1], 1)
    result["state_clone_us"] = round(clone_us(runs, seed), 2)
    n_moves, listed, checked = stress_position()
    result["stress_20_card_table_moves"] = n_moves
    result["stress_20_card_table_list_ms"] = round(listed, 1)
    result["stress_20_card_table_check_capture_ms"] = round(checked, 2)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rounds", type=int, default=1000, help="rounds per run (1000)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (5)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.runs < 1:
        parser.error("--rounds and --runs must be at least 1")
    result = run(args.rounds, args.runs, args.seed)
    if args.json:
        print(json.dumps(result))
    else:
        width = max(len(k) for k in result)
        for k, v in result.items():
            print(f"{k:<{width}}  {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
