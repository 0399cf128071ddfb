"""What cards are worth under a rule set, and smooth estimates of a round's points.

Everything here derives from the :class:`~casino_tui.engine.Rules` object, so every preset (and
any option override) is valued by what it actually scores: aces, casinos, spade cards, the seven
of diamonds, card and suit majorities, sweeps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..engine import Rules
from ..engine.cards import DIAMONDS, Card, rank_of, suit_of
from ..engine.moves import Build, Pile
from ..engine.scoring import score_round

# Items of score_round that belong to one card whatever else a side holds (additive).
_PER_CARD_ITEMS = ("big_casino", "little_casino", "aces", "spade_cards", "seven_of_diamonds")


@dataclass(frozen=True)
class RuleValues:
    """Per-rules constants used by every level (computed once per rule set)."""

    deck: tuple[Card, ...]
    deck_size: int
    exact: tuple[float, ...]  # points a card scores by itself once captured (52 entries)
    cv: tuple[float, ...]  # heuristic value of capturing a card: exact + share of majorities
    sweep: float  # points of one sweep (0 when sweeps do not score at the end of the round)
    sweep_any: float  # points of one sweep, whenever they are scored
    sweep_now: float  # points of one sweep added to the game score at once (sudden death)
    cards_points: int
    suit: int | None  # majority suit index, or None when no suit majority is scored
    suit_points: int
    suit_size: int
    diamond: bool
    absolute: bool
    exact_immediate: bool  # per-card items are scored as captured (already in game scores)
    sweeps_immediate: bool
    sweeps_cancel: bool
    max_value: int
    duty_penalty: float  # Michigan: what a move leaving a build without its card costs
    claims: bool  # the game ends by a claim (call-out, RULES.md 6.4)
    claim_reach: float  # the most a claim could credit, sweeps left out


def _exact_points(rules: Rules, card: Card) -> float:
    scores = score_round(rules, [[0], [1]], [[card], []], [0, 0], None)
    items = scores[0].items
    return float(sum(items.get(k, 0) for k in _PER_CARD_ITEMS))


@lru_cache(maxsize=64)
def rule_values(rules: Rules) -> RuleValues:
    deck = tuple(rules.deck_cards)
    n = len(deck)
    exact = [0.0] * 52
    for c in deck:
        exact[c] = _exact_points(rules, c)
    diamond = bool(rules.diamond_scoring)
    if diamond:
        cards_points = 1
        suit: int | None = DIAMONDS
        suit_points = 1
    else:
        cards_points = rules.cards_points
        suit = rules.majority_suit_index if (rules.spade_scoring != "pagat24"
                                             and rules.majority_suit_points) else None
        suit_points = rules.majority_suit_points if suit is not None else 0
    suit_size = sum(1 for c in deck if suit is not None and suit_of(c) == suit)
    cv = [0.0] * 52
    per_card = 2.5 * cards_points / n if n else 0.0
    per_suit = 2.5 * suit_points / suit_size if suit_size else 0.0
    for c in deck:
        v = exact[c] + per_card
        if suit is not None and suit_of(c) == suit:
            v += per_suit
        if diamond and rank_of(c) in (0, 5, 6):  # quartets of aces, sixes, sevens score 2
            v += 0.25
        cv[c] = v
    timing = rules.score_timing
    max_value = max((v for c in deck for v in rules.capturer_values[c]), default=10)
    return RuleValues(
        deck=deck, deck_size=n, exact=tuple(exact), cv=tuple(cv),
        sweep=float(rules.sweep_points) if timing == "end_of_round" else 0.0,
        sweep_any=float(rules.sweep_points),
        sweep_now=float(rules.sweep_points) if timing != "end_of_round" else 0.0,
        cards_points=cards_points, suit=suit,
        suit_points=suit_points, suit_size=suit_size, diamond=diamond,
        absolute=rules.majority_rule == "absolute_majority",
        exact_immediate=timing == "all_immediate", sweeps_immediate=timing != "end_of_round",
        sweeps_cancel=bool(rules.sweeps_cancel), max_value=max_value,
        duty_penalty=2.0 if rules.owner_must_keep_capture_card == "penalty_2" else 0.0,
        claims=rules.game_end == "claim",
        claim_reach=sum(exact) + cards_points + suit_points + (6 if diamond else 0),
    )


def pile_value(cv: Sequence[float], pile: Pile) -> float:
    if isinstance(pile, Build):
        return sum(cv[c] for c in pile.cards)
    return cv[pile]


# --------------------------------------------------------------------- majority probabilities
@lru_cache(maxsize=1)
def _binomial_tails() -> tuple[tuple[float, ...], ...]:
    """tails[r][k] = P(Binomial(r, 1/2) >= k) for r <= 60, k in 0..r+1."""
    out = []
    for r in range(61):
        probs = [math.comb(r, k) / 2 ** r for k in range(r + 1)]
        tail = [0.0] * (r + 2)
        acc = 0.0
        for k in range(r, -1, -1):
            acc += probs[k]
            tail[k] = acc
        out.append(tuple(tail))
    return tuple(out)


def _tail(r: int, k: int) -> float:
    if k <= 0:
        return 1.0
    if k > r:
        return 0.0
    return _binomial_tails()[min(r, 60)][k]


def majority_probs(counts: Sequence[int], remaining: int, total: int,
                   absolute: bool) -> list[float]:
    """Chance that each side ends with the item "most of these cards" (ties score nothing),
    when ``remaining`` cards are still to be taken and split at random."""
    n = len(counts)
    if remaining <= 0:
        top = max(counts)
        leaders = [i for i, c in enumerate(counts) if c == top]
        if len(leaders) != 1 or top == 0 or (absolute and top < total // 2 + 1):
            return [0.0] * n
        return [1.0 if i == leaders[0] else 0.0 for i in range(n)]
    if n == 2:
        if absolute:
            need = total // 2 + 1
            return [_tail(remaining, need - counts[0]), _tail(remaining, need - counts[1])]
        d = counts[0] - counts[1]
        # final difference d + 2B - remaining, B ~ Bin(remaining, 1/2)
        p0 = _tail(remaining, (remaining - d) // 2 + 1)
        p1 = 1.0 - _tail(remaining, -((d - remaining) // 2))  # P(B < (remaining - d) / 2)
        return [p0, max(0.0, p1)]
    # several sides: normal approximation, pairwise
    share = remaining / n
    var = remaining * (1 / n) * (1 - 1 / n) + 0.25
    sd = math.sqrt(2 * var)
    mus = [c + share for c in counts]
    out = []
    for i in range(n):
        p = 1.0
        for j in range(n):
            if j != i:
                p *= 0.5 * (1 + math.erf((mus[i] - mus[j] - 0.5) / (sd * math.sqrt(2))))
        if absolute:
            need = total // 2 + 1
            p *= 0.5 * (1 + math.erf((mus[i] - need + 0.5) / (math.sqrt(var) * math.sqrt(2))))
        out.append(p)
    return out


def pending_points(rv: RuleValues, sides: Sequence[Sequence[int]],
                   captured: Sequence[Sequence[Card]], sweeps: Sequence[int],
                   unassigned: int = 0) -> list[float]:
    """Expected points each side will score at the end of the round from what it has captured
    so far (items already added to the game score as they happened are left out)."""
    n = len(sides)
    counts = [0] * n
    suit_counts = [0] * n
    exact = [0.0] * n
    ex = rv.exact
    suit = rv.suit
    taken_suit = 0
    quartet_ranks: list[list[int]] = [[0] * 13 for _ in range(n)] if rv.diamond else []
    for i, side in enumerate(sides):
        e = 0.0
        k = 0
        s = 0
        for seat in side:
            pile = captured[seat]
            k += len(pile)
            for c in pile:
                e += ex[c]
                if suit is not None and c & 3 == suit:
                    s += 1
                if quartet_ranks:
                    quartet_ranks[i][c >> 2] += 1
        counts[i] = k
        suit_counts[i] = s
        taken_suit += s
        exact[i] = 0.0 if rv.exact_immediate else e
    out = list(exact)
    if quartet_ranks:
        for i in range(n):
            out[i] += sum(2 for r in (0, 5, 6) if quartet_ranks[i][r] == 4)
    remaining = rv.deck_size - sum(counts) - unassigned
    if rv.cards_points:
        ps = majority_probs(counts, remaining, rv.deck_size, rv.absolute)
        for i in range(n):
            out[i] += ps[i] * rv.cards_points
    if suit is not None and rv.suit_points:
        ps = majority_probs(suit_counts, rv.suit_size - taken_suit, rv.suit_size, rv.absolute)
        for i in range(n):
            out[i] += ps[i] * rv.suit_points
    if rv.sweep:
        side_sw = [sum(sweeps[s] for s in side) for side in sides]
        if rv.sweeps_cancel:
            low = min(side_sw)
            side_sw = [x - low for x in side_sw]
        for i in range(n):
            out[i] += side_sw[i] * rv.sweep
    return out
