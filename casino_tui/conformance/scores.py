"""Points and scores in scenarios, compared with the engine's.

Round points per side (a total, an item breakdown, or both), scores per side, and the end of the
game: the winner, whether it is over, and English statements such as "P0 wins the game
immediately in any round".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from casino_tui.engine import Card, Rules, State, scoring
from casino_tui.engine.cards import ACE, SUITS, make_card

from .scenario import Json, ScenarioError, SideNames, _bool, _int, _obj


def _scores_errors(want: Json, have: Sequence[int], names: SideNames, what: str) -> list[str]:
    errs = []
    for nm, v in want.items():
        i = names.index(nm)
        if have[i] != _int(v, what):
            errs.append(f"{what} of {nm}: expected {v}, engine {have[i]}")
    return errs


def _want_points(v: Any) -> tuple[int | None, dict[str, Any] | None]:
    """A round_points entry: a total, or {total, items}, or an items dict."""
    if isinstance(v, bool):
        raise ScenarioError(f"cannot interpret round points {v!r}")
    if isinstance(v, int):
        return v, None
    if isinstance(v, dict):
        if set(v) <= {"total", "items"}:
            total = v.get("total")
            items = v.get("items")
            if total is not None:
                _int(total, "total")
            if items is not None and not isinstance(items, dict):
                raise ScenarioError(f"items must be an object: {items!r}")
            return total, items
        return None, dict(v)
    raise ScenarioError(f"cannot interpret round points {v!r}")


def _items_match(want: Mapping[str, Any], got: Mapping[str, int], cards: Sequence[Card] | None,
                 rules: Rules) -> str | None:
    """Compare an expected item breakdown with the engine's (zero items omitted).

    Non-numeric values (``"all_eleven": "bonus_point"``) mean the item is awarded. Per-suit
    ace items (``ace_S``) are checked against the side's aces."""
    got_nz = {k: v for k, v in got.items() if v}
    want_num: dict[str, int] = {}
    present: set[str] = set()
    ace_items: dict[str, int] = {}
    for k, v in want.items():
        if k not in scoring.KNOWN_ITEMS and k != "penalties":
            raise ScenarioError(f"unknown scoring item {k!r}")
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, str) and k == "all_eleven" and v != rules.all_eleven_rule:
                return f"all_eleven: expected rule {v!r}, preset has {rules.all_eleven_rule!r}"
            present.add(k)
        elif k.startswith("ace_"):
            ace_items[k] = v
        elif v:
            want_num[k] = v
    if ace_items:
        want_num["aces"] = want_num.get("aces", 0) + sum(ace_items.values())
        if cards is not None:
            for k, v in ace_items.items():
                held = make_card(ACE, SUITS.index(k[-1])) in cards
                if held != bool(v):
                    return f"{k}: expected {v}, side {'holds' if held else 'lacks'} that ace"
    got_cmp = {k: v for k, v in got_nz.items() if k not in present}
    for k in present:
        if k not in got_nz:
            return f"item {k} expected, engine has none (items {got_nz})"
    if got_cmp != want_num:
        return f"items: expected {dict(want)}, engine {got_nz}"
    return None


def _points_errors(want: Json, scores: Sequence[scoring.SideScore], names: SideNames,
                   rules: Rules, pooled: Sequence[Sequence[Card]] | None = None) -> list[str]:
    """Compare expected round points (per side: a total, or a total and its items)."""
    errs = []
    for nm, v in want.items():
        i = names.index(nm)
        total, items = _want_points(v)
        got = scores[i]
        if total is not None and got.total != total:
            errs.append(f"{nm}: expected {total} points, engine {got.total} {dict(got.items)}")
        if items is not None:
            err = _items_match(items, got.items, pooled[i] if pooled else None, rules)
            if err:
                errs.append(f"{nm}: {err}")
    return errs


def _scores_list(spec: Any, names: SideNames) -> list[int]:
    out = [0] * len(names.sides)
    if spec is None:
        return out
    if not isinstance(spec, dict):
        raise ScenarioError(f"cannot interpret scores {spec!r}")
    for nm, v in spec.items():
        out[names.index(nm)] = _int(v, "score")
    return out


def _end_fields(st: State, e: Json, names: SideNames, keys: set[str]) -> list[str]:
    errs = []
    for k in sorted(keys):
        want = e[k]
        if k == "scores_after":
            errs.extend(_scores_errors(_obj(want, k), st.scores, names, "score after"))
        elif k == "winner":
            exp = None if want is None else names.index(want)
            got = st.winner if st.is_game_over else None
            if got != exp:
                errs.append(f"winner: expected {want}, engine {names.name(got, _all_names(e))}")
        elif k == "game_over" and st.is_game_over != _bool(want, k):
            errs.append(f"game over: expected {want}, engine {st.is_game_over}")
    return errs


def _all_names(e: Json) -> list[str]:
    out: list[str] = []
    for v in e.values():
        if isinstance(v, dict):
            out.extend(k for k in v if isinstance(k, str))
    return out


def _statement_errors(text: Any, names: SideNames, drive: Callable[[int, list[int]], State],
                      scores_before: list[int]) -> list[str]:
    """English game-end statements, e.g. "P0 wins the game immediately in any round"."""
    if not isinstance(text, str):
        raise ScenarioError(f"cannot interpret variant {text!r}")
    t = text.strip().rstrip(".")
    m = re.fullmatch(r"(?:if (?P<cond1>.+?),?\s+)?(?P<who>\S+) (?P<neg>does not |doesn't )?wins?"
                     r" the game(?: immediately| at once)?(?P<cond2>.*)", t, re.I)
    if not m:
        raise ScenarioError(f"cannot interpret statement {text!r}")
    side = names.index(m.group("who"))
    cond = " ".join(x for x in (m.group("cond1"), m.group("cond2")) if x).strip().lower()
    if not cond:
        rounds_yes, rounds_no = [1], []
    elif re.search(r"first round", cond):
        rounds_yes, rounds_no = [1], [2]
    elif re.search(r"any round|every round|whenever", cond):
        rounds_yes, rounds_no = [1, 3], []
    else:
        raise ScenarioError(f"cannot interpret the condition {cond!r} in {text!r}")
    wins = not m.group("neg")
    errs = []
    for r, expect_win in [(r, wins) for r in rounds_yes] + [(r, not wins) for r in rounds_no]:
        st = drive(r, list(scores_before))
        won = st.is_game_over and st.winner == side
        if won != expect_win:
            errs.append(f"{text!r}: in round {r} the engine "
                        + (f"ends the game with winner {st.winner}" if st.is_game_over
                           else "does not end the game")
                        + f" (scores {st.scores})")
    return errs


def _score_matches(s: scoring.SideScore, want: tuple[int | None, dict[str, Any] | None],
                   cards: Sequence[Card], rules: Rules) -> bool:
    total, items = want
    if total is not None and s.total != total:
        return False
    if items is not None:
        try:
            return _items_match(items, s.items, cards, rules) is None
        except ScenarioError:
            raise
    return True
