"""The one-move levels (random, easy, medium) and the position knowledge they share with Hard.

Medium looks one move ahead from the seat's view only. For every legal move it adds up:

* what the move takes now, valued by what those cards score under the rules (aces, casinos,
  spade cards, a share of the card and suit majorities) plus a sweep;
* the builds of its own side left on the table, which it expects to collect;
* minus the expected best reply of the opponents who play before its next turn: for every
  capture value, the chance that they hold a card of that value (counted from the unseen cards,
  and certain for a value they own a build of) times the best capture that value makes on the
  table the move leaves (stealing one of our builds counts twice, a sweep counts its points).

So it takes points, avoids leaving sweeps and exposed aces or casinos, answers the opponents'
builds (taking or raising them removes a certain loss), and makes builds only when few unseen
cards could steal them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import Move, SeatView
from ..engine.cards import Card, rank_of
from ..engine.moves import Build, Pile
from .values import RuleValues, pile_value, rule_values

COURT_KEY = 100  # capture key of a court rank r (classic courts have no value): 100 + r
CLEAR_KEY = -1  # the table-clearer card (Danish 5C, 5S variant)
GAME_POINTS = 30.0  # a move that wins (or gives away) the game at once, in round points


def capture_keys(rules_capturer: Sequence[int], card: Card) -> tuple[int, ...]:
    """Keys a played card can capture with: its values, and its rank for same-rank pairing."""
    return (*rules_capturer, COURT_KEY + rank_of(card))


@dataclass
class Knowledge:
    """What a seat knows, prepared once per decision."""

    view: SeatView
    rv: RuleValues
    seat: int
    side_of: list[int]
    my_side: int
    opponents: list[int]
    unseen: list[Card]
    key_counts: dict[int, int]  # capture key -> unseen cards that capture with it
    opp_cards: int  # cards the opponents may play before this seat's next turn
    opp_build_keys: set[int]  # values of builds the opponents own (they hold a capturer)
    win_by_sweep: bool  # a sweep of ours scored at once would win the game (sudden death)
    lose_by_sweep: bool  # a sweep of an opponent scored at once would win them the game

    @classmethod
    def of(cls, view: SeatView) -> Knowledge:
        rules = view.rules
        rv = rule_values(rules)
        side_of = [0] * view.num_players
        for i, side in enumerate(view.sides):
            for s in side:
                side_of[s] = i
        my_side = side_of[view.seat]
        opponents = [s for s in range(view.num_players) if side_of[s] != my_side]
        unseen = view.unseen_cards()
        counts: dict[int, int] = {}
        clearer = rules.table_clearer
        for c in unseen:
            for k in capture_keys(rules.capturer_values[c], c):
                counts[k] = counts.get(k, 0) + 1
            if c == clearer:
                counts[CLEAR_KEY] = 1
        opp_cards = sum(view.hand_sizes[o] for o in opponents)
        if view.stock_size and len(view.hand) <= 1 and not rules.draw_mode:
            # our next turn is in the next deal: opponents who play before us there get
            # fresh cards first (each deal is led by the dealer's left)
            n = view.num_players
            me = (view.seat - view.dealer - 1) % n
            opp_cards += rules.hand_size * sum(
                1 for o in opponents if (o - view.dealer - 1) % n < me)
        opp_cards = min(opp_cards, len(unseen))
        keys: set[int] = set()
        if rules.owner_must_keep_capture_card in (True, "penalty_2"):  # Michigan: or pay 2
            for p in view.table:
                if isinstance(p, Build) and side_of[p.owner] != my_side:
                    keys.add(build_key(p))
        n_sides = len(view.sides)
        return cls(view, rv, view.seat, side_of, my_side, opponents, unseen, counts, opp_cards,
                   keys, wins_at_once(view, my_side, rv.sweep_now),
                   any(wins_at_once(view, s, rv.sweep_now) for s in range(n_sides)
                       if s != my_side))

    def p_hold(self, key: int) -> float:
        """Chance that the opponents hold at least one card capturing with ``key``."""
        if key in self.opp_build_keys:
            return 1.0
        k = self.key_counts.get(key, 0)
        n = len(self.unseen)
        h = self.opp_cards
        if not k or not h or not n:
            return 0.0
        q = 1.0
        for i in range(h):
            if n - i <= 0:
                return 1.0
            q *= max(0.0, (n - k - i) / (n - i))
        return 1.0 - q


def wins_at_once(view: SeatView, side: int, points: float) -> bool:
    """Would ``points`` scored at once (a sweep in sudden death, a penalty) end the game for
    ``side``? It must reach the target and be strictly highest (RULES.md 6.2, D-SD-1)."""
    if points <= 0:
        return False
    s = view.scores[side] + points
    return s >= view.target and all(s > o for i, o in enumerate(view.scores) if i != side)


def build_key(b: Build) -> int:
    return COURT_KEY + b.value - 1 if b.court else b.value


def table_after(table: Sequence[Pile], move: Move, seat: int) -> list[Pile]:
    """The table a move leaves (pile order is not canonical; only the contents matter here)."""
    k = move.kind
    if k == "trail":
        return [*table, move.card]
    if k == "capture":
        ps = move.piles
        return [p for i, p in enumerate(table) if i not in ps]
    if k == "build":
        ps = move.piles
        cards: list[Card] = []
        rest: list[Pile] = []
        for i, p in enumerate(table):
            if i in ps:
                cards.extend((p,) if not isinstance(p, Build) else p.cards)
            else:
                rest.append(p)
        cards.append(move.card)
        rest.append(Build(tuple(cards), move.value or 0, bool(move.single), seat, move.court))
        return rest
    if k == "pluck":
        return [p for p in table if p != move.card or isinstance(p, Build)]
    return list(table)


def captured_by(table: Sequence[Pile], move: Move) -> list[Card]:
    """Cards a capture (or pluck) moves to the mover's pile, the played card included."""
    if move.kind == "pluck":
        return [move.card]
    if move.kind != "capture":
        return []
    out = [move.card]
    for i in move.piles:
        p = table[i]
        if isinstance(p, Build):
            out.extend(p.cards)
        else:
            out.append(p)
    return out


# ------------------------------------------------------------------ opponent's best reply
def _can_partition(vals: list[int], v: int) -> bool:
    """Can these values be split into groups that each total v?"""
    n = len(vals)
    if not n:
        return True
    if sum(vals) % v:
        return False
    sums: dict[int, int] = {0: 0}
    masks_v: list[int] = []
    for mask in range(1, 1 << n):
        low = mask & -mask
        s = sums[mask ^ low] + vals[low.bit_length() - 1]
        sums[mask] = s
        if s == v:
            masks_v.append(mask)
    full = (1 << n) - 1
    memo: dict[int, bool] = {}

    def solve(rem: int) -> bool:
        if not rem:
            return True
        if rem in memo:
            return memo[rem]
        low = rem & -rem
        ok = any(m & low and m & rem == m and solve(rem ^ m) for m in masks_v)
        memo[rem] = ok
        return ok

    return solve(full)


def reply_options(know: Knowledge, table: Sequence[Pile]) -> list[tuple[float, float]]:
    """(value, probability) of the opponents' best capture for every capture key."""
    rules = know.view.rules
    rv = know.rv
    cv = rv.cv
    my_side = know.my_side
    side_of = know.side_of
    loose: list[Card] = []
    builds: list[Build] = []
    for p in table:
        if isinstance(p, Build):
            builds.append(p)
        else:
            loose.append(p)
    if not table:
        return []
    total_value = 0.0
    for p in table:
        v = pile_value(cv, p)
        if isinstance(p, Build) and side_of[p.owner] == my_side:
            v *= 2
        total_value += v
    out: list[tuple[float, float]] = []
    game = GAME_POINTS if know.lose_by_sweep else 0.0  # their sweep would end the game
    if CLEAR_KEY in know.key_counts or CLEAR_KEY in know.opp_build_keys:
        out.append((total_value + rv.sweep_any + game, know.p_hold(CLEAR_KEY)))
    tv = rules.table_values
    # numeric loose cards: subset sums (all subsets of up to 10 cards, else up to 3 at a time)
    num = [(c, tv[c][0]) for c in loose if tv[c]]
    groups: dict[int, list[tuple[float, int]]] = {}
    n = len(num)
    if n <= 10:
        sums = [0] * (1 << n)
        vals = [0.0] * (1 << n)
        for mask in range(1, 1 << n):
            low = mask & -mask
            j = low.bit_length() - 1
            sums[mask] = sums[mask ^ low] + num[j][1]
            vals[mask] = vals[mask ^ low] + cv[num[j][0]]
            groups.setdefault(sums[mask], []).append((vals[mask], mask))
    else:
        from itertools import combinations

        for size in (1, 2, 3):
            for combo in combinations(range(n), size):
                s = sum(num[j][1] for j in combo)
                mask = sum(1 << j for j in combo)
                groups.setdefault(s, []).append((sum(cv[num[j][0]] for j in combo), mask))
    # high values of single loose cards (anywhere scope)
    for j, (c, _v) in enumerate(num):
        for hv in tv[c][1:]:
            groups.setdefault(hv, []).append((cv[c], 1 << j))
    courts_numeric = rules.courts_are_numeric
    keys: set[int] = {k for k in know.key_counts
                      if 0 < k < COURT_KEY or (k >= COURT_KEY + 10 and not courts_numeric)}
    keys |= know.opp_build_keys
    for key in sorted(keys):
        value = 0.0
        taken_builds = 0
        for b in builds:
            if build_key(b) == key:
                bv = pile_value(cv, b)
                value += 2 * bv if side_of[b.owner] == my_side else bv
                taken_builds += 1
        taken_loose = 0
        if key >= COURT_KEY:
            r = key - COURT_KEY
            same = [c for c in loose if rank_of(c) == r]
            if same:
                if rules.court_capture == "one":
                    same = same[:1]
                value += sum(cv[c] for c in same)
                taken_loose = len(same)
        else:
            cand = groups.get(key)
            if cand:
                used = 0
                for gv, m in sorted(cand, reverse=True):
                    if not m & used:
                        used |= m
                        value += gv
                taken_loose = used.bit_count()
                if (taken_loose < len(loose) and taken_builds == len(builds)
                        and n == len(loose) and n <= 10
                        and _can_partition([v for _c, v in num], key)):
                    value = sum(cv[c] for c in loose) + value - sum(
                        cv[num[j][0]] for j in range(n) if used >> j & 1)
                    taken_loose = len(loose)
        if value <= 0:
            continue
        if taken_builds == len(builds) and taken_loose == len(loose):
            value += rv.sweep_any + game
        out.append((value, know.p_hold(key)))
    return out


def expected_best(options: list[tuple[float, float]]) -> float:
    """Expected value of the best available option, options being independent."""
    total = 0.0
    miss = 1.0
    for value, p in sorted(options, reverse=True):
        if p <= 0:
            continue
        total += value * p * miss
        miss *= 1 - p
        if miss <= 1e-6:
            break
    return total


# ------------------------------------------------------------------ medium move scoring
@dataclass
class Scored:
    move: Move
    score: float
    gain: float  # taken now (cards and sweep)
    builds: float  # value of our side's builds left on the table
    risk: float  # expected best reply of the opponents
    sweep: bool


def _is_final_play(view: SeatView) -> bool:
    others = sum(view.hand_sizes) - len(view.hand)
    return not view.stock_size and others == 0 and len(view.hand) == 1


def score_move(know: Knowledge, move: Move) -> Scored:
    view = know.view
    rv = know.rv
    cv = rv.cv
    table = view.table
    kind = move.kind
    if kind in ("claim",):
        return Scored(move, -50.0, 0.0, 0.0, 0.0, False)
    after = table_after(table, move, know.seat)
    taken = captured_by(table, move)
    gain = sum(cv[c] for c in taken)
    sweep = kind == "capture" and not after
    if sweep and not (_is_final_play(view) and view.rules.final_play_sweep == "not_counted"):
        gain += rv.sweep_any
        if know.win_by_sweep:
            gain += GAME_POINTS
    if kind == "pluck":
        gain += 0.05
    final = kind != "pluck" and kind != "pass" and _is_final_play(view)
    if final:
        # the last card of the round: the table goes to the last capturer
        residue = sum(pile_value(cv, p) for p in after)
        last = know.seat if kind == "capture" else view.last_capturer
        if last is not None:
            gain += residue if know.side_of[last] == know.my_side else -residue
        return Scored(move, gain, gain, 0.0, 0.0, sweep)
    own = 0.0
    for p in after:
        if isinstance(p, Build) and know.side_of[p.owner] == know.my_side:
            own += pile_value(cv, p) * 0.95
    risk = expected_best(reply_options(know, after))
    penalty = 0.0
    if (view.rules.owner_must_keep_capture_card == "penalty_2" and kind in ("capture", "build",
                                                                            "trail")):
        penalty = _duty_penalty(know, move, after)
    score = gain + own - risk - penalty
    if kind == "capture":
        score += 0.01 * len(taken)  # a tie-break towards taking more cards
    return Scored(move, score, gain, own, risk, sweep)


def _duty_penalty(know: Knowledge, move: Move, after: Sequence[Pile]) -> float:
    rules = know.view.rules
    hand = list(know.view.hand)
    hand.remove(move.card)
    for p in after:
        if isinstance(p, Build) and p.owner == know.seat:
            key = build_key(p)
            if not any(key in capture_keys(rules.capturer_values[c], c) for c in hand):
                penalty = 2.0 * (len(know.view.sides) - 1)
                if any(wins_at_once(know.view, s, 2) for s in range(len(know.view.sides))
                       if s != know.my_side):
                    penalty += GAME_POINTS  # the two points give an opponent the game
                return penalty
    return 0.0


def cheap_gain(rv: RuleValues, table: Sequence[Pile], move: Move) -> float:
    """A quick score to pre-sort huge move lists."""
    cv = rv.cv
    if move.kind == "capture":
        g = cv[move.card] + sum(pile_value(cv, table[i]) for i in move.piles)
        if len(move.piles) == len(table):
            g += rv.sweep_any
        return g
    if move.kind == "build":
        return 0.5 * (cv[move.card] + sum(pile_value(cv, table[i]) for i in move.piles))
    if move.kind == "trail":
        return -cv[move.card]
    if move.kind == "pluck":
        return cv[move.card]
    return 0.0


def rank_moves(know: Knowledge, moves: Sequence[Move], limit: int = 60) -> list[Scored]:
    """Medium's scores, best first. Huge move lists are cut to ``limit`` by a cheap pre-score
    (keeping every card's best few moves) before the full scoring."""
    moves = list(moves)
    if len(moves) > limit:
        table = know.view.table
        pre = sorted(range(len(moves)), key=lambda i: (-cheap_gain(know.rv, table, moves[i]), i))
        keep: list[int] = pre[: limit // 2]
        per_card: dict[tuple[str, int], int] = {}
        for i in pre:
            m = moves[i]
            k = (m.kind, m.card)
            if per_card.get(k, 0) < 3 and i not in keep:
                keep.append(i)
            per_card[k] = per_card.get(k, 0) + 1
        keep = sorted(set(keep))
        moves = [moves[i] for i in keep]
    scored = [score_move(know, m) for m in moves]
    # stable: equal scores keep the engine's move order
    order = sorted(range(len(scored)), key=lambda i: -scored[i].score)
    return [scored[i] for i in order]


def _winning_claim(view: SeatView, moves: Sequence[Move]) -> Move | None:
    for m in moves:
        if m.kind == "claim":
            st = view.to_state({}, [])
            st.apply(m, validate=False)
            if st.winner == st.side_of[view.seat]:
                return m
    return None


def _pluck_first(know: Knowledge, moves: Sequence[Move]) -> Move | None:
    """Pluck before playing when what is left can then be swept."""
    view = know.view
    if view.phase.value != "play":
        return None
    hand = view.hand
    rules = view.rules
    for m in moves:
        if m.kind != "pluck":
            continue
        after = table_after(view.table, m, know.seat)
        if any(isinstance(p, Build) for p in after):
            continue
        vals = [rules.table_values[c][0] for c in after if rules.table_values[c]]  # type: ignore[index]
        if len(vals) != len(after):
            continue
        for c in hand:
            for v in rules.capturer_values[c]:
                if _can_partition(list(vals), v):
                    return m
    return None


# ------------------------------------------------------------------ the levels
def choose_random(view: SeatView, rng: random.Random) -> Move:
    return rng.choice(view.legal_moves())


def choose_easy(view: SeatView, rng: random.Random) -> Move:
    """A beginner: takes something about two times in three when it can, else plays at
    random (never a losing claim)."""
    moves = view.legal_moves()
    claim = _winning_claim(view, moves)
    if claim is not None:
        return claim
    moves = [m for m in moves if m.kind != "claim"] or moves
    captures = [m for m in moves if m.kind in ("capture", "pluck")]
    if captures and rng.random() < 0.65:
        return rng.choice(captures)
    return rng.choice(moves)


def choose_medium(view: SeatView, rng: random.Random) -> Move:
    moves = view.legal_moves()
    if len(moves) == 1:
        return moves[0]
    claim = _winning_claim(view, moves)
    if claim is not None:
        return claim
    know = Knowledge.of(view)
    plays = [m for m in moves if m.kind != "claim"]
    if view.phase.value == "play" and any(m.kind == "pluck" for m in plays):
        first = _pluck_first(know, plays)
        if first is not None:
            return first
        plays = [m for m in plays if m.kind != "pluck"] or plays
    ranked = rank_moves(know, plays)
    best = ranked[0].score
    ties = [s.move for s in ranked if s.score >= best - 1e-9]
    return ties[0] if len(ties) == 1 else rng.choice(ties)
