"""What the plays of this deal say about the cards an opponent still holds.

Every card an opponent plays in a deal was dealt with the cards they still hold, so each of
their plays is evidence: a player who trailed a three while a ten of diamonds lay on the table
probably holds no ten; one who built eight with a card they could have captured with probably
holds an eight. :class:`InferringSampler` deals the unseen cards as
:class:`~casino_tui.ai.search.Sampler` does, many times, weighs each deal by how likely the
opponents' plays of this deal were with the hands it gives them, and draws its worlds from those
deals in proportion to their weights (sampling-importance-resampling).

How likely a play is: the cheap playout policy (:func:`~casino_tui.ai.search.policy_scores`)
scores every move the player could have made with that hand, and the player is taken to choose
by a softmax of those scores (``BETA`` per point), or for reasons the model does not see
(``NOISE`` of the time, any move alike).

Every other seat's plays are evidence, a partner's as much as an opponent's (their hands are
hidden alike, and they play by the same policy), at any table size. Where the players draw a
card after each play (``draw_mode``) there is no inference: the hand a player held at an
earlier play is no longer their hand now plus their later plays, since cards were drawn since.
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_right
from collections.abc import Sequence

from ..engine import Move, SeatView, State
from ..engine.cards import Card
from ..engine.moves import Pile
from .search import Sampler, policy_scores
from .values import RuleValues, rule_values

BETA = 2.0  # how sharply players prefer the plays the policy scores higher (per point)
NOISE = 0.1  # the share of plays made for reasons the policy does not see
POOL = 256  # candidate deals weighed per decision
MIN_POOL = 16  # weighed even when the time budget runs out while they are drawn
_HAND_KINDS = ("capture", "build", "trail")


def deal_plays(view: SeatView) -> list[tuple[int, tuple[Pile, ...], Move]]:
    """This deal's plays so far as (seat, table before the play, play), replayed from the
    table dealt. Empty when there is nothing to replay or the replay fails."""
    plays = view.deal_plays
    if not plays:
        return []
    n = view.num_players
    played = [m.card for m in plays if m.kind in _HAND_KINDS]
    try:
        st = State.from_position(view.rules, n, table=view.deal_table,
                                 hands=[[] for _ in range(n)],
                                 to_move=(view.dealer + 1) % n, dealer=view.dealer,
                                 complete=False)
        # every seat holds every card played: the mover always has its card, and no hand runs
        # out before the replay ends (only the table is read)
        st.hands = [list(played) for _ in range(n)]
        out: list[tuple[int, tuple[Pile, ...], Move]] = []
        for m in plays:
            seat = st.to_move
            out.append((seat, tuple(st.table), m))
            # not validated: a build's capturing card may still be hidden in the hand
            st.apply(m, validate=False)
    except Exception:  # a log that does not replay (a hand-made position): no inference
        return []
    return out if tuple(st.table) == view.table else []


class InferringSampler(Sampler):
    """A :class:`Sampler` whose deals are drawn in proportion to how well they explain the
    other players' plays of this deal."""

    def __init__(self, view: SeatView, *, pool: int | None = None, beta: float = BETA,
                 noise: float = NOISE) -> None:
        super().__init__(view)
        self.rv: RuleValues = rule_values(view.rules)
        # draw mode: the hands of earlier plays are not known (cards were drawn since)
        history = [] if view.rules.draw_mode else deal_plays(view)
        # the other seats' plays from a hand, with the cards that hand still had to play after
        self.evidence: list[tuple[int, tuple[Pile, ...], Move, tuple[Card, ...]]] = []
        for j, (seat, table, move) in enumerate(history):
            if seat == view.seat or move.kind not in _HAND_KINDS:
                continue
            later = tuple(m.card for s, _t, m in history[j:]
                          if s == seat and m.kind in _HAND_KINDS)
            self.evidence.append((seat, table, move, later))
        self.pool_size = POOL if pool is None else pool
        self.beta = beta
        self.noise = noise
        self._pool: list[tuple[dict[int, list[int]], list[int]]] = []
        self._cum: list[float] = []
        self._cache: dict[tuple[int, tuple[Card, ...]], float] = {}  # (play, hand) -> log

    @property
    def informed(self) -> bool:
        """True when there are other players' plays to learn from."""
        return bool(self.evidence)

    def likelihood(self, hands: dict[int, list[int]]) -> float:
        """How likely the other players' plays of this deal were, with these hands now."""
        total = 0.0
        for j, (seat, table, move, later) in enumerate(self.evidence):
            held = tuple(sorted(hands.get(seat, ()))) + later
            key = (j, held)
            lp = self._cache.get(key)
            if lp is None:
                lp = self._cache[key] = math.log(self._play_chance(seat, table, move, held))
            total += lp
        return math.exp(total)

    def _play_chance(self, seat: int, table: Sequence[Pile], move: Move,
                     held: Sequence[Card]) -> float:
        view = self.view
        n = view.num_players
        try:
            st = State.from_position(view.rules, n, table=table,
                                     hands=[list(held) if s == seat else [] for s in range(n)],
                                     to_move=seat, dealer=view.dealer, complete=False)
            moves = st.legal_moves()
        except Exception:
            return self.noise / 8
        if not moves:
            return self.noise / 8
        if move not in moves:
            return self.noise / (len(moves) + 1)
        scores = policy_scores(st, moves, self.rv)
        top = max(scores)
        beta = self.beta
        exps = [math.exp(beta * (s - top)) for s in scores]
        p = exps[moves.index(move)] / sum(exps)
        return self.noise / len(moves) + (1 - self.noise) * p

    def _fill(self, rng: random.Random) -> None:
        acc = 0.0
        deadline = self.deadline
        for i in range(self.pool_size):
            if deadline is not None and i >= MIN_POOL and time.perf_counter() >= deadline:
                break  # out of time: weigh the deals drawn so far
            hands, stock = Sampler.deal(self, rng)
            acc += self.likelihood(hands)
            self._pool.append((hands, stock))
            self._cum.append(acc)

    def deal(self, rng: random.Random) -> tuple[dict[int, list[int]], list[int]]:
        if not self.evidence:
            return super().deal(rng)
        if not self._pool:
            self._fill(rng)
        total = self._cum[-1]
        if not total > 0:
            return super().deal(rng)
        i = min(len(self._pool) - 1, bisect_right(self._cum, rng.random() * total))
        hands, stock = self._pool[i]
        return {s: list(h) for s, h in hands.items()}, list(stock)

