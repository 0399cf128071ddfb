"""What a table tells the people at it: numbered events and per-seat views.

A :class:`TableEvent` is one numbered thing that happened at the table (a round dealt, a move, a
new deal, the end of a round or of the game, a note, a chat line, a seat changing hands). A
:class:`TableView` is the position as one seat (or a spectator) may see it. Both are filtered
for their recipient by the authority that holds the game (:meth:`TableEvent.for_seat`,
:meth:`~casino_tui.table.controller.TableController.view_for`) and are plain JSON on the wire
(``to_json`` / ``from_json``).

Hidden cards: another seat's hand and the stock are never in a view, and the only hidden card an
event holds (the card a player drew from the stock, in draw variants) is kept only in the copy
for the seat that drew it. Everything else an event holds is public when it happens: the card
played, the piles taken, the table cards of a new deal, what was left on the table at the end
of a round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from casino_tui.engine import Card, MoveEvent, Phase, Pile, RoundSummary, Rules, SeatView

from .codec import (
    JSON,
    card_from_json,
    card_to_json,
    cards_from_json,
    cards_to_json,
    move_event_from_json,
    move_event_to_json,
    piles_from_json,
    piles_to_json,
    summary_from_json,
    summary_to_json,
)

EventKind = Literal["round_start", "move", "deal", "round_over", "game_over", "note", "chat",
                    "seat"]
EVENT_KINDS: tuple[str, ...] = ("round_start", "move", "deal", "round_over", "game_over",
                                "note", "chat", "seat")

SPECTATOR: None = None  # the "seat" of someone watching


# events that do not change anyone's view of the table
QUIET_KINDS = frozenset({"chat", "note"})


@dataclass(frozen=True)
class TableEvent:
    """One numbered event of a table (numbers start at 1 and have no gaps).

    ``data`` by kind (JSON values only):

    - ``round_start``: ``dealer`` (seat), ``grant`` (``[seat, [cards]]`` when a seat took the
      paired table cards of the deal, else null);
    - ``move``: ``move`` is the engine's :class:`MoveEvent` and ``table_before`` the table it was
      played on; ``data`` is empty;
    - ``deal`` (a new deal within the round): ``deal_no``, ``deals`` (how many in the round),
      ``last`` (the last deal), ``changed`` (the deal number moved on);
    - ``round_over``: ``summary`` (the round's scores, see codec.summary_to_json);
    - ``game_over``: ``winner`` (side or null), ``scores``;
    - ``note``: ``text``; ``data.new_game`` (the game's number at the table) when a new game
      begins at the table with the same seats (its ``round_start`` follows);
    - ``chat``: ``text`` as typed (to be shown literally) and ``data.who`` (a display name);
    - ``seat``: ``data.change`` (``joined``, ``left``, ``away``, ``back``, ``computer`` (a
      stand-in for a person away), ``filled`` (a computer takes a seat left open at the start;
      ``data.level``), ``returned``) and ``data.name``; ``seat`` is the seat.
    """

    number: int
    kind: EventKind
    round_no: int
    seat: int | None = None
    text: str = ""
    move: MoveEvent | None = None
    table_before: tuple[Pile, ...] = ()
    data: Mapping[str, JSON] = field(default_factory=dict)

    def for_seat(self, seat: int | None) -> TableEvent:
        """This event as ``seat`` (None: a spectator) may receive it."""
        ev = self.move
        if ev is None or ev.drew is None or ev.seat == seat:
            return self
        return replace(self, move=move_event_from_json(move_event_to_json(ev, drew=False)))

    def to_json(self) -> dict[str, JSON]:
        return {
            "number": self.number, "kind": self.kind, "round": self.round_no, "seat": self.seat,
            "text": self.text,
            "move": None if self.move is None else move_event_to_json(self.move),
            "table_before": piles_to_json(self.table_before), "data": dict(self.data),
        }

    @classmethod
    def from_json(cls, value: object) -> TableEvent:
        """Raises ValueError on anything but what :meth:`to_json` writes."""
        if not isinstance(value, Mapping):
            raise ValueError("an event must be an object")
        kind = value.get("kind")
        if kind not in EVENT_KINDS:
            raise ValueError(f"not a kind of event: {kind!r}"[:80])
        number, round_no, seat = value.get("number"), value.get("round"), value.get("seat")
        text, data, move = value.get("text", ""), value.get("data", {}), value.get("move")
        if not isinstance(number, int) or not isinstance(round_no, int):
            raise ValueError("an event needs a number and a round")
        if seat is not None and not isinstance(seat, int):
            raise ValueError("an event's seat must be a number")
        if not isinstance(text, str) or not isinstance(data, Mapping):
            raise ValueError("an event's text must be text and its data an object")
        return cls(number, cast(EventKind, kind), round_no, seat, text,
                   None if move is None else move_event_from_json(move),
                   piles_from_json(value.get("table_before", [])), dict(data))


@dataclass(frozen=True)
class SeatInfo:
    """A seat as everyone sees it: its name, who plays it and whether they are here.

    ``human``: a person's seat (else a computer's, at ``level``); ``stand_in``: a computer plays
    the person's seat while they are away (at ``level``); ``away_since``: when its person left
    (seconds on the hub's clock), None while they are here (or for a computer's seat)."""

    name: str
    human: bool
    level: str | None = None
    stand_in: bool = False
    away_since: float | None = None

    @property
    def computer_plays(self) -> bool:
        return not self.human or self.stand_in

    def to_json(self) -> dict[str, JSON]:
        return {"name": self.name, "human": self.human, "level": self.level,
                "stand_in": self.stand_in, "away_since": self.away_since}

    @classmethod
    def from_json(cls, value: object) -> SeatInfo:
        if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
            raise ValueError("a seat must be an object with a name")
        level, away = value.get("level"), value.get("away_since")
        if level is not None and not isinstance(level, str):
            raise ValueError("a seat's level must be text")
        if away is not None and not isinstance(away, int | float):
            raise ValueError("a seat's away time must be a number")
        return cls(value["name"], bool(value.get("human")), level, bool(value.get("stand_in")),
                   None if away is None else float(away))


@dataclass(frozen=True)
class TableView:
    """The table as one seat may see it (``seat`` None: a spectator, who sees no hidden card).

    ``hand`` is the seat's own hand (empty for a spectator); of the other hands and the stock
    only their sizes. ``number``: the last event this view includes (ask for events after it).
    ``epoch``: the numbering the events follow (a table restored after a restart numbers its
    events anew, under a new epoch: a client that sees another epoch takes a fresh view).
    ``summary``: the last round's summary while it is being shown (round or game over).
    ``game``: the id of the game being played (a new game at the table has another);
    ``creator_seat``: the seat of the person who created the table (None: they hold none; a
    hub tells the controller).
    """

    seat: int | None
    number: int
    rules: Rules
    num_players: int
    seats: tuple[SeatInfo, ...]
    sides: tuple[tuple[int, ...], ...]
    hand: tuple[Card, ...]
    table: tuple[Pile, ...]
    captured: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    scores: tuple[int, ...]
    sweeps: tuple[int, ...]
    dealer: int
    to_move: int | None
    phase: Phase
    last_capturer: int | None
    is_last_deal: bool
    deal_no: int
    deals: int
    round_no: int
    pluck_used: tuple[bool, ...]
    target: int
    unassigned: tuple[Card, ...] = ()
    played_card: Card | None = None
    winner: int | None = None
    summary: RoundSummary | None = None
    epoch: str = ""
    game: str = ""
    creator_seat: int | None = None

    @classmethod
    def of(cls, view: SeatView, *, seat: int | None, number: int,
           seats: tuple[SeatInfo, ...], deals: int, winner: int | None,
           summary: RoundSummary | None, epoch: str = "", game: str = "",
           creator_seat: int | None = None) -> TableView:
        """From the engine's view of a seat (for a spectator: any seat's view, whose hand is
        then dropped)."""
        return cls(
            seat=seat, number=number, rules=view.rules, num_players=view.num_players,
            seats=seats, sides=tuple(tuple(s) for s in view.sides),
            hand=view.hand if seat is not None else (), table=view.table,
            captured=view.captured, hand_sizes=view.hand_sizes, stock_size=view.stock_size,
            scores=view.scores, sweeps=view.sweeps, dealer=view.dealer, to_move=view.to_move,
            phase=view.phase, last_capturer=view.last_capturer, is_last_deal=view.is_last_deal,
            deal_no=view.deal_no, deals=deals, round_no=view.round_no,
            pluck_used=view.pluck_used, target=view.target, unassigned=view.unassigned,
            played_card=view.played_card,
            winner=winner, summary=summary, epoch=epoch, game=game,
            creator_seat=creator_seat)

    def seat_view(self) -> SeatView:
        """The engine's view of this seat (its legal moves: ``seat_view().legal_moves()``).
        Raises ValueError for a spectator."""
        if self.seat is None:
            raise ValueError("a spectator has no seat")
        return SeatView(
            rules=self.rules, seat=self.seat, num_players=self.num_players,
            sides=[list(s) for s in self.sides], hand=self.hand, table=self.table,
            captured=self.captured, hand_sizes=self.hand_sizes, stock_size=self.stock_size,
            scores=self.scores, sweeps=self.sweeps, dealer=self.dealer, to_move=self.to_move,
            phase=self.phase, last_capturer=self.last_capturer, is_last_deal=self.is_last_deal,
            deal_no=self.deal_no, round_no=self.round_no, pluck_used=self.pluck_used,
            target=self.target, unassigned=self.unassigned, played_card=self.played_card)

    def to_json(self) -> dict[str, JSON]:
        return {
            "seat": self.seat, "number": self.number, "rules": self.rules.to_dict(),
            "num_players": self.num_players, "seats": [s.to_json() for s in self.seats],
            "sides": [list(s) for s in self.sides], "hand": cards_to_json(self.hand),
            "table": piles_to_json(self.table),
            "captured": [cards_to_json(c) for c in self.captured],
            "hand_sizes": list(self.hand_sizes), "stock_size": self.stock_size,
            "scores": list(self.scores), "sweeps": list(self.sweeps), "dealer": self.dealer,
            "to_move": self.to_move, "phase": self.phase.value,
            "last_capturer": self.last_capturer, "is_last_deal": self.is_last_deal,
            "deal_no": self.deal_no, "deals": self.deals, "round": self.round_no,
            "pluck_used": list(self.pluck_used), "target": self.target,
            "unassigned": cards_to_json(self.unassigned),
            "played_card": None if self.played_card is None else card_to_json(self.played_card),
            "winner": self.winner,
            "summary": None if self.summary is None else summary_to_json(self.summary),
            "epoch": self.epoch, "game": self.game, "creator_seat": self.creator_seat,
        }

    @classmethod
    def from_json(cls, value: object) -> TableView:
        """Raises ValueError on anything but what :meth:`to_json` writes."""
        if not isinstance(value, Mapping):
            raise ValueError("a view must be an object")
        v: Mapping[str, Any] = value
        try:
            rules = Rules.from_dict(dict(v["rules"]))
            played, summary = v.get("played_card"), v.get("summary")
            return cls(
                seat=_opt_int(v["seat"]), number=int(v["number"]), rules=rules,
                num_players=int(v["num_players"]),
                seats=tuple(SeatInfo.from_json(s) for s in v["seats"]),
                sides=tuple(tuple(int(x) for x in s) for s in v["sides"]),
                hand=cards_from_json(v["hand"]), table=piles_from_json(v["table"]),
                captured=tuple(cards_from_json(c) for c in v["captured"]),
                hand_sizes=tuple(int(x) for x in v["hand_sizes"]),
                stock_size=int(v["stock_size"]), scores=tuple(int(x) for x in v["scores"]),
                sweeps=tuple(int(x) for x in v["sweeps"]), dealer=int(v["dealer"]),
                to_move=_opt_int(v["to_move"]), phase=Phase(v["phase"]),
                last_capturer=_opt_int(v["last_capturer"]),
                is_last_deal=bool(v["is_last_deal"]), deal_no=int(v["deal_no"]),
                deals=int(v["deals"]), round_no=int(v["round"]),
                pluck_used=tuple(bool(x) for x in v["pluck_used"]), target=int(v["target"]),
                unassigned=cards_from_json(v.get("unassigned", [])),
                played_card=None if played is None else card_from_json(played),
                winner=_opt_int(v.get("winner")),
                summary=None if summary is None else summary_from_json(summary),
                epoch=str(v.get("epoch", "")), game=str(v.get("game", "")),
                creator_seat=_opt_int(v.get("creator_seat")))
        except (KeyError, TypeError) as e:
            raise ValueError(f"a view is missing or has a damaged field ({e})") from None
        except ValueError:
            raise
        except Exception as e:  # RulesError and the like
            raise ValueError(str(e)) from None


def _opt_int(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a whole number, not {value!r}"[:80])
    return value
