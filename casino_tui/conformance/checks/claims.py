"""Claim scenarios: a side with given cards captured so far claims the game at the start of its
turn; the points credited, its total, the winner.
"""

from __future__ import annotations

import re

from casino_tui.engine import Card, Move, Rules, State
from casino_tui.engine.cards import ACE, SPADES, rank_of, suit_of

from ..scenario import (
    Check,
    Json,
    ScenarioError,
    SideNames,
    _bool,
    _cards,
    _check_position_keys,
    _engine_sides,
    _int,
    _leftover,
    _names_n,
    _obj,
    _seat,
)
from ..scores import _end_fields, _items_match, _scores_list

CLAIM_POS_KEYS = {"num_players", "claimant", "scores_before_round", "claimant_captured_so_far",
                  "claim_moment", "target"}


def _claim_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, CLAIM_POS_KEYS)
    scores_spec = pos.get("scores_before_round") or {}
    n = _int(pos.get("num_players", _names_n(list(scores_spec))), "num_players")
    names = SideNames(_engine_sides(rules, n))
    claimant = _seat(pos["claimant"], n)
    side = names.side_of[claimant]
    pile = _claim_pile(rules, _obj(pos.get("claimant_captured_so_far", {}),
                                   "claimant_captured_so_far"))
    sweeps = [0] * n
    sweeps[claimant] = _int(pos.get("claimant_captured_so_far", {}).get("sweeps", 0), "sweeps")
    rest = [x for x in rules.deck_cards if x not in set(pile)]
    hands: list[list[Card]] = []
    for _ in range(n):
        hands.append(rest[:2])
        rest = rest[2:]
    captured: list[list[Card]] = [[] for _ in range(n)]
    captured[claimant] = pile
    opp = (claimant + 1) % n
    captured[opp] = rest
    st = State.from_position(
        rules, n, table=[], hands=hands, to_move=claimant, dealer=(claimant - 1) % n, stock=[],
        captured=captured, sweeps=sweeps, last_capturer=opp,
        scores=_scores_list(scores_spec, names), target=pos.get("target"), complete=False)
    errs: list[str] = []
    moment = pos.get("claim_moment")
    if moment is not None and not (isinstance(moment, str) and re.search(
            r"start of (?:the )?claimant'?s turn", moment, re.I)):
        raise ScenarioError(f"cannot interpret claim_moment {moment!r}")
    if Move.claim() not in st.legal_moves():
        return ["a claim is not a legal move at the start of the claimant's turn"]
    before = list(st.scores)
    ev = st.apply(Move.claim())
    credit = dict(ev.claim_credit or {})
    total = sum(credit.values())
    used: set[str] = set()
    if "credited_points" in e:
        used.add("credited_points")
        want = _obj(e["credited_points"], "credited_points")
        err = _items_match(want, credit, pile, rules)
        if err:
            errs.append(f"credited points: {err}")
    if "credited_points_total" in e:
        used.add("credited_points_total")
        if total != _int(e["credited_points_total"], "credited_points_total"):
            errs.append(f"credited total: expected {e['credited_points_total']}, engine {total} "
                        f"{credit}")
    if "claimant_total" in e:
        used.add("claimant_total")
        got = before[side] + total
        if got != _int(e["claimant_total"], "claimant_total"):
            errs.append(f"claimant total: expected {e['claimant_total']}, engine {got}")
        if ev.claim_won and st.scores[side] != got:
            errs.append(f"the winning claimant's score is {st.scores[side]}, not {got}")
    keys = {"winner", "game_over", "scores_after"} & set(e)
    used |= keys
    errs.extend(_end_fields(st, e, names, keys))
    errs.extend(_leftover(e, used))
    return errs


def _claim_pile(rules: Rules, spec: Json) -> list[Card]:
    unknown = set(spec) - {"cards", "spades", "aces", "big_casino", "little_casino", "sweeps"}
    if unknown:
        raise ScenarioError(f"cannot interpret claimant_captured_so_far field(s) "
                            f"{sorted(unknown)}")
    deck = list(rules.deck_cards)
    pile: list[Card] = []
    aces = spec.get("aces", [])
    if isinstance(aces, int) and not isinstance(aces, bool):
        pile.extend([c for c in deck if rank_of(c) == ACE][:aces])
    else:
        pile.extend(_cards(aces))
        if any(rank_of(c) != ACE for c in pile):
            raise ScenarioError(f"aces {aces!r} holds a card that is not an ace")
    if _bool(spec.get("big_casino", False), "big_casino"):
        pile.append(rules.big_casino)
    if _bool(spec.get("little_casino", False), "little_casino"):
        pile.append(rules.little_casino)
    special = {c for c in deck if rank_of(c) == ACE} | {rules.big_casino, rules.little_casino}
    if "spades" in spec:
        need = _int(spec["spades"], "spades") - sum(1 for c in pile if suit_of(c) == SPADES)
        pool = [c for c in deck if suit_of(c) == SPADES and c not in special]
        if need < 0 or need > len(pool):
            raise ScenarioError("the claimant's spades do not fit the cards listed")
        pile.extend(pool[:need])
        filler = [c for c in deck if suit_of(c) != SPADES and c not in special]
    else:
        filler = [c for c in deck if c not in special and c not in pile]
    total = _int(spec.get("cards", len(pile)), "cards")
    need = total - len(pile)
    if need < 0 or need > len(filler):
        raise ScenarioError("the claimant's card count does not fit the cards listed")
    pile.extend(filler[:need])
    return pile
