"""Rule options (RULES.md section 7) and presets (section 8) as one immutable object.

``Rules.preset("royal", target=11)`` gives the Royal Cassino preset with an override. Option names
and values are exactly those of RULES.md, so a scenario's ``options`` dict applies as is.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from .cards import (
    ACE,
    JACK,
    SUITS,
    deck_cards,
    parse_card,
    rank_of,
)
from .errors import RulesError

# Rules read from their dict form, by that form (``Rules.from_dict``): at most this many
_FROM_DICT: dict[str, Rules] = {}
_FROM_DICT_LIMIT = 64

if TYPE_CHECKING:  # the caches' contents (those modules import this one)
    from .fastgen import TableMoves
    from .movegen import TableSums

# Every scoring item by name (what count_out_order may list); engine.scoring scores them.
KNOWN_ITEMS = frozenset({
    "cards", "most_S", "most_H", "most_D", "most_C", "big_casino", "little_casino", "aces",
    "ace_S", "ace_H", "ace_D", "ace_C", "sweeps", "last_capture", "spade_cards", "all_eleven",
    "seven_of_diamonds", "quartets",
})

COUNT_OUT_ORDER = (
    "cards", "most_S", "big_casino", "little_casino", "ace_S", "ace_C", "ace_H", "ace_D", "sweeps",
)


@dataclass(frozen=True, slots=False)
class Rules:
    """Every option of RULES.md section 7, with the defaults of the ``classic`` preset."""

    deck: Literal["52", "49_five_player", "40_no_courts"] = "52"
    hand_size: int = 4
    initial_table_cards: int = 4
    deal_pattern: Literal[
        "pairs_table_before_dealer", "pairs_players_then_table",
        "pairs_players_then_table_pair", "singles",
    ] = "pairs_table_before_dealer"
    last_deal_extra_cards: int = 0
    draw_mode: bool = False
    first_dealer: Literal["low_cut", "random"] = "low_cut"
    partnerships_for_4: bool = True
    court_values: Literal["none", "royal"] = "none"
    ace_high_value: int | None = None
    big_casino_alt_value: int | None = None
    little_casino_alt_value: int | None = None
    high_value_scope: Literal["capturer_only", "anywhere"] = "capturer_only"
    little_casino_card: str = "2S"
    big_casino_card: str = "10D"
    table_clearer_card: str | None = None
    court_capture: Literal["one", "all", "one_or_all_three", "any"] = "one"
    single_build_as_card: bool = False
    capture_extent: Literal["free", "inclusion_maximal"] = "free"
    compulsory_capture: Literal["none", "no_trail_of_capturing_card", "strict"] = "none"
    building: bool = True
    table_only_groups_in_builds: bool = True
    raise_own_build: bool = True
    same_value_builds: Literal["allowed", "must_merge"] = "allowed"
    max_builds_per_player: int | None = None
    court_builds: Literal["none", "natural_all_four", "natural_any"] = "none"
    owner_restriction: Literal["none", "variant1", "variant2", "variant3"] = "variant1"
    ownership: Literal["last_to_add", "last_to_set_value"] = "last_to_add"
    owner_must_keep_capture_card: bool | Literal["penalty_2"] = True
    sweep_points: int = 1
    final_play_sweep: Literal["counts", "not_counted"] = "counts"
    sweeps_cancel: bool = False
    residue_if_no_capture: Literal["unassigned"] = "unassigned"
    initial_pairs_to_first_player: bool = False
    pluck: bool = False
    majority_rule: Literal["strict_most", "absolute_majority"] = "strict_most"
    cards_points: int = 3
    majority_suit: Literal["S", "H", "D", "C"] = "S"
    majority_suit_points: int = 1
    big_casino_points: int = 2
    little_casino_points: int = 1
    ace_points: int = 1
    last_capture_points: int = 0
    cards_tie_break: Literal["none", "most_spades"] = "none"
    spade_scoring: Literal["none", "pagat24", "seed002_25", "hoyle26"] = "none"
    diamond_scoring: bool = False
    all_eleven_rule: Literal["none", "bonus_point", "win_if_first_round", "instant_win"] = "none"
    score_timing: Literal["end_of_round", "sweeps_immediate", "all_immediate"] = "end_of_round"
    target: int = 21
    game_end: Literal["highest_at_target", "count_out", "claim", "fixed_rounds"] = (
        "highest_at_target"
    )
    count_out_order: tuple[str, ...] = COUNT_OUT_ORDER
    fixed_rounds: Literal["2x_players", "1x_players"] | None = None
    claim_unclaimed_both_out: Literal["highest", "raise_target_by_11"] = "highest"
    tie_at_target: Literal["another_round"] = "another_round"
    # Not an option of RULES.md: the preset this object came from (for display and saves).
    preset_name: str = field(default="classic", compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.count_out_order, list):
            object.__setattr__(self, "count_out_order", tuple(self.count_out_order))
        _validate(self)

    # ----------------------------------------------------------------- construction
    @classmethod
    def preset(cls, name: str = "classic", **overrides: Any) -> Rules:
        """The named preset (or alias), with option overrides on top."""
        key = resolve_preset_name(name)
        opts = dict(PRESET_OVERRIDES[key])
        opts.update(overrides)
        return cls.from_options(opts, preset_name=key)

    @classmethod
    def from_options(cls, options: dict[str, Any], preset_name: str = "classic") -> Rules:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise RulesError(f"unknown rule option(s): {', '.join(unknown)}")
        return cls(**{**options, "preset_name": preset_name})

    def with_options(self, **overrides: Any) -> Rules:
        unknown = sorted(set(overrides) - {f.name for f in fields(self)})
        if unknown:
            raise RulesError(f"unknown rule option(s): {', '.join(unknown)}")
        return dataclasses.replace(self, **overrides)

    def overrides(self) -> dict[str, Any]:
        """Options that differ from this object's preset (JSON-able; a new dict each call)."""
        return {name: list(v) if isinstance(v, tuple) else v for name, v in self._overrides}

    @cached_property
    def _overrides(self) -> tuple[tuple[str, Any], ...]:
        """:meth:`overrides`, found once (the rules never change; a game's autosave writes
        them after every move, and building the preset to compare with cost a fifth of it)."""
        base = Rules.preset(self.preset_name)
        return tuple((f.name, getattr(self, f.name)) for f in fields(self)
                     if f.name != "preset_name" and getattr(self, f.name) != getattr(base, f.name))

    def to_dict(self) -> dict[str, Any]:
        """``{"preset": name, "overrides": {...}}``: the JSON form used in saves."""
        return {"preset": self.preset_name, "overrides": self.overrides()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """The rules of :meth:`to_dict`'s form. Equal forms give the same object (rules never
        change): a table's views bring their rules with every update, and each new object
        worked out its derived facts (the cached properties) again."""
        if not isinstance(data, dict) or "preset" not in data:
            raise RulesError("rules must be an object with a 'preset' name")
        overrides = data.get("overrides") or {}
        if not isinstance(overrides, dict):
            raise RulesError("rule overrides must be an object")
        try:
            key = json.dumps([str(data["preset"]), overrides], sort_keys=True)
        except (TypeError, ValueError):  # not JSON's: made, not kept
            return cls.preset(str(data["preset"]), **overrides)
        made = _FROM_DICT.get(key)
        if made is None or type(made) is not cls:
            made = cls.preset(str(data["preset"]), **overrides)
            if len(_FROM_DICT) >= _FROM_DICT_LIMIT:
                _FROM_DICT.clear()
            _FROM_DICT[key] = made
        return made

    def options(self) -> dict[str, Any]:
        """All option values (JSON-able), as in RULES.md section 7."""
        out = {}
        for f in fields(self):
            if f.name == "preset_name":
                continue
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    # ----------------------------------------------------------------- derived facts
    @cached_property
    def deck_cards(self) -> tuple[int, ...]:
        return deck_cards(self.deck)

    @cached_property
    def big_casino(self) -> int:
        return parse_card(self.big_casino_card)

    @cached_property
    def little_casino(self) -> int:
        return parse_card(self.little_casino_card)

    @cached_property
    def table_clearer(self) -> int | None:
        return parse_card(self.table_clearer_card) if self.table_clearer_card else None

    @cached_property
    def majority_suit_index(self) -> int:
        return SUITS.index(self.majority_suit)

    @cached_property
    def low_values(self) -> tuple[int | None, ...]:
        """Low capture value of each card (None for classic court cards)."""
        out: list[int | None] = []
        for c in range(52):
            r = rank_of(c)
            if r >= JACK:
                out.append(r + 1 if self.court_values == "royal" else None)
            else:
                out.append(r + 1)
        return tuple(out)

    @cached_property
    def high_values(self) -> tuple[tuple[int, ...], ...]:
        """All capture values of each card in the roles that admit the extra high values."""
        out: list[tuple[int, ...]] = []
        for c in range(52):
            low = self.low_values[c]
            vals = [] if low is None else [low]
            if rank_of(c) == ACE and self.ace_high_value:
                vals.append(self.ace_high_value)
            if c == self.big_casino and self.big_casino_alt_value:
                vals.append(self.big_casino_alt_value)
            if self.little_casino_alt_value and c == self.little_casino:
                vals.append(self.little_casino_alt_value)
            out.append(tuple(vals))
        return tuple(out)

    @cached_property
    def capturer_values(self) -> tuple[tuple[int, ...], ...]:
        return self.high_values

    @cached_property
    def table_values(self) -> tuple[tuple[int, ...], ...]:
        """Values of a loose table card or a build component (RULES.md 1.2 roles)."""
        if self.high_value_scope == "anywhere":
            return self.high_values
        return tuple(() if v is None else (v,) for v in self.low_values)

    @cached_property
    def max_value(self) -> int:
        return max((v for vals in self.high_values for v in vals), default=10)

    @cached_property
    def card_class(self) -> tuple[int, ...]:
        """Key of a loose card for the subset-sum cache: a small id of its table values."""
        ids: dict[tuple[int, ...], int] = {}
        return tuple(ids.setdefault(v, len(ids)) for v in self.table_values)

    @cached_property
    def sums_cache(self) -> dict[tuple[int, ...], TableSums]:
        """Per-rules cache of :class:`~casino_tui.engine.movegen.TableSums`."""
        return {}

    @cached_property
    def suit_totals(self) -> tuple[int, int, int, int]:
        """Cards of each suit in the deck."""
        t = [0, 0, 0, 0]
        for c in self.deck_cards:
            t[c & 3] += 1
        return (t[0], t[1], t[2], t[3])

    @cached_property
    def deal_orders(self) -> dict[tuple[int, int, bool, int], list[int | None]]:
        """Cache of deal orders keyed by (players, dealer, first deal, hand size)."""
        return {}

    @cached_property
    def moves_cache(self) -> dict[tuple[Any, ...], TableMoves]:
        """Per-rules cache of :class:`~casino_tui.engine.fastgen.TableMoves`."""
        return {}

    @cached_property
    def class_values(self) -> tuple[tuple[int, ...], ...]:
        """Table values of each card class (inverse of ``card_class``)."""
        out: dict[int, tuple[int, ...]] = {}
        for c, k in enumerate(self.card_class):
            out[k] = self.table_values[c]
        return tuple(out[k] for k in range(len(out)))

    @cached_property
    def plain_value(self) -> tuple[int | None, ...]:
        """A card's capture value when it has exactly one, equal to its table value."""
        out: list[int | None] = []
        for c in range(52):
            cv = self.capturer_values[c]
            out.append(cv[0] if len(cv) == 1 and self.table_values[c] == cv
                       and c != self.table_clearer else None)
        return tuple(out)

    @cached_property
    def simple_filters(self) -> bool:
        """True when a mover who owns no build needs no per-move filtering."""
        return (self.compulsory_capture == "none" and self.capture_extent == "free"
                and self.same_value_builds == "allowed" and self.max_builds_per_player is None)

    @cached_property
    def hot_path(self) -> bool:
        """True when :func:`casino_tui.engine._hot.generate_for` may serve these rules."""
        return (self.simple_filters and not self.single_build_as_card
                and self.court_builds == "none"
                and (self.court_capture == "one" or self.courts_are_numeric))

    @cached_property
    def hot_owner_rules(self) -> bool:
        """The default owner obligations, which ``_hot`` applies itself."""
        return (self.owner_restriction == "variant1" and self.owner_must_keep_capture_card is True
                and self.raise_own_build and self.ownership == "last_to_add")

    @cached_property
    def hot_args(self) -> tuple[list[int], list[int], int, bool, bool, bool, Any] | None:
        """The rule arguments of ``_hot.generate_for`` (None when it cannot serve these rules).

        The last is the ``_hot.MultiValues`` of these rules: positions with a card of several
        values (Royal's aces) go to ``_hot.generate_multi``."""
        if not self.hot_path:
            return None
        from ._hotpath import hot  # here: the hot path imports this module's neighbours

        multi = hot.MultiValues([list(v) for v in self.capturer_values],
                                [list(v) for v in self.table_values],
                                [v or 0 for v in self.low_values],
                                -1 if self.table_clearer is None else self.table_clearer)
        return (self.hot_pv, self.hot_tv1, self.max_value, self.table_only_groups_in_builds,
                self.building, self.hot_owner_rules, multi)

    @cached_property
    def hot_pv(self) -> list[int]:
        """Single plain capture value per card, 0 if none or several (for ``_hot``)."""
        return [v or 0 for v in self.plain_value]

    @cached_property
    def hot_tv1(self) -> list[int]:
        """Single table value per card: 0 if none, -1 if several (for ``_hot``)."""
        return [(-1 if len(v) > 1 else v[0]) if v else 0 for v in self.table_values]

    @cached_property
    def courts_are_numeric(self) -> bool:
        return self.court_values == "royal"

    @cached_property
    def player_counts(self) -> tuple[int, ...]:
        """Player counts this rule set supports (the deal must come out even)."""
        return supported_player_counts(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle the options only, never the derived tables and caches
        return (_rules_from_state, (self.options(), self.preset_name))

    def describe(self) -> str:
        return PRESET_DESCRIPTIONS.get(self.preset_name, self.preset_name)

    def __str__(self) -> str:  # pragma: no cover - convenience
        ov = self.overrides()
        return self.preset_name + (f" {json.dumps(ov)}" if ov else "")


def _rules_from_state(options: dict[str, Any], preset_name: str) -> Rules:
    return Rules.from_options(options, preset_name=preset_name)


# ------------------------------------------------------------------------ validation
_CHOICES: dict[str, tuple[Any, ...]] = {}


def _literal_choices() -> dict[str, tuple[Any, ...]]:
    if _CHOICES:
        return _CHOICES
    import typing

    hints = typing.get_type_hints(Rules)
    for name, hint in hints.items():
        args = typing.get_args(hint)
        origin = typing.get_origin(hint)
        choices: list[Any] = []
        if origin is Literal:
            choices = list(args)
        else:
            for a in args:
                if typing.get_origin(a) is Literal:
                    choices.extend(typing.get_args(a))
                elif a is type(None):
                    choices.append(None)
                elif a is bool:
                    choices.extend([True, False])
                else:
                    choices = []
                    break
        if choices:
            _CHOICES[name] = tuple(choices)
    return _CHOICES


def _validate(r: Rules) -> None:
    for name, choices in _literal_choices().items():
        v = getattr(r, name)
        if not any(v is c or (type(v) is type(c) and v == c) for c in choices):
            raise RulesError(
                f"bad value {v!r} for option {name}; choose one of "
                + ", ".join(json.dumps(c) for c in choices)
            )
    for name in ("hand_size", "initial_table_cards", "last_deal_extra_cards", "sweep_points",
                 "cards_points", "majority_suit_points", "big_casino_points",
                 "little_casino_points", "ace_points", "last_capture_points", "target"):
        v = getattr(r, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise RulesError(f"option {name} must be a whole number >= 0, not {v!r}")
    if r.hand_size < 1 or r.target < 1:
        raise RulesError("hand_size and target must be at least 1")
    allowed_values: dict[str, tuple[object, ...]] = {
        "ace_high_value": (None, 14), "big_casino_alt_value": (None, 11, 16),
        "little_casino_alt_value": (None, 15), "max_builds_per_player": (None, 1),
    }
    for name, allowed in allowed_values.items():
        v = getattr(r, name)
        if v not in allowed or isinstance(v, bool):
            raise RulesError(f"bad value {v!r} for option {name}; choose one of {allowed}")
    allowed_cards: dict[str, tuple[object, ...]] = {
        "little_casino_card": ("2S", "2C"), "big_casino_card": ("10D",),
        "table_clearer_card": (None, "5C", "5S"),
    }
    for name, allowed in allowed_cards.items():
        if getattr(r, name) not in allowed:
            raise RulesError(f"bad value {getattr(r, name)!r} for option {name}")
    if r.game_end == "fixed_rounds" and r.fixed_rounds is None:
        raise RulesError("game_end=fixed_rounds needs fixed_rounds=2x_players or 1x_players")
    for item in r.count_out_order:
        if item not in KNOWN_ITEMS:
            raise RulesError(f"unknown scoring item {item!r} in count_out_order")


def deal_sizes(rules: Rules, num_players: int) -> list[int] | None:
    """Cards per player in each deal of a round, or None if the deck does not divide."""
    n = len(rules.deck_cards) - rules.initial_table_cards
    if num_players < 2 or n <= 0:
        return None
    if rules.draw_mode:
        return [rules.hand_size] if n >= num_players * rules.hand_size else None
    if n % num_players:
        return None
    per = n // num_players - rules.last_deal_extra_cards
    if per <= 0 or per % rules.hand_size:
        return None
    deals = per // rules.hand_size
    sizes = [rules.hand_size] * deals
    sizes[-1] += rules.last_deal_extra_cards
    return sizes


def supported_player_counts(rules: Rules) -> tuple[int, ...]:
    name = rules.preset_name
    if name in PRESET_PLAYERS:
        wanted: tuple[int, ...] = PRESET_PLAYERS[name]
    else:
        wanted = (2, 3, 4)
    return tuple(n for n in wanted if deal_sizes(rules, n) is not None)


# ------------------------------------------------------------------------- presets
PRESET_OVERRIDES: dict[str, dict[str, Any]] = {
    "classic": {},
    "french_casino_seed000": {
        "deal_pattern": "pairs_players_then_table", "raise_own_build": False,
        "majority_rule": "absolute_majority",
    },
    "casino_aux_piques_seed000": {
        "deal_pattern": "pairs_players_then_table", "raise_own_build": False,
        "majority_rule": "absolute_majority", "spade_scoring": "pagat24", "target": 61,
    },
    "spade_cassino_seed002": {"spade_scoring": "seed002_25", "target": 61},
    "spade_cassino_hoyle": {"spade_scoring": "hoyle26", "target": 61},
    "draw_cassino": {"draw_mode": True},
    "casino_a_la_tire_seed000": {
        "draw_mode": True, "deal_pattern": "pairs_players_then_table", "raise_own_build": False,
        "majority_rule": "absolute_majority",
    },
    "royal_cassino": {
        "court_values": "royal", "ace_high_value": 14, "high_value_scope": "anywhere",
        "sweep_points": 0,
    },
    "buckeye_cassino": {
        "court_values": "royal", "ace_high_value": 14, "high_value_scope": "anywhere",
        "sweep_points": 0, "big_casino_alt_value": 11,
    },
    "california_cassino": {
        "deal_pattern": "singles", "court_capture": "any", "sweep_points": 0,
        "game_end": "fixed_rounds", "fixed_rounds": "2x_players", "partnerships_for_4": False,
    },
    "portuguese_cassino": {"target": 31, "cards_tie_break": "most_spades"},
    "diamond_cassino": {"deck": "40_no_courts", "hand_size": 3, "diamond_scoring": True},
    "pluck_cassino": {"pluck": True},
    "five_player": {"deck": "49_five_player", "last_deal_extra_cards": 1},
    "trailing_royals": {"court_capture": "any", "court_builds": "natural_any"},
    "face_cards_all_four": {
        "court_capture": "one_or_all_three", "court_builds": "natural_all_four",
    },
    "initial_pairs": {"initial_pairs_to_first_player": True},
    "sudden_death": {"score_timing": "sweeps_immediate"},
    "michigan_sudden_death": {
        "score_timing": "sweeps_immediate", "sweep_points": 2,
        "owner_must_keep_capture_card": "penalty_2",
    },
    "call_out_21": {"game_end": "claim", "claim_unclaimed_both_out": "raise_target_by_11"},
    "all_eleven_bonus": {"all_eleven_rule": "bonus_point"},
    "all_eleven_skunk": {"all_eleven_rule": "win_if_first_round"},
    "all_eleven_instant": {"all_eleven_rule": "instant_win"},
    "build_variant_1": {"owner_restriction": "variant1"},
    "build_variant_2": {"owner_restriction": "variant2"},
    "build_variant_3": {
        "owner_restriction": "variant3", "ownership": "last_to_set_value",
        "same_value_builds": "must_merge",
    },
    "five_of_spades_sweeps": {"table_clearer_card": "5S"},
    "danish_kortspil_seed001": {
        "deal_pattern": "pairs_players_then_table_pair", "court_values": "royal",
        "ace_high_value": 14, "big_casino_alt_value": 16, "little_casino_alt_value": 15,
        "high_value_scope": "capturer_only", "little_casino_card": "2C",
        "table_clearer_card": "5C", "compulsory_capture": "no_trail_of_capturing_card",
        "same_value_builds": "must_merge", "max_builds_per_player": 1, "cards_points": 1,
        "majority_suit": "C", "majority_suit_points": 2, "last_capture_points": 1,
        "sweeps_cancel": True, "partnerships_for_4": False,
    },
}

PRESET_NAMES: tuple[str, ...] = tuple(PRESET_OVERRIDES)

# Short names players use; a preset's first alias here is its name in lists (--list-presets).
PRESET_ALIASES: dict[str, str] = {
    "royal": "royal_cassino",
    "buckeye": "buckeye_cassino",
    "french": "french_casino_seed000",
    "hoyle_spade": "spade_cassino_hoyle",
    "spade": "spade_cassino_hoyle",
    "spades": "spade_cassino_hoyle",
    "spade_cassino": "spade_cassino_seed002",
    "piques": "casino_aux_piques_seed000",
    "draw": "draw_cassino",
    "a_la_tire": "casino_a_la_tire_seed000",
    "california": "california_cassino",
    "portuguese": "portuguese_cassino",
    "diamond": "diamond_cassino",
    "pluck": "pluck_cassino",
    "five": "five_player",
    "danish": "danish_kortspil_seed001",
    "michigan": "michigan_sudden_death",
    "call_out": "call_out_21",
    "callout": "call_out_21",
    "variant1": "build_variant_1",
    "variant2": "build_variant_2",
    "variant3": "build_variant_3",
}

PRESET_PLAYERS: dict[str, tuple[int, ...]] = {
    "five_player": (5,),
    "california_cassino": (2, 3, 4, 6),
    "portuguese_cassino": (2, 4),
}

PRESET_DESCRIPTIONS: dict[str, str] = {
    "classic": "Standard Cassino (pagat/Hoyle): 11 points a round plus sweeps, game to 21.",
    "french_casino_seed000": "French Casino: you may not raise your own build; 27 cards, 7 spades.",
    "casino_aux_piques_seed000": "French Spade Casino: every spade scores, 24 a round, game to 61.",
    "spade_cassino_seed002": "Spade Cassino: jack of spades 2, other spades 1, plus the 11; to 61.",
    "spade_cassino_hoyle": "Hoyle Spade Cassino: A, J, 2 of spades 2, other spades 1; to 61.",
    "draw_cassino": "Draw Cassino: draw a card after every play, hands stay at four.",
    "casino_a_la_tire_seed000": "Casino à la tire: French rules with a draw after every play.",
    "royal_cassino": "Royal Cassino: J 11, Q 12, K 13, aces 1 or 14; no sweep points.",
    "buckeye_cassino": "Buckeye: Royal Cassino where the ten of diamonds is 10 or 11.",
    "california_cassino": "California: courts pair in any number; no sweeps; everyone deals twice.",
    "portuguese_cassino": "Portuguese: game to 31; a 26-26 card tie goes to most spades.",
    "diamond_cassino": "Diamond Cassino: 40 cards, 3 each; diamonds, 7D and quartets score.",
    "pluck_cassino": "Pluck: once a deal, pluck a non-point card from the table.",
    "five_player": "Five players: 49 cards, an extra card each on the last deal.",
    "trailing_royals": "Trailing royals: courts pair in any number and build naturally.",
    "face_cards_all_four": "All four courts: the fourth court takes the other three at once.",
    "initial_pairs": "Initial pairs: pairs dealt to the table go to the first player.",
    "sudden_death": "Sudden death: sweeps score at once and can end the game mid-round.",
    "michigan_sudden_death": "Michigan: sweeps score 2 at once; breaking a build duty costs 2.",
    "call_out_21": "Call-out: claim the game when you are sure you have reached 21.",
    "all_eleven_bonus": "All eleven: taking all 11 base points earns a 12th.",
    "all_eleven_skunk": "Skunk: taking all 11 base points in the first round wins the game.",
    "all_eleven_instant": "All eleven wins: taking all 11 base points wins the game.",
    "build_variant_1": "Hoyle variant 1: a build owner may not trail (the classic rule).",
    "build_variant_2": "Variant 2: a build owner must take or add to his own build.",
    "build_variant_3": "Variant 3: builds belong to whoever set the value; equal builds merge.",
    "five_of_spades_sweeps": "Five of spades: the 5S may take everything on the table.",
    "danish_kortspil_seed001": "Danish Kasino: 10D 16, 2C 15, 5C clears, clubs score 2.",
}


def resolve_preset_name(name: str) -> str:
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    key = PRESET_ALIASES.get(key, key)
    if key not in PRESET_OVERRIDES:
        raise RulesError(
            f"unknown preset {name!r}; try one of: {', '.join(PRESET_NAMES)} "
            f"(aliases: {', '.join(sorted(PRESET_ALIASES))})"
        )
    return key


def parse_option_value(name: str, text: str) -> Any:
    """Parse a command-line ``name=value`` override into the option's Python value."""
    try:
        v = json.loads(text)
    except json.JSONDecodeError:
        v = text
    if text in ("null", "none", "None") and name in (
        "ace_high_value", "big_casino_alt_value", "little_casino_alt_value",
        "table_clearer_card", "max_builds_per_player", "fixed_rounds",
    ):
        return None
    if isinstance(v, (int, float)) and name in ("deck", "little_casino_card", "big_casino_card"):
        return text
    return v



