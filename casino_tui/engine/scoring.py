"""Round scoring (RULES.md section 5), count-out order (6.3) and claim credit (6.4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import ACE, DIAMONDS, JACK, SPADES, SUITS, Card, make_card, rank_of, suit_of
from .rules import KNOWN_ITEMS as KNOWN_ITEMS  # the item names live with the options naming them
from .rules import Rules

ITEM_LABELS = {
    "cards": "Most cards", "most_S": "Most spades", "most_H": "Most hearts",
    "most_D": "Most diamonds", "most_C": "Most clubs", "big_casino": "Big Casino (10♦)",
    "little_casino": "Little Casino", "aces": "Aces", "sweeps": "Sweeps",
    "last_capture": "Last capture", "spade_cards": "Spade cards", "all_eleven": "All eleven bonus",
    "seven_of_diamonds": "Seven of diamonds", "quartets": "Quartets (7s, 6s, aces)",
    "penalties": "Build-duty penalties",
}

SEVEN_OF_DIAMONDS = make_card(6, DIAMONDS)
JACK_OF_SPADES = make_card(JACK, SPADES)
ACE_OF_SPADES = make_card(ACE, SPADES)


@dataclass
class SideScore:
    """One side's points for a round: item -> points, and what it counted."""

    items: dict[str, int] = field(default_factory=dict)
    cards: int = 0
    suit_counts: tuple[int, int, int, int] = (0, 0, 0, 0)
    all_eleven: bool = False

    def __init__(self, items: dict[str, int] | None = None, cards: int = 0,
                 suit_counts: tuple[int, int, int, int] = (0, 0, 0, 0),
                 all_eleven: bool = False) -> None:
        # the dataclass's own __init__, written out: compiled, where the generated one runs
        # as Python (the dataclass keeps an __init__ the class defines)
        self.items = {} if items is None else items
        self.cards = cards
        self.suit_counts = suit_counts
        self.all_eleven = all_eleven

    def __reduce__(self) -> tuple[Any, ...]:  # (pickled by its fields, as RoundSummary)
        return (SideScore, (self.items, self.cards, self.suit_counts, self.all_eleven))

    @property
    def total(self) -> int:
        return sum(self.items.values())


class ScoringRules:
    """The options round scoring reads, read once from a :class:`Rules` (this module is
    compiled: an attribute of this class is a field of a C struct, where every read of an
    attribute of ``Rules``, a Python dataclass, is a look-up by name)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.deck_total = len(rules.deck_cards)
        self.majority_rule: str = rules.majority_rule
        self.spade_scoring: str = rules.spade_scoring
        self.big_casino: int = rules.big_casino
        self.little_casino: int = rules.little_casino
        self.big_casino_points: int = rules.big_casino_points
        self.little_casino_points: int = rules.little_casino_points
        self.ace_points: int = rules.ace_points
        self.sweeps_cancel: bool = rules.sweeps_cancel
        self.score_timing: str = rules.score_timing
        self.diamond_scoring: bool = rules.diamond_scoring
        self.suit_totals: tuple[int, int, int, int] = rules.suit_totals
        self.sweep_points: int = rules.sweep_points
        self.cards_tie_break: str = rules.cards_tie_break
        self.cards_points: int = rules.cards_points
        self.majority_suit_index: int = rules.majority_suit_index
        self.majority_suit_points: int = rules.majority_suit_points
        self.last_capture_points: int = rules.last_capture_points
        self.all_eleven_rule: str = rules.all_eleven_rule


_SCORING: dict[int, ScoringRules] = {}  # id(rules) -> its ScoringRules (which holds rules)


def scoring_rules(rules: Rules) -> ScoringRules:
    """The :class:`ScoringRules` of ``rules``, made once (a few dozen rule sets are kept)."""
    sr = _SCORING.get(id(rules))
    if sr is None or sr.rules is not rules:
        if len(_SCORING) >= 64:
            _SCORING.clear()
        sr = _SCORING[id(rules)] = ScoringRules(rules)
    return sr


def count_aces(cards: Sequence[Card]) -> int:
    """Aces among ``cards`` (an ace is rank 0, so its card number is below 4)."""
    n = 0
    for c in cards:
        if c < 4:
            n += 1
    return n


def majority_winner(counts: Sequence[int], rules: Rules, deck_total: int) -> int | None:
    """Index of the side that scores a "most" item, or None (ties score nothing)."""
    return _majority_winner(list(counts), rules.majority_rule, deck_total)


def _majority_winner(counts: list[int], majority_rule: str, deck_total: int) -> int | None:
    if not counts:
        return None
    top = max(counts)
    leaders = [i for i, c in enumerate(counts) if c == top]
    if len(leaders) != 1 or top == 0:
        return None
    if majority_rule == "absolute_majority" and top < deck_total // 2 + 1:
        return None
    return leaders[0]


def spade_card_points(rules: Rules, cards: Sequence[Card]) -> int:
    return _spade_card_points(rules.spade_scoring, cards)


def _spade_card_points(mode: str, cards: Sequence[Card]) -> int:
    pts = 0
    for c in cards:
        if suit_of(c) != SPADES:
            continue
        if mode == "pagat24" or mode == "seed002_25":
            pts += 2 if c == JACK_OF_SPADES else 1
        elif mode == "hoyle26":
            pts += 2 if c in (JACK_OF_SPADES, ACE_OF_SPADES, make_card(1, SPADES)) else 1
    return pts


def score_round(rules: Rules, sides: Sequence[Sequence[int]], captured: Sequence[Sequence[Card]],
                sweeps: Sequence[int], last_capturer: int | None,
                skip_immediate: bool = False) -> list[SideScore]:
    """Points of each side for a finished round.

    ``skip_immediate``: leave out items already added to the game score as they were taken
    (``score_timing`` other than ``end_of_round``).
    """
    sr = scoring_rules(rules)
    deck_total = sr.deck_total
    pooled: list[list[Card]] = []
    for side in sides:
        pool: list[Card] = []
        for s in side:
            pool.extend(captured[s])  # (one C call for a list)
        pooled.append(pool)
    side_sweeps = [sum(sweeps[s] for s in side) for side in sides]
    if sr.sweeps_cancel and side_sweeps:
        low = min(side_sweeps)
        side_sweeps = [s - low for s in side_sweeps]
    out: list[SideScore] = []
    big, little = sr.big_casino, sr.little_casino
    held: list[tuple[bool, bool, int]] = []  # each side's casinos and aces
    for cards in pooled:
        n0 = n1 = n2 = n3 = 0  # cards of each suit (a card's suit is its low two bits)
        has_big = has_little = False
        aces = 0
        for c in cards:
            suit = c & 3
            if suit == 0:
                n0 += 1
            elif suit == 1:
                n1 += 1
            elif suit == 2:
                n2 += 1
            else:
                n3 += 1
            if c < 4:  # an ace is rank 0
                aces += 1
            if c == big:
                has_big = True
            if c == little:
                has_little = True
        out.append(SideScore({}, len(cards), (n0, n1, n2, n3)))
        held.append((has_big, has_little, aces))
    n_cards = [s.cards for s in out]
    timing = sr.score_timing if skip_immediate else "end_of_round"
    sweeps_now = timing == "end_of_round"
    cards_now = timing != "all_immediate"

    if sr.diamond_scoring:
        w = _majority_winner(n_cards, sr.majority_rule, deck_total)
        if w is not None:
            out[w].items["cards"] = 1
        n_d = sr.suit_totals[DIAMONDS]
        w = _majority_winner([s.suit_counts[DIAMONDS] for s in out], sr.majority_rule, n_d)
        if w is not None:
            out[w].items["most_D"] = 1
        for i, cards in enumerate(pooled):
            if SEVEN_OF_DIAMONDS in cards:
                out[i].items["seven_of_diamonds"] = 1
            ranks = [rank_of(c) for c in cards]
            q = sum(2 for r in (6, 5, ACE) if ranks.count(r) == 4)
            if q:
                out[i].items["quartets"] = q
            if sweeps_now and side_sweeps[i] * sr.sweep_points:
                out[i].items["sweeps"] = side_sweeps[i] * sr.sweep_points
        return out

    # most cards (with the Portuguese tie break)
    w = _majority_winner(n_cards, sr.majority_rule, deck_total)
    if w is None and sr.cards_tie_break == "most_spades" and n_cards:
        top = max(n_cards)
        tied = [i for i, c in enumerate(n_cards) if c == top]
        if len(tied) > 1:
            sp = [out[i].suit_counts[SPADES] for i in tied]
            best = max(sp)
            if sp.count(best) == 1:
                w = tied[sp.index(best)]
    if w is not None and sr.cards_points:
        out[w].items["cards"] = sr.cards_points
    # most of the majority suit (pagat24 replaces it with per-spade points)
    suit = sr.majority_suit_index
    if sr.spade_scoring != "pagat24" and sr.majority_suit_points:
        n_suit = sr.suit_totals[suit]
        w = _majority_winner([s.suit_counts[suit] for s in out], sr.majority_rule, n_suit)
        if w is not None:
            out[w].items["most_" + SUITS[suit]] = sr.majority_suit_points
    for i, cards in enumerate(pooled):
        items = out[i].items
        if cards_now:
            has_big, has_little, aces = held[i]
            items.update(_points_of(sr, has_big, has_little, aces, cards))
        if sweeps_now and side_sweeps[i] and sr.sweep_points:
            items["sweeps"] = side_sweeps[i] * sr.sweep_points
    if sr.last_capture_points and last_capturer is not None:
        for i, side in enumerate(sides):
            if last_capturer in side:
                out[i].items["last_capture"] = sr.last_capture_points
    # all eleven: one side took every base item (sweeps excluded)
    for i in range(len(pooled)):
        items = out[i].items
        has_big, has_little, aces = held[i]
        if "cards" in items and "most_S" in items and has_big and has_little and aces == 4:
            out[i].all_eleven = True
            if sr.all_eleven_rule == "bonus_point":
                items["all_eleven"] = 1
    return out


def immediate_points(rules: Rules, cards: Sequence[Card]) -> dict[str, int]:
    """Points scored the moment ``cards`` are captured under ``score_timing=all_immediate``."""
    sr = scoring_rules(rules)
    if sr.score_timing != "all_immediate" or sr.diamond_scoring:
        return {}
    return _card_points(sr, cards if isinstance(cards, list) else list(cards))


def card_points(rules: Rules, cards: Sequence[Card]) -> dict[str, int]:
    """The points ``cards`` are worth card by card: casinos, aces and spade-card points."""
    return _card_points(scoring_rules(rules), cards if isinstance(cards, list) else list(cards))


def _card_points(sr: ScoringRules, cards: list[Card]) -> dict[str, int]:
    """:func:`card_points` of a list, in one pass over it."""
    big = sr.big_casino
    little = sr.little_casino
    has_big = has_little = False
    aces = 0
    for c in cards:
        if c == big:
            has_big = True
        if c == little:
            has_little = True
        if c < 4:  # an ace is rank 0
            aces += 1
    return _points_of(sr, has_big, has_little, aces, cards)


def _points_of(sr: ScoringRules, has_big: bool, has_little: bool, aces: int,
               cards: list[Card]) -> dict[str, int]:
    """The points of ``cards``, which hold the big and little casinos or not and ``aces``
    aces (:func:`score_round` counts them with the suits, in one pass)."""
    items: dict[str, int] = {}
    if has_big and sr.big_casino_points:
        items["big_casino"] = sr.big_casino_points
    if has_little and sr.little_casino_points and sr.spade_scoring != "hoyle26":
        items["little_casino"] = sr.little_casino_points
    if aces and sr.ace_points:
        items["aces"] = aces * sr.ace_points
    if sr.spade_scoring != "none":
        sp = _spade_card_points(sr.spade_scoring, cards)
        if sp:
            items["spade_cards"] = sp
    return items


def count_out_order(rules: Rules) -> tuple[str, ...]:
    """The complete count-out order (6.3): ``rules.count_out_order`` with the items it leaves
    out put where D-GE-2 says. The one source of truth for both a side's steps
    (:func:`count_out_sequence`) and the interleaving of the sides' steps in the engine.

    - ``most_S`` stands for the majority-suit item when that suit is not spades (the Danish
      ``most_C``; ``most_D`` under Diamond scoring), unless the order names that item itself;
    - ``spade_cards`` comes right after ``most_S`` (or that item), ``last_capture`` just before
      ``sweeps`` (D-GE-2), when the order does not place them;
    - anything else the order does not name counts after everything it names, by name
      (:func:`count_out_key`).
    """
    order = list(rules.count_out_order)
    suit_item = "most_D" if rules.diamond_scoring else "most_" + SUITS[rules.majority_suit_index]
    if suit_item not in order and "most_S" in order and suit_item != "most_S":
        order[order.index("most_S")] = suit_item
    if "spade_cards" not in order:
        pos = order.index(suit_item) + 1 if suit_item in order else len(order)
        order.insert(pos, "spade_cards")
    if "last_capture" not in order:
        pos = order.index("sweeps") if "sweeps" in order else len(order)
        order.insert(pos, "last_capture")
    return tuple(order)


def count_out_key(order: Sequence[str], item: str) -> tuple[int, str]:
    """Sort key of a count-out step: its place in ``order`` (from :func:`count_out_order`);
    items the order does not name come after all the others, by name."""
    try:
        return order.index(item), ""
    except ValueError:
        return len(order), item


def count_out_sequence(rules: Rules, score: SideScore, cards: Sequence[Card]) -> list[tuple[str,
                                                                                           int]]:
    """A side's round points split into count-out steps, in :func:`count_out_order` (6.3)."""
    order = count_out_order(rules)
    items = dict(score.items)
    steps: list[tuple[str, int]] = []
    aces_split = any(x.startswith("ace_") for x in order)
    for item in order:
        if item.startswith("ace_"):
            suit = SUITS.index(item[-1])
            if make_card(ACE, suit) in cards and "aces" in items and rules.ace_points:
                steps.append((item, rules.ace_points))
        elif item in items:
            steps.append((item, items.pop(item)))
    if aces_split:
        items.pop("aces", None)
    steps.extend(sorted(items.items(), key=lambda kv: count_out_key(order, kv[0])))
    return steps


def claim_credit(rules: Rules, cards: Sequence[Card], sweeps: int) -> dict[str, int]:
    """Points a claimant's side has certainly won so far and not yet scored (6.4, D-GE-4).

    ``cards``: the side's capture pile; ``sweeps``: its sweeps this round. Majority items count
    only at an absolute majority. Items already added to the game score as they were taken
    (``score_timing``, 5.5) are left out, since the claimant's game score holds them: sweeps
    under immediate timing, and under ``all_immediate`` the casinos, aces and spade cards too.
    """
    deck = rules.deck_cards
    items: dict[str, int] = {}
    if rules.diamond_scoring:
        if len(cards) >= len(deck) // 2 + 1:
            items["cards"] = 1
        if sum(1 for c in cards if suit_of(c) == DIAMONDS) >= rules.suit_totals[DIAMONDS] // 2 + 1:
            items["most_D"] = 1
        if SEVEN_OF_DIAMONDS in cards:
            items["seven_of_diamonds"] = 1
        ranks = [rank_of(c) for c in cards]
        q = sum(2 for r in (6, 5, ACE) if ranks.count(r) == 4)
        if q:
            items["quartets"] = q
    else:
        if len(cards) >= len(deck) // 2 + 1 and rules.cards_points:
            items["cards"] = rules.cards_points
        suit = rules.majority_suit_index
        n_suit = rules.suit_totals[suit]
        if (rules.spade_scoring != "pagat24" and rules.majority_suit_points
                and sum(1 for c in cards if suit_of(c) == suit) >= n_suit // 2 + 1):
            items["most_" + SUITS[suit]] = rules.majority_suit_points
        if rules.score_timing != "all_immediate":  # else already scored when captured
            items.update(card_points(rules, cards))
    if sweeps and rules.sweep_points and rules.score_timing == "end_of_round":
        items["sweeps"] = sweeps * rules.sweep_points
    return items
