"""Scenario moves as engine moves, played, with the result compared with the scenario's.

A scenario move is a dict (``{"type": "capture", "card": "8D", "piles": ["T1"]}``) whose piles
are table pile ids; :func:`to_move` makes it an engine :class:`Move` for a built position.
:func:`_compare_after` compares the result fields of a move (``POST_KEYS``: the table, sweeps,
the build made, the next player, the round's end, scores...) with the state the engine reached.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from casino_tui.engine import (
    Card,
    IllegalMoveError,
    Move,
    MoveEvent,
    Phase,
    RoundSummary,
    State,
    pile_cards,
)
from casino_tui.engine.cards import RANKS, card_str

from .positions import Built
from .scenario import (
    INFO_KEYS,
    MOVE_KINDS,
    Json,
    ScenarioError,
    SideNames,
    _bool,
    _card,
    _cards,
    _cards_run,
    _cstr,
    _int,
    _obj,
    _opt_seat,
    _per_seat,
    _seat,
    _table_desc,
    _value,
)
from .scores import _points_errors, _scores_errors


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


def _move_key(m: Move, b: Built, st: State) -> tuple[Any, ...]:
    piles = tuple(sorted(b.id_of(st.table[i]) for i in m.piles))
    return (m.kind, m.card, piles, m.value, m.court)


def _key_str(k: tuple[Any, ...]) -> str:
    kind, card, piles, value, court = k
    s: str = kind + (f" {card_str(card)}" if card >= 0 else "")
    if piles:
        s += " " + "+".join(piles)
    if value is not None:
        s += f" ={RANKS[value - 1] if court else value}"
    return s


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

    def need_summary(k: str) -> RoundSummary:
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
            got_to = s.residue_to if s.residue else None  # nobody receives an empty residue
            if got_to != exp:
                errs.append(f"residue to: expected {want}, engine {got_to}")
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
