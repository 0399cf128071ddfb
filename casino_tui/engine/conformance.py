"""Conformance runner: check the engine against a scenario file (``scenarios/public.json`` format).

Usage::

    python -m casino_tui.engine.conformance PATH [PATH ...] [-v] [--only ID ...]

Every scenario is checked against the engine and each failing scenario prints one line (its id and
what differed); the last line is ``N passed, M failed`` and the exit status is 1 if anything
failed. Tests use :func:`run_file`, :func:`run_data` or :func:`check_scenario`.

Every expectation is compared with what the engine itself produces: positions are built with
:meth:`State.from_position` (hidden cards are placed in the other hands, the stock or the capture
piles so that the position is consistent: whose turn it is, whether it is the last deal or the
final play), moves go through :meth:`State.check_move` / :meth:`State.apply`, scoring through
:func:`scoring.score_round`, and game-end questions through a real :class:`State` that plays the
last card of a round (or a sweep, or a claim). A field the runner cannot interpret makes the
scenario fail with a message saying so; it never passes silently.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import itertools
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import scoring
from .cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    RANKS,
    SPADES,
    SUITS,
    Card,
    card_str,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from .errors import CasinoError, IllegalMoveError
from .moves import Build, Move, Pile, pile_cards
from .realize import Unrealizable, build_round
from .rules import PRESET_ALIASES, PRESET_NAMES, Rules, deal_sizes, resolve_preset_name
from .state import MoveEvent, Phase, State

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


# =============================================================================== parsing helpers
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


# ------------------------------------------------------------------------------- tables
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


def _cards_run(text: str) -> list[Card]:
    try:
        return parse_cards(text)
    except CasinoError as e:
        raise ScenarioError(str(e)) from e


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


# ------------------------------------------------------------------------------- sides
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


# =============================================================================== sub-checks
def _expand(scn: Json) -> list[Check]:
    """The scenario's checks: the main one, its contrasts/also/variants, and also_applies_to."""
    unknown = set(scn) - META_KEYS - set(SUB_KEYS)
    if unknown:
        raise ScenarioError(f"unknown scenario field(s) {sorted(unknown)}")
    preset = scn.get("preset")
    if not isinstance(preset, str):
        raise ScenarioError("the scenario names no preset")
    options = scn.get("options") or {}
    if not isinstance(options, dict):
        raise ScenarioError(f"options must be an object, not {options!r}")
    position = scn.get("position") or {}
    expect = scn.get("expect")
    if not isinstance(position, dict) or not isinstance(expect, dict):
        raise ScenarioError("position and expect must be objects")
    expect = dict(expect)
    subs: list[tuple[str, Any]] = []
    for key in SUB_KEYS:
        for src in (expect, scn):
            if key in src:
                subs.append((key, src[key]))
        expect.pop(key, None)
    main = Check("", preset, dict(options), copy.deepcopy(position), expect)
    main.context = _context_of(main)
    checks = [main]
    derived: list[Check] = []
    for key, value in subs:
        entries: list[tuple[str, Any]] = []
        if key == "variants" and isinstance(value, dict):
            entries = [(f"variants[{k}]", {"preset": k, **(v if isinstance(v, dict) else
                                                           {"_statement": v})})
                       for k, v in value.items()]
        elif isinstance(value, list):
            entries = [(f"{key}[{i}]", v) for i, v in enumerate(value)]
        else:
            entries = [(key, value)]
        for label, entry in entries:
            if not isinstance(entry, dict):
                raise ScenarioError(f"cannot interpret {label}: {entry!r}")
            derived.append(_derive(main, entry, label))
    checks.extend(derived)
    if not set(main.expect) - INFO_KEYS and derived:
        checks.remove(main)  # everything is in the contrasts
    extra = scn.get("also_applies_to") or []
    if not isinstance(extra, list):
        raise ScenarioError("also_applies_to must be a list of presets")
    for p in extra:
        for c in [main, *derived]:
            if c.preset != preset:
                continue  # a contrast that names its own preset
            cc = copy.deepcopy(c)
            cc.preset = p
            cc.label = f"[{p}]" + (f" {c.label}" if c.label else "")
            checks.append(cc)
    return checks


def _context_of(check: Check) -> Json:
    """What a contrast inherits from its parent: the move played and how captures are listed."""
    e = check.expect
    ctx: Json = {}
    for k in ("played_card", "legal_captures_complete"):
        if k in e:
            ctx[k] = e[k]
    if "move" in e:
        ctx["move"] = e["move"]  # the move whose result the top-level fields describe
    if isinstance(e.get("legal_moves"), list) and e["legal_moves"]:
        ctx["first_legal"] = e["legal_moves"][0]  # the move after_move describes
    if "played_card" in e and isinstance(e.get("legal_captures"), list) and e["legal_captures"]:
        ctx["capture"] = {"type": "capture", "card": e["played_card"],
                          "piles": e["legal_captures"][0]}
    return ctx


def _derive(parent: Check, entry: Json, label: str) -> Check:
    entry = dict(entry)
    preset = parent.preset
    options = dict(parent.options)
    if "preset" in entry:
        preset = entry.pop("preset")
        options = {}  # a contrast under another preset shows that preset as it is
    if "options" in entry:
        opts = entry.pop("options")
        if not isinstance(opts, dict):
            raise ScenarioError(f"{label}: options must be an object")
        options.update(opts)
    position = copy.deepcopy(parent.position)
    override_keys = set(position) | {"table", "hand", "hands", "player", "dealer",
                                     "num_players"}
    # last_capturer after a move is a result; in a scoring position it is part of the position
    move_result = (bool({"table", "hand", "hands"} & set(parent.position))
                   and ("move" in entry or "move" in parent.context))
    expect: Json = {}
    for k, v in entry.items():
        if k in INFO_KEYS:
            continue
        if k in override_keys and not (k == "last_capturer" and move_result):
            position[k] = v
            continue
        m = _flat_override(k, position)
        if m is not None:
            position[m[0]][m[1]] = v
            continue
        expect[k] = v
    ctx = dict(parent.context)
    child = Check(label, preset, options, position, expect, ctx)
    own = _context_of(child)
    child.context.update(own)
    return child


def _flat_override(key: str, position: Json) -> tuple[str, str] | None:
    """``claimant_captured_so_far_cards`` -> (``claimant_captured_so_far``, ``cards``)."""
    for pk, pv in position.items():
        if isinstance(pv, dict) and key.startswith(pk + "_"):
            sub = key[len(pk) + 1:]
            if sub in pv:
                return pk, sub
    return None


# =============================================================================== entry points
def check_scenario(scn: Json, presets: Mapping[str, Any] | None = None,
                   defaults: Mapping[str, Any] | None = None) -> list[str]:
    """Errors of one scenario against the engine (empty list: it passes).

    ``presets`` / ``defaults``: the file's ``presets`` and ``option_defaults`` tables; when given,
    the engine's preset must have exactly those option values.
    """
    errors: list[str] = []
    try:
        checks = _expand(scn)
    except ScenarioError as e:
        return [str(e)]
    if presets is not None:
        for name in sorted({c.preset for c in checks}):
            errors.extend(_preset_errors(name, presets, defaults))
    for c in checks:
        prefix = f"{c.label}: " if c.label else ""
        try:
            errs = _run_check(c)
        except ScenarioError as e:
            errs = [str(e)]
        except CasinoError as e:
            errs = [f"engine error: {type(e).__name__}: {e}"]
        except Exception as e:  # a crash in the engine or a malformed field: never a pass
            errs = [f"crash: {type(e).__name__}: {e}"]
        errors.extend(prefix + x for x in errs)
    return errors


def _preset_errors(name: str, presets: Mapping[str, Any],
                   defaults: Mapping[str, Any] | None) -> list[str]:
    try:
        key = resolve_preset_name(name)
        eng = Rules.preset(key).options()
    except CasinoError as e:
        return [f"preset {name!r}: {e}"]
    spec = presets.get(name, presets.get(key))
    if spec is None:
        return []
    overrides = spec.get("overrides_of_defaults", spec) if isinstance(spec, dict) else None
    if not isinstance(overrides, dict):
        return [f"cannot interpret the file's preset {name!r}"]
    want = {**(defaults or {}), **overrides}
    diffs = [f"{k}: file {v!r}, engine {eng.get(k, '<missing>')!r}"
             for k, v in want.items() if eng.get(k, "<missing>") != v]
    return [f"preset {name} differs from the file: " + "; ".join(diffs)] if diffs else []


def run_data(data: Json, only: Sequence[str] | None = None) -> list[Result]:
    """Check every scenario of a loaded scenario file."""
    scns = data.get("scenarios")
    if not isinstance(scns, list):
        raise ValueError("the file has no 'scenarios' list")
    presets = data.get("presets") if isinstance(data.get("presets"), dict) else None
    defaults = data.get("option_defaults") if isinstance(data.get("option_defaults"),
                                                         dict) else None
    results = []
    for i, scn in enumerate(scns):
        sid = str(scn.get("id", f"#{i}")) if isinstance(scn, dict) else f"#{i}"
        if only and sid not in only:
            continue
        if not isinstance(scn, dict):
            results.append(Result(sid, ["a scenario must be an object"]))
            continue
        results.append(Result(sid, check_scenario(scn, presets, defaults)))
    return results


def run_file(path: str | Path, only: Sequence[str] | None = None) -> list[Result]:
    """Check every scenario of the file at ``path``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return run_data(data, only)


# =============================================================================== dispatch
def _run_check(c: Check) -> list[str]:
    pos = c.position
    e = c.expect
    if not set(e) - INFO_KEYS:
        raise ScenarioError("nothing to check: no expectation fields")
    if "initial_table" in pos:
        return _grant_check(c)
    if "event" in pos:
        return _event_check(c)
    if "claimant" in pos:
        return _claim_check(c)
    if "table" in pos or "hand" in pos or "hands" in pos:
        return _move_check(c)
    if "captured" in pos:
        return _scoring_check(c)
    if any(k.startswith("scores_") for k in pos):
        return _game_end_check(c)
    if "stock_top_first" in pos:
        return _deal_pattern_check(c)
    if "hand_size_before" in pos or "stock_size_before" in pos or "after_play_and_draw" in e:
        return _draw_check(c)
    if set(e) & DEAL_KEYS:
        return _deal_check(c)
    raise ScenarioError("cannot tell what this scenario checks (no table, hand, captured piles, "
                        "scores, deal or event in its position)")


def _leftover(expect: Json, used: set[str], what: str = "expectation") -> list[str]:
    rest = sorted(set(expect) - used - INFO_KEYS)
    return [f"cannot interpret {what} field(s) {rest}"] if rest else []


def _check_position_keys(pos: Json, allowed: set[str]) -> None:
    rest = sorted(set(pos) - allowed - INFO_KEYS)
    if rest:
        raise ScenarioError(f"cannot interpret position field(s) {rest}")


# =============================================================================== positions
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


def _per_seat(spec: Any, n: int, what: str, conv: Callable[[Any], Any]) -> dict[int, Any]:
    if spec is None:
        return {}
    if isinstance(spec, list):
        return {i: conv(v) for i, v in enumerate(spec)}
    if isinstance(spec, dict):
        return {_seat(k, n): conv(v) for k, v in spec.items()}
    raise ScenarioError(f"cannot interpret {what} {spec!r}")


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


def rules_deal_sizes(rules: Rules, n: int) -> list[int]:
    sizes = deal_sizes(rules, n)
    if sizes is None:
        raise ScenarioError(f"{rules.preset_name} cannot be dealt to {n} players")
    return sizes


# =============================================================================== moves
def _pile_ids(spec: Any) -> list[Any]:
    """Pile ids as a list; "T1+T2" / "T1, T2" strings are accepted too."""
    if isinstance(spec, str):
        return [x for x in re.split(r"[\s,+]+", spec.strip()) if x]
    if isinstance(spec, list):
        return spec
    raise ScenarioError(f"cannot interpret pile list {spec!r}")


def _move_kind(md: Json) -> tuple[str, str | None]:
    t = md.get("type", md.get("action"))
    kind = md.get("kind")
    if t is None and kind in MOVE_KINDS:
        t, kind = kind, None
    if t is None:
        t = "build" if "value" in md else "capture" if md.get("piles") else "trail"
    t = {"take": "capture", "build_on": "build"}.get(str(t), str(t))
    if t not in MOVE_KINDS:
        raise ScenarioError(f"unknown move type {t!r} in {md!r}")
    if kind is not None and kind not in ("single", "multiple"):
        raise ScenarioError(f"build kind must be single or multiple, not {kind!r}")
    return t, kind


def to_move(md: Any, b: Built, st: State | None = None) -> tuple[Move, bool | None]:
    """A scenario move dict as an engine Move (piles as table indices) and the expected kind."""
    st = st or b.state
    if not isinstance(md, dict):
        raise ScenarioError(f"cannot interpret move {md!r}")
    unknown = set(md) - {"type", "action", "kind", "card", "piles", "value"}
    if unknown:
        raise ScenarioError(f"unknown move field(s) {sorted(unknown)} in {md!r}")
    t, kind = _move_kind(md)
    if t == "pass":
        return Move.pass_(), None
    if t == "claim":
        return Move.claim(), None
    piles = _pile_ids(md.get("piles") or [])
    if t == "pluck":
        if "card" in md:
            return Move.pluck(_card(md["card"])), None
        if len(piles) == 1:
            p = b.ids.get(piles[0])
            if isinstance(p, int):
                return Move.pluck(p), None
        raise ScenarioError(f"cannot interpret pluck {md!r}")
    card = _card(md.get("card"))
    idx = [b.index(p, st) for p in piles]
    if t == "trail":
        if idx:
            raise ScenarioError(f"a trail takes no piles: {md!r}")
        return Move.trail(card), None
    if t == "capture":
        if not idx:
            raise ScenarioError(f"a capture needs piles: {md!r}")
        return Move.capture(card, idx), None
    if "value" not in md:
        raise ScenarioError(f"a build needs a value: {md!r}")
    value, court = _value(md["value"], st.rules)
    single = None if kind is None else kind == "single"
    return Move("build", card, tuple(sorted(idx)), value, single, court), single


def fmt_move(md: Any) -> str:
    if not isinstance(md, dict):
        return repr(md)
    t, kind = _move_kind(md)
    s = f"{t} {md.get('card', '')}".strip()
    if md.get("piles"):
        s += " " + "+".join(map(str, md["piles"]))
    if "value" in md:
        s += f" ={md['value']}"
    if kind:
        s += f" ({kind})"
    return s


def _hand_has(b: Built, mv: Move, st: State | None = None) -> bool:
    st = st or b.state
    return mv.kind not in ("trail", "capture", "build") or mv.card in st.hands[st.to_move]


def _legal_error(b: Built, md: Any) -> str | None:
    mv, single = to_move(md, b)
    st = b.state
    try:
        legal = st.check_move(mv)
    except IllegalMoveError as e:
        return f"expected legal: {fmt_move(md)}; engine refuses: {e}"
    if single is not None and legal.single != single:
        return f"{fmt_move(md)} is legal but makes a {legal.build_kind} build"
    if not any(m.same_action(mv) for m in st.legal_moves()):
        return f"{fmt_move(md)}: check_move accepts it but legal_moves() does not list it"
    return None


def _illegal_error(b: Built, md: Any) -> str | None:
    mv, single = to_move(md, b)
    st = b.state
    if not _hand_has(b, mv):
        return f"illegal move {fmt_move(md)} uses a card the player does not hold (untestable)"
    listed = [m for m in st.legal_moves() if m.same_action(mv)]
    try:
        legal = st.check_move(mv)
    except IllegalMoveError:
        if listed and (single is None or listed[0].single == single):
            return f"{fmt_move(md)}: check_move refuses it but legal_moves() lists it"
        return None
    if single is not None and legal.single != single:
        return None  # legal only as the other kind of build
    return f"expected illegal: {fmt_move(md)}; the engine allows it"


def _move_key(m: Move, b: Built, st: State) -> tuple[Any, ...]:
    piles = tuple(sorted(b.id_of(st.table[i]) for i in m.piles))
    return (m.kind, m.card, piles, m.value, m.court)


def _key_str(k: tuple[Any, ...]) -> str:
    kind, card, piles, value, court = k
    s = kind + (f" {card_str(card)}" if card >= 0 else "")
    if piles:
        s += " " + "+".join(piles)
    if value is not None:
        s += f" ={RANKS[value - 1] if court else value}"
    return s


# =============================================================================== move scenarios
def _move_check(c: Check) -> list[str]:
    rules = c.rules()
    e = c.expect
    b = build_position(rules, c.position)
    st = b.state
    errs: list[str] = []
    used: set[str] = set()

    if "legal_moves" in e or "illegal_moves" in e or "legal_moves_complete" in e:
        used |= {"legal_moves", "illegal_moves", "legal_moves_complete"}
        legal = e.get("legal_moves") or []
        illegal = e.get("illegal_moves") or []
        if not isinstance(legal, list) or not isinstance(illegal, list):
            raise ScenarioError("legal_moves and illegal_moves must be lists")
        for md in legal:
            err = _legal_error(b, md)
            if err:
                errs.append(err)
        for md in illegal:
            err = _illegal_error(b, md)
            if err:
                errs.append(err)
        if e.get("legal_moves_complete"):
            if not legal:
                raise ScenarioError("legal_moves_complete without legal_moves")
            kinds = {"trail", "capture", "build"} | {_move_kind(md)[0] for md in legal}
            want = {_move_key(to_move(md, b)[0], b, st) for md in legal}
            have = {_move_key(m, b, st) for m in st.legal_moves() if m.kind in kinds}
            if want != have:
                errs.append("legal moves differ: missing "
                            f"{sorted(_key_str(k) for k in want - have)}, unexpected "
                            f"{sorted(_key_str(k) for k in have - want)}")

    if "legal_captures" in e or "must_not_be_legal" in e:
        used |= {"legal_captures", "legal_captures_complete", "must_not_be_legal", "played_card"}
        errs.extend(_captures_check(c, b))
    elif "played_card" in e and not ({"after_capture"} & set(e)):
        raise ScenarioError("played_card without legal_captures")
    used.add("played_card")

    for k in ("legal_move_types", "first_player_legal_move_types"):
        if k in e:
            used.add(k)
            errs.extend(_types_error(st, e[k], "legal move types"))

    if "after_move" in e:
        used.add("after_move")
        md = c.context.get("move", c.context.get("first_legal"))
        if md is None:
            raise ScenarioError("after_move but no move to play (no move / legal_moves)")
        errs.extend(_play_and_compare(b, md, _obj(e["after_move"], "after_move")))
    if "after_capture" in e:
        used.add("after_capture")
        after = _obj(e["after_capture"], "after_capture")
        md = c.context.get("move") if "move" in e else None
        if md is None:
            md = _choose_capture(c, b, after)
        errs.extend(_play_and_compare(b, md, after))
    post = {k: e[k] for k in e if k in POST_KEYS and k not in used}
    if "move" in e or post:
        used.add("move")
        used |= set(post)
        md = c.context.get("move")
        if md is None:
            raise ScenarioError(f"field(s) {sorted(post)} describe the result of a move, but "
                                f"no move is given")
        if "move" in e:
            err = _legal_error(b, md)
            if err:
                return [*errs, err]
        errs.extend(_play_and_compare(b, md, post))

    if "checks" in e:
        used.add("checks")
        if not isinstance(e["checks"], list):
            raise ScenarioError("checks must be a list")
        for i, chk in enumerate(e["checks"]):
            errs.extend(f"checks[{i}]: {x}" for x in _action_check(rules, c.position, chk))
    errs.extend(_leftover(e, used))
    return errs


def _obj(x: Any, what: str) -> Json:
    if not isinstance(x, dict):
        raise ScenarioError(f"{what} must be an object")
    return x


def _types_error(st: State, want: Any, what: str) -> list[str]:
    if not isinstance(want, list):
        raise ScenarioError(f"{what} must be a list")
    for t in want:
        if t not in MOVE_KINDS:
            raise ScenarioError(f"unknown move type {t!r}")
    have = sorted({m.kind for m in st.legal_moves()})
    if set(have) != set(want):
        return [f"{what}: expected {sorted(set(want))}, engine {have}"]
    return []


def _captures_check(c: Check, b: Built) -> list[str]:
    e = c.expect
    st = b.state
    played_s = e.get("played_card", c.context.get("played_card"))
    if played_s is None:
        raise ScenarioError("legal_captures without played_card")
    played = _card(played_s)
    if played not in st.hands[st.to_move]:
        raise ScenarioError(f"played card {played_s} is not in the player's hand")
    complete = e.get("legal_captures_complete", c.context.get("legal_captures_complete", False))
    want_l = e.get("legal_captures", [])
    bad_l = e.get("must_not_be_legal", [])
    if not isinstance(want_l, list) or not isinstance(bad_l, list):
        raise ScenarioError("legal_captures / must_not_be_legal must be lists of pile-id lists")
    want_l = [_pile_ids(ps) for ps in want_l]
    bad_l = [_pile_ids(ps) for ps in bad_l]
    for ps in [*want_l, *bad_l]:
        if not isinstance(ps, list) or not ps:
            raise ScenarioError(f"a capture must be a nonempty list of pile ids, not {ps!r}")
        for p in ps:
            b.index(p)
    want = {frozenset(ps) for ps in want_l}
    bad = {frozenset(ps) for ps in bad_l}
    have = {frozenset(b.id_of(st.table[i]) for i in m.piles)
            for m in st.legal_moves() if m.kind == "capture" and m.card == played}
    errs = []

    def s(sets: set[frozenset[str]]) -> str:
        return str(sorted(sorted(x) for x in sets))

    missing = want - have
    if missing:
        errs.append(f"{played_s}: captures missing from the engine: {s(missing)}")
    if complete and have - want:
        errs.append(f"{played_s}: unexpected captures: {s(have - want)}")
    if bad & have:
        errs.append(f"{played_s}: captures that must not be legal are legal: {s(bad & have)}")
    # check_move must agree with the move list
    for ps in want | bad:
        mv = Move.capture(played, [b.index(p) for p in ps])
        try:
            st.check_move(mv)
            ok = True
        except IllegalMoveError:
            ok = False
        if ok != (ps in have):
            errs.append(f"{played_s} takes {sorted(ps)}: check_move says "
                        f"{'legal' if ok else 'illegal'} but legal_moves() disagrees")
    return errs


def _choose_capture(c: Check, b: Built, after: Json) -> Json:
    """The capture whose result after_capture describes (the listed one leaving that table)."""
    e = c.expect
    played = e.get("played_card", c.context.get("played_card"))
    caps = [_pile_ids(x) for x in e.get("legal_captures", [])]
    if played is None:
        raise ScenarioError("after_capture without played_card or move")
    if not caps:
        cap = c.context.get("capture")
        if cap is None:
            raise ScenarioError("after_capture but no capture is listed")
        return dict(cap)
    chosen = caps[0]
    if "table" in after and isinstance(after["table"], list):
        want = _table_norm(after["table"], b)
        for ps in caps:
            rest = [pid for pid in b.ids if pid not in ps]
            if Counter(frozenset(pile_cards(b.ids[p])) for p in rest) == want:
                chosen = ps
                break
    return {"type": "capture", "card": played, "piles": chosen}


def _table_norm(spec: list[Any], b: Built | None) -> Counter[frozenset[Card]]:
    out: Counter[frozenset[Card]] = Counter()
    for item in spec:
        if isinstance(item, str) and b is not None and item in b.ids:
            out[frozenset(pile_cards(b.ids[item]))] += 1
        elif isinstance(item, str):
            out[frozenset(_cards_run(item))] += 1
        elif isinstance(item, dict):
            cs = item.get("cards", [item["card"]] if "card" in item else None)
            if cs is None:
                raise ScenarioError(f"cannot interpret table entry {item!r}")
            out[frozenset(_cards(cs))] += 1
        elif isinstance(item, list):
            out[frozenset(_cards(item))] += 1
        else:
            raise ScenarioError(f"cannot interpret table entry {item!r}")
    return out


def _play_and_compare(b: Built, md: Any, post: Json) -> list[str]:
    st = b.state.clone()
    mv, single = to_move(md, b, st)
    try:
        legal = st.check_move(mv)
    except IllegalMoveError as e:
        return [f"cannot play {fmt_move(md)}: {e}"]
    if single is not None and legal.single != single:
        return [f"{fmt_move(md)} would make a {legal.build_kind} build"]
    before = st.clone()
    ev = st.apply(legal)
    return _compare_after(before, st, ev, b, post)


def _compare_after(before: State, st: State, ev: MoveEvent | None, b: Built | None,
                   post: Json) -> list[str]:
    """Compare result fields (POST_KEYS) of the state reached from ``before``."""
    errs: list[str] = []
    names = SideNames(st.sides)
    summary = st.round_summaries[-1] if st.round_summaries and len(
        st.round_summaries) > len(before.round_summaries) else None

    def need_summary(k: str) -> Any:
        if summary is None:
            raise ScenarioError(f"{k}: the round did not end on this move")
        return summary

    for k, want in post.items():
        if k in INFO_KEYS:
            continue
        if k == "table":
            if not isinstance(want, list):
                raise ScenarioError("table must be a list")
            have = Counter(frozenset(pile_cards(p)) for p in st.table)
            if _table_norm(want, b) != have:
                errs.append(f"table after: expected {want}, engine {_table_desc(st.table)}")
        elif k in ("sweep_awarded_to", "sweep"):
            got = [s for s in range(st.num_players) if st.sweeps[s] > before.sweeps[s]]
            if k == "sweep":
                if bool(got) != _bool(want, "sweep"):
                    errs.append(f"sweep: expected {want}, engine {bool(got)}")
                continue
            exp = _opt_seat(want, st.num_players)
            if got != ([] if exp is None else [exp]):
                errs.append(f"sweep awarded to: expected {want}, engine {got or None}")
        elif k == "last_capturer":
            exp = _opt_seat(want, st.num_players)
            if st.last_capturer != exp:
                errs.append(f"last capturer: expected {want}, engine {st.last_capturer}")
        elif k in ("residue", "residue_cards"):
            s = need_summary(k)
            if sorted(s.residue) != sorted(_cards(want)):
                errs.append(f"residue: expected {want}, engine {_cstr(s.residue)}")
        elif k == "residue_to":
            s = need_summary(k)
            exp = _opt_seat(want, st.num_players)
            got = s.residue_to if s.residue else None  # nobody receives an empty residue
            if got != exp:
                errs.append(f"residue to: expected {want}, engine {got}")
        elif k in ("build_value", "value", "kind", "owner", "build"):
            nb = ev.build if ev is not None else None
            if nb is None:
                errs.append(f"{k}: the move made no build")
                continue
            if k == "owner":
                if nb.owner != _seat(want):
                    errs.append(f"build owner: expected {want}, engine {nb.owner}")
            elif k == "kind":
                if nb.kind != want:
                    errs.append(f"build kind: expected {want}, engine {nb.kind}")
            elif k == "build":
                errs.extend(_compare_after(before, st, ev, b, _obj(want, "build")))
            else:
                v, court = _value(want, st.rules)
                if (nb.value, nb.court) != (v, court):
                    errs.append(f"build value: expected {want}, engine {nb.value_str()}")
        elif k in ("captured", "captured_cards"):
            got = sorted(ev.captured) if ev is not None else []
            if got != sorted(_cards(want)):
                errs.append(f"captured: expected {want}, engine {_cstr(got)}")
        elif k in ("to_move", "next_player"):
            if st.current_player != _opt_seat(want):
                errs.append(f"next player: expected {want}, engine {st.current_player}")
        elif k in ("legal_move_types", "next_player_legal_move_types"):
            errs.extend(_types_error(st, want, "next player's legal move types"))
        elif k == "hand_size":
            seat = before.to_move
            if len(st.hands[seat]) != _int(want, k):
                errs.append(f"hand size: expected {want}, engine {len(st.hands[seat])}")
        elif k == "stock_size":
            if len(st.stock) != _int(want, k):
                errs.append(f"stock size: expected {want}, engine {len(st.stock)}")
        elif k in ("round_over", "round_ends"):
            over = st.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
            if over != _bool(want, k):
                errs.append(f"{k}: expected {want}, engine {over}")
        elif k == "is_last_deal":
            if st.is_last_deal != _bool(want, k):
                errs.append(f"is_last_deal: expected {want}, engine {st.is_last_deal}")
        elif k == "round_points":
            s = need_summary(k)
            errs.extend(_points_errors(_obj(want, k), s.scores, names, st.rules))
        elif k in ("scores", "scores_after"):
            errs.extend(_scores_errors(_obj(want, k), st.scores, names, "scores"))
        elif k == "winner":
            exp = None if want is None else names.index(want)
            if st.winner != exp or (exp is not None and not st.is_game_over):
                errs.append(f"winner: expected {want}, engine "
                            f"{names.name(st.winner, [*post.get('scores_after', {})])}")
        elif k == "game_over":
            if st.is_game_over != _bool(want, k):
                errs.append(f"game over: expected {want}, engine {st.is_game_over}")
        elif k == "sweeps":
            got_sw = _per_seat(want, st.num_players, "sweeps", lambda v: _int(v, "sweeps"))
            for seat, v in got_sw.items():
                if st.sweeps[seat] != v:
                    errs.append(f"sweeps of seat {seat}: expected {v}, engine {st.sweeps[seat]}")
        else:
            errs.append(f"cannot interpret result field {k!r}")
    return errs


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


# =============================================================================== action checks
_STEP_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("pass", re.compile(r"(?:pass|decline(?: the pluck)?|do not pluck|pluck nothing)", re.I)),
    ("claim", re.compile(r"claim(?: the game)?", re.I)),
    ("pluck", re.compile(r"pluck\s+(?P<refs>.+?)(?:\s+(?P<when>before|after)\s+playing"
                         r"(?:\s+(?:a|the|his|her|their)\s+card)?)?", re.I)),
    ("trail", re.compile(r"trail\s+(?:the\s+)?(?P<card>\S+)", re.I)),
    ("capture", re.compile(r"(?:capture|take)\s+(?P<refs>.+?)\s+with\s+(?:the\s+)?(?P<card>\S+)",
                           re.I)),
    ("capture", re.compile(r"(?:the\s+)?(?P<card>\S+)\s+(?:captures|takes)\s+(?P<refs>.+)", re.I)),
    ("build", re.compile(r"build\s+(?P<value>\S+)\s+with\s+(?:the\s+)?(?P<card>\S+)\s+on\s+"
                         r"(?P<refs>.+)", re.I)),
    ("build", re.compile(r"(?:the\s+)?(?P<card>\S+)\s+builds\s+(?P<value>\S+)\s+on\s+"
                         r"(?P<refs>.+)", re.I)),
]


def parse_action(text: str) -> list[tuple[str, dict[str, str]]]:
    """English action text -> steps, e.g. "trail 6H, then pluck T1 (7C)"."""
    t = re.sub(r"^pluck\s+(.+?)\s+after\s+trailing\s+(?:the\s+)?(\S+)$", r"trail \2, then pluck \1",
               text.strip().rstrip("."), flags=re.I)
    parts = [p.strip() for p in re.split(r"\s*(?:,|;)?\s*(?:and\s+)?then\s+", t)]
    steps = []
    for part in parts:
        part = part.rstrip(".")
        for kind, pat in _STEP_PATTERNS:
            m = pat.fullmatch(part)
            if m:
                steps.append((kind, {k: v for k, v in m.groupdict().items() if v}))
                break
        else:
            raise ScenarioError(f"cannot interpret action step {part!r} (in {text!r})")
    if not steps:
        raise ScenarioError(f"empty action {text!r}")
    return steps


def _resolve_refs(text: str, b: Built, st: State) -> list[Card | str]:
    """Table references "T1", "T1 (7C)", "the 6H" -> pile ids (str) or cards (int)."""
    out: list[Card | str] = []
    for ref in (r.strip() for r in re.split(r"\s*(?:,|\+|\band\b)\s*", text) if r.strip()):
        m = re.fullmatch(r"(?:the\s+)?(T\d+)(?:\s*\(\s*([^)]*?)\s*\))?", ref, re.I)
        if m:
            pid = m.group(1).upper()
            if pid not in b.ids:
                raise ScenarioError(f"unknown table pile {pid}")
            if m.group(2):
                named = sorted(_cards_run(m.group(2)))
                if named != sorted(pile_cards(b.ids[pid])):
                    raise ScenarioError(f"{pid} is {_pile_desc(b.ids[pid])}, not {m.group(2)}")
            out.append(pid)
            continue
        m = re.fullmatch(r"(?:the\s+)?(\S+)", ref, re.I)
        if m is None:
            raise ScenarioError(f"cannot interpret the table reference {ref!r}")
        out.append(_card(m.group(1)))
    return out


def _action_check(rules: Rules, pos: Json, chk: Any) -> list[str]:
    if not isinstance(chk, dict):
        raise ScenarioError(f"cannot interpret check {chk!r}")
    if "action" not in chk or "legal" not in chk:
        raise ScenarioError(f"a check needs an action and legal: {chk!r}")
    text = chk["action"]
    want_legal = _bool(chk["legal"], "legal")
    after: Json = {}
    for k, v in chk.items():
        if k in ("action", "legal") or k in INFO_KEYS:
            continue
        if k.endswith("_after") and k[:-6] in POST_KEYS:
            after[k[:-6]] = v
        elif k in POST_KEYS:
            after[k] = v
        else:
            raise ScenarioError(f"cannot interpret check field {k!r}")
    steps = parse_action(str(text))
    b = build_position(rules, pos)
    st = b.state.clone()
    mover = st.to_move
    played = False
    start = st.clone()  # result fields describe the whole action
    for i, (kind, g) in enumerate(steps):
        last = i == len(steps) - 1
        reason: str | None = None
        mv: Move | None = None
        if kind == "pluck":
            when = g.get("when", "").lower()
            if when == "before" and played:
                raise ScenarioError(f"{text!r}: 'before playing' after a play")
            if when == "after" and not played:
                raise ScenarioError(f"{text!r}: 'after playing' but nothing was played")
            refs = _resolve_refs(g["refs"], b, st)
            if len(refs) != 1:
                raise ScenarioError(f"{text!r}: a pluck takes one card")
            ref = refs[0]
            card = ref if isinstance(ref, int) else b.ids[ref]
            if isinstance(card, Build):
                mv = Move.pluck(card.cards[0])
                reason = "builds cannot be plucked"
            else:
                mv = Move.pluck(card)
        elif kind == "pass":
            mv = Move.pass_()
        elif kind == "claim":
            mv = Move.claim()
        else:
            card = _card(g["card"])
            if card not in st.hands[mover]:
                raise ScenarioError(f"{text!r}: the player does not hold {g['card']}")
            if kind == "trail":
                mv = Move.trail(card)
            else:
                idx = []
                for ref in _resolve_refs(g["refs"], b, st):
                    pile: Pile = b.ids[ref] if isinstance(ref, str) else ref
                    if pile not in st.table:
                        raise ScenarioError(f"{text!r}: {_pile_desc(pile)} is not on the table")
                    idx.append(st.table.index(pile))
                if kind == "capture":
                    mv = Move.capture(card, idx)
                else:
                    value, court = _value(g["value"], rules)
                    mv = Move("build", card, tuple(sorted(idx)), value, None, court)
        assert mv is not None
        if reason is None:
            if st.to_move != mover or st.phase not in (Phase.PLAY, Phase.PLUCK):
                reason = "the player's turn is over" if played else "it is not this player's turn"
            elif played and kind in ("pluck", "pass") and st.phase != Phase.PLUCK:
                reason = "the player's turn is over"
            else:
                try:
                    mv = st.check_move(mv)
                except IllegalMoveError as e:
                    reason = str(e)
                    if any(m.same_action(mv) for m in st.legal_moves()):
                        return [f"{text!r}: step {i + 1}: check_move refuses it ({reason}) but "
                                f"legal_moves() lists it"]
        if not last:
            if reason is not None:
                return [f"{text!r}: step {i + 1} is refused by the engine ({reason})"]
            st.apply(mv)
            played = played or kind in ("trail", "capture", "build")
            continue
        ok = reason is None
        if ok != want_legal:
            return [f"{text!r}: expected {'legal' if want_legal else 'illegal'}, engine "
                    + ("allows it" if ok else f"refuses it ({reason})")]
        if after:
            if not ok:
                raise ScenarioError(f"{text!r}: result fields for an illegal action")
            ev = st.apply(mv)
            return _compare_after(start, st, ev, b, after)
    return []


# =============================================================================== scoring
SCORING_POS_KEYS = {"sides", "captured", "sweeps", "last_capturer", "counts", "num_players",
                    "scores_before_round", "round_no", "target"}


def _scoring_setup(rules: Rules, pos: Json) -> tuple[int, SideNames, list[list[Card]],
                                                      list[int], int | None]:
    declared = pos.get("sides")
    cap_spec = pos.get("captured")
    if not isinstance(cap_spec, dict | list):
        raise ScenarioError("captured must map seats to cards")
    seats = set(_per_seat(cap_spec, None, "captured", _cards))  # type: ignore[arg-type]
    if isinstance(declared, dict):
        for v in declared.values():
            seats.update(_seat(s) for s in v)
    n = _int(pos.get("num_players", max(seats) + 1 if seats else 2), "num_players")
    captured_d = _per_seat(cap_spec, n, "captured", _cards)
    captured = [captured_d.get(s, []) for s in range(n)]
    sweeps_d = _per_seat(pos.get("sweeps"), n, "sweeps", lambda v: _int(v, "sweeps"))
    sweeps = [sweeps_d.get(s, 0) for s in range(n)]
    last = _opt_seat(pos.get("last_capturer"), n)
    try:
        eng_sides = State(rules, n, deal=False).sides
    except CasinoError:
        eng_sides = None
    if isinstance(declared, dict):
        decl_sides = [[_seat(s, n) for s in v] for v in declared.values()]
        if eng_sides is not None and sorted(map(sorted, decl_sides)) != sorted(map(sorted,
                                                                                  eng_sides)):
            raise ScenarioError(f"the scenario's sides {declared} are not the engine's sides "
                                f"{eng_sides} for {n} players")
        sides = eng_sides if eng_sides is not None else decl_sides
        names = SideNames(sides, declared)
    else:
        sides = eng_sides if eng_sides is not None else [[s] for s in range(n)]
        names = SideNames(sides)
    return n, names, captured, sweeps, last


def _scoring_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, SCORING_POS_KEYS)
    n, names, captured, sweeps, last = _scoring_setup(rules, pos)
    errs: list[str] = []
    used: set[str] = set()
    if "counts" in pos:
        errs.extend(_counts_errors(rules, pos["counts"], captured, n))
    if "round_points" in e:
        used.add("round_points")
        scores = scoring.score_round(rules, names.sides, captured, sweeps, last)
        pooled = [[c_ for s in side for c_ in captured[s]] for side in names.sides]
        errs.extend(_points_errors(_obj(e["round_points"], "round_points"), scores, names,
                                   rules, pooled))
    game_keys = {"scores_after", "winner", "game_over", "_statement"} & set(e)
    if game_keys:
        used |= game_keys
        scores_before = _scores_list(pos.get("scores_before_round"), names)
        rno = pos.get("round_no")
        if "_statement" in e:
            errs.extend(_statement_errors(
                e["_statement"], names,
                lambda r, sb: _drive_round_end(rules, n, captured, sweeps, last, sb, r,
                                               pos.get("target")), scores_before))
        if game_keys - {"_statement"}:
            st = _drive_round_end(rules, n, captured, sweeps, last, scores_before,
                                  _int(rno, "round_no") if rno is not None else
                                  (1 if not any(scores_before) else 2), pos.get("target"))
            errs.extend(_end_fields(st, e, names, game_keys - {"_statement"}))
    errs.extend(_leftover(e, used))
    return errs


def _counts_errors(rules: Rules, counts: Any, captured: list[list[Card]], n: int) -> list[str]:
    errs = []
    per = _per_seat(counts, n, "counts", lambda v: _obj(v, "counts"))
    scores = scoring.score_round(rules, [[s] for s in range(n)], captured, [0] * n, None)
    for seat, d in per.items():
        for k, v in d.items():
            if k == "cards":
                got = scores[seat].cards
            elif k in ("spades", "hearts", "diamonds", "clubs"):
                got = scores[seat].suit_counts[("spades", "hearts", "diamonds", "clubs").index(k)]
            else:
                raise ScenarioError(f"cannot interpret count {k!r}")
            if got != v:
                errs.append(f"counts of seat {seat}: {k} {v} in the scenario, engine counts {got}")
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


# =============================================================================== realizing rounds
def realize_round(rules: Rules, sides: Sequence[Sequence[int]], n: int,
                  want: Sequence[tuple[int | None, dict[str, Any] | None]],
                  last: int | None) -> tuple[list[list[Card]], list[int]]:
    """Capture piles and sweeps whose round scores (by the engine's own scoring, exactly as the
    end of a round computes them) match ``want`` per side, ``last`` being the last capturer.
    Raises ScenarioError if no such round exists."""
    captured, sweeps, _last = realize_round_last(rules, sides, n, want, last)
    return captured, sweeps


def realize_round_last(rules: Rules, sides: Sequence[Sequence[int]], n: int,
                       want: Sequence[tuple[int | None, dict[str, Any] | None]],
                       last: int | None, *, choose_last: bool = False,
                       ) -> tuple[list[list[Card]], list[int], int | None]:
    """:func:`realize_round`, also returning the last capturer: with ``choose_last`` the last
    capture goes where the points need it (``last`` is then only the fallback seat).

    The round is constructed (:mod:`.realize`: point cards placed by class with the sides'
    points as exact budgets, card and suit counts solved directly); a search over a few splits
    of the cards is the fallback. The engine's :func:`scoring.score_round` is the judge.
    """
    def accept(i: int, score: scoring.SideScore, cards: Sequence[Card]) -> bool:
        return _score_matches(score, want[i], cards, rules)

    try:
        return build_round(rules, sides, n, want, None if choose_last else last, accept,
                           choose_last=choose_last)
    except Unrealizable as e:
        if not e.gave_up:  # the construction is exhaustive: no such round
            raise ScenarioError(f"cannot construct a round worth these points under "
                                f"{rules.preset_name}: {list(want)} ({e})") from e
    captured, sweeps = _search_round(rules, sides, n, want, last)
    return captured, sweeps, last


def _search_round(rules: Rules, sides: Sequence[Sequence[int]], n: int,
                  want: Sequence[tuple[int | None, dict[str, Any] | None]],
                  last: int | None) -> tuple[list[list[Card]], list[int]]:
    """The fallback: splits of the cards and of the majority suit, owners of the point cards and
    then sweeps to make up the difference."""
    deck = list(rules.deck_cards)
    k = len(sides)
    aces = [c for c in deck if rank_of(c) == ACE]
    others: list[Card] = []
    extra_cards = [rules.big_casino, rules.little_casino]
    if rules.spade_scoring != "none":
        extra_cards.append(make_card(JACK, SPADES))
    if rules.diamond_scoring:
        extra_cards.append(make_card(6, DIAMONDS))
    for c in extra_cards:
        if c in deck and c not in aces and c not in others:
            others.append(c)
    # which ace goes where matters only for per-suit ace items (count-out) and Hoyle's AS
    specific = (rules.spade_scoring == "hoyle26" or rules.game_end == "count_out"
                or any(key.startswith("ace_") for _t, items in want if items for key in items))
    ace_splits: list[tuple[int, ...]] = (
        list(itertools.product(range(k), repeat=len(aces))) if specific
        else list(itertools.combinations_with_replacement(range(k), len(aces))))
    special = aces + others
    msuit = DIAMONDS if rules.diamond_scoring else rules.majority_suit_index
    n_suit = sum(1 for c in deck if suit_of(c) == msuit)
    sp = rules.sweep_points if rules.score_timing == "end_of_round" else 0
    budget = 200_000
    for cp in _count_patterns(len(deck), k):
        for spp in _count_patterns(n_suit, k):
            for a_own, o_own in itertools.product(
                    ace_splits, itertools.product(range(k), repeat=len(others))):
                piles = _fill_piles(deck, special, a_own + o_own, msuit, spp, cp, k)
                if piles is None:
                    continue
                budget -= 1
                if budget < 0:
                    raise ScenarioError("gave up constructing a round worth these points under "
                                        f"{rules.preset_name}: {list(want)}")
                captured: list[list[Card]] = [[] for _ in range(n)]
                for i, side in enumerate(sides):
                    captured[side[0]] = piles[i]
                sweeps = _sweeps_for(rules, sides, captured, last, want, sp, n)
                if sweeps is None:
                    continue
                final = scoring.score_round(rules, sides, captured, sweeps, last,
                                            skip_immediate=True)
                pooled = [[c for s in side for c in captured[s]] for side in sides]
                if all(_score_matches(final[i], want[i], pooled[i], rules) for i in range(k)):
                    return captured, sweeps
    raise ScenarioError("cannot construct a round worth these points under "
                        f"{rules.preset_name}: {list(want)}")


def _sweeps_for(rules: Rules, sides: Sequence[Sequence[int]], captured: list[list[Card]],
                last: int | None, want: Sequence[tuple[int | None, dict[str, Any] | None]],
                sp: int, n: int) -> list[int] | None:
    """Sweep counts that would bring each side from its points without sweeps to ``want``."""
    sweeps = [0] * n
    base = scoring.score_round(rules, sides, captured, sweeps, last, skip_immediate=True)
    for i, (total, items) in enumerate(want):
        if total is None and items is None:
            continue
        if items is not None and "sweeps" in items:
            extra = _int(items["sweeps"], "sweeps")
        else:
            goal = total if total is not None else _items_total(items)
            extra = 0 if goal is None else goal - base[i].total
        if extra < 0 or (extra and not sp) or (sp and extra % sp):
            return None
        sweeps[sides[i][0]] = extra // sp if sp else 0
    return sweeps


def _items_total(items: dict[str, Any] | None) -> int | None:
    if items is None:
        return None
    if all(isinstance(v, int) and not isinstance(v, bool) for v in items.values()):
        return sum(items.values())
    return None


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


def _count_patterns(total: int, k: int) -> list[list[int]]:
    """Ways to split ``total`` cards between k sides: each side alone on top (absolute majority
    and plain plurality), ties at the top, even splits."""
    pats: list[list[int]] = []

    def add(p: list[int]) -> None:
        if sum(p) == total and min(p) >= 0 and p not in pats:
            pats.append(p)

    for j in range(k):
        top = total // 2 + 1
        rest = total - top
        p = [rest // (k - 1) + (1 if i < rest % (k - 1) else 0) for i in range(k - 1)]
        add([*p[:j], top, *p[j:]])
    for j in range(k):  # plurality below an absolute majority
        if k >= 3:
            base = total // k
            p = [base] * k
            p[j] += total - base * k
            others = [i for i in range(k) if i != j]
            if p[j] == max(p[i] for i in others):
                p[j] += 1
                p[others[-1]] -= 1
            add(p)
    for a, b in itertools.combinations(range(k), 2):  # ties at the top
        rest_n = k - 2
        if rest_n == 0:
            if total % 2 == 0:
                add([total // 2, total // 2])
            continue
        top = total // k + 1
        rest = total - 2 * top
        if rest < 0:
            continue
        p = [0] * k
        p[a] = p[b] = top
        others = [i for i in range(k) if i not in (a, b)]
        for idx, o in enumerate(others):
            p[o] = rest // rest_n + (1 if idx < rest % rest_n else 0)
        if all(p[o] < top for o in others):
            add(p)
    if total % k == 0:
        add([total // k] * k)
    return pats


def _fill_piles(deck: Sequence[Card], special: Sequence[Card], owners: Sequence[int], msuit: int,
                suit_counts: Sequence[int], card_counts: Sequence[int],
                k: int) -> list[list[Card]] | None:
    piles: list[list[Card]] = [[] for _ in range(k)]
    for c, o in zip(special, owners, strict=True):
        piles[o].append(c)
    sp_set = set(special)
    suit_rest = [c for c in deck if suit_of(c) == msuit and c not in sp_set]
    other = [c for c in deck if suit_of(c) != msuit and c not in sp_set]
    for i in range(k):
        have = sum(1 for c in piles[i] if suit_of(c) == msuit)
        need = suit_counts[i] - have
        if need < 0 or need > len(suit_rest):
            return None
        piles[i].extend(suit_rest[:need])
        suit_rest = suit_rest[need:]
    if suit_rest:
        return None
    for i in range(k):
        need = card_counts[i] - len(piles[i])
        if need < 0 or need > len(other):
            return None
        piles[i].extend(other[:need])
        other = other[need:]
    if other:
        return None
    return piles


# =============================================================================== game end
GAME_POS_KEYS = {"scores_before_round", "round_points", "num_players", "round_no", "round",
                 "target", "last_capturer"}


def _game_end_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    after_keys = [k for k in pos if re.fullmatch(r"scores_after_round_\d+", k)]
    _check_position_keys(pos, GAME_POS_KEYS | set(after_keys))
    score_specs = [pos[k] for k in ("scores_before_round", *after_keys) if k in pos]
    if not score_specs or not all(isinstance(s, dict) for s in score_specs):
        raise ScenarioError("the position gives no scores")
    all_names = [nm for s in score_specs for nm in s]
    n = _int(pos.get("num_players", _names_n(all_names)), "num_players")
    names = SideNames(_engine_sides(rules, n))
    k = len(names.sides)
    # no last capturer given: the realized round puts the last capture where the points need it
    choose_last = "last_capturer" not in pos
    last = _opt_seat(pos.get("last_capturer"), n)
    if last is None:
        last = names.sides[0][0]
    target = pos.get("target")
    errs: list[str] = []
    used: set[str] = set()
    rno_spec = pos.get("round_no", pos.get("round"))

    if after_keys:  # scores after a given round (fixed number of rounds)
        if len(after_keys) > 1 or "scores_before_round" in pos:
            raise ScenarioError("give either scores_before_round or one scores_after_round_N")
        rno = int(after_keys[0].rsplit("_", 1)[1])
        after = _scores_list(pos[after_keys[0]], names)
        want = [(None, None)] * k  # type: list[tuple[int | None, dict[str, Any] | None]]
        captured, sweeps = realize_round(rules, names.sides, n, want, last)
        pts = [s.total for s in scoring.score_round(rules, names.sides, captured, sweeps, last,
                                                    skip_immediate=True)]
        before = [a - p for a, p in zip(after, pts, strict=True)]
        st = _drive_round_end(rules, n, captured, sweeps, last, before, rno, target)
        errs.extend(_scores_errors(pos[after_keys[0]], st.scores, names,
                                   f"score after round {rno}"))
        if "rounds_in_match" in e:
            used.add("rounds_in_match")
            m = _int(e["rounds_in_match"], "rounds_in_match")
            early = _drive_round_end(rules, n, captured, sweeps, last, before, m - 1, target)
            if early.is_game_over:
                errs.append(f"the game ends after round {m - 1}, expected {m} rounds")
            final = _drive_round_end(rules, n, captured, sweeps, last, before, m, target)
            if not final.is_game_over:
                errs.append(f"the game does not end after round {m}")
        keys = {"winner", "game_over", "scores_after"} & set(e)
        used |= keys
        errs.extend(_end_fields(st, e, names, keys))
        errs.extend(_leftover(e, used))
        return errs

    before = _scores_list(pos.get("scores_before_round"), names)
    rp = pos.get("round_points")
    if rp is None:
        want = [(None, None)] * k
    else:
        rp = _obj(rp, "round_points")
        want = [(None, None)] * k
        for nm, v in rp.items():
            want[names.index(nm)] = _want_points(v)
    rno = (_int(rno_spec, "round_no") if rno_spec is not None
           else (1 if not any(before) else 2))
    captured, sweeps, got_last = realize_round_last(rules, names.sides, n, want, last,
                                                    choose_last=choose_last)
    if got_last is not None:
        last = got_last
    st = _drive_round_end(rules, n, captured, sweeps, last, before, rno, target)
    summary = st.round_summaries[-1]
    pooled = [[c_ for s in side for c_ in captured[s]] for side in names.sides]
    for i, w in enumerate(want):
        if w != (None, None) and not _score_matches(summary.scores[i], w, pooled[i], rules):
            errs.append(f"the replayed round scored {summary.scores[i].items} for "
                        f"{names.name(i, list(rp or {}))}, not {w}")
    keys = {"winner", "game_over", "scores_after"} & set(e)
    used |= keys
    errs.extend(_end_fields(st, e, names, keys))
    if "another_round" in e:
        used.add("another_round")
        again = st.phase == Phase.ROUND_OVER
        if again != _bool(e["another_round"], "another_round"):
            errs.append(f"another round: expected {e['another_round']}, engine phase "
                        f"{st.phase.value}")
        if again:
            r0 = st.round_no
            st.next_round()
            if st.round_no != r0 + 1 or st.phase != Phase.PLAY:
                errs.append("the engine could not start another round")
    if "target_after" in e:
        used.add("target_after")
        if st.target != _int(e["target_after"], "target_after"):
            errs.append(f"target after: expected {e['target_after']}, engine {st.target}")
    if "round_points" in e:
        used.add("round_points")
        errs.extend(_points_errors(_obj(e["round_points"], "round_points"), summary.scores,
                                   names, rules, pooled))
    if "_statement" in e:
        used.add("_statement")
        errs.extend(_statement_errors(
            e["_statement"], names,
            lambda r, sb: _drive_round_end(rules, n, captured, sweeps, last, sb, r, target),
            before))
    errs.extend(_leftover(e, used))
    return errs


# =============================================================================== events
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


# =============================================================================== claims
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


# =============================================================================== initial pairs
GRANT_POS_KEYS = {"num_players", "dealer", "first_player", "initial_table"}


def _grant_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, GRANT_POS_KEYS)
    n = _int(pos.get("num_players", 2), "num_players")
    dealer = _seat(pos.get("dealer", 1 if n == 2 else n - 1), n)
    initial = _cards(pos["initial_table"])
    st = _deal_with(rules, n, dealer, {None: initial})
    errs: list[str] = []
    if "first_player" in pos and st.to_move != _seat(pos["first_player"], n):
        errs.append(f"first player: expected {pos['first_player']}, engine {st.to_move}")
    grant = st.initial_grant
    used: set[str] = set()
    if "granted_to" in e:
        used.add("granted_to")
        got = grant[0] if grant else None
        if got != _opt_seat(e["granted_to"], n):
            errs.append(f"granted to: expected {e['granted_to']}, engine {got}")
    if "granted_cards" in e:
        used.add("granted_cards")
        got_c = sorted(grant[1]) if grant else []
        if got_c != sorted(_cards(e["granted_cards"])):
            errs.append(f"granted cards: expected {e['granted_cards']}, engine {_cstr(got_c)}")
    if "sweep_awarded_to" in e:
        used.add("sweep_awarded_to")
        got_s = [s for s in range(n) if st.sweeps[s]]
        exp = _opt_seat(e["sweep_awarded_to"], n)
        if got_s != ([] if exp is None else [exp]):
            errs.append(f"sweep awarded to: expected {e['sweep_awarded_to']}, engine "
                        f"{got_s or None}")
    if "last_capturer" in e:
        used.add("last_capturer")
        if st.last_capturer != _opt_seat(e["last_capturer"], n):
            errs.append(f"last capturer: expected {e['last_capturer']}, engine "
                        f"{st.last_capturer}")
    if "table_after_grant" in e:
        used.add("table_after_grant")
        want = e["table_after_grant"]
        if not isinstance(want, list):
            raise ScenarioError("table_after_grant must be a list")
        have = Counter(frozenset(pile_cards(p)) for p in st.table)
        if _table_norm(want, None) != have:
            errs.append(f"table after grant: expected {want}, engine {_table_desc(st.table)}")
    for k in ("first_player_legal_move_types", "legal_move_types"):
        if k in e:
            used.add(k)
            errs.extend(_types_error(st, e[k], "first player's legal move types"))
    errs.extend(_leftover(e, used))
    return errs


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


# =============================================================================== deals
DEAL_KEYS = frozenset({
    "deck_size", "removed", "removed_ranks", "cards_per_player_per_deal", "table_cards_per_deal",
    "by_players", "deals", "deals_per_round", "player_counts", "supported_player_counts",
    "leader", "leader_each_deal", "is_last_deal_by_deal", "last_deal", "next_dealer",
    "cards_per_player", "table_cards_first_deal", "table_cards_later_deals",
    "stock_after_first_deal", "removed_cards",
})


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


def _presets_named(text: str) -> list[str]:
    words = set(re.findall(r"[a-z0-9_]+", text.lower()))
    out = [p for p in PRESET_NAMES if p in words]
    out += [PRESET_ALIASES[a] for a in sorted(PRESET_ALIASES) if a in words]
    return sorted(set(out))


# =============================================================================== draw mode
def _draw_check(c: Check) -> list[str]:
    rules = c.rules()
    pos = c.position
    e = c.expect
    _check_position_keys(pos, {"num_players", "player", "dealer", "hand_size_before",
                               "stock_size_before"})
    n = _int(pos.get("num_players", 2), "num_players")
    player = _seat(pos.get("player", 0), n)
    dealer = _seat(pos.get("dealer", (player - 1) % n), n)
    _st, _deals, plays = simulate_round(rules, n, dealer)
    fresh = State(rules, n, "conformance", deal=False)
    fresh.dealer = dealer
    fresh.next_round()
    errs: list[str] = []
    if fresh.to_move != player:
        errs.append(f"the first player is seat {fresh.to_move}, not {player}")
    if "hand_size_before" in pos and len(fresh.hands[player]) != pos["hand_size_before"]:
        errs.append(f"hand size before: expected {pos['hand_size_before']}, engine "
                    f"{len(fresh.hands[player])}")
    if "stock_size_before" in pos and len(fresh.stock) != pos["stock_size_before"]:
        errs.append(f"stock size before: expected {pos['stock_size_before']}, engine "
                    f"{len(fresh.stock)}")
    used: set[str] = set()
    if "after_play_and_draw" in e:
        used.add("after_play_and_draw")
        after = _obj(e["after_play_and_draw"], "after_play_and_draw")
        mv = next(m for m in fresh.legal_moves() if m.kind in ("trail", "capture", "build"))
        before = fresh.clone()
        ev = fresh.apply(mv)
        errs.extend(_compare_after(before, fresh, ev, None, after))
    if "total_plays_in_round" in e:
        used.add("total_plays_in_round")
        if len(plays) != _int(e["total_plays_in_round"], "total_plays_in_round"):
            errs.append(f"plays in the round: expected {e['total_plays_in_round']}, engine "
                        f"{len(plays)}")
    if "plays_after_stock_exhausted" in e:
        used.add("plays_after_stock_exhausted")
        late = sum(1 for _m, stock in plays if stock == 0)
        if late != _int(e["plays_after_stock_exhausted"], "plays_after_stock_exhausted"):
            errs.append(f"plays after the stock ran out: expected "
                        f"{e['plays_after_stock_exhausted']}, engine {late}")
    errs.extend(_leftover(e, used))
    return errs


# =============================================================================== CLI
def _iter_lines(results: Sequence[Result], verbose: bool) -> Iterator[str]:
    for r in results:
        if not r.passed:
            yield r.line()
        elif verbose:
            yield f"ok   {r.id}"
    passed = sum(1 for r in results if r.passed)
    yield f"{passed} passed, {len(results) - passed} failed"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m casino_tui.engine.conformance",
                                 description="Check the rules engine against scenario files.")
    ap.add_argument("paths", nargs="+", help="scenario files (JSON, scenarios/public.json format)")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list passing scenarios")
    ap.add_argument("--only", nargs="*", default=None, help="check only these scenario ids")
    args = ap.parse_args(argv)
    results: list[Result] = []
    for path in args.paths:
        try:
            results.extend(run_file(path, args.only))
        except (OSError, ValueError) as e:
            results.append(Result(str(path), [f"cannot read the scenario file: {e}"]))
    for line in _iter_lines(results, args.verbose):
        print(line)
    return 0 if results and all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
