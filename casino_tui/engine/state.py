"""A game of Cassino: the position, the turn, applying moves, rounds and the game's end.

Modelled on OpenSpiel's State (``current_player``, ``legal_moves``, ``apply``, ``clone``,
per-seat views) and python-chess's Board (the state owns legality and refuses illegal moves with
a reason). A :class:`State` is mutable; :meth:`State.clone` gives an independent copy.
"""

from __future__ import annotations

import _random
import importlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from hashlib import sha512 as _hashlib_sha512
from typing import Any, Final, cast

from . import _hotpath, fastgen, movegen
from ._hotpath import mypyc_attr
from .cards import RANKS, Card, card_str, cards_str, rank_of
from .errors import IllegalMoveError, StateError
from .moves import Build, Move, Pile, normalize_move, pile_cards
from .position import format_position
from .rules import Rules, deal_sizes
from .scoring import (
    SideScore,
    claim_credit,
    count_out_key,
    count_out_order,
    count_out_sequence,
    immediate_points,
    score_round,
)


class Phase(StrEnum):
    PLAY = "play"  # current_player plays a card (or plucks / claims where the rules allow)
    PLUCK = "pluck"  # current_player just played and may pluck (Pluck Cassino) or pass
    ROUND_OVER = "round_over"  # scored; call next_round()
    GAME_OVER = "game_over"


# the phases as plain module constants: hot paths compare them with ``is`` (a phase is always
# a Phase member; from_position converts what it is given)
_PLAY: Final = Phase.PLAY
_PLUCK: Final = Phase.PLUCK
_ROUND_OVER: Final = Phase.ROUND_OVER
_GAME_OVER: Final = Phase.GAME_OVER

_NO_CARDS: Final[list[Card]] = []  # shared empty defaults; MoveEvent replaces them, never mutates
_NO_ITEMS: Final[dict[int, dict[str, int]]] = {}
# the hot path's generator and table update (C or compiled Python, see _hotpath), bound once:
# compiled, a Final is a C static rather than a lookup in the module's namespace at every move
_GENERATE: Final = _hotpath.generate_for
_PLAY_CARD: Final = _hotpath.play_card
_SHUFFLED: Final = _hotpath.shuffled
_SHUFFLED_SEEDED: Final = _hotpath.shuffled_seeded


def _pick_sha512() -> Callable[[bytes], Any]:
    """CPython's own SHA-512 where it has one (no OpenSSL context to set up for a few bytes:
    cheaper), else hashlib's; the same digest either way."""
    try:
        own = importlib.import_module("_sha512").sha512
        return own if own(b"casino-tui").digest() == \
            _hashlib_sha512(b"casino-tui").digest() else _hashlib_sha512
    except (ImportError, AttributeError):  # another Python
        return _hashlib_sha512


sha512: Final = _pick_sha512()


def _seed_bytes(text: str) -> bytes:
    """The integer ``random.seed(text)`` seeds with, as big-endian bytes (version 2: the
    string's UTF-8 bytes followed by their SHA-512)."""
    data = text.encode()
    digest: bytes = sha512(data).digest()
    return data + digest


def _seeded_fast(text: str) -> random.Random:
    """``random.Random(text)`` without its interpreted seeding code (``Random.__init__`` and
    ``Random.seed`` are Python; this module is compiled): the string is made an int as
    ``random.seed`` makes it (:func:`_seed_bytes`) and given to the C seeding. :data:`_seeded`
    uses it only when it gives exactly ``random.Random``'s state on this Python."""
    rng: random.Random = random.Random.__new__(random.Random)
    _random.Random.seed(rng, int.from_bytes(_seed_bytes(text), "big"))
    rng.gauss_next = None  # type: ignore[attr-defined]  # (Random.__init__ sets it too)
    return rng


def _seeded_plain(text: str) -> random.Random:
    return random.Random(text)


def _pick_seeding() -> Callable[[str], random.Random]:
    """Seeded games must deal the same cards forever (saved games replay from the seed)."""
    try:
        same = all(_seeded_fast(t).getstate() == random.Random(t).getstate()
                   for t in ("casino-tui/0/round-1", "casino-tui/x\u00e9/first-dealer"))
    except Exception:  # another Python's random: the plain way
        same = False
    return _seeded_fast if same else _seeded_plain


_seeded: Final = _pick_seeding()


def _pick_shuffle() -> bool:
    """May a round's deck be shuffled with :data:`_SHUFFLED_SEEDED` (the seeding and the draws
    in C, in one call: ``_cgen`` has its own copy of CPython's Mersenne Twister)? Only when
    it deals exactly what ``random.Random(text)`` deals on this Python."""
    if _seeded is not _seeded_fast:
        return False
    deck = tuple(range(52))
    try:
        return all(_SHUFFLED_SEEDED(deck, _seed_bytes(t))
                   == _SHUFFLED(deck, random.Random(t).random)
                   for t in ("casino-tui/0/round-1", "casino-tui/x\u00e9/round-12", ""))
    except Exception:  # another Python's random: the plain way
        return False


_SEEDED_SHUFFLE: Final = _pick_shuffle()


def _any_cards(hands: list[list[Card]]) -> bool:
    """Does any hand hold a card? (``any(hands)`` without looking ``any`` up in the builtins
    at every call, which the compiled module does)"""
    for h in hands:  # noqa: SIM110 (a loop the compiler keeps in C)
        if h:
            return True
    return False


@mypyc_attr(acyclic=True, free_list_len=1)
class MoveEvent:
    """What one applied move did (for logs, animations and tests).

    Compiled, an event is not tracked by the garbage collector (nothing it holds can lead back
    to it: ``acyclic``) and the last one freed is kept for the next (``free_list_len``): one is
    made and dropped at every move.

    Every field but ``seat`` and ``move`` starts as the default below (one is created per
    move, so only what a move changes is set on the instance). ``captured`` and ``immediate``
    start as shared empty objects: they are replaced, never mutated.
    """

    captured: list[Card]
    sweep: bool = False
    build: Build | None = None
    drew: Card | None = None
    penalty: bool = False
    immediate: dict[int, dict[str, int]]  # side -> items scored at once
    redeal: bool = False
    round_over: bool = False
    game_over: bool = False
    claim_credit: dict[str, int] | None = None
    claim_won: bool | None = None

    def __init__(self, seat: int, move: Move) -> None:
        self.seat = seat
        self.move = move
        self.captured = _NO_CARDS
        self.immediate = _NO_ITEMS

    def __repr__(self) -> str:
        return (f"MoveEvent(seat={self.seat}, move={self.move}, captured={self.captured}, "
                f"sweep={self.sweep}, round_over={self.round_over}, game_over={self.game_over})")


@dataclass
class RoundSummary:
    """Scores of a finished round, per side."""

    round_no: int
    scores: list[SideScore]
    residue: list[Card]
    residue_to: int | None
    game_scores: list[int]
    winner: int | None
    sweeps: list[int]
    immediate: list[int]  # points each side scored during the round (immediate scoring)
    count_out_steps: list[list[tuple[str, int]]] | None = None

    def __init__(self, round_no: int, scores: list[SideScore], residue: list[Card],
                 residue_to: int | None, game_scores: list[int], winner: int | None,
                 sweeps: list[int], immediate: list[int],
                 count_out_steps: list[list[tuple[str, int]]] | None = None) -> None:
        # the dataclass's own __init__, written out: compiled, where the generated one runs
        # as Python (the dataclass keeps an __init__ the class defines)
        self.round_no = round_no
        self.scores = scores
        self.residue = residue
        self.residue_to = residue_to
        self.game_scores = game_scores
        self.winner = winner
        self.sweeps = sweeps
        self.immediate = immediate
        self.count_out_steps = count_out_steps

    def __reduce__(self) -> tuple[Any, ...]:  # (pickled by its fields: views go to workers)
        return (RoundSummary, (self.round_no, self.scores, self.residue, self.residue_to,
                               self.game_scores, self.winner, self.sweeps, self.immediate,
                               self.count_out_steps))

    @property
    def totals(self) -> list[int]:
        return [s.total for s in self.scores]


class State:
    """A game in progress: rules, seats, the current round's position and the game score."""

    # ------------------------------------------------------------------ construction
    def __init__(self, rules: Rules, num_players: int, seed: int | str = 0,
                 *, deal: bool = True, copy_of: State | None = None) -> None:
        """A new game (dealt unless ``deal`` is False); with ``copy_of``, an independent copy
        of that State (what :meth:`clone` does)."""
        if copy_of is not None:
            self._copy(copy_of)
            return
        if num_players not in rules.player_counts:
            allowed = ", ".join(map(str, rules.player_counts)) or "none"
            raise StateError(
                f"{rules.preset_name} is played by {allowed} players, not {num_players}")
        self.rules = rules
        self.num_players = num_players
        self.seed = seed
        if num_players == 4 and rules.partnerships_for_4:
            self.sides: list[list[int]] = [[0, 2], [1, 3]]
        else:
            self.sides = [[s] for s in range(num_players)]
        self.side_of = [0] * num_players
        for i, side in enumerate(self.sides):
            for s in side:
                self.side_of[s] = i
        self.deal_sizes = deal_sizes(rules, num_players) or [rules.hand_size]
        # rule flags read on every move
        self._penalty2 = rules.owner_must_keep_capture_card == "penalty_2"
        self._set_value_owner = rules.ownership == "last_to_set_value"
        self._final_not_counted = rules.final_play_sweep == "not_counted"
        self._all_immediate = rules.score_timing == "all_immediate"
        self._draw = rules.draw_mode
        self._pluck = rules.pluck
        self._claim = rules.game_end == "claim"
        self._owner_rules_apply = self._penalty2 or self._set_value_owner
        self._draw_or_pluck = self._draw or self._pluck
        self._hot_args = rules.hot_args
        self._deal_orders = rules.deal_orders
        self._deal_cache: dict[int, list[int | None]] = {}
        self._initial_pairs = rules.initial_pairs_to_first_player
        self.scores = [0] * len(self.sides)
        self.target = rules.target
        self.round_no = 0
        self.dealer = 0
        self.winner: int | None = None
        self.history: list[Move] = []
        self.round_summaries: list[RoundSummary] = []
        self.phase = _PLAY
        self._reset_round_state()
        if deal:
            self.dealer = self._first_dealer()
            self.next_round()

    def _reset_round_state(self) -> None:
        n = self.num_players
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.table: list[Pile] = []
        self.stock: list[Card] = []  # top of the stock is the END of this list
        self.captured: list[list[Card]] = [[] for _ in range(n)]
        self.sweeps = [0] * n
        self.last_capturer: int | None = None
        self.pluck_used = [False] * n
        self.unassigned: list[Card] = []
        self.deal_no = 0
        self.to_move = 0
        self.round_immediate = [0] * len(self.sides)
        self.penalties = [0] * len(self.sides)
        self._legal: list[Move] | None = None
        self._played_card: Card | None = None
        self.initial_grant: tuple[int, list[Card]] | None = None
        # this deal's plays are history[deal_start:], made from deal_table (the table dealt)
        self.deal_start = len(self.history)
        self.deal_table: tuple[Pile, ...] = ()

    def _rng(self, what: str) -> random.Random:
        return _seeded(f"casino-tui/{self.seed}/{what}")

    def _first_dealer(self) -> int:
        rng = self._rng("first-dealer")
        n = self.num_players
        if self.rules.first_dealer == "random":
            return rng.randrange(n)
        # each player cuts; the lowest card deals, ace low; ties cut again
        contenders = list(range(n))
        while True:
            deck = list(self.rules.deck_cards)
            rng.shuffle(deck)
            cuts = {p: rank_of(deck[i]) for i, p in enumerate(contenders)}
            low = min(cuts.values())
            contenders = [p for p in contenders if cuts[p] == low]
            if len(contenders) == 1:
                return contenders[0]

    # ------------------------------------------------------------------ dealing
    def next_round(self, deck: Sequence[Card] | None = None) -> None:
        """Start the next round (the first one is started by the constructor).

        ``deck``: the round's cards in order, top card first (reproducible deals, tests and
        replays); by default the deck is shuffled from the seed.
        """
        if self.phase is _GAME_OVER:
            raise StateError("the game is over")
        if self.round_no and self.phase is not _ROUND_OVER:
            raise StateError("the round is still being played")
        if deck is not None:
            order = list(deck)
            if len(order) != len(self.rules.deck_cards) or set(order) != set(
                    self.rules.deck_cards):
                raise StateError("the deck must hold every card of these rules exactly once")
        else:
            # a uniform shuffle: sort by independent random keys (one random() per card, in
            # deck order; much cheaper than random.shuffle's Python-level loop). Saved
            # games replay from the seed, so this order must never change: the cards sorted by
            # (key, card), the deck being in ascending order.
            # (in one C call when it deals the same: _pick_shuffle)
            what = f"casino-tui/{self.seed}/round-{self.round_no + 1}"
            order = _SHUFFLED_SEEDED(self.rules.deck_cards, _seed_bytes(what)) \
                if _SEEDED_SHUFFLE else _SHUFFLED(self.rules.deck_cards, _seeded(what).random)
        if self.round_no:
            self.dealer = (self.dealer + 1) % self.num_players
        self.round_no += 1
        self._reset_round_state()
        self.stock = order[::-1]  # order[0] is the top card
        self.phase = _PLAY
        self._deal(first=True)

    def deal_order(self, first: bool, hand_size: int) -> list[int | None]:
        """Recipients of the stock's cards in order for one deal (None = the table)."""
        # this game's orders by one int (its player count is fixed), then the rules' cache
        mine = ((self.dealer << 8 | hand_size) << 1) | (1 if first else 0)
        order = self._deal_cache.get(mine)
        if order is None:
            cache = self._deal_orders
            key = (self.num_players, self.dealer, first, hand_size)
            order = cache.get(key)
            if order is None:
                order = cache[key] = deal_order(self.rules, self.num_players, self.dealer,
                                                first, hand_size)
            self._deal_cache[mine] = order
        return order

    def _deal(self, first: bool) -> None:
        stock = self.stock
        hands = self.hands
        table = self.table
        # card by card, the top card first: each recipient's cards in the order dealt
        for who in self.deal_order(first, self.deal_sizes[self.deal_no]):
            if not stock:  # a short stock (hand-made positions only): deal as far as it goes
                break
            (table if who is None else hands[who]).append(stock.pop())
        self.deal_no += 1
        if first:  # loose cards dealt on the empty table: ascending is the canonical order
            table.sort()
        self.to_move = (self.dealer + 1) % self.num_players
        self._legal = None
        if first and self._initial_pairs:
            self._grant_initial_pairs()
        self.deal_start = len(self.history)
        self.deal_table = tuple(self.table)

    def _grant_initial_pairs(self) -> None:
        seat = self.to_move
        ranks: dict[int, list[Card]] = {}
        for p in self.table:
            ranks.setdefault(rank_of(p), []).append(p)  # type: ignore[arg-type]
        granted = [c for cs in ranks.values() if len(cs) >= 2 for c in cs]
        if not granted:
            return
        self.table = [p for p in self.table if p not in granted]
        self.captured[seat].extend(granted)
        self.last_capturer = seat
        self.initial_grant = (seat, granted)
        if not self.table:
            self._award_sweep(seat)
        if self._all_immediate:  # granted point cards score when taken, like any capture
            pts = immediate_points(self.rules, granted)
            if pts:
                self._add_immediate(self.side_of[seat], pts, None)

    @property
    def is_last_deal(self) -> bool:
        """The dealer has announced "last": no cards remain to deal after this one."""
        if self.rules.draw_mode:
            return not self.stock
        return self.deal_no >= len(self.deal_sizes)

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> int | None:
        return self.to_move if self.phase in (Phase.PLAY, Phase.PLUCK) else None

    @property
    def is_round_over(self) -> bool:
        return self.phase is _ROUND_OVER

    @property
    def is_game_over(self) -> bool:
        return self.phase is _GAME_OVER

    def owned_builds(self, seat: int) -> list[int]:
        return [i for i, p in enumerate(self.table) if isinstance(p, Build) and p.owner == seat]

    def legal_moves(self) -> list[Move]:
        """Every legal action of the player to move (the same list for people and computers)."""
        if self._legal is not None:
            return self._legal
        phase = self.phase
        if phase is _PLAY:
            seat = self.to_move
            hand = self.hands[seat]
            hot_args = self._hot_args  # the compiled hot path first, as fastgen.generate does
            found: list[Move] | None = None
            if hot_args is not None:
                pv, tv1, maxv, table_only, building, owner_rules, multi = hot_args
                found = _GENERATE(self.table, hand, seat, pv, tv1, maxv, table_only,
                                     building, owner_rules, multi)
            moves = fastgen.generate_general(self.rules, self.table, hand, seat) \
                if found is None else found
            if self._pluck and not self.pluck_used[seat]:
                moves.extend(Move.pluck(c) for c in self._pluckable(None))
            if self._claim:
                moves.append(Move.claim())
        elif phase is _PLUCK:
            moves = [Move.pluck(c) for c in self._pluckable(self._played_card)]
            moves.append(Move.pass_())
        else:
            moves = []
        self._legal = moves
        return moves

    def _pluckable(self, just_played: Card | None) -> list[Card]:
        """Loose cards that may be plucked (8.11, D-PLK-1): no point cards, never the last pile,
        never the card just played."""
        if len(self.table) < 2:
            return []
        r = self.rules
        out = []
        for p in self.table:
            if isinstance(p, Build) or p == just_played:
                continue
            if rank_of(p) == 0 or p == r.big_casino or p == r.little_casino:
                continue
            out.append(p)
        return out

    def is_legal(self, move: Move) -> bool:
        return any(m.same_action(move) for m in self.legal_moves())

    def check_capture(self, card: Card, piles: Sequence[int]) -> Move:
        """Is taking ``piles`` with ``card`` legal? Returns the move or raises with the reason.

        Decides without listing every capture, so it is fast even on very large tables.
        """
        return self.check_move(Move.capture(card, tuple(piles)))

    def check_move(self, move: Move) -> Move:
        """Return the legal form of ``move`` (build kind filled in) or raise IllegalMoveError
        with the reason. Any object may be passed: a malformed one is refused the same way."""
        if self.phase not in (Phase.PLAY, Phase.PLUCK):
            raise IllegalMoveError("the round is over" if self.phase == Phase.ROUND_OVER
                                   else "the game is over")
        move = normalize_move(move)
        reason = self._illegal_reason(move)
        if reason:
            raise IllegalMoveError(reason)
        if move.kind == "capture":  # decided without listing every move
            return Move("capture", move.card, tuple(sorted(move.piles)))
        for m in self.legal_moves():
            if m.same_action(move):
                return m
        raise IllegalMoveError("that move is not allowed here")  # pragma: no cover

    def _illegal_reason(self, move: Move) -> str | None:
        seat = self.to_move
        hand = self.hands[seat]
        rules = self.rules
        if self.phase == Phase.PLUCK:
            if move.kind == "pass":
                return None
            if move.kind != "pluck":
                return "you have played your card: pluck a table card or pass"
        if move.kind == "pass":
            return "there is nothing to pass"
        if move.kind == "claim":
            return None if rules.game_end == "claim" else "claiming is not part of these rules"
        if move.kind == "pluck":
            if not rules.pluck:
                return "plucking is not part of these rules"
            if self.phase == Phase.PLAY and self.pluck_used[seat]:
                return "you have already plucked in this deal"
            if move.card not in self.table:
                return f"{card_str(move.card)} is not a loose card on the table"
            if len(self.table) < 2:
                return "you may not pluck the only card on the table"
            if move.card == self._played_card:
                return "you may not pluck the card you just played"
            if (rank_of(move.card) == 0 or move.card in (rules.big_casino, rules.little_casino)):
                return "you may not pluck a point card"
            return None
        if move.card not in hand:
            return f"{card_str(move.card)} is not in your hand"
        hi = hand.index(move.card)
        ctx = movegen.make_context(rules, self.table, hand, seat)
        if move.kind == "trail":
            if any(m.kind == "trail" and m.card == move.card for m in self.legal_moves()):
                return None
            ok, why = movegen.trail_allowed(ctx, hi)
            if not ok:
                return why
            if rules.compulsory_capture == "strict":
                return "you must capture when you can"
            return f"you may not trail {card_str(move.card)}: it can capture"
        if max(move.piles) >= len(self.table):
            return f"there is no pile {max(move.piles)} on the table"
        mask = 0
        for p in move.piles:
            mask |= 1 << p
        if move.kind == "capture":
            if not movegen.capture_groups_ok(rules, self.table, move.card, mask):
                return self._capture_explanation(move)
            if not movegen.capture_allowed(ctx, hi, mask):
                if (rules.owner_restriction in ("variant2", "variant3")
                        and not mask & ctx.owned_mask):
                    return "you own a build, so your capture must include it"
                kept = movegen.retain_reason(ctx, hi, [o for o in ctx.owned if not o[0] & mask])
                assert kept is not None  # the retain rule is the only other capture filter
                return kept
            if (rules.capture_extent == "inclusion_maximal"
                    and mask not in movegen.captures_for_card(ctx, hi)):
                return "you must take everything this capture can take under these rules"
            return None  # compulsory capture never forbids a capture
        if move.kind == "build":
            if not rules.building:
                return "building is not part of these rules"
            if any(m.same_action(move) for m in self.legal_moves()):
                return None
            cands = movegen.raw_build_candidates(rules, ctx.info, hand, hi, seat)
            for cand in cands:
                if cand.mask == mask and cand.value == move.value:
                    ok, why = movegen.build_allowed(ctx, hi, cand)
                    if not ok:
                        return why
                    if rules.compulsory_capture == "strict":
                        return "you must capture when you can"
            return self._build_explanation(move, mask)
        return "unknown move"

    def _capture_explanation(self, move: Move) -> str:
        c = card_str(move.card)
        rules = self.rules
        if not rules.capturer_values[move.card]:
            return (f"a {RANKS[rank_of(move.card)]} takes only cards of its own rank "
                    + {"one": "(one at a time)", "all": "(all of them)",
                       "one_or_all_three": "(one, or all three)", "any": ""}[
                        rules.court_capture]).strip()
        vals = "/".join(map(str, rules.capturer_values[move.card]))
        return (f"{c} ({vals}) cannot take those piles: every group must add up to {vals}, "
                f"builds must be worth {vals}, and a card may be used only once")

    def _build_explanation(self, move: Move, mask: int) -> str:
        rules = self.rules
        hand = self.hands[self.to_move]
        others = [c for c in hand if c != move.card]
        v = move.value
        if v is None:
            return "a build needs a value"
        if not any(movegen.can_take(rules, c, v, move.court) for c in others):
            return f"you need another card that can take {move.value_str()} to build it"
        for p in move.piles:
            pile = self.table[p]
            if isinstance(pile, Build) and not pile.single and pile.value != v:
                return "a multiple build's value can never change"
            if (isinstance(pile, Build) and pile.owner == self.to_move and not
                    rules.raise_own_build and pile.value != v):
                return "you may not raise your own build under these rules"
        return (f"those cards cannot make a build of {move.value_str()}: the card you play must "
                f"be part of every change of value, and each other group must total "
                f"{move.value_str()}")

    # ------------------------------------------------------------------ applying moves
    def apply(self, move: Move, *, validate: bool = True) -> MoveEvent:
        """Play ``move`` for the player to move. Illegal moves raise IllegalMoveError and
        leave the state unchanged."""
        if validate:
            move = self.check_move(move)
        seat = self.to_move
        ev = MoveEvent(seat, move)
        self.history.append(move)
        self._legal = None
        kind = move[0]  # (compiled: a tuple item; move.kind would be an attribute look-up)
        # the common kinds first, each named once (a string comparison each)
        capture = kind == "capture"
        trail = not capture and kind == "trail"
        build = False
        if not capture and not trail:
            build = kind == "build"
            if not build:
                if kind == "claim":
                    self._apply_claim(seat, ev)
                    return ev
                if kind == "pluck":
                    self.table.remove(move.card)
                    self.captured[seat].append(move.card)
                    self.pluck_used[seat] = True
                    ev.captured = [move.card]
                    if self._all_immediate:  # a plucked spade's points under spade scoring
                        pts = immediate_points(self.rules, ev.captured)
                        if pts:
                            self._add_immediate(self.side_of[seat], pts, ev)
                            if self.phase is _GAME_OVER:
                                return ev
                    if self.phase is _PLUCK:
                        self._end_turn(seat, ev)
                    return ev
                if kind == "pass":
                    self._end_turn(seat, ev)
                    return ev
        hand = self.hands[seat]
        penalty = False
        owner = seat
        if self._owner_rules_apply:  # Michigan's build duty, or "last to set the value" owns
            hi = hand.index(move[1])
            penalty = self._penalty2 and self._breaks_duty(move, seat, hi)
            if build and self._set_value_owner:
                owner = self._build_owner(move, seat, hi)
        # the card leaves the hand, the table changes, a capture's cards go to the pile: one
        # call (C when built, see _hotpath)
        if capture:
            taken: list[Card] = []
            table = self.table = _PLAY_CARD(self.table, hand, move, owner, taken,
                                            self.captured[seat])
            self.last_capturer = seat
            ev.captured = taken
            if not table and not (self._final_not_counted and self._is_final_play()):
                ev.sweep = True
                self._award_sweep(seat, ev)
            if self._all_immediate:
                pts = immediate_points(self.rules, taken)
                if pts:
                    self._add_immediate(self.side_of[seat], pts, ev)
        else:  # (a trail or a build: nothing is taken, the shared empty lists stay empty)
            table = self.table = _PLAY_CARD(self.table, hand, move, owner, _NO_CARDS,
                                            _NO_CARDS)
            if build:
                ev.build = cast(Build, table[-1])  # (the new build is the table's last pile)
        if penalty:
            ev.penalty = True
            pts = {"penalties": 2}
            for side in range(len(self.sides)):
                if side != self.side_of[seat]:
                    self.penalties[side] += 2
                    self._add_immediate(side, pts, ev)
        if self.phase is _GAME_OVER:
            return ev
        if self._draw_or_pluck:
            if self._draw and self.stock:
                ev.drew = self.stock.pop()
                hand.append(ev.drew)
            card = move[1]
            if self._pluck and not self.pluck_used[seat] and self._pluckable(card):
                self.phase = _PLUCK
                self._played_card = card
                return ev
        # end of turn (inline of _end_turn for the common case)
        if hand or _any_cards(self.hands):
            self.to_move = (seat + 1) % self.num_players
            return ev
        self._end_turn(seat, ev)
        return ev

    def _build_owner(self, move: Move, seat: int, hi: int) -> int:
        """Owner of the build ``move`` makes under ``ownership=last_to_set_value`` (2.5)."""
        ctx = movegen.make_context(self.rules, self.table, self.hands[seat], seat)
        mask = sum(1 << p for p in move.piles)
        for cand in movegen.raw_build_candidates(self.rules, ctx.info, self.hands[seat], hi,
                                                 seat):
            if cand.mask == mask and cand.value == move.value:
                return movegen.new_build_owner(ctx, cand)
        return seat  # pragma: no cover - legal builds are always candidates

    def _breaks_duty(self, move: Move, seat: int, hi: int) -> bool:
        """Michigan: does this move leave the mover's builds without a card of its own each?"""
        ctx = movegen.make_context(self.rules, self.table, self.hands[seat], seat)
        if not ctx.owned:
            return False
        mask = 0
        for p in move.piles:
            mask |= 1 << p
        left = [o for o in ctx.owned if not o[0] & mask]
        if move.kind == "build" and move.value is not None and (
                not self._set_value_owner or self._build_owner(move, seat, hi) == seat):
            left.append((0, move.value, move.court))
        return bool(left) and not movegen.keeps_builds(ctx, hi, left)

    def _is_final_play(self) -> bool:
        return not self.stock and not _any_cards(self.hands)

    def _award_sweep(self, seat: int, ev: MoveEvent | None = None) -> None:
        self.sweeps[seat] += 1
        if self.rules.score_timing != "end_of_round" and self.rules.sweep_points:
            self._add_immediate(self.side_of[seat], {"sweeps": self.rules.sweep_points}, ev)

    def _record_immediate(self, side: int, items: dict[str, int], ev: MoveEvent | None) -> None:
        """Add points scored at once to the game score (and to the move's event)."""
        pts = sum(items.values())
        self.scores[side] += pts
        self.round_immediate[side] += pts
        if ev is not None and items:
            if ev.immediate is _NO_ITEMS:
                ev.immediate = {}
            mine = ev.immediate.setdefault(side, {})
            for k, v in items.items():
                mine[k] = mine.get(k, 0) + v

    def _add_immediate(self, side: int, items: dict[str, int], ev: MoveEvent | None) -> None:
        """Points scored during play; they can end the game at once (D-SD-1)."""
        self._record_immediate(side, items, ev)
        # D-SD-1: reaching the target while strictly highest ends the game at once
        if self.phase is _PLAY or self.phase is _PLUCK:
            s = self.scores[side]
            if s >= self.target and all(s > o for i, o in enumerate(self.scores) if i != side):
                self._finish_game(side, ev)

    def _finish_game(self, side: int | None, ev: MoveEvent | None) -> None:
        self.winner = side
        self.phase = _GAME_OVER
        self._legal = None
        if ev is not None:
            ev.game_over = True

    def _end_turn(self, seat: int, ev: MoveEvent) -> None:
        self.phase = _PLAY
        self._played_card = None
        n = self.num_players
        if not _any_cards(self.hands):
            if self.stock:
                ev.redeal = True
                self.pluck_used = [False] * n
                self._deal(first=False)
                return
            self._end_round(ev)
            return
        self.to_move = (seat + 1) % n

    def _apply_claim(self, seat: int, ev: MoveEvent) -> None:
        side = self.side_of[seat]
        cards = [c for s in self.sides[side] for c in self.captured[s]]
        sweeps = sum(self.sweeps[s] for s in self.sides[side])
        # points scored as they were taken are in the game score already; not credited again
        credit = claim_credit(self.rules, cards, sweeps)
        ev.claim_credit = credit
        total = self.scores[side] + sum(credit.values())
        if total >= self.target:
            self.scores[side] = total
            ev.claim_won = True
            self._finish_game(side, ev)
        else:
            ev.claim_won = False
            others = [i for i in range(len(self.sides)) if i != side]
            best = max(others, key=lambda i: (self.scores[i], -((i - side) % len(self.sides))))
            self._finish_game(best, ev)

    # ------------------------------------------------------------------ end of round
    def _end_round(self, ev: MoveEvent | None) -> None:
        residue: list[Card] = []
        for p in self.table:
            if isinstance(p, int):  # a loose card (compiled: no call for it)
                residue.append(p)
            else:
                residue.extend(pile_cards(p))
        self.table = []
        residue_to = self.last_capturer
        if residue:
            if residue_to is None:
                self.unassigned.extend(residue)
            else:
                self.captured[residue_to].extend(residue)
                if self._all_immediate:
                    # point cards in the residue score as they are taken, like any capture;
                    # the game-end test of the end of the round follows below
                    self._record_immediate(self.side_of[residue_to],
                                           immediate_points(self.rules, residue), ev)
        rules = self.rules
        scores = score_round(rules, self.sides, self.captured, self.sweeps, self.last_capturer,
                             skip_immediate=True)
        summary = RoundSummary(self.round_no, scores, residue, residue_to, [], None,
                               list(self.sweeps), list(self.round_immediate))
        winner: int | None = None
        if rules.game_end == "count_out":
            steps = [count_out_sequence(rules, s, [c for p in side for c in self.captured[p]])
                     for s, side in zip(scores, self.sides, strict=True)]
            summary.count_out_steps = steps
            winner = self._count_out(steps)
        else:
            for i, s in enumerate(scores):
                self.scores[i] += s.total
            winner = self._winner_after_round(scores)
        summary.game_scores = list(self.scores)
        summary.winner = winner
        self.round_summaries.append(summary)
        if ev is not None:
            ev.round_over = True
        if winner is not None:
            self._finish_game(winner, ev)
        else:
            self.phase = _ROUND_OVER
        self._legal = None

    def _count_out(self, steps: list[list[tuple[str, int]]]) -> int | None:
        """Add the items one at a time in count-out order; first to the target wins (6.3)."""
        winner = None
        order = count_out_order(self.rules)
        # interleave by item position so every side's "cards" comes before anyone's "sweeps";
        # the same order and key as count_out_sequence (one source of truth)
        flat: list[tuple[tuple[int, str], int, int]] = []
        for side, seq in enumerate(steps):
            for item, pts in seq:
                flat.append((count_out_key(order, item), side, pts))
        flat.sort(key=lambda t: (t[0], t[1]))
        for _key, side, pts in flat:
            self.scores[side] += pts
            if winner is None and self.scores[side] >= self.target:
                winner = side
        return winner

    def _winner_after_round(self, scores: list[SideScore]) -> int | None:
        rules = self.rules
        for i, s in enumerate(scores):
            if s.all_eleven and (rules.all_eleven_rule == "instant_win" or (
                    rules.all_eleven_rule == "win_if_first_round" and self.round_no == 1)):
                return i
        if rules.game_end == "fixed_rounds":
            rounds = self.num_players * (2 if rules.fixed_rounds == "2x_players" else 1)
            if self.round_no < rounds:
                return None
            return _strict_top(self.scores)
        if rules.game_end == "claim":
            over = [i for i, s in enumerate(self.scores) if s >= self.target]
            if rules.claim_unclaimed_both_out == "raise_target_by_11":
                while len(over) > 1:
                    self.target += 11
                    over = [i for i, s in enumerate(self.scores) if s >= self.target]
                return over[0] if over else None
        if any(s >= self.target for s in self.scores):
            return _strict_top(self.scores)
        return None

    # ------------------------------------------------------------------ views and copies
    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: own hand, table, all capture piles, others' hand sizes."""
        return SeatView(
            rules=self.rules, seat=seat, num_players=self.num_players, sides=self.sides,
            hand=tuple(self.hands[seat]), table=tuple(self.table),
            captured=tuple(tuple(c) for c in self.captured),
            hand_sizes=tuple(len(h) for h in self.hands), stock_size=len(self.stock),
            scores=tuple(self.scores), sweeps=tuple(self.sweeps), dealer=self.dealer,
            to_move=self.current_player, phase=self.phase, last_capturer=self.last_capturer,
            is_last_deal=self.is_last_deal, deal_no=self.deal_no, round_no=self.round_no,
            pluck_used=tuple(self.pluck_used), target=self.target,
            unassigned=tuple(self.unassigned), played_card=self._played_card,
            deal_table=self.deal_table, deal_plays=tuple(self.history[self.deal_start:]),
        )

    def clone(self) -> State:
        """An independent copy (the lists are copied; rules, seats and moves are shared)."""
        return State(self.rules, self.num_players, self.seed, deal=False, copy_of=self)

    def _copy(self, o: State) -> None:
        """Every attribute of ``o`` (a State may be compiled by mypyc: no ``__dict__``, so each
        attribute is named here; tests/test_engine_pinned.py checks that none is missed)."""
        self.rules = o.rules
        self.num_players = o.num_players
        self.seed = o.seed
        self.sides = o.sides
        self.side_of = o.side_of
        self.deal_sizes = o.deal_sizes
        self._penalty2 = o._penalty2
        self._set_value_owner = o._set_value_owner
        self._final_not_counted = o._final_not_counted
        self._all_immediate = o._all_immediate
        self._draw = o._draw
        self._pluck = o._pluck
        self._claim = o._claim
        self._owner_rules_apply = o._owner_rules_apply
        self._draw_or_pluck = o._draw_or_pluck
        self._hot_args = o._hot_args
        self._deal_orders = o._deal_orders
        self._deal_cache = o._deal_cache  # (the same orders: the same rules and players)
        self._initial_pairs = o._initial_pairs
        self.scores = list(o.scores)
        self.target = o.target
        self.round_no = o.round_no
        self.dealer = o.dealer
        self.winner = o.winner
        self.history = list(o.history)
        self.round_summaries = list(o.round_summaries)
        self.phase = o.phase
        self.hands = [list(h) for h in o.hands]
        self.table = list(o.table)
        self.stock = list(o.stock)
        self.captured = [list(c) for c in o.captured]
        self.sweeps = list(o.sweeps)
        self.last_capturer = o.last_capturer
        self.pluck_used = list(o.pluck_used)
        self.unassigned = list(o.unassigned)
        self.deal_no = o.deal_no
        self.to_move = o.to_move
        self.round_immediate = list(o.round_immediate)
        self.penalties = list(o.penalties)
        self._legal = None
        self._played_card = o._played_card
        self.initial_grant = o.initial_grant
        self.deal_start = o.deal_start
        self.deal_table = o.deal_table

    # ------------------------------------------------------------------ positions
    @classmethod
    def from_position(cls, rules: Rules, num_players: int, *, table: Sequence[Pile],
                      hands: Sequence[Sequence[Card]], to_move: int, dealer: int | None = None,
                      stock: Sequence[Card] = (), captured: Sequence[Sequence[Card]] | None = None,
                      sweeps: Sequence[int] | None = None, last_capturer: int | None = None,
                      scores: Sequence[int] | None = None, round_no: int = 1,
                      deal_no: int | None = None, pluck_used: Sequence[bool] | None = None,
                      seed: int | str = 0, target: int | None = None,
                      phase: Phase = Phase.PLAY, unassigned: Sequence[Card] = (),
                      played_card: Card | None = None, complete: bool = True) -> State:
        """A position built from its parts. With ``complete`` every card of the deck must be in
        exactly one place; otherwise missing cards are allowed (test positions)."""
        st = cls(rules, num_players, seed, deal=False)
        st.round_no = round_no
        st.dealer = (to_move - 1) % num_players if dealer is None else dealer
        st.table = movegen.canonical_table(table)
        st.hands = [list(h) for h in hands]
        st.stock = list(stock)
        st.captured = [list(c) for c in captured] if captured else [[] for _ in
                                                                    range(num_players)]
        st.sweeps = list(sweeps) if sweeps else [0] * num_players
        st.last_capturer = last_capturer
        st.scores = list(scores) if scores else [0] * len(st.sides)
        st.to_move = to_move
        st.target = rules.target if target is None else target
        st.pluck_used = list(pluck_used) if pluck_used else [False] * num_players
        st.unassigned = list(unassigned)
        st.phase = Phase(phase)
        st._played_card = played_card
        st.deal_table = tuple(st.table)
        if deal_no is None:
            deal_no = 1 if rules.draw_mode else _deals_made(st.deal_sizes, num_players,
                                                             len(st.stock))
        st.deal_no = deal_no
        st.validate(complete=complete)
        return st

    def all_card_places(self) -> list[Card]:
        cards: list[Card] = []
        for h in self.hands:
            cards.extend(h)
        for p in self.table:
            cards.extend(pile_cards(p))
        cards.extend(self.stock)
        for c in self.captured:
            cards.extend(c)
        cards.extend(self.unassigned)
        return cards

    def validate(self, complete: bool = True) -> None:
        """Raise StateError if a card is duplicated, foreign or (when complete) missing."""
        cards = self.all_card_places()
        deck = set(self.rules.deck_cards)
        seen: set[Card] = set()
        for c in cards:
            if not isinstance(c, int) or c not in deck:
                raise StateError(f"card {c!r} does not belong to this deck")
            if c in seen:
                raise StateError(f"card {card_str(c)} appears twice")
            seen.add(c)
        if complete and seen != deck:
            missing = sorted(deck - seen)
            raise StateError(f"cards missing from the position: {cards_str(missing)}")
        if len(self.hands) != self.num_players:
            raise StateError("one hand per player is needed")
        if not 0 <= self.to_move < self.num_players:
            raise StateError("the player to move is not at the table")
        for p in self.table:
            if isinstance(p, Build) and not 0 <= p.owner < self.num_players:
                raise StateError("a build's owner is not at the table")

    def __repr__(self) -> str:
        return f"<State {format_position(self)}>"


def _deals_made(sizes: Sequence[int], num_players: int, stock_left: int) -> int:
    """How many deals of a round have been made when ``stock_left`` cards remain."""
    r = 0
    acc = 0
    while r < len(sizes) and acc < stock_left:
        acc += sizes[-1 - r] * num_players
        r += 1
    return max(1, len(sizes) - r)


def _strict_top(scores: Sequence[int]) -> int | None:
    top = max(scores)
    leaders = [i for i, s in enumerate(scores) if s == top]
    return leaders[0] if len(leaders) == 1 else None


def deal_order(rules: Rules, num_players: int, dealer: int, first: bool,
               hand_size: int) -> list[int | None]:
    """Who receives each card of one deal, in order (RULES.md 1.4 item 7); None is the table."""
    n = num_players
    players = [(dealer + 1 + i) % n for i in range(n)]  # clockwise from dealer's left
    table_n = rules.initial_table_cards if first else 0
    if first and rules.draw_mode:
        hand_size = rules.hand_size
    pattern = rules.deal_pattern
    need = {p: hand_size for p in players}
    order: list[int | None] = []
    table_left = table_n

    def give(who: int | None, k: int) -> None:
        nonlocal table_left
        if who is None:
            k = min(k, table_left)
            table_left -= k
        else:
            k = min(k, need[who])
            need[who] -= k
        order.extend([who] * k)

    if pattern == "singles":
        while any(need.values()):
            for p in players:
                give(p, 1)
        give(None, table_left)
    elif pattern == "pairs_players_then_table":
        while any(need.values()):
            for p in players:
                give(p, 2)
        give(None, table_left)
    elif pattern == "pairs_players_then_table_pair":
        while any(need.values()) or table_left:
            for p in players:
                give(p, 2)
            give(None, 2)
    else:  # pairs_table_before_dealer
        while any(need.values()) or table_left:
            for p in players[:-1]:
                give(p, 2)
            give(None, 2)
            give(players[-1], 2)
    return order


@dataclass(frozen=True)
class SeatView:
    """Everything one seat may know. Computer players and the UI for a seat use only this."""

    rules: Rules
    seat: int
    num_players: int
    sides: list[list[int]]
    hand: tuple[Card, ...]
    table: tuple[Pile, ...]
    captured: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    scores: tuple[int, ...]
    sweeps: tuple[int, ...]
    dealer: int
    to_move: int | None
    phase: Phase
    last_capturer: int | None
    is_last_deal: bool
    deal_no: int
    round_no: int
    pluck_used: tuple[bool, ...]
    target: int
    unassigned: tuple[Card, ...] = ()
    played_card: Card | None = None
    # the plays of this deal so far, in order, and the table they started from (a seat may
    # replay them: every play is public)
    deal_table: tuple[Pile, ...] = ()
    deal_plays: tuple[Move, ...] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled field by field (the computer players' worker process gets views): compiled
        # by mypyc, a frozen dataclass cannot be restored the default way
        return (SeatView, (self.rules, self.seat, self.num_players, self.sides, self.hand,
                           self.table, self.captured, self.hand_sizes, self.stock_size,
                           self.scores, self.sweeps, self.dealer, self.to_move, self.phase,
                           self.last_capturer, self.is_last_deal, self.deal_no, self.round_no,
                           self.pluck_used, self.target, self.unassigned, self.played_card,
                           self.deal_table, self.deal_plays))

    def unseen_cards(self) -> list[Card]:
        """Cards this seat cannot see: other hands and the stock."""
        seen = set(self.hand)
        for p in self.table:
            seen.update(pile_cards(p))
        for c in self.captured:
            seen.update(c)
        seen.update(self.unassigned)
        return [c for c in self.rules.deck_cards if c not in seen]

    def legal_moves(self) -> list[Move]:
        if self.to_move != self.seat or self.phase not in (Phase.PLAY, Phase.PLUCK):
            return []
        return self.to_state({}, []).legal_moves()

    def to_state(self, other_hands: dict[int, Sequence[Card]], stock: Sequence[Card],
                 seed: int | str = 0) -> State:
        """A full State consistent with this view, with hidden cards as given (determinization).
        Missing hidden cards are allowed (the state is then incomplete)."""
        hands: list[Sequence[Card]] = []
        for s in range(self.num_players):
            hands.append(self.hand if s == self.seat else other_hands.get(s, ()))
        st = State.from_position(
            self.rules, self.num_players, table=self.table, hands=hands,
            to_move=self.to_move if self.to_move is not None else self.seat, dealer=self.dealer,
            stock=stock, captured=self.captured, sweeps=self.sweeps,
            last_capturer=self.last_capturer, scores=self.scores, round_no=self.round_no,
            deal_no=self.deal_no, pluck_used=self.pluck_used, seed=seed, target=self.target,
            phase=self.phase if self.phase in (Phase.PLAY, Phase.PLUCK) else Phase.PLAY,
            unassigned=self.unassigned, played_card=self.played_card,
            complete=False)
        return st


def summary_dict(s: RoundSummary) -> dict[str, Any]:
    return {
        "round": s.round_no,
        "sides": [{"items": dict(x.items), "total": x.total, "cards": x.cards,
                   "suits": list(x.suit_counts)} for x in s.scores],
        "residue": [card_str(c) for c in s.residue], "residue_to": s.residue_to,
        "game_scores": s.game_scores, "winner": s.winner,
    }
