"""Event scenarios: a side sweeps (in a given deal, or with the last card of the round), and the
scores, winner and round end that follow.
"""

from __future__ import annotations

import re

from casino_tui.engine import Card, Move, Phase, Rules, State, card_str
from casino_tui.engine.cards import CLUBS, HEARTS, make_card

from ..scenario import (
    Check,
    ScenarioError,
    SideNames,
    _bool,
    _check_position_keys,
    _engine_sides,
    _int,
    _leftover,
    _names_n,
    _obj,
    _ordinal,
    _seat,
    rules_deal_sizes,
)
from ..scores import _scores_errors, _scores_list

EVENT_POS_KEYS = {"scores_before_round", "event", "num_players", "round_no", "target"}


def _event_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, EVENT_POS_KEYS)
    text = pos["event"]
    if not isinstance(text, str):
        raise ScenarioError(f"cannot interpret event {text!r}")
    m = re.fullmatch(r"\s*(?P<who>\S+)\s+(?:sweeps|makes a sweep)(?:\s+(?:during|in)\s+the\s+"
                     r"(?P<deal>\w+)\s+deal|\s+(?:on|with)\s+the\s+(?P<final>final|last)\s+"
                     r"(?:play|card)(?:\s+of\s+the\s+round)?)?\s*\.?", text, re.I)
    if not m:
        raise ScenarioError(f"cannot interpret event {text!r}")
    scores_spec = pos.get("scores_before_round") or {}
    n = _int(pos.get("num_players", _names_n([*scores_spec, m.group("who")])), "num_players")
    names = SideNames(_engine_sides(rules, n))
    try:
        seat = _seat(m.group("who"), n)
    except ScenarioError:
        seat = names.sides[names.index(m.group("who"))][0]
    sizes = rules_deal_sizes(rules, n)
    final = bool(m.group("final"))
    deal = 1 if not m.group("deal") else (len(sizes) if m.group("deal").lower() in (
        "last", "final") else _ordinal(m.group("deal")))
    if final:
        deal = len(sizes)
    if not 1 <= deal <= len(sizes):
        raise ScenarioError(f"a round of {rules.preset_name} has {len(sizes)} deals, not {deal}")
    # the sweeper leads the deal with a full hand: he pairs the only card on the table
    pair = _neutral_pair(rules)
    table_card, play_card = pair
    rest = [x for x in rules.deck_cards if x not in pair]
    hand_n = sizes[deal - 1]
    hands: list[list[Card]] = []
    for s in range(n):
        want_n = 0 if final else hand_n - (1 if s == seat else 0)
        hands.append(rest[:want_n])
        rest = rest[want_n:]
    hands[seat].insert(0, play_card)
    if final:  # the sweeper (the dealer) plays the last card of the round
        stock_n = 0
    elif rules.draw_mode:
        stock_n = len(rest) // 2
    else:
        stock_n = n * sum(sizes[deal:])
    stock, rest = rest[:stock_n], rest[stock_n:]
    other = (seat + 1) % n
    captured: list[list[Card]] = [[] for _ in range(n)]
    captured[other] = rest
    st = State.from_position(
        rules, n, table=[table_card], hands=hands, to_move=seat,
        dealer=seat if final else (seat - 1) % n,
        stock=stock, captured=captured, last_capturer=other if rest else None,
        scores=_scores_list(scores_spec, names),
        round_no=_int(pos.get("round_no", 1), "round_no"),
        target=pos.get("target"), deal_no=None if rules.draw_mode else deal, complete=False)
    mv = st.check_move(Move.capture(play_card, [st.table.index(table_card)]))
    ev = st.apply(mv)
    errs: list[str] = []
    if not ev.sweep:
        return [f"could not produce the event: {card_str(play_card)} taking the only card on the "
                f"table is not a sweep for the engine"]
    used: set[str] = set()
    for k in ("scores_after_event", "scores_after"):
        if k in e:
            used.add(k)
            errs.extend(_scores_errors(_obj(e[k], k), st.scores, names, "score after the event"))
    if "winner" in e:
        used.add("winner")
        exp = None if e["winner"] is None else names.index(e["winner"])
        got = st.winner if st.is_game_over else None
        if got != exp:
            errs.append(f"winner: expected {e['winner']}, engine {names.name(got)}")
    if "game_over" in e:
        used.add("game_over")
        if st.is_game_over != _bool(e["game_over"], "game_over"):
            errs.append(f"game over: expected {e['game_over']}, engine {st.is_game_over}")
    if "round_ends_immediately" in e:
        used.add("round_ends_immediately")
        stopped = st.phase not in (Phase.PLAY, Phase.PLUCK)
        if stopped != _bool(e["round_ends_immediately"], "round_ends_immediately"):
            errs.append(f"round ends immediately: expected {e['round_ends_immediately']}, "
                        f"engine phase {st.phase.value}")
    errs.extend(_leftover(e, used))
    return errs


def _neutral_pair(rules: Rules) -> tuple[Card, Card]:
    """Two cards of one rank that score nothing when captured (a pair to make a sweep)."""
    for rank in (8, 7, 3, 2, 4):  # 9, 8, 4, 3, 5
        pair = (make_card(rank, HEARTS), make_card(rank, CLUBS))
        if all(c in rules.deck_cards and c not in (rules.big_casino, rules.little_casino,
                                                   rules.table_clearer) for c in pair):
            return pair
    raise ScenarioError("no plain pair of cards in this deck")  # pragma: no cover
