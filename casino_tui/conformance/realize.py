"""Rounds worth the points a scenario gives, for game-end checks.

:func:`realize_round_last` asks :func:`.rounds.build_round` to construct the round, with the
scenario's own comparison (:func:`.scores._score_matches`) as the judge; if the construction
gives up, a search over a few splits of the cards is the fallback.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from casino_tui.engine import Card, Rules, scoring
from casino_tui.engine.cards import ACE, DIAMONDS, JACK, SPADES, make_card, rank_of, suit_of

from .rounds import Unrealizable, build_round
from .scenario import ScenarioError, _int
from .scores import _score_matches


def realize_round(rules: Rules, sides: Sequence[Sequence[int]], n: int,
                  want: Sequence[tuple[int | None, dict[str, Any] | None]],
                  last: int | None) -> tuple[list[list[Card]], list[int]]:
    """Capture piles and sweeps whose round scores (by the engine's own scoring, exactly as the
    end of a round computes them) match ``want`` per side, ``last`` being the last capturer.
    Raises ScenarioError if no such round exists."""
    captured, sweeps, _last = realize_round_last(rules, sides, n, want, last)
    return captured, sweeps


def realize_round_last(rules: Rules, sides: Sequence[Sequence[int]], n: int,
                       want: Sequence[tuple[int | None, dict[str, Any] | None]],
                       last: int | None, *, choose_last: bool = False,
                       ) -> tuple[list[list[Card]], list[int], int | None]:
    """:func:`realize_round`, also returning the last capturer: with ``choose_last`` the last
    capture goes where the points need it (``last`` is then only the fallback seat).

    The round is constructed (:mod:`.realize`: point cards placed by class with the sides'
    points as exact budgets, card and suit counts solved directly); a search over a few splits
    of the cards is the fallback. The engine's :func:`scoring.score_round` is the judge.
    """
    def accept(i: int, score: scoring.SideScore, cards: Sequence[Card]) -> bool:
        return _score_matches(score, want[i], cards, rules)

    try:
        return build_round(rules, sides, n, want, None if choose_last else last, accept,
                           choose_last=choose_last)
    except Unrealizable as e:
        if not e.gave_up:  # the construction is exhaustive: no such round
            raise ScenarioError(f"cannot construct a round worth these points under "
                                f"{rules.preset_name}: {list(want)} ({e})") from e
    captured, sweeps = _search_round(rules, sides, n, want, last)
    return captured, sweeps, last


def _search_round(rules: Rules, sides: Sequence[Sequence[int]], n: int,
                  want: Sequence[tuple[int | None, dict[str, Any] | None]],
                  last: int | None) -> tuple[list[list[Card]], list[int]]:
    """The fallback: splits of the cards and of the majority suit, owners of the point cards and
    then sweeps to make up the difference."""
    deck = list(rules.deck_cards)
    k = len(sides)
    aces = [c for c in deck if rank_of(c) == ACE]
    others: list[Card] = []
    extra_cards = [rules.big_casino, rules.little_casino]
    if rules.spade_scoring != "none":
        extra_cards.append(make_card(JACK, SPADES))
    if rules.diamond_scoring:
        extra_cards.append(make_card(6, DIAMONDS))
    for c in extra_cards:
        if c in deck and c not in aces and c not in others:
            others.append(c)
    # which ace goes where matters only for per-suit ace items (count-out) and Hoyle's AS
    specific = (rules.spade_scoring == "hoyle26" or rules.game_end == "count_out"
                or any(key.startswith("ace_") for _t, items in want if items for key in items))
    ace_splits: list[tuple[int, ...]] = (
        list(itertools.product(range(k), repeat=len(aces))) if specific
        else list(itertools.combinations_with_replacement(range(k), len(aces))))
    special = aces + others
    msuit = DIAMONDS if rules.diamond_scoring else rules.majority_suit_index
    n_suit = sum(1 for c in deck if suit_of(c) == msuit)
    sp = rules.sweep_points if rules.score_timing == "end_of_round" else 0
    budget = 200_000
    for cp in _count_patterns(len(deck), k):
        for spp in _count_patterns(n_suit, k):
            for a_own, o_own in itertools.product(
                    ace_splits, itertools.product(range(k), repeat=len(others))):
                piles = _fill_piles(deck, special, a_own + o_own, msuit, spp, cp, k)
                if piles is None:
                    continue
                budget -= 1
                if budget < 0:
                    raise ScenarioError("gave up constructing a round worth these points under "
                                        f"{rules.preset_name}: {list(want)}")
                captured: list[list[Card]] = [[] for _ in range(n)]
                for i, side in enumerate(sides):
                    captured[side[0]] = piles[i]
                sweeps = _sweeps_for(rules, sides, captured, last, want, sp, n)
                if sweeps is None:
                    continue
                final = scoring.score_round(rules, sides, captured, sweeps, last,
                                            skip_immediate=True)
                pooled = [[c for s in side for c in captured[s]] for side in sides]
                if all(_score_matches(final[i], want[i], pooled[i], rules) for i in range(k)):
                    return captured, sweeps
    raise ScenarioError("cannot construct a round worth these points under "
                        f"{rules.preset_name}: {list(want)}")


def _sweeps_for(rules: Rules, sides: Sequence[Sequence[int]], captured: list[list[Card]],
                last: int | None, want: Sequence[tuple[int | None, dict[str, Any] | None]],
                sp: int, n: int) -> list[int] | None:
    """Sweep counts that would bring each side from its points without sweeps to ``want``."""
    sweeps = [0] * n
    base = scoring.score_round(rules, sides, captured, sweeps, last, skip_immediate=True)
    for i, (total, items) in enumerate(want):
        if total is None and items is None:
            continue
        if items is not None and "sweeps" in items:
            extra = _int(items["sweeps"], "sweeps")
        else:
            goal = total if total is not None else _items_total(items)
            extra = 0 if goal is None else goal - base[i].total
        if extra < 0 or (extra and not sp) or (sp and extra % sp):
            return None
        sweeps[sides[i][0]] = extra // sp if sp else 0
    return sweeps


def _items_total(items: dict[str, Any] | None) -> int | None:
    if items is None:
        return None
    counts = [v for v in items.values() if isinstance(v, int) and not isinstance(v, bool)]
    return sum(counts) if len(counts) == len(items) else None


def _count_patterns(total: int, k: int) -> list[list[int]]:
    """Ways to split ``total`` cards between k sides: each side alone on top (absolute majority
    and plain plurality), ties at the top, even splits."""
    pats: list[list[int]] = []

    def add(p: list[int]) -> None:
        if sum(p) == total and min(p) >= 0 and p not in pats:
            pats.append(p)

    for j in range(k):
        top = total // 2 + 1
        rest = total - top
        p = [rest // (k - 1) + (1 if i < rest % (k - 1) else 0) for i in range(k - 1)]
        add([*p[:j], top, *p[j:]])
    for j in range(k):  # plurality below an absolute majority
        if k >= 3:
            base = total // k
            p = [base] * k
            p[j] += total - base * k
            others = [i for i in range(k) if i != j]
            if p[j] == max(p[i] for i in others):
                p[j] += 1
                p[others[-1]] -= 1
            add(p)
    for a, b in itertools.combinations(range(k), 2):  # ties at the top
        rest_n = k - 2
        if rest_n == 0:
            if total % 2 == 0:
                add([total // 2, total // 2])
            continue
        top = total // k + 1
        rest = total - 2 * top
        if rest < 0:
            continue
        p = [0] * k
        p[a] = p[b] = top
        others = [i for i in range(k) if i not in (a, b)]
        for idx, o in enumerate(others):
            p[o] = rest // rest_n + (1 if idx < rest % rest_n else 0)
        if all(p[o] < top for o in others):
            add(p)
    if total % k == 0:
        add([total // k] * k)
    return pats


def _fill_piles(deck: Sequence[Card], special: Sequence[Card], owners: Sequence[int], msuit: int,
                suit_counts: Sequence[int], card_counts: Sequence[int],
                k: int) -> list[list[Card]] | None:
    piles: list[list[Card]] = [[] for _ in range(k)]
    for c, o in zip(special, owners, strict=True):
        piles[o].append(c)
    sp_set = set(special)
    suit_rest = [c for c in deck if suit_of(c) == msuit and c not in sp_set]
    other = [c for c in deck if suit_of(c) != msuit and c not in sp_set]
    for i in range(k):
        have = sum(1 for c in piles[i] if suit_of(c) == msuit)
        need = suit_counts[i] - have
        if need < 0 or need > len(suit_rest):
            return None
        piles[i].extend(suit_rest[:need])
        suit_rest = suit_rest[need:]
    if suit_rest:
        return None
    for i in range(k):
        need = card_counts[i] - len(piles[i])
        if need < 0 or need > len(other):
            return None
        piles[i].extend(other[:need])
        other = other[need:]
    if other:
        return None
    return piles
