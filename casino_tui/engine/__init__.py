"""The Cassino rules engine: pure Python, no UI imports.

Typical use::

    from casino_tui.engine import Rules, State
    state = State(Rules.preset("classic"), num_players=2, seed=7)
    move = state.legal_moves()[0]
    state.apply(move)
"""

from . import _hotpath  # noqa: F401  (first: it picks compiled modules or their sources)
from .cards import Card, card_str, cards_str, parse_card, parse_cards
from .errors import CasinoError, IllegalMoveError, NotationError, RulesError, StateError
from .moves import Build, Move, Pile, pile_cards
from .rules import PRESET_ALIASES, PRESET_DESCRIPTIONS, PRESET_NAMES, Rules, resolve_preset_name
from .state import MoveEvent, Phase, RoundSummary, SeatView, State

__all__ = [
    "PRESET_ALIASES", "PRESET_DESCRIPTIONS", "PRESET_NAMES", "Build", "Card", "CasinoError",
    "IllegalMoveError", "Move", "MoveEvent", "NotationError", "Phase", "Pile", "RoundSummary",
    "Rules", "RulesError", "SeatView", "State", "StateError", "card_str", "cards_str",
    "parse_card", "parse_cards", "pile_cards", "resolve_preset_name",
]
