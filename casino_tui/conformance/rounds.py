"""Build a finished round worth given points: capture piles, sweeps and the last capturer.

The conformance runner (:mod:`.realize`) needs this for game-end scenarios that give a round
only as points per side (``round_points``: totals, or item breakdowns such as
``{"cards": 3, "aces": 2}``). The round is *constructed*, not searched for card by card:

1. The deck is split into classes of interchangeable cards: cards that score on their own
   (casinos, aces, spade cards, 7D) or take part in a quartet, one class per distinct role, and
   the plain cards of the majority suit and of the other suits (fillers).
2. A depth-first search decides, with the sides' remaining points as exact budgets, who wins the
   majority items (most cards, most of the suit: one side or nobody), who makes the last capture,
   and how many cards of each scoring class each side holds. Budgets prune the search, items
   with no source left must be complete, and a lower bound on the sweeps still needed drives an
   iterative deepening, so the round found has as few sweeps as possible.
3. At each leaf the small integer constraints on card and suit counts are solved directly: the
   plain cards of the majority suit are split so that the chosen side has strictly the most of
   the suit (or the top is tied, or nobody has an absolute majority), then the other plain cards
   so that the chosen side has strictly the most cards (or a tie at the top...), respecting the
   cards each side already holds.
4. Sweeps make up the rest (a multiple of ``sweep_points``), and the engine's own
   :func:`scoring.score_round` judges the result through the caller's ``accept`` test.

Everything is deterministic: the same request gives the same round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from casino_tui.engine import Card, Rules, scoring
from casino_tui.engine.cards import ACE, DIAMONDS, SUITS, make_card, rank_of, suit_of

Want = tuple[int | None, dict[str, Any] | None]
Accept = Callable[[int, scoring.SideScore, Sequence[Card]], bool]
Realized = tuple[list[list[Card]], list[int], int | None]

FREE = -2  # the item is not scored under these rules: no constraint
NOBODY = -1  # nobody scores the item (a tie at the top, or no absolute majority)
LEAF_ITEMS = frozenset({"sweeps", "all_eleven"})  # decided at the leaf
QUARTET_RANKS = (6, 5, ACE)  # 7s, 6s, aces (Diamond Cassino)


class Unrealizable(Exception):
    """No round can be worth these points (or the search gave up: ``gave_up``)."""

    def __init__(self, message: str, gave_up: bool = False) -> None:
        super().__init__(message)
        self.gave_up = gave_up


@dataclass
class _Side:
    """What one side's round must be worth."""

    total: int | None = None
    items: dict[str, int] | None = None  # exact numeric budget per item
    aces_in: set[Card] = field(default_factory=set)  # per-suit ace items: must hold ...
    aces_out: set[Card] = field(default_factory=set)  # ... must not hold

    @property
    def free(self) -> bool:
        return self.total is None and self.items is None


@dataclass
class _Class:
    """Interchangeable cards that score or matter on their own."""

    cards: list[Card]
    points: dict[str, int]  # per card
    in_suit: bool
    rank: int | None  # quartet rank (Diamond scoring)
    allowed: list[int]  # sides that may hold cards of this class

    @property
    def value(self) -> int:
        return sum(self.points.values())


def _parse_want(rules: Rules, want: Want) -> _Side:
    total, items = want
    side = _Side(total=total)
    if items is None:
        return side
    budget: dict[str, int] = {}
    for k, v in items.items():
        if k not in scoring.KNOWN_ITEMS and k != "penalties":
            raise Unrealizable(f"unknown scoring item {k!r}")
        if isinstance(v, bool) or not isinstance(v, int):
            if k == "all_eleven":  # "all_eleven": "bonus_point": the item is awarded
                budget[k] = budget.get(k, 0) + 1
                continue
            raise Unrealizable(f"cannot build a round with {k}={v!r}")
        if k == "penalties":
            if v:
                raise Unrealizable("penalties are scored during play, not by a round")
            continue
        if k.startswith("ace_"):
            ace = make_card(ACE, SUITS.index(k[-1]))
            (side.aces_in if v else side.aces_out).add(ace)
            k = "aces"
        budget[k] = budget.get(k, 0) + v
    side.items = {k: v for k, v in budget.items() if v}
    return side


class _Builder:
    def __init__(self, rules: Rules, sides: Sequence[Sequence[int]], n: int,
                 want: Sequence[Want], last: int | None, choose_last: bool, accept: Accept,
                 max_nodes: int) -> None:
        self.rules = rules
        self.sides = [list(s) for s in sides]
        self.n = n
        self.k = k = len(sides)
        self.accept = accept
        self.nodes_left = max_nodes
        self.specs = [_parse_want(rules, w) for w in want]
        self.last = last
        self.choose_last = choose_last
        deck = list(rules.deck_cards)
        self.total_cards = len(deck)
        diamond = rules.diamond_scoring
        self.diamond = diamond
        self.msuit = DIAMONDS if diamond else rules.majority_suit_index
        self.suit_in_deck = sum(1 for c in deck if suit_of(c) == self.msuit)
        self.absolute = rules.majority_rule == "absolute_majority"
        self.sp = rules.sweep_points if rules.score_timing == "end_of_round" else 0
        # the majority items: (name, points) or None when these rules do not score them
        if diamond:
            self.cards_item: tuple[str, int] | None = ("cards", 1)
            self.suit_item: tuple[str, int] | None = ("most_D", 1)
        else:
            self.cards_item = ("cards", rules.cards_points) if rules.cards_points else None
            self.suit_item = (("most_" + SUITS[self.msuit], rules.majority_suit_points)
                              if rules.majority_suit_points and rules.spade_scoring != "pagat24"
                              else None)
        self.lcp = 0 if diamond else rules.last_capture_points  # as score_round counts it
        # classes of cards that matter one by one
        specific_aces = any(s.aces_in or s.aces_out for s in self.specs)
        tracked = set()
        if rules.all_eleven_rule != "none" and not diamond:
            tracked = {rules.big_casino, rules.little_casino} | {c for c in deck
                                                                 if rank_of(c) == ACE}
        by_sig: dict[tuple[Any, ...], _Class] = {}
        self.fill_suit: list[Card] = []
        self.fill_other: list[Card] = []
        for c in deck:
            if diamond:
                pts = {"seven_of_diamonds": 1} if c == scoring.SEVEN_OF_DIAMONDS else {}
                rank = rank_of(c) if rank_of(c) in QUARTET_RANKS else None
            else:
                pts = (scoring.card_points(rules, [c]) if rules.score_timing != "all_immediate"
                       else {})
                rank = None
            ace_id = c if specific_aces and rank_of(c) == ACE else None
            role = c if c in tracked and rank_of(c) != ACE else ("ace" if c in tracked else None)
            in_suit = suit_of(c) == self.msuit
            if not pts and rank is None and ace_id is None and role is None:
                (self.fill_suit if in_suit else self.fill_other).append(c)
                continue
            sig = (tuple(sorted(pts.items())), in_suit, rank, ace_id, role)
            cls = by_sig.get(sig)
            if cls is None:
                allowed = list(range(k))
                if ace_id is not None:
                    musts = [i for i, s in enumerate(self.specs) if ace_id in s.aces_in]
                    if len(musts) > 1:
                        raise Unrealizable("two sides cannot both hold the same ace")
                    allowed = musts or [i for i in range(k)
                                        if ace_id not in self.specs[i].aces_out]
                cls = by_sig[sig] = _Class([], pts, in_suit, rank, allowed)
            cls.cards.append(c)
        # big classes first (they prune most), then by card order; a quartet rank's classes
        # together, so its quartet is known (and budgeted) as soon as they are placed
        self.classes = sorted(by_sig.values(), key=lambda cl: (
            cl.rank is not None, QUARTET_RANKS.index(cl.rank) if cl.rank is not None else 0,
            -cl.value, cl.cards[0]))
        self.rank_size = {r: sum(1 for c in deck if rank_of(c) == r) for r in QUARTET_RANKS}

    # ----------------------------------------------------------------- budgets
    def _init_budgets(self) -> None:
        self.rem_total: list[int | None] = []
        self.rem_items: list[dict[str, int] | None] = []
        for s in self.specs:
            self.rem_items.append(dict(s.items) if s.items is not None else None)
            self.rem_total.append(s.total if s.items is None else None)

    def _fits(self, i: int, items: dict[str, int], mult: int) -> bool:
        if mult == 0 or not items:
            return True
        ri = self.rem_items[i]
        if ri is not None:
            return all(ri.get(it, 0) >= p * mult for it, p in items.items())
        rt = self.rem_total[i]
        return rt is None or rt >= sum(items.values()) * mult

    def _cap(self, i: int, cls: _Class, n: int) -> int:
        """Most cards of ``cls`` side ``i`` can take within its budget."""
        if i not in cls.allowed:
            return 0
        if not cls.points:
            return n
        ri = self.rem_items[i]
        if ri is not None:
            return min([n] + [ri.get(it, 0) // p for it, p in cls.points.items()])
        rt = self.rem_total[i]
        return n if rt is None else min(n, rt // cls.value)

    def _add(self, i: int, items: dict[str, int], mult: int, sign: int) -> None:
        ri = self.rem_items[i]
        if ri is not None:
            for it, p in items.items():
                ri[it] = ri.get(it, 0) - sign * p * mult
        elif self.rem_total[i] is not None:
            self.rem_total[i] -= sign * sum(items.values()) * mult  # type: ignore[operator]

    def _need(self) -> int:
        """Points the constrained sides still need before sweeps and leaf items."""
        need = 0
        for i in range(self.k):
            ri = self.rem_items[i]
            if ri is not None:
                need += sum(v for it, v in ri.items() if it not in LEAF_ITEMS)
            elif self.rem_total[i] is not None:
                need += self.rem_total[i]  # type: ignore[operator]
        return need

    # ----------------------------------------------------------------- the search
    def run(self) -> Realized:
        self._init_budgets()
        # supply[s]: the most points the steps from s on (and the leaf) can still hand out
        leaf_potential = 0
        if self.rules.all_eleven_rule == "bonus_point":
            leaf_potential += 1
        steps: list[tuple[str, Any]] = []
        if self.cards_item:
            steps.append(("cards", self.cards_item))
        if self.suit_item:
            steps.append(("suit", self.suit_item))
        fixed_last_side: int | None = None
        if self.lcp:
            if self.choose_last:
                steps.append(("last", ("last_capture", self.lcp)))
            elif self.last is not None:
                fixed_last_side = self._side_of(self.last)
        for cl in self.classes:
            steps.append(("class", cl))
        self.steps = steps
        self._first_class = len(steps) - len(self.classes)
        # quartets: known once the last class of their rank is placed
        self.quartet_at: dict[int, int] = {}
        if self.diamond:
            for s, (kind, what) in enumerate(steps):
                if kind == "class" and what.rank is not None and self.rank_size[what.rank] == 4:
                    self.quartet_at[what.rank] = s
        self.rank_closing = {s: r for r, s in self.quartet_at.items()}
        supply = [0] * (len(steps) + 1)
        supply[-1] = leaf_potential
        for s in range(len(steps) - 1, -1, -1):
            kind, what = steps[s]
            supply[s] = supply[s + 1] + (what[1] if kind != "class"
                                         else what.value * len(what.cards))
            if s in self.rank_closing:
                supply[s] += 2
        self.supply = supply
        # the last step able to produce each item: budgets must be complete after it
        last_source: dict[str, int] = {}
        for s, (kind, what) in enumerate(steps):
            for it in ([what[0]] if kind != "class" else list(what.points)):
                last_source[it] = s
            if s in self.rank_closing:
                last_source["quartets"] = s
        self.complete_after: dict[int, list[str]] = {}
        for it, s in last_source.items():
            self.complete_after.setdefault(s, []).append(it)
        for spec in self.specs:
            for it, v in (spec.items or {}).items():
                if v and it not in last_source and it not in LEAF_ITEMS and not (
                        it == "last_capture" and fixed_last_side is not None):
                    raise Unrealizable(f"no card or item of these rules gives {it}")
        self.fixed_last_side = fixed_last_side
        self._reset()
        step = self.sp or 1
        lo = max(0, self._need() - supply[0])
        lo = -(-lo // step) * step
        hi = sum(max(0, x) for x in self.rem_total if x is not None) + sum(
            ri.get("sweeps", 0) for ri in self.rem_items if ri is not None)
        if not self.sp and lo:
            raise Unrealizable("more points than a round without sweep points can give")
        hi = max(hi, lo) if self.sp else lo
        # fewest sweeps first (a leaf accepts up to ``level`` sweep points); a level that takes
        # long gives way to the next, and if the last level (which accepts every leaf) gave
        # up too, it is searched again with what is left of the budget
        levels = list(range(lo, hi + 1, step))
        per_level = max(1, self.nodes_left // (4 * len(levels)))
        gave_up = False
        for level in levels:
            self.level = level
            budget, self.nodes_left = self.nodes_left, min(self.nodes_left, per_level)
            gave_up = False
            try:
                found = self._dfs(0)
            except Unrealizable:  # this level's share is used up; the state is half-undone
                gave_up = True
                found = None
                self._reset()
            self.nodes_left = budget - (min(budget, per_level) - self.nodes_left)
            if found is not None:
                return found
        if gave_up:
            found = self._dfs(0)  # raises (gave_up) if the budget runs out again
            if found is not None:
                return found
        raise Unrealizable("no round is worth these points")

    def _reset(self) -> None:
        """Budgets and decisions as at the root of the search."""
        self._init_budgets()
        self.choice: dict[str, int] = {}
        self.held: list[list[int]] = [[0] * self.k for _ in self.classes]
        side = self.fixed_last_side
        if side is not None:
            if not self._fits(side, {"last_capture": self.lcp}, 1):
                raise Unrealizable("the last capture scores for the wrong side")
            self._add(side, {"last_capture": self.lcp}, 1, 1)
            for ri in self.rem_items:
                if ri is not None and ri.get("last_capture", 0):
                    raise Unrealizable("the last capture cannot score for this side")

    def _side_of(self, seat: int) -> int:
        return next(i for i, s in enumerate(self.sides) if seat in s)

    def _tick(self) -> None:
        self.nodes_left -= 1
        if self.nodes_left < 0:
            raise Unrealizable("gave up building a round worth these points", gave_up=True)

    def _prune(self, s: int) -> bool:
        """True if the node after finishing step ``s - 1`` cannot lead to a round."""
        for it in self.complete_after.get(s - 1, ()):
            if any(ri is not None and ri.get(it, 0) for ri in self.rem_items):
                return True
        return self._need() - self.supply[s] > self.level

    def _dfs(self, s: int) -> Realized | None:
        self._tick()
        if s and self._prune(s):
            return None
        if s == len(self.steps):
            return self._leaf()
        kind, what = self.steps[s]
        if kind != "class":
            item, pts = what
            options = list(range(self.k))
            if kind != "last":
                options.append(NOBODY)
            # sides that need the points first
            options.sort(key=lambda i: 0 if i == NOBODY else -self._room(i, item))
            for i in options:
                if i != NOBODY and not self._fits(i, {item: pts}, 1):
                    continue
                self.choice[kind] = i
                if i != NOBODY:
                    self._add(i, {item: pts}, 1, 1)
                found = self._dfs(s + 1)
                if i != NOBODY:
                    self._add(i, {item: pts}, 1, -1)
                if found is not None:
                    return found
            self.choice.pop(kind, None)
            return None
        if what.rank is not None and not what.points and not what.in_suit:
            return self._place_plain_rank(s, what)
        caps = [self._cap(i, what, len(what.cards)) for i in range(self.k)]
        if sum(caps) < len(what.cards):
            return None
        return self._spread_class(s, what, 0, len(what.cards), caps)

    def _place_plain_rank(self, s: int, cls: _Class) -> Realized | None:
        """Plain cards of a quartet rank matter only for the quartet and the card counts: all
        to one side, or all but one (the quartet then cannot be complete)."""
        n = len(cls.cards)
        row = self.held[s - self._first_class]
        splits: list[tuple[int, int | None]] = [(j, None) for j in cls.allowed]
        if n > 1:
            splits += [(j, o) for j in cls.allowed for o in cls.allowed if o != j][:2 * self.k]
        for j, o in splits:
            row[j] = n if o is None else n - 1
            if o is not None:
                row[o] = 1
            found = self._close_rank(s)
            row[j] = 0
            if o is not None:
                row[o] = 0
            if found is not None:
                return found
        return None

    def _room(self, i: int, item: str) -> int:
        ri = self.rem_items[i]
        if ri is not None:
            return ri.get(item, 0)
        rt = self.rem_total[i]
        return 10**6 if rt is None else rt

    def _spread_class(self, s: int, cls: _Class, i: int, left: int,
                      caps: list[int]) -> Realized | None:
        """Every split of the class's cards among sides i.. (each within its cap: the budgets
        of different sides are independent), then the next step."""
        row = self.held[s - self._first_class]
        if i == self.k - 1 or left == 0:
            if left > caps[i]:
                return None
            if left:
                row[i] = left
                self._add(i, cls.points, left, 1)
            found = self._close_rank(s)
            if left:
                self._add(i, cls.points, left, -1)
                row[i] = 0
            return found
        self._tick()
        later = sum(caps[i + 1:])
        for x in range(min(caps[i], left), max(0, left - later) - 1, -1):
            row[i] = x
            self._add(i, cls.points, x, 1)
            found = self._spread_class(s, cls, i + 1, left - x, caps)
            self._add(i, cls.points, x, -1)
            row[i] = 0
            if found is not None:
                return found
        return None

    def _close_rank(self, s: int) -> Realized | None:
        """After class step ``s``: score a quartet its rank now completes, then go on."""
        rank = self.rank_closing.get(s)
        if rank is None:
            return self._dfs(s + 1)
        counts = [0] * self.k
        for ci, cl in enumerate(self.classes):
            if cl.rank == rank:
                for i in range(self.k):
                    counts[i] += self.held[ci][i]
        owner = next((i for i in range(self.k) if counts[i] == 4), None)
        if owner is None:
            return self._dfs(s + 1)
        q = {"quartets": 2}
        if not self._fits(owner, q, 1):
            return None
        self._add(owner, q, 1, 1)
        found = self._dfs(s + 1)
        self._add(owner, q, 1, -1)
        return found


    # ----------------------------------------------------------------- leaves
    def _leaf(self) -> Realized | None:
        k = self.k
        rules = self.rules
        special: list[list[Card]] = [[] for _ in range(k)]
        for ci, cl in enumerate(self.classes):
            pos = 0
            for i in range(k):
                x = self.held[ci][i]
                special[i].extend(cl.cards[pos:pos + x])
                pos += x
        wc = self.choice.get("cards", FREE) if self.cards_item else FREE
        ws = self.choice.get("suit", FREE) if self.suit_item else FREE
        # items decided only now: quartets and the all-eleven bonus
        leaf_items: list[dict[str, int]] = [{} for _ in range(k)]
        for i in range(k):
            if (not self.diamond and rules.all_eleven_rule == "bonus_point" and wc == i and ws == i
                  and self.suit_item is not None and self.suit_item[0] == "most_S"
                  and rules.big_casino in special[i] and rules.little_casino in special[i]
                  and scoring.count_aces(special[i]) == 4):
                leaf_items[i]["all_eleven"] = 1
        sweep_pts = [0] * k
        for i in range(k):
            ri = self.rem_items[i]
            if ri is not None:
                for it, v in leaf_items[i].items():
                    if ri.get(it, 0) != v:
                        return None
                if any(v for it, v in ri.items() if it not in LEAF_ITEMS):
                    return None
                if ri.get("all_eleven", 0) and "all_eleven" not in leaf_items[i]:
                    return None
                sweep_pts[i] = ri.get("sweeps", 0)
            elif self.rem_total[i] is not None:
                sweep_pts[i] = self.rem_total[i] - sum(leaf_items[i].values())  # type: ignore
        if any(p < 0 for p in sweep_pts):
            return None
        if self.sp == 0:
            if any(sweep_pts):
                return None
        elif any(p % self.sp for p in sweep_pts):
            return None
        if sum(p for i, p in enumerate(sweep_pts) if self.rem_items[i] is None) > self.level:
            return None
        if rules.sweeps_cancel and sweep_pts and all(sweep_pts):
            return None  # cancelling leaves some side without sweeps
        side_sweeps = [p // self.sp if self.sp else 0 for p in sweep_pts]
        # the last capturer (and the seat holding each side's pile)
        last = self.last
        if self.choose_last:
            last_side = self.choice.get("last")
            last = None if last_side is None else self.sides[last_side][0]
        min_cards = [0] * k
        if last is not None:
            min_cards[self._side_of(last)] = 1
        for tried, (a, b) in enumerate(self._fills(special, wc, ws, min_cards)):
            if tried >= 40:
                break
            self._tick()
            piles = [list(special[i]) for i in range(k)]
            fs = list(self.fill_suit)
            fo = list(self.fill_other)
            for i in range(k):
                piles[i].extend(fs[:a[i]])
                del fs[:a[i]]
                piles[i].extend(fo[:b[i]])
                del fo[:b[i]]
            seat_last = last
            if seat_last is None and self.choose_last:
                seat_last = next(self.sides[i][0] for i in range(k) if piles[i])
            captured: list[list[Card]] = [[] for _ in range(self.n)]
            sweeps = [0] * self.n
            for i, side in enumerate(self.sides):
                seat = seat_last if seat_last in side else side[0]
                captured[seat] = piles[i]
                sweeps[seat] = side_sweeps[i]
            scores = scoring.score_round(rules, self.sides, captured, sweeps, seat_last,
                                         skip_immediate=True)
            if all(self.specs[i].free or self.accept(i, scores[i], piles[i])
                   for i in range(k)):
                return captured, sweeps, seat_last
        return None

    def _fills(self, special: list[list[Card]], wc: int, ws: int,
               min_cards: list[int]) -> Iterator[tuple[list[int], list[int]]]:
        """Splits of the plain cards: (majority-suit cards, other cards) per side."""
        k = self.k
        size = [len(p) for p in special]
        f = [sum(1 for c in p if suit_of(c) == self.msuit) for p in special]
        m = len(self.fill_suit)
        thr_s = self.suit_in_deck // 2 + 1 if self.absolute else 0
        thr_c = self.total_cards // 2 + 1 if self.absolute else 0
        for a in _suit_splits(f, m, ws, wc, k, thr_s, self.suit_in_deck):
            low = [max(size[i] + a[i], min_cards[i]) for i in range(k)]
            for c in _count_splits(low, self.total_cards, wc, k, thr_c):
                yield a, [c[i] - size[i] - a[i] for i in range(k)]


# --------------------------------------------------------------------------- integer splits
def _spread(amount: int, levels: Sequence[int], caps: Sequence[int],
            first: int | None = None) -> list[int] | None:
    """Hand out ``amount`` units one at a time, each to the slot with the lowest level so far
    (``first`` is filled up first), never above a slot's cap. None if the caps are too small."""
    k = len(levels)
    give = [0] * k
    if amount < 0 or sum(max(0, c) for c in caps) < amount:
        return None
    if first is not None and amount:
        give[first] = min(amount, max(0, caps[first]))
        amount -= give[first]
    for _ in range(amount):
        best = min((i for i in range(k) if give[i] < caps[i]),
                   key=lambda i: (levels[i] + give[i], i))
        give[best] += 1
    return give


def _suit_splits(f: list[int], m: int, ws: int, wc: int, k: int, thr: int,
                 in_deck: int) -> Iterator[list[int]]:
    """Splits of ``m`` plain majority-suit cards so that side ``ws`` has strictly the most of
    the suit (NOBODY: the top is tied or below an absolute majority; FREE: anything)."""
    big = [m] * k
    if ws == FREE:
        if wc >= 0:
            a = [0] * k
            a[wc] = m
            yield a
        got = _spread(m, f, big)
        if got is not None:
            yield got
        return
    if ws >= 0:
        j = ws
        others = [i for i in range(k) if i != j]
        lo = max([f[j], thr] + [f[i] + 1 for i in others])
        for x in range(f[j] + m, lo - 1, -1):
            rest = m - (x - f[j])
            caps = [0 if i == j else x - 1 - f[i] for i in range(k)]
            if sum(caps) < rest:
                break
            first = wc if wc >= 0 and wc != j else None
            got = _spread(rest, [10**6 if i == j else f[i] for i in range(k)], caps, first)
            if got is not None:
                got[j] = x - f[j]
                yield got
        return
    # nobody: below an absolute majority, or a tie at the top
    if in_deck == 0:
        yield [0] * k
        return
    if thr:
        got = _spread(m, f, [thr - 1 - f[i] for i in range(k)])
        if got is not None and all(f[i] + got[i] < thr for i in range(k)):
            yield got
    top = max(f)
    for p in range(k):
        for q in range(p + 1, k):
            for t in range(max(top, 1), max(top, 1) + m + 1):
                ap, aq = t - f[p], t - f[q]
                rest = m - ap - aq
                if rest < 0:
                    break
                caps = [0 if i in (p, q) else t - f[i] for i in range(k)]
                got = _spread(rest, [10**6 if i in (p, q) else f[i] for i in range(k)], caps)
                if got is not None:
                    got[p], got[q] = ap, aq
                    yield got
                    break


def _count_splits(low: list[int], total: int, wc: int, k: int,
                  thr: int) -> Iterator[list[int]]:
    """Card counts per side, each at least ``low``, adding up to ``total``, so that side ``wc``
    has strictly the most cards (NOBODY: a tie at the top or no absolute majority)."""
    slack = total - sum(low)
    if slack < 0:
        return
    if wc == FREE:
        got = _spread(slack, low, [slack] * k)
        if got is not None:
            yield [low[i] + got[i] for i in range(k)]
        return
    if wc >= 0:
        c = list(low)
        c[wc] += slack
        if all(c[wc] > c[i] for i in range(k) if i != wc) and c[wc] >= thr:
            yield c
        return
    if thr:
        got = _spread(slack, low, [thr - 1 - low[i] for i in range(k)])
        if got is not None and all(low[i] + got[i] < thr for i in range(k)):
            yield [low[i] + got[i] for i in range(k)]
    top = max(low)
    for p in range(k):
        for q in range(p + 1, k):
            for t in range(max(top, 1), total + 1):
                rest = slack - (t - low[p]) - (t - low[q])
                if rest < 0:
                    break
                caps = [0 if i in (p, q) else t - low[i] for i in range(k)]
                got = _spread(rest, [10**6 if i in (p, q) else low[i] for i in range(k)], caps)
                if got is not None:
                    c = [low[i] + got[i] for i in range(k)]
                    c[p] = c[q] = t
                    yield c
                    break


# --------------------------------------------------------------------------- entry point
def build_round(rules: Rules, sides: Sequence[Sequence[int]], n: int, want: Sequence[Want],
                last: int | None, accept: Accept, *, choose_last: bool = False,
                max_nodes: int = 300_000) -> Realized:
    """Capture piles (per seat), sweeps (per seat) and the last capturer of a finished round
    whose round-end scores (:func:`scoring.score_round` with ``skip_immediate``) satisfy
    ``accept(side, score, side_cards)`` for every side whose ``want`` is not ``(None, None)``.

    ``want`` per side: ``(total, items)``; items are exact breakdowns (item -> points; per-suit
    ace items ``ace_S``...; ``"all_eleven": "bonus_point"``). ``last``: the last capturer's
    seat, kept as given unless ``choose_last`` (then the last capture goes wherever the points
    need it). Raises :class:`Unrealizable` if no round is worth these points.
    """
    if len(want) != len(sides):
        raise Unrealizable("one wish per side is needed")
    return _Builder(rules, sides, n, want, last, choose_last, accept, max_nodes).run()
