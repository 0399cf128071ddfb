"""The game screen of a seat at a hub's table (or of someone watching it).

The same screen as a solo game (:class:`~casino_tui.app.screens.game.GameScreen`: the same
widgets, keys, move previews, recent plays, log, round summary and game over), drawn from the
only thing this process has of the game: its seat's view and the table's events, which its
:class:`~casino_tui.app.netsession.NetSession` receives from the hub. The person's keys choose a
move as in a solo game; it goes to the hub (:meth:`~casino_tui.table.client.SeatClient.submit`),
which checks it: a refusal is shown like an illegal move. Everyone else's moves (people and
computers, which play in the hub) appear as their events arrive, with the recent-play
highlights.

Also: "Waiting for NAME" while another person is to move; a seat whose person is away says for
how long (and when a computer plays for them); ``/`` says a line to the table (chat, shown in the
log, literally); someone watching sees no hand and has no move keys.

The table's creator has two more keys, shown (in the key bar and in help) only when they apply:
``a`` lets a computer play the seat of a person away for longer than
:data:`~casino_tui.table.hub.AWAY_GRACE` (after a confirmation; the person takes the seat back by
returning), ``g`` gives such a seat back to its person (it waits for them again). At game over
the creator may start a new game at the same table with the same seats (``n``); the others see
who they are waiting for, and the new game replaces the game over screen when it is dealt.

Leaving (``q``, or the game over screen) goes back to the list of tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import zlib
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType

from casino_tui.engine import Card, IllegalMoveError, Move, MoveEvent, Phase, RoundSummary, SeatView
from casino_tui.procs import at_table
from casino_tui.table import trace
from casino_tui.table.client import TableUpdate
from casino_tui.table.config import DEFAULT_LEVEL
from casino_tui.table.hub import AWAY_GRACE, HubError

from ..background import in_background
from ..netsession import NetSession, away_for
from ..players import Chooser
from ..session import seat_labels
from ..widgets.table import HandData, HandView, LineData
from .confirm import ConfirmScreen
from .game import GAME_KEYS, GameScreen
from .gameover import GameOverChoice, GameOverData, TableGameOverScreen
from .summary import RoundSummaryScreen, summary_data

CHAT_KEY = ("/", "chat: say a line to the table (shown in everyone's log)")
# the keys of a solo game that a table has no use for: its computers play in the server at the
# table's pace, the server saves the table after every move, and no play is taken back
SOLO_ONLY = ("Ctrl+S", "s", "u")
TABLE_KEYS: list[tuple[str, str]] = [
    *[(k, what) for k, what in GAME_KEYS if k not in SOLO_ONLY and k != "q"],
    CHAT_KEY,
    ("q", "leave the table (your seat waits for you) and go back to the tables"),
]
HAND_KEY = "a"  # the creator lets a computer play the seat of someone away for a while
GIVE_KEY = "g"  # the creator gives such a seat back to its person
WATCH_KEYS: list[tuple[str, str]] = [
    ("Tab Shift+Tab", "move the cursor over the table piles"),
    CHAT_KEY,
    ("r", "rules of this game"),
    ("o", "settings"),
    ("q", "stop watching (back to the tables)"),
]


class TableGameScreen(GameScreen):
    """One person's game at a hub's table: their seat (``session.seat``), or watching it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "chat", "Chat", show=False, id="game.chat"),
        Binding(HAND_KEY, "hand_to_computer", "Computer for someone away", show=False,
                id="game.hand_to_computer"),
        Binding(GIVE_KEY, "give_back", "Give a seat back", show=False, id="game.give_back"),
    ]
    HELP_TITLE = "Game table"
    SKIP_NOTE: ClassVar[str] = ""
    AWAY_REFRESH: ClassVar[float] = 10.0  # seconds between updates of "away 2m"
    RETRY_AFTER: ClassVar[float] = 2.0  # seconds before a broken connection is tried again
    # A move sent to the hub is drawn with its events, which come at once when the server is
    # not busy; if neither they nor the hub's answer have come after this long, "Playing your
    # move…" is shown first.
    SENDING_SHOWN_AFTER: ClassVar[float] = 0.1
    # A table that comes up without the player asking for it (taken back to their seat from
    # the title screen) ignores the keys that arrive before its first frame has reached the
    # terminal and for this long after (quicker than a person can react to it): typed for the
    # screen before, they are not moves (``t`` for Tables would trail a card).
    TYPEAHEAD_GRACE: ClassVar[float] = 0.25

    def __init__(self, session: NetSession, chooser: Chooser, unasked: bool = False) -> None:
        super().__init__(session, chooser)  # the person's seat is on screen (watching: 0)
        self.net = session
        # until when (on the session's clock) keys are ignored: see TYPEAHEAD_GRACE
        self._typeahead_until = math.inf if unasked else 0.0
        self._sending = False  # a move is on its way to the hub
        self._sending_key = 0  # the position it was sent in
        self._unshown = False  # ... and no frame has been drawn since
        self._sent: int | None = None  # the position the move was sent in
        # the number of the last event of the move being sent, once the hub's answer came
        # before those events: the sending ends when the client has taken them
        self._answered: int | None = None
        self._updating = False  # an update of the table is being taken
        self._gone = False  # the table closed
        self._game_over: TableGameOverScreen | None = None  # the game over screen shown
        self._replaced = False  # a new game replaced the game over screen
        self._recorded: str | None = None  # the game last put in the player's statistics

    def on_mount(self) -> None:
        if self._typeahead_until:
            self._after_frame(self._first_frame_written)

    def _first_frame_written(self) -> None:
        self._typeahead_until = self.net.clock() + self.TYPEAHEAD_GRACE

    def on_key(self, event: events.Key) -> None:
        """A key typed before the player could see this screen they did not ask for is
        dropped (``TYPEAHEAD_GRACE``); Ctrl+Q, bound above the screen, still quits."""
        if self._typeahead_until and self.net.clock() < self._typeahead_until:
            event.stop()
            event.prevent_default()
            return
        self._typeahead_until = 0.0

    @property
    def watching(self) -> bool:
        return self.net.seat is None

    @property
    def settled(self) -> bool:
        """Nothing is on its way: no move being sent, no update being taken (the other people
        may still play at any time)."""
        return not self._sending and not self._updating and (
            self._awaiting or self._modal or self._finished or not self._my_turn())

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        if self.watching:
            return [(self.HELP_TITLE, WATCH_KEYS)]
        keys = list(TABLE_KEYS)
        more = []
        handable, given = self._handable(), self._given()
        if handable:
            more.append((HAND_KEY, f"let a computer play for {self.net.names[handable[0]]}, "
                                   "away for a while (they take their seat back when they "
                                   "return)"))
        if given:
            more.append((GIVE_KEY, f"give {self.net.names[given[0]]}'s seat back (it waits "
                                   "for them again)"))
        return [(self.HELP_TITLE, [*keys[:-1], *more, keys[-1]])]

    # ------------------------------------------------------------------ the creator's seats
    @property
    def creator(self) -> bool:
        """This person created the table (they may hand seats to computers, start a new
        game)."""
        seat = self.net.seat
        return seat is not None and self.net.view.creator_seat == seat

    def _handable(self) -> list[int]:
        """The seats whose person has been away longer than AWAY_GRACE, which the creator may
        hand to a computer now (none for anyone else)."""
        if not self.creator or self._finished:
            return []
        now = self.net.clock()
        return [i for i, s in enumerate(self.net.view.seats)
                if s.human and not s.stand_in and i != self.net.seat
                and s.away_since is not None and now - s.away_since >= AWAY_GRACE]

    def _given(self) -> list[int]:
        """The seats a computer plays for their person, which the creator may give back."""
        if not self.creator or self._finished:
            return []
        return [i for i, s in enumerate(self.net.view.seats) if s.human and s.stand_in]

    # ------------------------------------------------------------------ following the table
    def _start(self) -> None:
        """Follow the table (its first view and log came with the session); a seat's game
        runs at the server's priority for tables meanwhile (:func:`casino_tui.procs.at_table`:
        the other person's move is drawn sooner)."""
        self.set_interval(self.AWAY_REFRESH, self._refresh_away)
        if not self.watching:
            at_table(True)
        in_background(self, "table", self._follow, exclusive=True)

    def on_unmount(self) -> None:  # (GameScreen's runs too: Textual calls both)
        self.net.client.close()
        at_table(False)

    async def _follow(self) -> None:
        """Take the table's updates as they come, until the screen goes. A connection that
        fails is tried again (the table shown afresh); a table the hub no longer has ends it."""
        lost = False
        while True:
            try:
                if lost:
                    update = await self.net.client.reopen()
                    lost = False
                    self._message = LineData("")
                else:
                    update = await self.net.client.next_update()
            except HubError as err:
                self._table_gone(err.reason)
                return
            except Exception as err:  # the channel to the server broke: try again
                if not lost:
                    self._message = LineData(f"The connection to the table broke ({err}): "
                                             "trying again…", "error")
                    self.refresh_all()
                lost = True
                await asyncio.sleep(self.RETRY_AFTER)
                continue
            self._updating = True
            try:
                if trace.enabled() and update.events:
                    self._trace("take", update.events[0].number)
                self._take_update(update)
                if trace.enabled() and update.events:
                    number = update.events[0].number
                    self._trace("taken", number)
                    self.call_after_refresh(self._trace, "drawn", number)
            finally:
                self._updating = False

    def _trace(self, stage: str, number: int) -> None:
        client = self.net.client
        trace.note(stage, client.table_id, number, who=client.person.name)

    def _take_update(self, update: TableUpdate) -> None:
        net = self.net
        moves = net.take(update, self.painter)
        view = net.view
        if view.phase == Phase.GAME_OVER and net.seat is not None \
                and view.game != self._recorded:  # the player's statistics, once a game
            self._recorded = view.game
            self.casino.record_table_game(net.client, view)
        if self._finished and not self._gone and view.phase != Phase.GAME_OVER:
            self._new_game()
        if update.fresh:
            self._clear_recent()
            self._awaiting = False
            self._sent = None
        self._played(moves, fresh=update.fresh)
        for ev, start, end in moves:
            self._note_recent(ev, start, end)
            if ev.seat == net.seat and ev.move.kind in ("trail", "capture", "build"):
                self._move_i = 0
        if any(e.kind == "round_start" for e in update.events):
            self._clear_recent()
            self._card_i = 0
        if moves:
            self._moves_cache = None
            self._selection.clear()
            self._cursor = None
        if self._awaiting and not self._my_turn():
            self._awaiting = False
        # at once, not later: the next turn's changes go out in the same frame as the move;
        # a turn that begins now redraws everything itself (the move with it), so the move
        # is not prepared twice
        if not self._turn_begins():
            self.refresh_all()
        if moves and self._seen().phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            # the round's last move drawn first, its summary once that frame is written (as
            # at a game of one's own: GameScreen._after_move)
            self._after_frame(self._advance)
            return
        self._advance()

    def _new_game(self) -> None:
        """A new game was dealt at the table (the same seats): play on."""
        self._finished = False
        self._awaiting = False
        self._sent = None
        self._clear_recent()
        self._card_i = 0
        self._move_i = 0
        self._moves_cache = None
        self._selection.clear()
        self._cursor = None
        self._set_modal_keys(None)
        shown, self._game_over = self._game_over, None
        if shown is not None and self.app.screen is shown:
            self._replaced = True
            shown.dismiss(None)
        self.notify("A new game begins at this table.", title="Table", timeout=5)

    def _table_gone(self, reason: str) -> None:
        self._gone = True
        self._awaiting = False
        self._sending = False  # a move's events that were still to come never will
        self._answered = None
        self._message = LineData(f"The table is gone: {reason}", "error")
        if self.is_mounted:
            self.refresh_all()

    def _refresh_away(self) -> None:
        if self.is_mounted and any(s.away_since is not None for s in self.net.view.seats):
            self._refresh_seats()
            self._refresh_status()
            self._set_modal_keys(self._modal_keys)  # the creator's keys may apply now

    # ------------------------------------------------------------------ the flow of play
    def _my_turn(self) -> bool:
        seat = self.net.seat
        seen = self._seen()
        return seat is not None and seen.to_move == seat and not self.net.stand_in(seat) \
            and seen.phase in (Phase.PLAY, Phase.PLUCK)

    def _players_turn_next(self) -> bool:
        return False  # the server says whose turn it is: _advance follows its events

    def _computers_turn_next(self) -> bool:
        return False  # (the same)

    def _can_advance(self) -> bool:
        return not (self._finished or self._modal or self._gone or not self.is_active
                    or self.casino.too_small)

    def _turn_begins(self) -> bool:
        """Whether :meth:`_advance` begins the person's turn now (which redraws it all)."""
        return self._can_advance() and self._my_turn() and not (
            self._awaiting or self._sending or self._sent == self.net.position_key())

    def _advance(self) -> None:
        if not self._can_advance():
            return
        seen = self._seen()
        if seen.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            self._awaiting = False
            summary = seen.summary
            if summary is not None and summary.round_no > self.net.summaries_shown:
                self._show_table_summary(summary)
            elif seen.phase == Phase.GAME_OVER:
                self._show_game_over()
            return
        if not self._my_turn():
            if self._awaiting:
                self._awaiting = False
                self.refresh_all()
            return
        if self._awaiting or self._sending or self._sent == self.net.position_key():
            return
        self._begin_human_turn(self._perspective)

    def _apply_human(self, move: Move) -> None:
        if self._sending or not self._awaiting:
            return
        if trace.enabled():
            self._trace("key", self.net.view.number)
        self._sending = True
        self._awaiting = False
        self._message = LineData("")
        key = self._sending_key = self.net.position_key()
        in_background(self, "move", self._send_move, move, key)
        # Not drawn now: the move's events usually come within a few milliseconds and are
        # drawn in one frame with it (_take_update). Only a hub slower than that gets a
        # frame saying "Playing your move…" first.
        self._unshown = True
        self.set_timer(self.SENDING_SHOWN_AFTER, self._show_sending)

    def _show_sending(self) -> None:
        # Not once the hub's answer has come: the move is played and its events were written
        # right behind the answer; what holds them up is this process waiting for a core,
        # which a frame of its own would only make longer.
        if self._unshown and self._sending and self._answered is None and self.is_mounted:
            self.refresh_all()

    def refresh_all(self) -> None:
        self._unshown = False
        super().refresh_all()

    def _played(self, moves: list[tuple[MoveEvent, int, int]], fresh: bool = False) -> None:
        """End the sending if ``moves`` (an update's) hold the move being sent, or its answer
        came and the client has taken the events it named or shows the table afresh (``fresh``:
        its view is the table after them): the table as it is, in one frame."""
        if not self._sending:
            return
        seat = self.net.seat
        answered = self._answered
        if (seat is not None and any(ev.seat == seat for ev, _, _ in moves)) or (
                answered is not None and (fresh or self.net.client.number >= answered)):
            self._sending = False
            self._answered = None
            self._sent = self._sending_key

    async def _send_move(self, move: Move, key: int) -> None:
        try:
            events = await self.net.client.submit(move)
        except (HubError, IllegalMoveError) as err:
            if not self._sending or self._sending_key != key:
                return  # its events came (it was played) before the connection failed
            self._sending = False
            self._answered = None
            reason = getattr(err, "reason", str(err))
            if self._my_turn() and not self._finished:
                self._awaiting = True
            self._error(reason)
            self.refresh_all()
            return
        if not self._sending or self._sending_key != key:
            return  # its events came first and were shown with it (_take_update)
        last = max((e.number for e in events), default=0)
        if last > self.net.client.number:
            # The answer came before the move's events (the server writes it as the hub has
            # played the move, and the events next): they are on their way to this seat's
            # subscription, with the view after them, and are drawn in one frame when they
            # are taken (_played ends the sending then). Drawing the table now would prepare
            # every widget for a frame without the move, and again with it.
            self._answered = last
            return
        self._sending = False
        self._sent = key  # no new turn in this position: the move's events are on their way
        # Its events (and the view after it) may have come before this answer without the
        # move among them (a refusal cannot follow them): show the table as it is now.
        self.refresh_all()
        self._advance()

    def _run(self, ask: Callable[..., Coroutine[Any, Any, None]], group: str,
             *args: Any) -> None:
        """Ask the hub for something (``ask(*args)``, in the background) whose refusal is
        shown on the message line."""
        in_background(self, group, self._quietly, ask, *args)

    async def _quietly(self, ask: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        try:
            await ask(*args)
        except HubError as err:
            self._error(err.reason)

    def _not_your_turn(self) -> bool:
        if self.watching:
            self._error("you are watching this table: you have no cards to play")
            return True
        if self._sending:
            return True
        return super()._not_your_turn()

    # ------------------------------------------------------------------ what it reads
    def _moves_key(self) -> int:
        return self.net.position_key()

    def _legal_moves(self) -> list[Move]:
        return self._seen().seat_view().legal_moves()

    def _check_capture(self, card: Card, piles: list[int]) -> Move:
        # the engine's reason from the seat's own view (no other hand, no stock)
        return self._seen().seat_view().to_state({}, []).check_capture(card, piles)

    def _seat_view(self) -> SeatView:
        return self._seen().seat_view()

    def _hint_seed(self) -> int:
        return zlib.crc32(f"{self.net.round_no}/{self.net.position}".encode())

    def _position_key(self) -> int:
        return self.net.position_key()

    def _away(self, seat: int) -> str:
        return self.net.away(seat)

    def _save_notice(self) -> None:
        """The server saves the table: nothing to tell here."""

    # ------------------------------------------------------------------ drawing
    def _keys(self) -> tuple[tuple[str, str], ...]:
        sym = self.painter.symbols
        lr, ud = ("←→", "↑↓") if sym else ("<>", "^v")
        if self._modal_keys is not None:
            return self._modal_keys
        if self.watching:
            return (("/", "chat"), ("?", "help"), ("q", "leave"))
        # the creator's keys, when they apply, come last (whom they concern is in help): the
        # bar drops what does not fit from its end, and m (in help too) makes room for them
        more: tuple[tuple[str, str], ...] = ()
        if self._handable():
            more += ((HAND_KEY, "computer"),)
        if self._given():
            more += ((GIVE_KEY, "seat back"),)
        if self._awaiting:
            moves = () if more else (("m", "list"),)
            return ((lr, "card"), (ud, "move"), ("Enter", "play"), *moves,
                    ("/", "chat"), ("?", "help"), ("q", "leave"), *more)
        return (("/", "chat"), (lr, "look at your cards"), ("?", "help"), ("q", "leave"), *more)

    def _refresh_hand(self) -> None:
        if not self.watching:
            super()._refresh_hand()
            return
        seat = self._perspective
        names = self.session.names
        label = f" ({seat_labels(names)[seat]})" if self.compact_seats else ""
        box = self.query_one("#hand", HandView)
        box.set_title(f"{names[seat]}'s hand{label} · watching")  # never markup
        box.set_data(HandData(cards=None, count=self._seen().hand_sizes[seat], selected=None,
                              painter=self.painter, active=False))

    def _waiting_line(self, seat: int | None) -> LineData:
        net = self.net
        if self._sending:
            return LineData("Playing your move…", "thinking")
        if seat is None:
            if self._seen().phase == Phase.ROUND_OVER and not self._modal:
                return LineData("Waiting for everyone to see the round's summary", "info")
            return LineData("")
        name = net.names[seat]
        if net.stand_in(seat):
            return LineData(f"A computer plays for {name}", "thinking")
        if not net.is_human(seat):
            return LineData(f"{name} is thinking…", "thinking")
        if seat == net.seat:  # a computer played for them meanwhile: the turn comes back
            return LineData("")
        away = net.away(seat)
        return LineData(f"Waiting for {name}" + (f" ({away})" if away else ""), "info")

    # ------------------------------------------------------------------ summaries and end
    def _show_table_summary(self, summary: RoundSummary) -> None:
        net = self.net
        net.summaries_shown = summary.round_no
        net.add_note(f"Round {summary.round_no} over")
        self.refresh_all()
        data = summary_data(net, summary, self.painter)

        def after(_: object) -> None:
            if not data.game_over:
                self._run(net.client.next_round, "round")
            self.refresh_all()
            self.call_later(self._advance)

        self._push(RoundSummaryScreen(data), after, keys=(
            ("Enter", "see the result" if data.game_over else "next round"), ("?", "help")))

    def _show_game_over(self) -> None:
        net = self.net
        seen = self._seen()
        self._finished = True
        data = GameOverData(
            winner=None if seen.winner is None else net.side_names[seen.winner],
            sides=tuple(net.side_names), scores=tuple(seen.scores), target=seen.target,
            rounds=seen.round_no, seed="")
        creator = seen.creator_seat
        starter = None if self.creator else \
            net.names[creator] if creator is not None and creator < len(net.names) else ""
        keys = (("n", "new game at this table"),) if self.creator else ()
        self._set_modal_keys((*keys, ("Enter t", "back to the tables"), ("q", "quit"),
                              ("?", "help")))
        self._game_over = TableGameOverScreen(data, starter=starter)
        self.casino.push_screen(self._game_over, self._game_over_choice)

    def _game_over_choice(self, choice: GameOverChoice | None) -> None:
        self._game_over = None
        if self._replaced or (choice is None and not self._finished):
            self._replaced = False  # a new game was dealt: play on
            self._set_modal_keys(None)
            self.refresh_all()
            self.call_later(self._advance)
            return
        if choice == "new":
            in_background(self, "new-game", self._start_new_game)
            return
        self._leave_table()
        self.casino.game_over_choice("quit" if choice == "quit" else "menu",
                                     tables=True)

    async def _start_new_game(self) -> None:
        """The creator deals a new game at the table (it arrives as the table's update)."""
        try:
            await self.net.client.new_game()
        except HubError as err:
            self._error(err.reason)
            if self._finished and self._seen().phase == Phase.GAME_OVER:
                self._show_game_over()

    # ------------------------------------------------------------------ actions
    def _leave_table(self) -> None:
        """Leave the hub's table (the seat waits for its person); the app does it, as this
        screen is going."""
        client = self.net.client

        async def leave() -> None:
            with contextlib.suppress(HubError):  # the table is gone already
                await client.leave()

        in_background(self.casino, "table-leave", leave)

    def action_leave(self) -> None:
        def decided(yes: bool | None) -> None:
            if yes:
                self._finished = True
                self._token += 1
                self._leave_table()
                self.casino.back_to_tables()

        back = "the list of tables" if self.casino.hub is not None else "the title screen"
        if self.watching:
            question = f"Stop watching this table and go back to {back}?"
        else:
            question = (f"Leave the table and go back to {back}? Your seat waits for "
                        "you: the others see you are away until you come back.")
        self._push(ConfirmScreen(question), decided)

    def action_hand_to_computer(self) -> None:
        """The creator lets a computer play the seat of a person away for a while (after a
        confirmation); the person takes it back when they return."""
        if self._modal or self._gone or self.watching:
            return
        net = self.net
        if not self.creator:
            self._error("only the table's creator can hand a seat to a computer")
            return
        seats = self._handable()
        if not seats:
            now = net.clock()
            away = [(i, s) for i, s in enumerate(net.view.seats)
                    if s.human and not s.stand_in and s.away_since is not None]
            if self._finished:
                self._error("the game is over")
            elif away:
                i, s = away[0]
                wait = max(1, int(AWAY_GRACE - (now - (s.away_since or now))) + 1)
                self._error(f"{net.names[i]} has been away for "
                            f"{away_for(now - (s.away_since or now))}: wait "
                            f"{wait} s more before a computer plays for them")
            else:
                self._error("nobody is away: only an away player's seat can be handed to a "
                            "computer")
            return
        seat = seats[0]
        name = net.names[seat]
        level = DEFAULT_LEVEL  # the table's level for a computer standing in
        away_since = net.view.seats[seat].away_since or net.clock()

        def decided(yes: bool | None) -> None:
            if yes:
                self._run(net.client.hand_to_computer, "seats", seat, level)

        self._push(ConfirmScreen(
            f"{name} has been away for {away_for(net.clock() - away_since)}. Let a computer "
            f"({level}) play "
            f"for {name}? {name} takes the seat back by coming back to the table."), decided)

    def action_give_back(self) -> None:
        """The creator takes a seat back from its computer: it waits for its person again."""
        if self._modal or self._gone or self.watching:
            return
        if not self.creator:
            self._error("only the table's creator can give a seat back")
            return
        seats = self._given()
        if not seats:
            self._error("no computer plays for anyone at this table")
            return
        self._run(self.net.client.give_back, "seats", seats[0])

    def action_chat(self) -> None:
        if self._modal or self._gone:
            return
        from .chat import ChatScreen

        def said(text: str | None) -> None:
            if text:
                self._run(self.net.client.chat, "chat", text)

        self._push(ChatScreen(), said)

    def action_skip(self) -> None:
        """The table's computers play in the server, at the table's pace: nothing to skip."""

    def action_save_copy(self) -> None:
        self._error("the server saves this table after every move")
