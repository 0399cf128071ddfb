"""Action checks: an English action ("trail 6H, then pluck T1 (7C)") is legal or not, and what
it leads to.
"""

from __future__ import annotations

import re
from typing import Any

from casino_tui.engine import (
    Build,
    Card,
    IllegalMoveError,
    Move,
    Phase,
    Pile,
    Rules,
    State,
    pile_cards,
)

from ..play import _compare_after
from ..positions import Built, build_position
from ..scenario import (
    INFO_KEYS,
    POST_KEYS,
    Json,
    ScenarioError,
    _bool,
    _card,
    _cards_run,
    _pile_desc,
    _value,
)

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
