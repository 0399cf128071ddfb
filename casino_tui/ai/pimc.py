"""Determinized search with the rest of the deal solved in every world (the arena's
``hard-pimc`` and ``hard-pimc-min``, experiments measured against ``hard-v1``).

The flat search (:func:`~casino_tui.ai.search.search`) plays a candidate in a sampled world and
lets the playout policy play the rest of the deal for everyone. Here the rest of the deal is
searched instead: alpha-beta over the plays of the deal in that world (every hand face up, as
in perfect-information Monte Carlo), each player choosing among the policy's best
``PER_CARD`` plays of each card, and the position at the end of the deal valued as the
playouts value it (:func:`~casino_tui.ai.search.utility`). In ``hard-pimc-min`` only the
opponents choose their best reply that way; below the root the seat's own side plays the
policy's move, so the search cannot choose its later plays by cards it would not see
(strategy fusion). The worlds come from the inferring sampler; candidates, elimination
(``WIDE_STOPPING``) and time limits are the flat search's.
"""

from __future__ import annotations

import math

from ..engine import Move, SeatView, State
from .search import (
    WIDE_STOPPING,
    Sampler,
    SearchResult,
    Solver,
    Stopping,
    _Abort,
    _with_captured,
    flat_search,
    prepare,
)
from .values import RuleValues

PER_CARD = 2  # plays searched for each card in hand: the policy's best
NODE_LIMIT = 4000  # nodes a world may cost before the rest is left to the policy's value


class DealSolver(Solver):
    """The :class:`~casino_tui.ai.search.Solver` to the end of one deal, each player choosing
    among the policy's best ``per_card`` plays of each card (``my_policy``: below the root the
    searching side plays the policy's best), claims made as soon as they win."""

    def __init__(self, rv: RuleValues, my_side: int, deal_no: int, *,
                 per_card: int = PER_CARD, my_policy: bool = False,
                 node_limit: int = NODE_LIMIT) -> None:
        super().__init__(rv, my_side, node_limit, None, deal_no=deal_no, claims=True)
        self.per_card = per_card
        self.my_policy = my_policy

    def moves(self, st: State, mine: bool) -> list[Move]:
        ranked = super().moves(st, mine)
        if len(ranked) <= 1:
            return ranked
        if mine and self.my_policy:
            return ranked[:1]
        taken: dict[int, int] = {}
        out: list[Move] = []
        for m in ranked:
            if m.kind == "claim":
                continue
            n = taken.get(m.card, 0)
            if n < self.per_card:
                taken[m.card] = n + 1
                out.append(m)
        return out or ranked[:1]


def pimc(view: SeatView, *, seed: int, budget: float | None = 1.0,
         iterations: int | None = None, sampler: Sampler | None = None,
         stopping: Stopping | None = None, per_card: int = PER_CARD,
         node_limit: int = NODE_LIMIT, my_policy: bool = False) -> SearchResult:
    """The move for ``view.seat``: every candidate valued by the solved rest of the deal,
    averaged over sampled worlds. A world whose search would pass ``node_limit`` nodes for a
    candidate is skipped for every candidate."""
    setup = prepare(view, seed=seed, budget=budget, iterations=iterations, sampler=sampler)
    if isinstance(setup, SearchResult):
        return setup
    rv, my_side = setup.rv, setup.my_side

    def evaluate(world: State, moves: list[Move]) -> list[float] | None:
        side = world.side_of[world.to_move]
        out = []
        try:
            for move in moves:
                st = world.clone()
                ev = st.apply(move, validate=False)
                masks = tuple(0 for _ in world.sides)
                if ev.captured:
                    masks = _with_captured(masks, side, ev.captured)
                solver = DealSolver(rv, my_side, world.deal_no, per_card=per_card,
                                    my_policy=my_policy, node_limit=node_limit)
                out.append(solver.value(st, -math.inf, math.inf, masks))
        except _Abort:
            return None  # a world too big to solve: skipped for every candidate
        return out

    return flat_search(setup, evaluate, iterations=iterations,
                       stopping=stopping or WIDE_STOPPING)
