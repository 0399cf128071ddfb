"""Computer opponents.

``choose_move(view, level, seed=...)`` picks a move for the seat of a :class:`SeatView` using
only what that seat may know; ``hint(view, seed=...)`` gives Hard's suggestion with a reason.
Levels, weakest first:

* ``random``: any legal move, uniformly;
* ``easy``: takes something about two times in three when it can, otherwise plays at random;
* ``medium``: one-move card counter (see :mod:`casino_tui.ai.heuristic`);
* ``hard``: determinized search on deals weighed by what the other players' plays say about
  their hands, with card-counting playouts and an exact last deal (see :mod:`casino_tui.ai.hard`).

The choice depends only on the view, the level, the seed and the search effort: with
``iterations`` (or any level but ``hard``) the same inputs give the same move, in any process.
"""

from __future__ import annotations

import random

from ..engine import Move, SeatView
from .explain import explain
from .hard import hard_search, hard_v1_search
from .heuristic import choose_easy, choose_medium, choose_random

LEVELS: tuple[str, ...] = ("random", "easy", "medium", "hard")
# Levels for the arena only, never offered to players: ``hard-v1``, Hard as it was frozen on
# 2026-11-25, the yardstick a new Hard must beat; it never changes (see :mod:`.hard`). The
# experiments measured against it are in the README ("Towards a stronger Hard") and in git
# history (commit 7139a22).
ARENA_LEVELS: tuple[str, ...] = ("hard-v1",)
DEFAULT_BUDGET = 1.0  # seconds per move for Hard

__all__ = ["ARENA_LEVELS", "DEFAULT_BUDGET", "LEVELS", "choose_move", "hint"]


def _check(view: SeatView) -> None:
    if view.to_move != view.seat:
        raise ValueError(f"it is not seat {view.seat}'s turn")


def choose_move(view: SeatView, level: str, *, seed: int, budget: float | None = None,
                iterations: int | None = None) -> Move:
    """The move ``level`` plays for ``view.seat``.

    ``budget``: Hard's thinking time in seconds (default 1 s). ``iterations``: a fixed number of
    sampled deals for Hard instead of a time limit (it takes precedence over ``budget``), which
    makes its choice reproducible. The other levels take no time to think and ignore both.
    """
    if level not in LEVELS and level not in ARENA_LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of "
                         f"{', '.join(LEVELS + ARENA_LEVELS)}")
    if budget is not None and not budget > 0:
        raise ValueError("budget must be a positive number of seconds")
    if iterations is not None and iterations < 1:
        raise ValueError("iterations must be at least 1")
    _check(view)
    rng = random.Random(f"casino-tui/{level}/{seed}")
    if level == "random":
        return choose_random(view, rng)
    if level == "easy":
        return choose_easy(view, rng)
    if level == "medium":
        return choose_medium(view, rng)
    if iterations is None and budget is None:
        budget = DEFAULT_BUDGET
    if level == "hard-v1":
        return hard_v1_search(view, seed=seed, budget=budget, iterations=iterations).move
    return hard_search(view, seed=seed, budget=budget, iterations=iterations).move


def hint(view: SeatView, *, seed: int, budget: float | None = None,
         iterations: int | None = None) -> tuple[Move, str]:
    """Hard's suggestion for ``view.seat`` and a short reason in a player's words."""
    _check(view)
    if iterations is None and budget is None:
        budget = DEFAULT_BUDGET
    result = hard_search(view, seed=seed, budget=budget, iterations=iterations)
    return result.move, explain(view, result)
