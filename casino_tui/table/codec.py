"""Plain-JSON forms of the engine's values that cross a socket: cards (``"10D"``), piles (a card,
or an object for a build), moves, a :class:`MoveEvent` and a :class:`RoundSummary`.

Every ``*_to_json`` returns JSON-able values (str, int, bool, None, lists and dicts with string
keys); every ``*_from_json`` reads them back and raises :class:`ValueError` on anything else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from casino_tui.engine import (
    Build,
    Card,
    CasinoError,
    Move,
    MoveEvent,
    Pile,
    RoundSummary,
    card_str,
    parse_card,
)
from casino_tui.engine.moves import MOVE_KINDS, MoveKind
from casino_tui.engine.scoring import SideScore

JSON = Any  # a value json.dumps accepts


def card_to_json(card: Card) -> str:
    return card_str(card)


def card_from_json(value: object) -> Card:
    if not isinstance(value, str):
        raise ValueError(f"a card must be text, not {value!r}"[:80])
    try:
        return parse_card(value)
    except CasinoError as e:
        raise ValueError(str(e)) from None


def cards_to_json(cards: Sequence[Card]) -> list[str]:
    return [card_str(c) for c in cards]


def cards_from_json(value: object) -> tuple[Card, ...]:
    return tuple(card_from_json(c) for c in _list(value, "cards"))


def pile_to_json(pile: Pile) -> JSON:
    if isinstance(pile, Build):
        return {"cards": cards_to_json(pile.cards), "value": pile.value, "single": pile.single,
                "owner": pile.owner, "court": pile.court}
    return card_str(pile)


def pile_from_json(value: object) -> Pile:
    if isinstance(value, Mapping):
        return Build(cards_from_json(value.get("cards")), _int(value.get("value"), "value"),
                     _bool(value.get("single"), "single"), _int(value.get("owner"), "owner"),
                     _bool(value.get("court", False), "court"))
    return card_from_json(value)


def piles_to_json(piles: Sequence[Pile]) -> list[JSON]:
    return [pile_to_json(p) for p in piles]


def piles_from_json(value: object) -> tuple[Pile, ...]:
    return tuple(pile_from_json(p) for p in _list(value, "piles"))


def move_to_json(move: Move) -> dict[str, JSON]:
    return {"kind": move.kind, "card": card_str(move.card) if move.card >= 0 else None,
            "piles": list(move.piles), "value": move.value, "single": move.single,
            "court": move.court}


def move_from_json(value: object) -> Move:
    if not isinstance(value, Mapping):
        raise ValueError("a move must be an object")
    kind = value.get("kind")
    if kind not in MOVE_KINDS:
        raise ValueError(f"not a kind of move: {kind!r}"[:80])
    card = value.get("card")
    piles = tuple(_int(p, "a pile") for p in _list(value.get("piles", []), "piles"))
    number = value.get("value")
    single = value.get("single")
    return Move(cast(MoveKind, kind), -1 if card is None else card_from_json(card), piles,
                None if number is None else _int(number, "value"),
                None if single is None else _bool(single, "single"),
                _bool(value.get("court", False), "court"))


def move_event_to_json(ev: MoveEvent, *, drew: bool = True) -> dict[str, JSON]:
    """``drew``: include the card drawn from the stock (only for the seat that drew it)."""
    return {
        "seat": ev.seat, "move": move_to_json(ev.move), "captured": cards_to_json(ev.captured),
        "sweep": ev.sweep, "build": None if ev.build is None else pile_to_json(ev.build),
        "drew": card_str(ev.drew) if drew and ev.drew is not None else None,
        "penalty": ev.penalty,
        "immediate": {str(side): dict(items) for side, items in ev.immediate.items()},
        "redeal": ev.redeal, "round_over": ev.round_over, "game_over": ev.game_over,
        "claim_credit": None if ev.claim_credit is None else dict(ev.claim_credit),
        "claim_won": ev.claim_won,
    }


def move_event_from_json(value: object) -> MoveEvent:
    if not isinstance(value, Mapping):
        raise ValueError("a move event must be an object")
    ev = MoveEvent(_int(value.get("seat"), "seat"), move_from_json(value.get("move")))
    captured = list(cards_from_json(value.get("captured", [])))
    if captured:
        ev.captured = captured
    for flag in ("sweep", "penalty", "redeal", "round_over", "game_over"):
        if _bool(value.get(flag, False), flag):
            setattr(ev, flag, True)
    build = value.get("build")
    if build is not None:
        pile = pile_from_json(build)
        if not isinstance(pile, Build):
            raise ValueError("a build must be an object")
        ev.build = pile
    drew = value.get("drew")
    if drew is not None:
        ev.drew = card_from_json(drew)
    immediate = value.get("immediate") or {}
    if not isinstance(immediate, Mapping):
        raise ValueError("immediate points must be an object")
    if immediate:
        ev.immediate = {_int(int(k), "side"): _points(v) for k, v in immediate.items()}
    credit = value.get("claim_credit")
    if credit is not None:
        ev.claim_credit = _points(credit)
    won = value.get("claim_won")
    if won is not None:
        ev.claim_won = _bool(won, "claim_won")
    return ev


def summary_to_json(s: RoundSummary) -> dict[str, JSON]:
    return {
        "round": s.round_no,
        "scores": [{"items": dict(x.items), "cards": x.cards, "suit_counts": list(x.suit_counts),
                    "all_eleven": x.all_eleven} for x in s.scores],
        "residue": cards_to_json(s.residue), "residue_to": s.residue_to,
        "game_scores": list(s.game_scores), "winner": s.winner, "sweeps": list(s.sweeps),
        "immediate": list(s.immediate),
        "count_out_steps": None if s.count_out_steps is None else
        [[[item, pts] for item, pts in side] for side in s.count_out_steps],
    }


def summary_from_json(value: object) -> RoundSummary:
    if not isinstance(value, Mapping):
        raise ValueError("a round summary must be an object")
    scores = []
    for x in _list(value.get("scores"), "scores"):
        if not isinstance(x, Mapping):
            raise ValueError("a side's score must be an object")
        suits = tuple(_int(n, "a count") for n in _list(x.get("suit_counts"), "suit counts"))
        if len(suits) != 4:
            raise ValueError("suit counts need four numbers")
        scores.append(SideScore(_points(x.get("items")), _int(x.get("cards"), "cards"),
                                (suits[0], suits[1], suits[2], suits[3]),
                                _bool(x.get("all_eleven", False), "all_eleven")))
    steps_raw = value.get("count_out_steps")
    steps = None if steps_raw is None else [
        [(str(_list(step, "a step")[0]), _int(_list(step, "a step")[1], "points"))
         for step in _list(side, "steps")] for side in _list(steps_raw, "count-out steps")]
    residue_to = value.get("residue_to")
    winner = value.get("winner")
    return RoundSummary(
        _int(value.get("round"), "round"), scores, list(cards_from_json(value.get("residue"))),
        None if residue_to is None else _int(residue_to, "residue_to"),
        [_int(n, "a score") for n in _list(value.get("game_scores"), "game scores")],
        None if winner is None else _int(winner, "winner"),
        [_int(n, "sweeps") for n in _list(value.get("sweeps"), "sweeps")],
        [_int(n, "points") for n in _list(value.get("immediate"), "immediate")], steps)


# ------------------------------------------------------------------------ checks
def _list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{what} must be a list")
    return list(value)


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number, not {value!r}"[:80])
    return value


def _bool(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false, not {value!r}"[:80])
    return value


def _points(value: object) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise ValueError("points must be an object")
    return {str(k): _int(v, "points") for k, v in value.items()}
