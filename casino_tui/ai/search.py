"""Hard: determinized search over the cards the seat cannot see.

1. **Candidates.** Medium's one-move scores rank the legal moves; the best few are kept (with
   the best move of every card), so positions with hundreds of legal moves cost no more than
   ordinary ones.
2. **Worlds.** Each iteration deals the unseen cards into the other hands and the stock at
   random, consistently with the view: a player who owns builds holds a card that can take each
   of their values, a different card for each (the retain rule).
3. **Playouts.** In every world each surviving candidate is played, then the game is played on
   by a cheap card-counting policy to the end of the deal (the end of the round in the last
   deal), and the position is valued by the round points each side can expect: points already
   taken, sweeps, and the chance of winning the card and suit majorities. All candidates see the
   same worlds and the same playout randomness (common random numbers), and a candidate that is
   clearly worse than the best is dropped (successive elimination). Where the game ends by a
   claim (call-out), every player of a playout claims as soon as the claim wins, so a race to
   the points that can be claimed is seen.
4. **Last deal, exactly.** When nothing is hidden any more (two players, empty stock) the rest of
   the round is solved by alpha-beta with a transposition table.

Only the view is used; with ``iterations`` the effort is fixed and the choice reproducible.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine import Move, SeatView, State
from ..engine.moves import Build
from ..engine.scoring import claim_credit
from ..engine.state import Phase
from .heuristic import (
    COURT_KEY,
    Knowledge,
    Scored,
    _winning_claim,
    build_key,
    capture_keys,
    rank_moves,
)
from .values import RuleValues, pending_points

WIN_BONUS = 10.0  # value of winning the game, in round points
MAX_CANDIDATES = 8
SOLVER_NODES = 60_000
MAX_SKIPPED = 50  # worlds an evaluation may pass over before the search settles
_PLAY = Phase.PLAY
_PLUCK = Phase.PLUCK
_CLAIM = Move.claim()


# ------------------------------------------------------------------ determinization
class Sampler:
    """Deals the unseen cards consistently with a seat's view. ``deadline`` (set by the search
    under a time budget): a sampler that prepares its deals ahead stops preparing then."""

    deadline: float | None = None

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.unseen = view.unseen_cards()
        self.others = [s for s in range(view.num_players) if s != view.seat]
        rules = view.rules
        self.needs: dict[int, list[int]] = {}
        if rules.owner_must_keep_capture_card in (True, "penalty_2"):  # Michigan: or pay 2
            for p in view.table:
                if isinstance(p, Build) and p.owner != view.seat:
                    keys = self.needs.setdefault(p.owner, [])
                    k = build_key(p)
                    if k not in keys:
                        keys.append(k)
        self.card_keys = {c: capture_keys(rules.capturer_values[c], c) for c in self.unseen}

    @property
    def hidden(self) -> bool:
        """True when the unseen cards could be placed in more than one way."""
        holders = [s for s in self.others if self.view.hand_sizes[s]]
        places = len(holders) + (1 if self.view.stock_size else 0)
        return places > 1

    def deal(self, rng: random.Random) -> tuple[dict[int, list[int]], list[int]]:
        view = self.view
        pool = list(self.unseen)
        rng.shuffle(pool)
        hands: dict[int, list[int]] = {s: [] for s in self.others}
        for owner, keys in self.needs.items():
            hand = hands[owner]
            kept: list[int] = []  # one card for each build value: an ace cannot take 1 and 14
            for key in keys:
                if len(hand) >= view.hand_sizes[owner]:
                    break
                spare = [c for c in hand if c not in kept and key in self.card_keys[c]]
                if spare:
                    kept.append(spare[0])
                    continue
                fits = [i for i, c in enumerate(pool) if key in self.card_keys[c]]
                if fits:
                    hand.append(pool.pop(fits[rng.randrange(len(fits))]))
                    kept.append(hand[-1])
        for s in self.others:
            need = view.hand_sizes[s] - len(hands[s])
            if need > 0:
                hands[s].extend(pool[:need])
                del pool[:need]
        return hands, pool[: view.stock_size]

    def sample(self, rng: random.Random) -> State:
        hands, stock = self.deal(rng)
        return self.view.to_state(hands, stock)  # type: ignore[arg-type]


# ------------------------------------------------------------------ playout policy
def policy_scores(st: State, moves: Sequence[Move], rv: RuleValues) -> list[float]:
    """A cheap card-counting policy for playouts, using only the mover's hand and the table:
    take the most valuable cards, sweep when possible, build with valuable cards, trail the
    least valuable card, and avoid leaving a table that one card could sweep."""
    cv = rv.cv
    sweep = rv.sweep_any
    table = st.table
    nt = len(table)
    low = st.rules.low_values
    maxv = rv.max_value
    in_pluck = st.phase is _PLUCK
    loose_sum = 0
    numeric = True  # only loose numeric cards on the table
    for p in table:
        if type(p) is int:
            lv = low[p]
            if lv is None:
                numeric = False
            else:
                loose_sum += lv
        else:
            numeric = False
    out = []
    for m in moves:
        k = m.kind
        if k == "capture":
            v = 0.2 + cv[m.card]
            rest = loose_sum
            for i in m.piles:
                p = table[i]
                if type(p) is int:
                    v += cv[p]
                    lv = low[p]
                    if lv is not None:
                        rest -= lv
                else:
                    for c in p.cards:  # type: ignore[union-attr]
                        v += cv[c]
            left = nt - len(m.piles)
            if not left:
                v += sweep
            elif numeric and rest <= maxv:
                v -= 0.35 * sweep
            elif left == 1:
                v -= 0.25 * sweep
        elif k == "trail":
            c = m.card
            v = -0.8 * cv[c]
            lv = low[c]
            if nt == 0 or (numeric and lv is not None and loose_sum + lv <= maxv):
                v -= 0.35 * sweep
            if lv is not None:
                v -= 0.2 * (maxv - lv) / maxv  # low cards combine: keep them
        elif k == "build":
            v = 0.4 + cv[m.card] * 0.7
            for i in m.piles:
                p = table[i]
                if type(p) is int:
                    v += 0.7 * cv[p]
                else:
                    for c in p.cards:  # type: ignore[union-attr]
                        v += 0.7 * cv[c]
        elif k == "pluck":
            v = cv[m.card] + 0.05 if in_pluck else -5.0
        elif k == "pass":
            v = 0.0
        else:  # claim: never in playouts
            v = -100.0
        out.append(v)
    if rv.duty_penalty and st.phase is _PLAY:
        duty_breaks(st, moves, out, rv.duty_penalty * (len(st.sides) - 1))
    return out


def duty_breaks(st: State, moves: Sequence[Move], scores: list[float], penalty: float) -> None:
    """Michigan: take ``penalty`` off every move that leaves one of the mover's builds without a
    card of the hand to take it (the duty's two points for each opponent)."""
    seat = st.to_move
    owned = [(i, build_key(p)) for i, p in enumerate(st.table)
             if isinstance(p, Build) and p.owner == seat]
    if not owned:
        return
    hand = st.hands[seat]
    values = st.rules.capturer_values
    for j, m in enumerate(moves):
        kind = m.kind
        if kind != "capture" and kind != "build":
            continue
        keys = [k for i, k in owned if i not in m.piles]
        if kind == "build" and m.value is not None:
            keys.append(COURT_KEY + m.value - 1 if m.court else m.value)
        rest = list(hand)
        rest.remove(m.card)
        if not all(any(k in capture_keys(values[c], c) for c in rest) for k in keys):
            scores[j] -= penalty


def policy_move(st: State, rv: RuleValues, rng: random.Random, eps: float) -> Move:
    moves = st.legal_moves()
    if len(moves) == 1:
        return moves[0]
    if rng.random() < eps:
        m = moves[rng.randrange(len(moves))]
        if m.kind != "claim" and not (m.kind == "pluck" and st.phase is _PLAY):
            return m
    scores = policy_scores(st, moves, rv)
    best = max(scores)
    ties = [i for i, s in enumerate(scores) if s == best]
    return moves[ties[0] if len(ties) == 1 else ties[rng.randrange(len(ties))]]


# ------------------------------------------------------------------ leaf values
def utility(st: State, rv: RuleValues, my_side: int) -> float:
    """Points of our side minus the opponents' mean: game score, plus the expected points of the
    round still in play, plus a bonus for the winner of a finished game."""
    scores = [float(x) for x in st.scores]
    phase = st.phase
    if phase is _PLAY or phase is _PLUCK:
        pend = pending_points(rv, st.sides, st.captured, st.sweeps, len(st.unassigned))
        for i, p in enumerate(pend):
            scores[i] += p
    elif phase is Phase.GAME_OVER and st.winner is not None:
        scores[st.winner] += WIN_BONUS
    mine = scores[my_side]
    others = [s for i, s in enumerate(scores) if i != my_side]
    return mine - sum(others) / len(others) if others else mine


def claim_wins(st: State, rv: RuleValues) -> bool:
    """Would the player to move win the game by claiming now (call-out, RULES.md 6.4)?"""
    side = st.side_of[st.to_move]
    seats = st.sides[side]
    sweeps = sum(st.sweeps[s] for s in seats)
    score = st.scores[side]
    if score + rv.claim_reach + sweeps * rv.sweep < st.target:
        return False  # cannot reach it whatever the side holds: skip the count
    cards = [c for s in seats for c in st.captured[s]]
    return score + sum(claim_credit(st.rules, cards, sweeps).values()) >= st.target


def in_deal(st: State, deal_no: int, round_no: int) -> bool:
    """True while ``st`` is in play in deal ``deal_no`` of round ``round_no`` (deal -1: in any
    deal of that round)."""
    return ((st.phase is _PLAY or st.phase is _PLUCK) and st.round_no == round_no
            and (deal_no < 0 or st.deal_no == deal_no))


def claim_if_it_wins(st: State, rv: RuleValues) -> bool:
    """Where the game ends by a claim (call-out), the player to move claims if the claim wins;
    True when they did (the game is over)."""
    if rv.claims and st.phase is _PLAY and claim_wins(st, rv):
        st.apply(_CLAIM, validate=False)
        return True
    return False


def playout(st: State, rv: RuleValues, rng: random.Random, my_side: int, eps: float,
            max_plies: int, to_round_end: bool = False) -> float:
    """Play on with the policy to the end of the deal (or of the round), then value it by
    :func:`utility`. Where the game ends by a claim, every player claims as soon as the claim
    wins."""
    deal = -1 if to_round_end else st.deal_no
    round_no = st.round_no
    plies = 0
    while (st.phase is _PLAY or st.phase is _PLUCK) and plies < max_plies:
        if claim_if_it_wins(st, rv):
            break
        st.apply(policy_move(st, rv, rng, eps), validate=False)
        plies += 1
        if not in_deal(st, deal, round_no):
            break
    return utility(st, rv, my_side)


# ------------------------------------------------------------------ exact last deal
class _Abort(Exception):
    pass


def _with_captured(masks: tuple[int, ...], side: int, cards: Sequence[int]) -> tuple[int, ...]:
    """Per-side bit sets of the cards taken since the root, after ``side`` took ``cards``."""
    bits = masks[side]
    for c in cards:
        bits |= 1 << c
    return (*masks[:side], bits, *masks[side + 1:])


@dataclass
class Solver:
    """Alpha-beta with a transposition table over a position with every hand known, to the
    end of the round. Raises ``_Abort`` past ``node_limit`` nodes or the ``deadline``.
    :meth:`moves` gives the moves tried, best first."""

    rv: RuleValues
    my_side: int
    node_limit: int
    deadline: float | None
    nodes: int = 0
    table: dict[tuple, tuple[float, int]] = field(default_factory=dict)  # type: ignore[type-arg]

    def moves(self, st: State, mine: bool) -> list[Move]:
        """The moves to try at ``st`` (``mine``: the searching side's turn), best first."""
        moves = st.legal_moves()
        scores = policy_scores(st, moves, self.rv)
        return [moves[i] for i in sorted(range(len(moves)), key=lambda i: -scores[i])]

    def value(self, st: State, alpha: float, beta: float, masks: tuple[int, ...]) -> float:
        phase = st.phase
        if phase is not _PLAY and phase is not _PLUCK:
            return utility(st, self.rv, self.my_side)
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise _Abort
        if (self.deadline is not None and not self.nodes & 255
                and time.perf_counter() > self.deadline):
            raise _Abort
        key = (st.to_move, st.phase, tuple(map(tuple, st.hands)), tuple(st.table),
               st.last_capturer, masks, tuple(st.sweeps), tuple(st.pluck_used))
        hit = self.table.get(key)
        if hit is not None:
            v, flag = hit
            if flag == 0 or (flag > 0 and v >= beta) or (flag < 0 and v <= alpha):
                return v
        side = st.side_of[st.to_move]
        maximize = side == self.my_side
        a0, b0 = alpha, beta
        best = -math.inf if maximize else math.inf
        for move in self.moves(st, maximize):
            child = st.clone()
            ev = child.apply(move, validate=False)
            cm = _with_captured(masks, side, ev.captured) if ev.captured else masks
            v = self.value(child, alpha, beta, cm)
            if maximize:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        flag = 0
        if best <= a0:
            flag = -1
        elif best >= b0:
            flag = 1
        self.table[key] = (best, flag)
        return best

    def best(self, st: State, cands: Sequence[Move]) -> tuple[int, list[float]]:
        """Index of the best candidate and the exact values (lower bounds for the others)."""
        masks = tuple(0 for _ in st.sides)
        vals: list[float] = []
        best_i = 0
        best_v = -math.inf
        for i, m in enumerate(cands):
            child = st.clone()
            ev = child.apply(m, validate=False)
            side = st.side_of[st.to_move]
            cm = _with_captured(masks, side, ev.captured) if ev.captured else masks
            v = self.value(child, best_v, math.inf, cm)
            vals.append(v)
            if v > best_v + 1e-9:
                best_v = v
                best_i = i
        return best_i, vals


# ------------------------------------------------------------------ the search
@dataclass
class SearchResult:
    move: Move
    ranked: list[Scored]  # medium's view of the candidates
    means: dict[Move, float]  # search value of every candidate searched
    worlds: int
    solved: bool


def _candidates(ranked: list[Scored], limit: int) -> list[Scored]:
    keep: list[Scored] = ranked[:limit]
    seen_cards = {s.move.card for s in keep}
    for s in ranked[limit:]:
        if s.move.card not in seen_cards and len(keep) < limit + 4:
            keep.append(s)
            seen_cards.add(s.move.card)
    return keep


@dataclass(frozen=True)
class Stopping:
    """When the flat search stops sampling worlds: candidates are first compared after
    ``first_check`` worlds; one is dropped when it trails the best by more than ``z`` standard
    errors; after ``min_indifferent`` worlds the search ends once the survivors are worth the
    same within ``tolerance`` points. Whatever these say, the time budget ends it."""

    first_check: int = 12
    z: float = 2.5
    min_indifferent: int = 48
    tolerance: float = 0.08


V1_STOPPING = Stopping()  # Hard as frozen on 2026-11-25 (hard-v1)
WIDE_STOPPING = Stopping(first_check=48, z=3.5, min_indifferent=200, tolerance=0.04)


@dataclass
class Setup:
    """What every search of a position starts from, once the trivial cases are decided."""

    start: float
    rng: random.Random
    ranked: list[Scored]
    cand_moves: list[Move]
    rv: RuleValues
    my_side: int
    deadline: float | None
    sampler: Sampler
    to_round_end: bool  # playouts run to the end of the round (one deal left after this one)
    max_plies: int


def prepare(view: SeatView, *, seed: int, budget: float | None, iterations: int | None,
            sampler: Sampler | None) -> Setup | SearchResult:
    """The search's candidates and settings for ``view``; or the result itself where there is
    nothing to search: one legal move, a winning claim, one candidate, or the last deal of
    two players with nothing hidden (solved exactly)."""
    start = time.perf_counter()
    rng = random.Random(f"casino-tui/hard/{seed}")
    moves = view.legal_moves()
    if not moves:
        raise ValueError("this seat has no move to make")
    know = Knowledge.of(view)
    if len(moves) == 1:
        return SearchResult(moves[0], [], {}, 0, False)
    claim = _winning_claim(view, moves)
    if claim is not None:
        return SearchResult(claim, [], {}, 0, True)
    plays = [m for m in moves if m.kind != "claim"] or moves
    ranked = rank_moves(know, plays)
    cands = _candidates(ranked, MAX_CANDIDATES)
    cand_moves = [s.move for s in cands]
    if len(cand_moves) == 1:
        return SearchResult(cand_moves[0], ranked, {}, 0, False)
    rv = know.rv
    my_side = know.my_side
    deadline = None if iterations is not None or budget is None else start + 0.92 * budget
    if sampler is None:
        sampler = Sampler(view)
    sampler.deadline = deadline

    # the last deal with nothing hidden: solve it
    if not sampler.hidden and len(view.sides) == 2 and not view.stock_size:
        world = sampler.sample(rng)
        solver = Solver(rv, my_side, SOLVER_NODES, deadline)
        try:
            i, vals = solver.best(world, cand_moves)
            return SearchResult(cand_moves[i], ranked, dict(zip(cand_moves, vals, strict=True)),
                                1, True)
        except _Abort:
            pass

    n_players = view.num_players
    rules = view.rules
    # one deal left after this one: play to the end of the round (the last cards decide it)
    to_round_end = not rules.draw_mode and view.stock_size <= n_players * (
        rules.hand_size + rules.last_deal_extra_cards)
    max_plies = (2 * n_players + 1) if rules.draw_mode else 4 * n_players * (
        rules.hand_size + 1) + 2
    return Setup(start, rng, ranked, cand_moves, rv, my_side, deadline, sampler, to_round_end,
                 max_plies)


def search(view: SeatView, *, seed: int, budget: float | None = 1.0,
           iterations: int | None = None, sampler: Sampler | None = None,
           stopping: Stopping = V1_STOPPING) -> SearchResult:
    """The search's move for ``view.seat``; ``sampler``: how the unseen cards are dealt into
    worlds (by default :class:`Sampler`: every deal consistent with the view alike; Hard's is
    :class:`~casino_tui.ai.infer.InferringSampler`, see :mod:`casino_tui.ai.hard`);
    ``stopping``: how soon the search settles for a candidate."""
    setup = prepare(view, seed=seed, budget=budget, iterations=iterations, sampler=sampler)
    if isinstance(setup, SearchResult):
        return setup
    rng, rv, my_side = setup.rng, setup.rv, setup.my_side

    deadline = setup.deadline

    def evaluate(world: State, moves: list[Move]) -> list[float] | None:
        pseed = rng.getrandbits(48)
        out: list[float] = []
        for move in moves:
            if deadline is not None and out and time.perf_counter() >= deadline:
                return None  # out of time within this world: it is not counted
            st = world.clone()
            st.apply(move, validate=False)
            out.append(playout(st, rv, random.Random(pseed), my_side, 0.1, setup.max_plies,
                               setup.to_round_end))
        return out

    return flat_search(setup, evaluate, iterations=iterations, stopping=stopping)


def flat_search(setup: Setup, evaluate: Callable[[State, list[Move]], list[float] | None], *,
                iterations: int | None, stopping: Stopping) -> SearchResult:
    """The flat search's loop: deal a world, value every surviving candidate in it
    (``evaluate(world, moves)``: a value for each move, or None to skip that world), drop the
    candidates clearly behind, until the candidates left are worth the same, the worlds run
    out (``iterations``; 200 without a budget) or the time does."""
    rng, cand_moves, deadline = setup.rng, setup.cand_moves, setup.deadline
    n = len(cand_moves)
    values: list[list[float]] = [[] for _ in range(n)]
    active = list(range(n))
    worlds = skipped = 0
    limit_worlds = iterations if iterations is not None else 100_000
    if deadline is None and iterations is None:
        limit_worlds = 200
    next_check = stopping.first_check
    while worlds < limit_worlds and len(active) > 1 and skipped < MAX_SKIPPED:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        world = setup.sampler.sample(rng)
        row = evaluate(world, [cand_moves[i] for i in active])
        if row is None:
            skipped += 1
            continue
        for ci, v in zip(active, row, strict=True):
            values[ci].append(v)
        worlds += 1
        if worlds >= next_check:  # every 4 worlds at first, then every ~10% more
            next_check = max(worlds + 4, int(worlds * 1.1))
            active = _eliminate(active, values, worlds, stopping.z)
            if worlds >= stopping.min_indifferent and len(active) > 1 and _indifferent(
                    active, values, worlds, stopping.tolerance):
                break
    means = {cand_moves[i]: sum(values[i]) / len(values[i]) for i in range(n) if values[i]}
    if len(active) == 1:
        best = active[0]
    else:
        best = max(active, key=lambda i: (sum(values[i][-worlds:]) / max(1, worlds), -i))
    return SearchResult(cand_moves[best], setup.ranked, means, worlds, False)


def _eliminate(active: list[int], values: list[list[float]], worlds: int,
               z: float) -> list[int]:
    """Drop candidates clearly worse than the current best (paired over the same worlds)."""
    k = worlds
    means = {i: sum(values[i][-k:]) / k for i in active}
    best = max(active, key=lambda i: (means[i], -i))
    vb = values[best][-k:]
    keep = []
    for i in active:
        if i == best:
            keep.append(i)
            continue
        vi = values[i][-k:]
        d = [a - b for a, b in zip(vb, vi, strict=True)]
        md = sum(d) / k
        var = sum((x - md) ** 2 for x in d) / max(1, k - 1)
        se = math.sqrt(var / k)
        if md > z * se + 0.02 or (se < 1e-9 and md >= 0):
            continue
        keep.append(i)
    return keep


def _indifferent(active: list[int], values: list[list[float]], worlds: int,
                 tolerance: float = 0.08) -> bool:
    """True when the surviving candidates are worth the same within ``tolerance`` points
    (with 95% confidence), so more search would not change the game."""
    k = worlds
    means = {i: sum(values[i][-k:]) / k for i in active}
    best = max(active, key=lambda i: (means[i], -i))
    vb = values[best][-k:]
    for i in active:
        if i == best:
            continue
        d = [a - b for a, b in zip(vb, values[i][-k:], strict=True)]
        md = sum(d) / k
        var = sum((x - md) ** 2 for x in d) / max(1, k - 1)
        if md + 2.0 * math.sqrt(var / k) > tolerance:
            return False
    return True
