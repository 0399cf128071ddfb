"""Move scenarios: a position with a table and hands, and what may or must not be played there.

Legal and illegal moves (and whether the list is complete), the captures a card makes, the move
types on offer, the result of a move (``move`` with result fields, ``after_move``,
``after_capture``) and English action checks (``checks``, see :mod:`.actions`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from casino_tui.engine import IllegalMoveError, Move, pile_cards

from ..play import (
    _hand_has,
    _key_str,
    _move_key,
    _move_kind,
    _pile_ids,
    _play_and_compare,
    _table_norm,
    _types_error,
    fmt_move,
    to_move,
)
from ..positions import Built, build_position
from ..scenario import POST_KEYS, Check, Json, ScenarioError, _card, _leftover, _obj
from .actions import _action_check


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
