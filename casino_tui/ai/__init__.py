"""Computer opponents.

``choose_move(view, level, seed=...)`` picks a move for the seat of a :class:`SeatView` using
only what that seat may know; ``hint(view, seed=...)`` gives Hard's suggestion with a reason.
Levels, weakest first:

* ``random``: any legal move, uniformly;
* ``easy``: takes something about two times in three when it can, otherwise plays at random;
* ``medium``: one-move card counter (see :mod:`casino_tui.ai.heuristic`);
* ``hard``: determinized search with card-counting playouts and an exact last deal
  (see :mod:`casino_tui.ai.search`).

The choice depends only on the view, the level, the seed and the search effort: with
``iterations`` (or any level but ``hard``) the same inputs give the same move, in any process.
"""

from __future__ import annotations

import random

from ..engine import Move, SeatView
from . import deal_value
from .explain import explain
from .heuristic import choose_easy, choose_medium, choose_random
from .infer import InferringSampler
from .ismcts import ismcts
from .pimc import pimc
from .search import V1_STOPPING, WIDE_STOPPING
from .search import search as _search

LEVELS: tuple[str, ...] = ("random", "easy", "medium", "hard")
# Levels for the arena only, never offered to players: ``hard-v1``, Hard as it was frozen on
# 2026-11-25 (the yardstick a new Hard must beat; it never changes), and experiments measured
# against it (README, "Towards a stronger Hard"): ``hard-infer``, Hard whose sampled deals are
# weighed by how well they explain the opponents' plays of the deal
# (:mod:`casino_tui.ai.infer`); ``hard-wide``, Hard that samples more deals before it settles
# (``search.WIDE_STOPPING``), and ``hard-wide-infer``, both; ``hard-mcts``, a tree search over
# the plays of the deal on the inferred deals (:mod:`casino_tui.ai.ismcts`); ``hard-pimc`` and
# ``hard-pimc-min``, the rest of the deal solved in every sampled world (:mod:`casino_tui.ai.pimc`);
# ``hard-learn``, ``hard-wide-infer`` whose playouts value the end of a deal with a model learned
# from self-play (:mod:`casino_tui.ai.deal_value`); ``hard-long``, ``hard-wide-infer`` that may
# take ``OVERTIME`` times its budget on a decision still open when the budget is spent.
ARENA_LEVELS: tuple[str, ...] = ("hard-v1", "hard-infer", "hard-wide", "hard-wide-infer",
                                 "hard-mcts", "hard-pimc", "hard-pimc-min", "hard-learn",
                                 "hard-long")
DEFAULT_BUDGET = 1.0  # seconds per move for Hard
OVERTIME = 2.0  # hard-long: a decision still open at the budget may take twice as long

__all__ = ["ARENA_LEVELS", "DEFAULT_BUDGET", "LEVELS", "OVERTIME", "choose_move", "hint"]


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
    if level == "hard-mcts":
        return ismcts(view, seed=seed, budget=budget, iterations=iterations,
                      sampler=InferringSampler(view)).move
    if level in ("hard-pimc", "hard-pimc-min"):
        return pimc(view, seed=seed, budget=budget, iterations=iterations,
                    sampler=InferringSampler(view), my_policy=level == "hard-pimc-min").move
    sampler = InferringSampler(view) if level in (
        "hard-infer", "hard-wide-infer", "hard-learn", "hard-long") else None
    stopping = WIDE_STOPPING if level in (
        "hard-wide", "hard-wide-infer", "hard-learn", "hard-long") else V1_STOPPING
    deal_end = None
    if level == "hard-learn" and deal_value.applies_to(view.rules, view.num_players):
        deal_end = deal_value.value
    return _search(view, seed=seed, budget=budget, iterations=iterations, sampler=sampler,
                   stopping=stopping, deal_end=deal_end,
                   overtime=OVERTIME if level == "hard-long" else 1.0).move  # hard, variants


def hint(view: SeatView, *, seed: int, budget: float | None = None,
         iterations: int | None = None) -> tuple[Move, str]:
    """Hard's suggestion for ``view.seat`` and a short reason in a player's words."""
    _check(view)
    if iterations is None and budget is None:
        budget = DEFAULT_BUDGET
    result = _search(view, seed=seed, budget=budget, iterations=iterations)
    return result.move, explain(view, result)
