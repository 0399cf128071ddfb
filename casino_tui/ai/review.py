"""The review of a round: every play with the position before it, and Hard's opinion of a play.

:func:`round_plays` rebuilds a finished (or running) round from the game's start: each play with
the full position before it (every hand, the stock), so a review can show all the cards once the
round is over.

:func:`estimate` is what Hard thinks of one play, from the player's own view at that moment (their
hand, the table, the captures; never a hidden card, as Hard never peeks): the move Hard's search
chooses there, and how many points Hard expects that move to be worth more than the one played.
Both moves are valued the way Hard values its candidates: the same sampled deals of the unseen
cards (weighed by what the other players' plays of the deal say about their hands, as Hard
weighs them) and the same card-counting playouts for both (common random numbers), or the exact
solution when nothing is hidden any more (the last deal of two sides). The points are Hard's
search value: the round points each side can expect, ours minus the opponents' mean.

Only the engine is used (no UI): the app runs :func:`estimate` in its worker process
(:mod:`casino_tui.ai.worker`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..engine import Move, MoveEvent, SeatView, State
from ..engine.serialize import replay
from .hard import hard_search
from .heuristic import Knowledge
from .infer import InferringSampler
from .search import SOLVER_NODES, Sampler, Solver, _Abort, _with_captured, playout

# A difference smaller than this (in points) is "about the same": Hard would not change the play.
MIN_DIFFERENCE = 0.05
COMPARE_WORLDS = 400  # the most sampled deals that compare the two moves
MIN_COMPARE_WORLDS = 24  # at least this many, whatever the budget
DEFAULT_REVIEW_BUDGET = 1.0  # seconds per play: about 60% to choose, the rest to compare


# ------------------------------------------------------------------ the plays of a round
@dataclass(frozen=True)
class Play:
    """One play of a round: ``before`` is the full position it was made in (every hand), and
    ``event`` what it did (captures, sweep, the card drawn)."""

    number: int  # 1, 2, ... within the round
    seat: int
    move: Move
    before: State
    event: MoveEvent

    def view(self) -> SeatView:
        """What the player knew when they played (all an estimate may use)."""
        return self.before.view(self.seat)


def game_start(state: State, start_position: str | None = None) -> State:
    """The game of ``state`` at its first deal (from its seed, or from ``start_position``, a
    game dealt from a set-up position)."""
    return replay(state.rules, state.num_players, state.seed, [], start_position=start_position)


def round_plays(start: State, history: Sequence[Move], round_no: int) -> list[Play]:
    """The plays of round ``round_no``, replaying ``history`` (a game's moves, every round)
    from ``start`` (the game at its first deal, see :func:`game_start`). Raises the engine's
    :class:`~casino_tui.engine.IllegalMoveError` when a move does not replay (a wrong start)."""
    st = start.clone()
    plays: list[Play] = []
    for move in history:
        if st.is_round_over:
            if st.round_no >= round_no:
                break
            st.next_round()
        if st.round_no > round_no:
            break
        if st.round_no < round_no:
            st.apply(move)
            continue
        before = st.clone()
        seat = st.current_player
        event = st.apply(move)
        plays.append(Play(len(plays) + 1, event.seat if seat is None else seat, move, before,
                          event))
    return plays


# ------------------------------------------------------------------ Hard's estimate
@dataclass(frozen=True)
class Estimate:
    """Hard's opinion of one play: the move it would have made (``best``) and how many points
    it expects that to be worth more than the move played (``difference``, never negative)."""

    played: Move
    best: Move
    difference: float
    forced: bool = False  # the only legal move
    exact: bool = False  # worked out to the end of the round (nothing hidden)
    worlds: int = 0  # sampled deals that compared the two moves

    @property
    def changes(self) -> bool:
        """Hard would play otherwise, and expects that to matter."""
        return self.best != self.played and self.difference >= MIN_DIFFERENCE


def estimate(view: SeatView, played: Move, *, seed: int, budget: float | None = None,
             iterations: int | None = None) -> Estimate:
    """Hard's move for ``view`` and its expected gain over ``played`` (a legal move of
    ``view.seat``, to move in ``view``). ``iterations``: a fixed effort (sampled deals for the
    choice and for the comparison), which makes the estimate reproducible; otherwise
    ``budget`` seconds in all (default :data:`DEFAULT_REVIEW_BUDGET`)."""
    if view.to_move != view.seat:
        raise ValueError(f"it is not seat {view.seat}'s turn")
    moves = view.legal_moves()
    if played not in moves:
        raise ValueError(f"{played} is not a legal move of seat {view.seat} here")
    if len(moves) == 1:
        return Estimate(played, played, 0.0, forced=True)
    if iterations is None and budget is None:
        budget = DEFAULT_REVIEW_BUDGET
    start = time.perf_counter()
    choose_budget = None if budget is None else 0.6 * budget
    result = hard_search(view, seed=seed, budget=choose_budget, iterations=iterations)
    best = result.move
    if best == played:
        return Estimate(played, best, 0.0, exact=result.solved)
    deadline = None if budget is None or iterations is not None else start + 0.95 * budget
    rng = random.Random(f"casino-tui/review/{seed}")
    know = Knowledge.of(view)
    sampler: Sampler = InferringSampler(view)  # the deals Hard's own search weighs
    if not sampler.hidden and len(view.sides) == 2 and not view.stock_size:
        exact = _exact(sampler.sample(rng), (best, played), know, deadline)
        if exact is not None:
            return Estimate(played, best, max(0.0, exact[0] - exact[1]), exact=True)
    limit = COMPARE_WORLDS if iterations is None else max(MIN_COMPARE_WORLDS, iterations)
    diffs = _sampled(view, sampler, (best, played), know, rng, limit, deadline)
    mean = sum(diffs) / len(diffs) if diffs else 0.0
    return Estimate(played, best, max(0.0, mean), worlds=len(diffs))


def _exact(world: State, moves: tuple[Move, Move], know: Knowledge,
           deadline: float | None) -> tuple[float, float] | None:
    """The exact values of ``moves`` (nothing hidden: the rest of the round solved), None when
    the solver runs out of nodes or time."""
    solver = Solver(know.rv, know.my_side, SOLVER_NODES, deadline)
    side = world.side_of[world.to_move]
    masks = tuple(0 for _ in world.sides)
    values: list[float] = []
    try:
        for move in moves:
            child = world.clone()
            ev = child.apply(move, validate=False)
            cm = _with_captured(masks, side, ev.captured) if ev.captured else masks
            values.append(solver.value(child, -math.inf, math.inf, cm))
    except _Abort:
        return None
    return values[0], values[1]


def _sampled(view: SeatView, sampler: Sampler, moves: tuple[Move, Move], know: Knowledge,
             rng: random.Random, limit: int, deadline: float | None) -> list[float]:
    """Per sampled deal, Hard's playout value of ``moves[0]`` minus that of ``moves[1]`` (the
    same deal and the same playout randomness for both), as Hard's search values them."""
    rules = view.rules
    n_players = view.num_players
    to_round_end = not rules.draw_mode and view.stock_size <= n_players * (
        rules.hand_size + rules.last_deal_extra_cards)
    max_plies = (2 * n_players + 1) if rules.draw_mode else 4 * n_players * (
        rules.hand_size + 1) + 2
    diffs: list[float] = []
    while len(diffs) < limit:
        if (deadline is not None and len(diffs) >= MIN_COMPARE_WORLDS
                and time.perf_counter() >= deadline):
            break
        world = sampler.sample(rng)
        pseed = rng.getrandbits(48)
        values = []
        for move in moves:
            st = world.clone()
            st.apply(move, validate=False)
            values.append(playout(st, know.rv, random.Random(pseed), know.my_side, 0.1,
                                  max_plies, to_round_end))
        diffs.append(values[0] - values[1])
    return diffs


# ------------------------------------------------------------------ summing up
def points_text(points: float) -> str:
    """``1.5 points``, ``1 point``, ``0.1 points``: one decimal, none when it is whole."""
    rounded = round(points, 1)
    text = f"{rounded:.1f}".removesuffix(".0")
    return f"{text} point" + ("" if text == "1" else "s")


def sum_up(estimates: Iterable[Estimate]) -> tuple[int, float]:
    """How many plays Hard would change, and the points it expects those changes to gain."""
    changed = [e for e in estimates if e.changes]
    return len(changed), sum(e.difference for e in changed)


def summary_line(estimates: Iterable[Estimate]) -> str:
    """``3 plays Hard would change, about 1.5 points`` (or that it would change none)."""
    count, points = sum_up(estimates)
    if not count:
        return "no play Hard would change"
    plays = "1 play" if count == 1 else f"{count} plays"
    return f"{plays} Hard would change, about {points_text(points)}"
