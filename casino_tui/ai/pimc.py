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
from dataclasses import dataclass, field

from ..engine import Move, SeatView, State
from .search import (
    WIDE_STOPPING,
    Sampler,
    SearchResult,
    Stopping,
    _with_captured,
    claim_if_it_wins,
    flat_search,
    in_deal,
    policy_scores,
    prepare,
    utility,
)
from .values import RuleValues

PER_CARD = 2  # plays searched for each card in hand: the policy's best
NODE_LIMIT = 4000  # nodes a world may cost before the rest is left to the policy's value


class _Budget(Exception):
    pass


@dataclass
class DealSolver:
    """Alpha-beta to the end of the deal in one world (or to the end of the round, if sooner)."""

    rv: RuleValues
    my_side: int
    deal_no: int  # the deal searched: its end is the leaf
    round_no: int
    per_card: int = PER_CARD
    my_policy: bool = False  # below the root the seat's own side plays the policy's best
    node_limit: int = NODE_LIMIT
    nodes: int = 0
    table: dict[tuple, tuple[float, int]] = field(default_factory=dict)  # type: ignore[type-arg]

    def _moves(self, st: State, mine: bool) -> list[Move]:
        moves = st.legal_moves()
        if len(moves) <= 1:
            return moves
        scores = policy_scores(st, moves, self.rv)
        order = sorted(range(len(moves)), key=lambda i: -scores[i])
        if mine and self.my_policy:
            return [moves[order[0]]]
        taken: dict[int, int] = {}
        out: list[Move] = []
        for i in order:
            m = moves[i]
            if m.kind == "claim":
                continue
            n = taken.get(m.card, 0)
            if n < self.per_card:
                taken[m.card] = n + 1
                out.append(m)
        return out or [moves[order[0]]]

    def value(self, st: State, alpha: float, beta: float, masks: tuple[int, ...]) -> float:
        if not in_deal(st, self.deal_no, self.round_no) or claim_if_it_wins(st, self.rv):
            return utility(st, self.rv, self.my_side)
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise _Budget
        key = (st.to_move, st.phase, tuple(map(tuple, st.hands)), tuple(st.table),
               st.last_capturer, masks, tuple(st.sweeps))
        hit = self.table.get(key)
        if hit is not None:
            v, flag = hit
            if flag == 0 or (flag > 0 and v >= beta) or (flag < 0 and v <= alpha):
                return v
        seat = st.to_move
        side = st.side_of[seat]
        maximize = side == self.my_side
        a0, b0 = alpha, beta
        best = -math.inf if maximize else math.inf
        for m in self._moves(st, maximize):
            child = st.clone()
            ev = child.apply(m, validate=False)
            cm = _with_captured(masks, side, ev.captured) if ev.captured else masks
            v = self.value(child, alpha, beta, cm)
            if maximize:
                if v > best:
                    best = v
                if v > alpha:
                    alpha = v
            else:
                if v < best:
                    best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        flag = -1 if best <= a0 else (1 if best >= b0 else 0)
        self.table[key] = (best, flag)
        return best


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
                solver = DealSolver(rv, my_side, world.deal_no, world.round_no, per_card,
                                    my_policy, node_limit)
                out.append(solver.value(st, -math.inf, math.inf, masks))
        except _Budget:
            return None  # a world too big to solve: skipped for every candidate
        return out

    return flat_search(setup, evaluate, iterations=iterations,
                       stopping=stopping or WIDE_STOPPING)
