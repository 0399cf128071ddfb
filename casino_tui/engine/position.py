"""Writing a position in the notation (``docs/NOTATION.md``): :func:`format_position`.

This is the writing half of :mod:`casino_tui.engine.notation`, which re-exports it and reads
positions back (``parse_position``). It sits below :mod:`casino_tui.engine.state`, which uses it
for ``repr(State)``, and so needs nothing from ``state`` but the type.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .cards import RANKS, Card, card_str, cards_str
from .moves import Build

if TYPE_CHECKING:
    from .state import State


def format_value(value: int, court: bool) -> str:
    """A build value: ``9``, or ``K`` for a court build of kings."""
    return RANKS[value - 1] if court else str(value)


def format_build(build: Build, symbols: bool = False) -> str:
    """A build as it appears in a position: ``[2H7C=9s@0]`` (cards, value, kind, owner)."""
    kind = "s" if build.single else "m"
    return (f"[{cards_str(build.cards, '', symbols)}={format_value(build.value, build.court)}"
            f"{kind}@{build.owner}]")


def _cards_field(cards: Sequence[Card], symbols: bool) -> str:
    return cards_str(cards, "", symbols) if cards else "-"


def _ints_field(values: Sequence[int]) -> str:
    return "/".join(str(v) for v in values)


def format_position(state: State, *, symbols: bool = False) -> str:
    """The whole position as one line of ``key=value`` fields (see ``docs/NOTATION.md``)."""
    st = state
    phase = st.phase.value
    played = st._played_card
    if phase == "pluck" and played is not None:  # the pluck phase names the card just played
        phase += ":" + card_str(played, symbols)
    table = ",".join(format_build(p, symbols) if isinstance(p, Build) else card_str(p, symbols)
                     for p in st.table) or "-"
    f: list[tuple[str, str]] = [
        ("turn", str(st.to_move)),
        ("dealer", str(st.dealer)),
        ("round", str(st.round_no)),
        ("deal", str(st.deal_no)),
        ("phase", phase),
        ("table", table),
        ("hands", "/".join(_cards_field(h, symbols) for h in st.hands)),
        ("stock", _cards_field(st.stock[::-1], symbols)),
        ("taken", "/".join(_cards_field(c, symbols) for c in st.captured)),
        ("sweeps", _ints_field(st.sweeps)),
        ("last", "-" if st.last_capturer is None else str(st.last_capturer)),
        ("score", _ints_field(st.scores)),
        ("target", str(st.target)),
    ]
    if st.rules.pluck or any(st.pluck_used):
        f.append(("plucked", "".join("1" if u else "0" for u in st.pluck_used)))
    if st.unassigned:
        f.append(("unassigned", _cards_field(st.unassigned, symbols)))
    if any(st.round_immediate):
        f.append(("immediate", _ints_field(st.round_immediate)))
    if any(st.penalties):
        f.append(("penalties", _ints_field(st.penalties)))
    if st.winner is not None:
        f.append(("winner", str(st.winner)))
    seed = st.seed
    f.append(("seed", str(seed) if isinstance(seed, int) and not isinstance(seed, bool)
              else json.dumps(str(seed), ensure_ascii=False)))
    return " ".join(f"{k}={v}" for k, v in f)
