"""The scenario file format: its vocabulary, records and field readers.

A scenario file (``scenarios/public.json`` format) holds scenarios: a preset, options, a
``position`` and the fields it ``expect``s. This module names the keys the runner knows, the
records it works with (:class:`Check`: one rule set, position and expectations; :class:`Result`:
the outcome of one scenario), :class:`ScenarioError` for a field that cannot be interpreted, and
the small readers every check uses: cards, seats, build values, whole numbers and flags, pile
descriptions, and :class:`SideNames` (a scenario's side names as the engine's sides).

Names starting with an underscore are shared inside :mod:`casino_tui.conformance` only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from casino_tui.engine import (
    Build,
    Card,
    CasinoError,
    Pile,
    Rules,
    State,
    card_str,
    parse_card,
    parse_cards,
)
from casino_tui.engine.cards import RANKS
from casino_tui.engine.rules import deal_sizes

Json = dict[str, Any]

# Keys that only explain a scenario; they are never checked.
INFO_KEYS = frozenset({"reason", "note", "notes", "why", "comment", "comments", "explanation"})

# Scenario keys outside "expect" that are metadata.
META_KEYS = frozenset({
    "id", "preset", "options", "description", "source", "sources", "position", "expect",
    "depends_on_decisions", "also_applies_to", "title", "tags", "group", *INFO_KEYS,
})

# Sub-checks: allowed inside "expect" and at the scenario's top level.
SUB_KEYS = ("contrast", "also", "variants")

# Fields that describe the result of one applied move (after_move / after_capture / with "move").
POST_KEYS = frozenset({
    "table", "sweep_awarded_to", "sweep", "last_capturer", "residue", "residue_cards",
    "residue_to", "build_value", "value", "kind", "owner", "build", "captured", "captured_cards",
    "to_move", "next_player", "legal_move_types", "next_player_legal_move_types", "hand_size",
    "stock_size", "round_over", "round_ends", "round_points", "scores", "scores_after", "winner",
    "game_over", "is_last_deal", "sweeps",
})

MOVE_KINDS = ("trail", "capture", "build", "pluck", "pass", "claim")

ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10,
}


class ScenarioError(Exception):
    """A scenario field that cannot be interpreted (the scenario fails with this message)."""


@dataclass
class Result:
    """The outcome of one scenario."""

    id: str
    errors: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.errors

    def line(self) -> str:
        return f"FAIL {self.id}: " + " | ".join(self.errors)


@dataclass
class Check:
    """One rule set + position + expectations (a scenario, or one of its contrasts/variants)."""

    label: str
    preset: str
    options: dict[str, Any]
    position: Json
    expect: Json
    context: Json = field(default_factory=dict)  # inherited: move, played_card, ...

    def rules(self) -> Rules:
        try:
            return Rules.preset(self.preset, **self.options)
        except CasinoError as e:
            raise ScenarioError(f"rules: {e}") from e


def _card(text: Any) -> Card:
    if not isinstance(text, str):
        raise ScenarioError(f"not a card: {text!r}")
    try:
        return parse_card(text)
    except CasinoError as e:
        raise ScenarioError(str(e)) from e


def _cards(spec: Any) -> list[Card]:
    if isinstance(spec, str):
        parts = [p for p in re.split(r"[\s,+]+", spec.strip()) if p]
        return [_card(p) for p in parts]
    if isinstance(spec, list):
        return [_card(c) for c in spec]
    raise ScenarioError(f"not a list of cards: {spec!r}")


def _cstr(cards: Sequence[Card] | set[Card] | frozenset[Card]) -> str:
    return "[" + " ".join(card_str(c) for c in sorted(cards)) + "]"


def _seat(x: Any, n: int | None = None) -> int:
    if isinstance(x, bool):
        raise ScenarioError(f"not a seat: {x!r}")
    seat: int | None = None
    if isinstance(x, int):
        seat = x
    elif isinstance(x, str):
        m = re.fullmatch(r"\s*(?:p|seat|player)?\s*(\d+)\s*", x, re.IGNORECASE)
        if m:
            seat = int(m.group(1))
    if seat is None:
        raise ScenarioError(f"not a seat: {x!r}")
    if n is not None and not 0 <= seat < n:
        raise ScenarioError(f"seat {x!r} is not at a {n}-player table")
    return seat


def _opt_seat(x: Any, n: int | None = None) -> int | None:
    return None if x is None else _seat(x, n)


def _value(v: Any, rules: Rules) -> tuple[int, bool]:
    """A build value: a number, or a court rank (J/Q/K) -> (value, court)."""
    if isinstance(v, bool):
        raise ScenarioError(f"not a build value: {v!r}")
    if isinstance(v, int):
        return v, False
    if isinstance(v, str):
        s = v.strip().upper()
        if s.isdigit():
            return int(s), False
        if s in ("J", "Q", "K"):
            num = RANKS.index(s) + 1
            return num, not rules.courts_are_numeric
    raise ScenarioError(f"not a build value: {v!r}")


def _ordinal(word: str) -> int:
    w = word.lower()
    if w in ORDINALS:
        return ORDINALS[w]
    m = re.fullmatch(r"(\d+)(?:st|nd|rd|th)?", w)
    if m:
        return int(m.group(1))
    raise ScenarioError(f"not an ordinal: {word!r}")


def _int(x: Any, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise ScenarioError(f"{what} must be a whole number, not {x!r}")
    return x


def _bool(x: Any, what: str) -> bool:
    if not isinstance(x, bool):
        raise ScenarioError(f"{what} must be true or false, not {x!r}")
    return x


def _pile_desc(p: Pile) -> str:
    if isinstance(p, Build):
        return f"{_cstr(p.cards)}={p.value_str()}/{p.kind}@{p.owner}"
    return card_str(p)


def _table_desc(table: Sequence[Pile]) -> str:
    return "{" + ", ".join(_pile_desc(p) for p in table) + "}"


def _cards_run(text: str) -> list[Card]:
    try:
        return parse_cards(text)
    except CasinoError as e:
        raise ScenarioError(str(e)) from e


class SideNames:
    """Maps a scenario's side names (P0, P1, A, B, or names given in ``sides``) to engine sides."""

    def __init__(self, engine_sides: Sequence[Sequence[int]],
                 declared: Mapping[str, Sequence[int]] | None = None) -> None:
        self.sides = [list(s) for s in engine_sides]
        self.side_of: dict[int, int] = {s: i for i, side in enumerate(self.sides) for s in side}
        self.declared: dict[str, int] = {}
        if declared:
            for name, seats in declared.items():
                want = sorted(_seat(s) for s in seats)
                idx = [i for i, side in enumerate(self.sides) if sorted(side) == want]
                if not idx:
                    raise ScenarioError(
                        f"side {name}={want} is not a side of the engine (engine sides: "
                        f"{self.sides})")
                self.declared[name] = idx[0]

    def index(self, name: Any) -> int:
        if isinstance(name, str) and name in self.declared:
            return self.declared[name]
        if isinstance(name, str) and re.fullmatch(r"[A-F]", name.strip()):
            i = ord(name.strip()) - ord("A")
            if i < len(self.sides):
                return i
        try:
            seat = _seat(name)
        except ScenarioError:
            raise ScenarioError(f"unknown side {name!r}") from None
        if seat not in self.side_of:
            raise ScenarioError(f"side {name!r} is not at the table")
        return self.side_of[seat]

    def name(self, idx: int | None, names: Sequence[str] = ()) -> str:
        if idx is None:
            return "none"
        for nm in names:
            try:
                if self.index(nm) == idx:
                    return nm
            except ScenarioError:
                continue
        side = self.sides[idx]
        return f"P{side[0]}" if len(side) == 1 else f"side{idx}{side}"


def _names_n(names: Sequence[str]) -> int:
    """Number of players implied by side names (P0..Pk -> k+1; A/B -> 4 in teams)."""
    seats = []
    for nm in names:
        try:
            seats.append(_seat(nm))
        except ScenarioError:
            if re.fullmatch(r"[A-F]", nm):
                continue
            raise
    if seats:
        return max(2, max(seats) + 1)
    return 4 if len(names) == 2 else max(2, len(names))


def _engine_sides(rules: Rules, n: int) -> list[list[int]]:
    try:
        return State(rules, n, deal=False).sides
    except CasinoError as e:
        raise ScenarioError(f"cannot seat {n} players: {e}") from e


def _leftover(expect: Json, used: set[str], what: str = "expectation") -> list[str]:
    rest = sorted(set(expect) - used - INFO_KEYS)
    return [f"cannot interpret {what} field(s) {rest}"] if rest else []


def _check_position_keys(pos: Json, allowed: set[str]) -> None:
    rest = sorted(set(pos) - allowed - INFO_KEYS)
    if rest:
        raise ScenarioError(f"cannot interpret position field(s) {rest}")


def _per_seat(spec: Any, n: int, what: str, conv: Callable[[Any], Any]) -> dict[int, Any]:
    if spec is None:
        return {}
    if isinstance(spec, list):
        return {i: conv(v) for i, v in enumerate(spec)}
    if isinstance(spec, dict):
        return {_seat(k, n): conv(v) for k, v in spec.items()}
    raise ScenarioError(f"cannot interpret {what} {spec!r}")


def rules_deal_sizes(rules: Rules, n: int) -> list[int]:
    sizes = deal_sizes(rules, n)
    if sizes is None:
        raise ScenarioError(f"{rules.preset_name} cannot be dealt to {n} players")
    return sizes


def _obj(x: Any, what: str) -> Json:
    if not isinstance(x, dict):
        raise ScenarioError(f"{what} must be an object")
    return x
