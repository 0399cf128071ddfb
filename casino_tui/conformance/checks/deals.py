"""Deal scenarios: the deck, the player counts, the deals of a round (cards per player and on the
table, the leader, the last deal, the next dealer), and which cards each deal pattern gives whom.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

from casino_tui.engine import (
    PRESET_ALIASES,
    PRESET_NAMES,
    Build,
    Card,
    CasinoError,
    Phase,
    Rules,
    parse_card,
)
from casino_tui.engine.cards import RANKS, rank_of

from ..positions import DealRecord, _deal_with, _later_deal, simulate_round
from ..scenario import (
    INFO_KEYS,
    Check,
    Json,
    ScenarioError,
    _bool,
    _cards,
    _check_position_keys,
    _cstr,
    _int,
    _leftover,
    _obj,
    _opt_seat,
    _seat,
)

DEAL_KEYS = frozenset({
    "deck_size", "removed", "removed_ranks", "cards_per_player_per_deal", "table_cards_per_deal",
    "by_players", "deals", "deals_per_round", "player_counts", "supported_player_counts",
    "leader", "leader_each_deal", "is_last_deal_by_deal", "last_deal", "next_dealer",
    "cards_per_player", "table_cards_first_deal", "table_cards_later_deals",
    "stock_after_first_deal", "removed_cards",
})


def _deal_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, {"num_players", "player_counts", "dealer"})
    errs: list[str] = []
    used: set[str] = set()
    deck = rules.deck_cards
    if "deck_size" in e:
        used.add("deck_size")
        if len(deck) != _int(e["deck_size"], "deck_size"):
            errs.append(f"deck size: expected {e['deck_size']}, engine {len(deck)}")
    for k in ("removed", "removed_cards"):
        if k in e:
            used.add(k)
            gone = sorted(set(range(52)) - set(deck))
            if gone != sorted(_cards(e[k])):
                errs.append(f"removed cards: expected {e[k]}, engine {_cstr(gone)}")
    if "removed_ranks" in e:
        used.add("removed_ranks")
        ranks = {RANKS[rank_of(c_)] for c_ in deck}
        gone_r = sorted((r for r in RANKS if r not in ranks), key=RANKS.index)
        want_r = e["removed_ranks"]
        if not isinstance(want_r, list) or sorted(want_r, key=str) != sorted(gone_r, key=str):
            errs.append(f"removed ranks: expected {want_r}, engine {gone_r}")
    for k in ("player_counts", "supported_player_counts"):
        if k in e:
            used.add(k)
            if sorted(rules.player_counts) != sorted(e[k]):
                errs.append(f"player counts: expected {e[k]}, engine {list(rules.player_counts)}")
    counts: list[int] = []
    if "num_players" in pos:
        counts = [_int(pos["num_players"], "num_players")]
    elif "player_counts" in pos:
        counts = [_int(x, "player count") for x in pos["player_counts"]]
    dealer = _opt_seat(pos.get("dealer"))
    per_n_keys = DEAL_STRUCTURE_KEYS - {"deck_size", "removed_cards"}
    top = {k: e[k] for k in per_n_keys if k in e}
    if top:
        used |= set(top)
        if not counts:
            raise ScenarioError("deal expectations without num_players")
        for n in counts:
            errs.extend(f"{n} players: {x}"
                        for x in _deal_structure(rules, n, top, len(deck), dealer))
    if "deals_per_round" in e:
        used.add("deals_per_round")
        dpr = e["deals_per_round"]
        items = dpr.items() if isinstance(dpr, dict) else [(n, dpr) for n in counts]
        for n, v in items:
            errs.extend(f"{n} players: {x}" for x in _deal_structure(
                rules, _int(int(n), "players"), {"deals": v}, len(deck)))
    if "by_players" in e:
        used.add("by_players")
        bp = _obj(e["by_players"], "by_players")
        for n_s, sub in bp.items():
            n = int(n_s)
            sub = _obj(sub, f"by_players[{n_s}]")
            errs.extend(f"{n} players: {x}"
                        for x in _deal_structure(rules, n, sub, len(deck), dealer))
    errs.extend(_leftover(e, used))
    return errs


DEAL_STRUCTURE_KEYS = frozenset({
    "deals", "cards_per_player_per_deal", "table_cards_per_deal", "deck_size", "leader",
    "leader_each_deal", "is_last_deal_by_deal", "last_deal", "next_dealer", "cards_per_player",
    "table_cards_first_deal", "table_cards_later_deals", "stock_after_first_deal",
})


def _seat_or_left(v: Any, dealer: int, n: int) -> int:
    if isinstance(v, str) and re.search(r"\bleft\b", v, re.I):
        return (dealer + 1) % n
    return _seat(v, n)


def _deal_structure(rules: Rules, n: int, want: Json, deck_n: int,
                    dealer: int | None = None) -> list[str]:
    unknown = set(want) - DEAL_STRUCTURE_KEYS - INFO_KEYS
    if unknown:
        raise ScenarioError(f"cannot interpret deal field(s) {sorted(unknown)}")
    st, deals, _plays = simulate_round(rules, n, dealer)
    errs = []
    total = sum(sum(d.hand_sizes) + d.table_cards for d in deals)
    if total != deck_n:
        errs.append(f"the round dealt {total} cards, not the whole deck of {deck_n}")
    if "deck_size" in want and _int(want["deck_size"], "deck_size") != deck_n:
        errs.append(f"deck size: expected {want['deck_size']}, engine {deck_n}")
    if "deals" in want and len(deals) != _int(want["deals"], "deals"):
        errs.append(f"deals per round: expected {want['deals']}, engine {len(deals)}")
    per_deal: list[tuple[str, Callable[[DealRecord], Any], Callable[[Any, DealRecord], Any]]] = [
        ("cards_per_player_per_deal", lambda d: d.hand_sizes,
         lambda w, d: [_int(w, "cards")] * n),
        ("table_cards_per_deal", lambda d: d.table_cards, lambda w, d: _int(w, "cards")),
        ("leader_each_deal", lambda d: d.leader, lambda w, d: _seat_or_left(w, d.dealer, n)),
        ("leader", lambda d: d.leader, lambda w, d: _seat_or_left(w, d.dealer, n)),
        ("is_last_deal_by_deal", lambda d: d.is_last_deal, lambda w, d: _bool(w, "last deal")),
    ]
    want = dict(want)
    if "cards_per_player" in want:
        want.setdefault("cards_per_player_per_deal", want.pop("cards_per_player"))
    if "table_cards_first_deal" in want and deals[0].table_cards != _int(
            want["table_cards_first_deal"], "table_cards_first_deal"):
        errs.append(f"table cards in the first deal: expected {want['table_cards_first_deal']}, "
                    f"engine {deals[0].table_cards}")
    if "table_cards_later_deals" in want:
        later = [d.table_cards for d in deals[1:]]
        if any(t != _int(want["table_cards_later_deals"], "table_cards_later_deals")
               for t in later):
            errs.append(f"table cards in later deals: expected {want['table_cards_later_deals']},"
                        f" engine {later}")
    if "stock_after_first_deal" in want:
        left = deck_n - sum(deals[0].hand_sizes) - deals[0].table_cards
        if left != _int(want["stock_after_first_deal"], "stock_after_first_deal"):
            errs.append(f"stock after the first deal: expected {want['stock_after_first_deal']}, "
                        f"engine {left}")
    for key, got_of, want_of in per_deal:
        if key not in want:
            continue
        w = want[key]
        per = w if isinstance(w, list) else [w] * len(deals)
        if len(per) != len(deals):
            errs.append(f"{key}: expected {len(per)} deals {w}, engine {len(deals)} deals")
            continue
        for i, (wv, d) in enumerate(zip(per, deals, strict=True), 1):
            exp, got = want_of(wv, d), got_of(d)
            if exp != got:
                errs.append(f"deal {i}: {key} expected {wv}, engine {got}")
    if "last_deal" in want:
        flags = [d.is_last_deal for d in deals]
        first = flags.index(True) + 1 if True in flags else None
        if first != _int(want["last_deal"], "last_deal") or first != len(deals):
            errs.append(f"last deal: expected deal {want['last_deal']} to be announced last, "
                        f"engine is_last_deal per deal {flags}")
    if "next_dealer" in want:
        if st.phase != Phase.ROUND_OVER:
            raise ScenarioError("the simulated round ended the game; no next dealer")
        old = st.dealer
        st.next_round()
        if st.dealer != _seat_or_left(want["next_dealer"], old, n):
            errs.append(f"next dealer: expected {want['next_dealer']}, engine {st.dealer} "
                        f"(dealer was {old})")
    return errs


def _deal_pattern_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, {"num_players", "dealer", "stock_top_first", "deal"})
    n = _int(pos.get("num_players", 2), "num_players")
    dealer = _seat(pos.get("dealer", 1 if n == 2 else n - 1), n)
    deal_no = _int(pos.get("deal", 1), "deal")
    labels = pos["stock_top_first"]
    if not isinstance(labels, list) or len(set(labels)) != len(labels):
        raise ScenarioError("stock_top_first must be a list of distinct labels")
    real: dict[str, Card] = {}
    for lab in labels:
        with contextlib.suppress(CasinoError):
            real[lab] = parse_card(lab)
    spare = iter([x for x in rules.deck_cards if x not in real.values()])
    mapping = {lab: real[lab] if lab in real else next(spare) for lab in labels}
    back = {v: k for k, v in mapping.items()}
    errs: list[str] = []
    used: set[str] = set()
    by_pattern: dict[str, Any] = {}
    if "by_deal_pattern" in e:
        used.add("by_deal_pattern")
        by_pattern = _obj(e["by_deal_pattern"], "by_deal_pattern")
    direct = {k: v for k, v in e.items() if re.fullmatch(r"seat\d+|table", k)}
    if direct:
        used |= set(direct)
        by_pattern[rules.deal_pattern] = direct
    for pattern, want in by_pattern.items():
        try:
            r = rules.with_options(deal_pattern=pattern)
        except CasinoError as ex:
            errs.append(f"deal pattern {pattern}: {ex}")
            continue
        top = [mapping[lab] for lab in labels]
        st = (_deal_with(r, n, dealer, {}, top) if deal_no == 1
              else _later_deal(r, n, dealer, deal_no, top))
        for who, cards in _obj(want, pattern).items():
            if who in INFO_KEYS:
                continue
            wset = sorted(cards)
            if who == "table":
                got = [p for p in st.table if not isinstance(p, Build)]
            else:
                m = re.fullmatch(r"seat(\d+)", who)
                if not m:
                    raise ScenarioError(f"cannot interpret deal recipient {who!r}")
                got = list(st.hands[_seat(int(m.group(1)), n)])
            got_l = sorted(back[x] for x in got if x in back)
            if got_l != wset:
                errs.append(f"{pattern}: {who} expected {wset}, engine {got_l}")
    if "pattern_used_by" in e:
        used.add("pattern_used_by")
        for pattern, text in _obj(e["pattern_used_by"], "pattern_used_by").items():
            found = _presets_named(str(text))
            if not found:
                errs.append(f"pattern_used_by[{pattern}]: names no preset I can recognise: "
                            f"{text!r}")
            for p in found:
                got_p = Rules.preset(p).deal_pattern
                if got_p != pattern:
                    errs.append(f"preset {p} deals with {got_p}, not {pattern}")
    errs.extend(_leftover(e, used))
    return errs


def _presets_named(text: str) -> list[str]:
    words = set(re.findall(r"[a-z0-9_]+", text.lower()))
    out = [p for p in PRESET_NAMES if p in words]
    out += [PRESET_ALIASES[a] for a in sorted(PRESET_ALIASES) if a in words]
    return sorted(set(out))
