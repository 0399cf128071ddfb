"""A learned value of a position at the end of a deal (the arena's ``hard-learn``, an
experiment measured against ``hard-v1``).

Hard's playouts stop where a deal ends and value the position by the points each side can
expect from what it has taken (:func:`~casino_tui.ai.values.pending_points`): the cards still
out are taken to split evenly. That leaves out who leads the next deal with the table as it
lies, and who takes what is left on the table at the end of the round. This value is a linear
model of the round's final point difference on public features of the position, fitted to
self-play by ``tools/learn_deal_value.py`` (classic, two players; the weights ship as
``deal_value.json``). Elsewhere it is the playouts' own value.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ..engine import Rules, State
from ..engine.moves import Build
from ..engine.state import Phase
from .values import RuleValues, pending_points

FEATURES: tuple[str, ...] = (
    "const", "pending", "lead", "lead_table_points", "lead_table_value", "lead_table_cards",
    "last_table_points", "last_table_cards", "lead_deals_left", "cards_diff", "spades_diff",
)
_WEIGHTS = Path(__file__).with_name("deal_value.json")


def features(st: State, rv: RuleValues, my_side: int) -> list[float]:
    """The public features of ``st`` for ``my_side`` (two sides), in the order of FEATURES."""
    other = 1 - my_side
    pend = pending_points(rv, st.sides, st.captured, st.sweeps, len(st.unassigned))
    lead = 1.0 if st.side_of[st.to_move] == my_side else -1.0
    last = 0.0
    if st.last_capturer is not None:
        last = 1.0 if st.side_of[st.last_capturer] == my_side else -1.0
    exact = rv.exact
    cv = rv.cv
    points = value = 0.0
    cards = 0
    for p in st.table:
        for c in (p.cards if isinstance(p, Build) else (p,)):
            points += exact[c]
            value += cv[c]
            cards += 1
    counts = [0, 0]
    spades = [0, 0]
    for i, side in enumerate(st.sides):
        for seat in side:
            pile = st.captured[seat]
            counts[i] += len(pile)
            spades[i] += sum(1 for c in pile if c & 3 == rv.suit)
    deals_left = len(st.deal_sizes) - st.deal_no
    return [1.0, pend[my_side] - pend[other], lead, lead * points, lead * value, lead * cards,
            last * points, last * cards, lead * deals_left,
            float(counts[my_side] - counts[other]), float(spades[my_side] - spades[other])]


@lru_cache(maxsize=1)
def weights() -> tuple[float, ...]:
    doc = json.loads(_WEIGHTS.read_text(encoding="utf-8"))
    if tuple(doc["features"]) != FEATURES:
        raise ValueError(f"{_WEIGHTS.name} was fitted to other features")
    return tuple(float(w) for w in doc["weights"])


@lru_cache(maxsize=1)
def _classic() -> Rules:
    return Rules.preset("classic")


def applies_to(rules: Rules, players: int) -> bool:
    """True where the model was fitted: classic's rules, two players."""
    return players == 2 and rules == _classic()


def value(st: State, rv: RuleValues, my_side: int) -> float:
    """Game points of ``my_side`` minus the other side's, with the round's still to come
    estimated by the model (a position in play between two deals)."""
    assert st.phase is Phase.PLAY
    w = weights()
    est = sum(a * b for a, b in zip(w, features(st, rv, my_side), strict=True))
    return st.scores[my_side] - st.scores[1 - my_side] + est
