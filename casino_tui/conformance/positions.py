"""Engine states built from scenarios.

:func:`build_position` turns a scenario position into a :class:`State` through
:meth:`State.from_position`: hidden cards are placed in the other hands, the stock or the capture
piles so that the position is consistent (whose turn it is, whether it is the last deal or the
final play). The other builders drive the engine to a moment a check needs: the end of a round
with given capture piles (:func:`_drive_round_end`), a first deal from a stacked deck
(:func:`_deal_with`), a later deal (:func:`_later_deal`), a whole round (:func:`simulate_round`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casino_tui.engine import (
    Build,
    Card,
    CasinoError,
    Move,
    Phase,
    Pile,
    Rules,
    State,
    pile_cards,
    scoring,
)

from .scenario import (
    Json,
    ScenarioError,
    SideNames,
    _bool,
    _card,
    _cards,
    _cards_run,
    _check_position_keys,
    _cstr,
    _engine_sides,
    _int,
    _opt_seat,
    _per_seat,
    _pile_desc,
    _seat,
    _value,
    rules_deal_sizes,
)


def parse_table(spec: Any, rules: Rules) -> list[tuple[str, Pile]]:
    """Table piles with their ids: a list of pile objects/cards, or a string "T1=8D, T2=7S"."""
    out: list[tuple[str, Pile]] = []
    if spec is None:
        return out
    if isinstance(spec, str):
        for i, part in enumerate(p.strip() for p in re.split(r"[,;](?![^\[]*\])", spec)):
            if not part:
                continue
            m = re.fullmatch(r"(?:(\w+)\s*[=:]\s*)?(.+)", part)
            assert m is not None
            pid = m.group(1) or f"T{i + 1}"
            out.append((pid, _pile_from_text(m.group(2).strip(), rules)))
    elif isinstance(spec, list):
        for i, item in enumerate(spec):
            if isinstance(item, str):
                out.append((f"T{i + 1}", _pile_from_text(item, rules)))
            elif isinstance(item, dict):
                out.append(_pile_from_dict(item, i, rules))
            else:
                raise ScenarioError(f"cannot interpret table pile {item!r}")
    else:
        raise ScenarioError(f"cannot interpret table {spec!r}")
    ids = [pid for pid, _ in out]
    if len(set(ids)) != len(ids):
        raise ScenarioError(f"duplicate table pile ids in {spec!r}")
    return out


def _pile_from_text(text: str, rules: Rules) -> Pile:
    m = re.fullmatch(r"\[\s*([^=\]]+?)\s*=\s*(\w+?)\s*([sm])?\s*@\s*(\d+)\s*\]", text)
    if m:  # the engine's own build notation, e.g. [5H4C=9s@0]
        cards = _cards_run(m.group(1))
        value, court = _value(m.group(2), rules)
        single = (m.group(3) or _infer_kind(cards, value, court, rules)) == "s"
        return Build(tuple(cards), value, single, int(m.group(4)), court)
    cards = _cards_run(text)
    if len(cards) != 1:
        raise ScenarioError(f"cannot interpret table pile {text!r}: several cards but no build "
                            f"value/kind/owner")
    return cards[0]


def _infer_kind(cards: Sequence[Card], value: int, court: bool, rules: Rules) -> str:
    if court:
        return "m"
    lows = [rules.low_values[c] for c in cards]
    return "s" if None not in lows and sum(v for v in lows if v is not None) == value else "m"


def _pile_from_dict(item: Json, i: int, rules: Rules) -> tuple[str, Pile]:
    unknown = set(item) - {"id", "cards", "card", "build"}
    if unknown:
        raise ScenarioError(f"unknown table pile field(s) {sorted(unknown)} in {item!r}")
    pid = str(item.get("id", f"T{i + 1}"))
    if "card" in item:
        cards = [_card(item["card"])]
    elif "cards" in item:
        cards = _cards(item["cards"])
    else:
        raise ScenarioError(f"table pile without cards: {item!r}")
    b = item.get("build")
    if b is None:
        if len(cards) != 1:
            raise ScenarioError(f"pile {pid} has {len(cards)} cards but no build")
        return pid, cards[0]
    if not isinstance(b, dict):
        raise ScenarioError(f"cannot interpret build {b!r}")
    unknown = set(b) - {"value", "owner", "kind"}
    if unknown:
        raise ScenarioError(f"unknown build field(s) {sorted(unknown)} in pile {pid}")
    if "value" not in b or "owner" not in b:
        raise ScenarioError(f"build {pid} needs a value and an owner")
    value, court = _value(b["value"], rules)
    kind = b.get("kind")
    if kind is None:
        kind = "single" if _infer_kind(cards, value, court, rules) == "s" else "multiple"
    if kind not in ("single", "multiple"):
        raise ScenarioError(f"build kind must be single or multiple, not {kind!r}")
    if len(cards) < 2:
        raise ScenarioError(f"build {pid} needs at least two cards")
    return pid, Build(tuple(cards), value, kind == "single", _seat(b["owner"]), court)


MOVE_POS_KEYS = {
    "num_players", "player", "to_move", "dealer", "table", "hand", "hands",
    "is_final_play_of_round", "is_last_deal", "last_capturer", "plucked_this_deal", "pluck_used",
    "captured", "sweeps", "scores", "scores_before_round", "round_no", "target",
}


@dataclass
class Built:
    """A position built for a move scenario."""

    state: State
    ids: dict[str, Pile]  # scenario pile id -> pile object (look up indices in state.table)
    mover: int

    def index(self, pid: Any, st: State | None = None) -> int:
        st = st or self.state
        if not isinstance(pid, str) or pid not in self.ids:
            raise ScenarioError(f"unknown table pile {pid!r} (table ids: {sorted(self.ids)})")
        try:
            return st.table.index(self.ids[pid])
        except ValueError:
            raise ScenarioError(f"pile {pid} is no longer on the table") from None

    def id_of(self, pile: Pile) -> str:
        for k, v in self.ids.items():
            if v == pile:
                return k
        return _pile_desc(pile)


def _hands_spec(pos: Json, n: int, mover: int) -> dict[int, list[Card]]:
    hands: dict[int, list[Card]] = {}
    if "hands" in pos:
        hs = pos["hands"]
        if isinstance(hs, list):
            hands = {i: _cards(h) for i, h in enumerate(hs)}
        elif isinstance(hs, dict):
            hands = {_seat(k, n): _cards(v) for k, v in hs.items()}
        else:
            raise ScenarioError(f"cannot interpret hands {hs!r}")
    if "hand" in pos:
        hands[mover] = _cards(pos["hand"])
    return hands


def build_position(rules: Rules, pos: Json) -> Built:
    """A State for a move scenario; hidden cards go where they keep the position consistent."""
    _check_position_keys(pos, MOVE_POS_KEYS)
    hands_given = pos.get("hands")
    n_default = len(hands_given) if isinstance(hands_given, list | dict) else 2
    n = _int(pos.get("num_players", n_default), "num_players")
    mover = _seat(pos.get("player", pos.get("to_move", 0)), n)
    table = parse_table(pos.get("table", []), rules)
    hands = _hands_spec(pos, n, mover)
    if mover not in hands:
        raise ScenarioError("the position gives no hand for the player to move")
    final = _bool(pos.get("is_final_play_of_round", False), "is_final_play_of_round")
    last_deal = pos.get("is_last_deal")
    if last_deal is not None:
        _bool(last_deal, "is_last_deal")
    if final and last_deal is False:
        raise ScenarioError("a final play must be in the last deal")
    if final and (len(hands[mover]) != 1 or any(h for s, h in hands.items() if s != mover)):
        raise ScenarioError("a final play needs the mover's last card and every other hand "
                            "empty")
    if "dealer" in pos:
        dealer = _seat(pos["dealer"], n)
    elif final:
        dealer = mover  # the dealer plays the last card of a deal
    else:
        dealer = 1 if n == 2 else n - 1  # seat 0 is the dealer's left (notation "seats")
    captured = _per_seat(pos.get("captured"), n, "captured", _cards)
    sweeps = _per_seat(pos.get("sweeps"), n, "sweeps", lambda v: _int(v, "sweeps"))
    last_capturer = _opt_seat(pos.get("last_capturer"), n)
    known: list[Card] = [c for _, p in table for c in pile_cards(p)]
    for h in hands.values():
        known.extend(h)
    for cs in captured.values():
        known.extend(cs)
    dup = [c for c, k in Counter(known).items() if k > 1]
    if dup:
        raise ScenarioError(f"card(s) {_cstr(dup)} appear twice in the position")
    deck = set(rules.deck_cards)
    foreign = [c for c in known if c not in deck]
    if foreign:
        raise ScenarioError(f"card(s) {_cstr(foreign)} are not in the {rules.deck} deck")
    hidden = [c for c in rules.deck_cards if c not in set(known)]

    def take(k: int) -> list[Card]:
        nonlocal hidden
        got, hidden = hidden[:k], hidden[k:]
        return got

    # other hands: seats that already played in this deal hold one card fewer than the mover
    k = len(hands[mover])
    leader = (dealer + 1) % n
    order = [(leader + i) % n for i in range(n)]
    sizes: dict[int, int] = {}
    for i, s in enumerate(order):
        if s in hands:
            continue
        if final:
            sizes[s] = 0
        elif rules.draw_mode:
            sizes[s] = k
        else:
            sizes[s] = max(0, k - 1 if i < order.index(mover) else k)
    sizes_all = {**{s: len(h) for s, h in hands.items()}, **sizes}
    sizes_sorted = rules_deal_sizes(rules, n)
    stock_needed = 0
    if not final and last_deal is not True:
        if rules.draw_mode:
            stock_needed = -1  # whatever is left
        elif len(sizes_sorted) >= 2:
            stock_needed = n * sizes_sorted[-1]
    ends_round = (k == 1 and all(v == 0 for s, v in sizes_all.items() if s != mover)
                  and stock_needed == 0)
    if ends_round and not final:
        nxt = (mover + 1) % n
        if nxt in hands:
            raise ScenarioError("the position says this is not the final play of the round, "
                                "but every other hand is empty and there is no stock")
        sizes[nxt] = 1  # keep the round going after this play
    for s, size in sizes.items():
        hands[s] = take(size)
        if len(hands[s]) < size:
            raise ScenarioError("not enough unseen cards to fill the other hands")
    if stock_needed == -1:
        stock = take(len(hidden))
    else:
        stock = take(stock_needed)
        if len(stock) < stock_needed:
            raise ScenarioError("not enough unseen cards for the stock of a later deal")
    if hidden and last_capturer is not None:
        captured.setdefault(last_capturer, []).extend(take(len(hidden)))
    plucked: dict[int, bool] = {}
    if "plucked_this_deal" in pos:
        plucked[mover] = _bool(pos["plucked_this_deal"], "plucked_this_deal")
    plucked.update(_per_seat(pos.get("pluck_used"), n, "pluck_used",
                             lambda v: _bool(v, "pluck_used")))
    scores_spec = pos.get("scores", pos.get("scores_before_round"))
    sides = _engine_sides(rules, n)
    scores: list[int] | None = None
    if scores_spec is not None:
        names = SideNames(sides)
        scores = [0] * len(sides)
        if not isinstance(scores_spec, dict):
            raise ScenarioError(f"cannot interpret scores {scores_spec!r}")
        for nm, v in scores_spec.items():
            scores[names.index(nm)] = _int(v, "score")
    st = State.from_position(
        rules, n, table=[p for _, p in table], hands=[hands.get(s, []) for s in range(n)],
        to_move=mover, dealer=dealer, stock=stock,
        captured=[captured.get(s, []) for s in range(n)],
        sweeps=[sweeps.get(s, 0) for s in range(n)], last_capturer=last_capturer,
        scores=scores, round_no=_int(pos.get("round_no", 1), "round_no"),
        target=pos.get("target"), pluck_used=[plucked.get(s, False) for s in range(n)],
        complete=False)
    if final and not st.is_last_deal:
        raise ScenarioError("could not build a final-play position (engine: not the last deal)")
    if last_deal is not None and st.is_last_deal != last_deal:
        raise ScenarioError(f"could not build a position with is_last_deal={last_deal}")
    return Built(st, dict(table), mover)


def _drive_round_end(rules: Rules, n: int, captured: Sequence[Sequence[Card]],
                     sweeps: Sequence[int], last: int | None, scores_before: Sequence[int],
                     round_no: int, target: Any = None) -> State:
    """A real State that plays the last card of a round whose capture piles end up exactly as
    given: the last capturer holds one of his own captured cards and trails it; it comes back to
    him as residue. Returns the state after the round has been scored."""
    piles = [list(cs) for cs in captured]
    seat = last
    if seat is None:
        if rules.last_capture_points:
            raise ScenarioError("cannot replay a round without a last capturer when the last "
                                "capture scores")
        seat = next((s for s in range(n) if piles[s]), None)
        if seat is None:
            raise ScenarioError("cannot replay a round in which nothing was captured")
    if not piles[seat]:
        raise ScenarioError(f"the last capturer (seat {seat}) captured nothing")
    # the trailed card comes back as residue: one worth nothing on its own, so that immediate
    # scoring (all_immediate scores residue point cards when taken) adds nothing
    plain = [i for i, c in enumerate(piles[seat]) if not scoring.immediate_points(rules, [c])]
    card = piles[seat].pop(plain[-1] if plain else -1)
    hands: list[list[Card]] = [[] for _ in range(n)]
    hands[seat] = [card]
    st = State.from_position(rules, n, table=[], hands=hands, to_move=seat, dealer=seat,
                             stock=[], captured=piles, sweeps=list(sweeps), last_capturer=seat,
                             scores=list(scores_before), round_no=round_no,
                             target=None if target is None else _int(target, "target"),
                             complete=False)
    mv = st.check_move(Move.trail(card))
    st.apply(mv)
    if not st.round_summaries:
        raise ScenarioError("the replayed round did not end")
    return st


def _deal_with(rules: Rules, n: int, dealer: int, fixed: Mapping[int | None, Sequence[Card]],
               labels: Sequence[Card] | None = None) -> State:
    """Start a round through the engine with a stacked deck: ``fixed[who]`` cards (None = the
    table) go to that recipient in the first deal, or ``labels`` are the top cards in order."""
    sizes = rules_deal_sizes(rules, n)
    try:
        st = State(rules, n, deal=False)
    except CasinoError as e:
        raise ScenarioError(str(e)) from e
    st.dealer = dealer
    order = st.deal_order(True, sizes[0])
    used = {c for cs in fixed.values() for c in cs} | set(labels or ())
    filler = iter([c for c in rules.deck_cards if c not in used])
    queues = {k: list(v) for k, v in fixed.items()}
    top: list[Card] = list(labels or [])
    if labels is None:
        for who in order:
            q = queues.get(who)
            top.append(q.pop(0) if q else next(filler))
        left = [k for k, q in queues.items() if q]
        if left:
            raise ScenarioError(f"too many cards for {left} in the first deal")
    deck = top + list(filler)
    st.next_round(deck=deck)
    return st


@dataclass
class DealRecord:
    """One deal seen during a simulated round."""

    hand_sizes: list[int]
    table_cards: int  # cards the deal put on the table
    leader: int  # the player to move right after the deal
    is_last_deal: bool
    dealer: int


def simulate_round(rules: Rules, n: int, dealer: int | None = None,
                   seed: int | str = "conformance") -> tuple[State, list[DealRecord],
                                                             list[tuple[Move, int]]]:
    """Play one round through the engine (first legal card play, no plucks or claims).

    Returns the final state, the deals, and the card plays with the stock size before each."""
    try:
        st = State(rules, n, seed, deal=dealer is None)
    except CasinoError as e:
        raise ScenarioError(str(e)) from e
    if dealer is not None:
        st.dealer = dealer
        st.next_round()
    deck_n = len(rules.deck_cards)

    def record(given: int) -> DealRecord:
        sizes = [len(h) for h in st.hands]
        return DealRecord(sizes, given - sum(sizes), st.to_move, st.is_last_deal, st.dealer)

    deals = [record(deck_n - len(st.stock))]
    plays: list[tuple[Move, int]] = []
    for _ in range(10 * deck_n):
        if st.phase == Phase.PLUCK:
            st.apply(Move.pass_())
            continue
        if st.phase != Phase.PLAY:
            break
        mv = next(m for m in st.legal_moves() if m.kind in ("trail", "capture", "build"))
        stock_before = len(st.stock)
        ev = st.apply(mv)
        plays.append((mv, stock_before))
        if ev.redeal:
            deals.append(record(stock_before - len(st.stock)))
    else:  # pragma: no cover - a round always ends
        raise ScenarioError("the simulated round did not end")
    return st, deals, plays


def _later_deal(rules: Rules, n: int, dealer: int, deal_no: int, top: Sequence[Card]) -> State:
    """Deal number ``deal_no`` (2 or later) through the engine: the dealer plays the last card
    of the previous deal and the stock, whose top cards are ``top``, is dealt."""
    sizes = rules_deal_sizes(rules, n)
    if rules.draw_mode or not 2 <= deal_no <= len(sizes):
        raise ScenarioError(f"a round of {rules.preset_name} has no deal {deal_no}")
    need = n * sum(sizes[deal_no - 1:])
    spare = [c for c in rules.deck_cards if c not in set(top)]
    stock_top = [*top, *spare[:need - len(top)]]
    if len(top) > need or len(stock_top) != need:
        raise ScenarioError(f"deal {deal_no} deals {need} cards, not {len(top)}")
    last_card, rest = spare[need - len(top)], spare[need - len(top) + 1:]
    hands: list[list[Card]] = [[] for _ in range(n)]
    hands[dealer] = [last_card]
    st = State.from_position(rules, n, table=[], hands=hands, to_move=dealer, dealer=dealer,
                             stock=stock_top[::-1], captured=[rest] + [[]] * (n - 1),
                             last_capturer=0, complete=False)
    ev = st.apply(st.check_move(Move.trail(last_card)))
    if not ev.redeal:
        raise ScenarioError(f"the engine did not deal deal {deal_no}")
    return st
