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
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections.abc import Coroutine
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content

from casino_tui.engine import Card, IllegalMoveError, Move, Phase, RoundSummary, SeatView
from casino_tui.table.client import TableUpdate
from casino_tui.table.hub import HubError

from ..netsession import NetSession
from ..players import Chooser
from ..session import seat_labels
from ..widgets.table import HandData, HandView, LineData
from .confirm import ConfirmScreen
from .game import GAME_KEYS, GameScreen
from .gameover import GameOverChoice, GameOverData, GameOverScreen
from .summary import RoundSummaryScreen, summary_data

CHAT_KEY = ("/", "chat: say a line to the table (shown in everyone's log)")
# the keys of a solo game that a table has no use for: its computers play in the server at the
# table's pace, the server saves the table after every move, and no play is taken back
SOLO_ONLY = ("Ctrl+S", "s", "u")
TABLE_KEYS: list[tuple[str, str]] = [
    *[(k, what) for k, what in GAME_KEYS if k not in SOLO_ONLY and k != "q"],
    CHAT_KEY,
    ("q", "leave the table (your seat waits for you)"),
]
WATCH_KEYS: list[tuple[str, str]] = [
    ("Tab Shift+Tab", "move the cursor over the table piles"),
    CHAT_KEY,
    ("r", "rules of this game"),
    ("o", "settings"),
    ("q", "stop watching (back to the title screen)"),
]


class TableGameScreen(GameScreen):
    """One person's game at a hub's table: their seat (``session.seat``), or watching it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "chat", "Chat", show=False, id="game.chat"),
    ]
    HELP_TITLE = "Game table"
    SKIP_NOTE: ClassVar[str] = ""
    AWAY_REFRESH: ClassVar[float] = 10.0  # seconds between updates of "away 2m"
    RETRY_AFTER: ClassVar[float] = 2.0  # seconds before a broken connection is tried again

    def __init__(self, session: NetSession, chooser: Chooser) -> None:
        super().__init__(session, chooser)  # the person's seat is on screen (watching: 0)
        self.net = session
        self._sending = False  # a move is on its way to the hub
        self._sent: int | None = None  # the position the move was sent in
        self._updating = False  # an update of the table is being taken
        self._gone = False  # the table closed

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
        return [(self.HELP_TITLE, WATCH_KEYS if self.watching else TABLE_KEYS)]

    # ------------------------------------------------------------------ following the table
    def _start(self) -> None:
        """Follow the table (its first view and log came with the session)."""
        self.set_interval(self.AWAY_REFRESH, self._refresh_away)
        self.run_worker(self._follow(), group="table", exclusive=True, exit_on_error=False)

    def on_unmount(self) -> None:  # (GameScreen's runs too: Textual calls both)
        self.net.client.close()

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
                self._take_update(update)
            finally:
                self._updating = False

    def _take_update(self, update: TableUpdate) -> None:
        net = self.net
        moves = net.take(update, self.painter)
        if update.fresh:
            self._clear_recent()
            self._awaiting = False
            self._sent = None
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
        self.refresh_all()
        self.call_later(self._advance)

    def _table_gone(self, reason: str) -> None:
        self._gone = True
        self._awaiting = False
        self._message = LineData(f"The table is gone: {reason}", "error")
        if self.is_mounted:
            self.refresh_all()

    def _refresh_away(self) -> None:
        if self.is_mounted and any(s.away_since is not None for s in self.net.view.seats):
            self._refresh_seats()
            self._refresh_status()

    # ------------------------------------------------------------------ the flow of play
    def _my_turn(self) -> bool:
        seat = self.net.seat
        seen = self._seen()
        return seat is not None and seen.to_move == seat and not self.net.stand_in(seat) \
            and seen.phase in (Phase.PLAY, Phase.PLUCK)

    def _advance(self) -> None:
        if self._finished or self._modal or self._gone or not self.is_active \
                or self.casino.too_small:
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
        self._sending = True
        self._awaiting = False
        self._message = LineData("")
        self.refresh_all()
        self.run_worker(self._send_move(move, self.net.position_key()), group="move",
                        exit_on_error=False)

    async def _send_move(self, move: Move, key: int) -> None:
        try:
            await self.net.client.submit(move)
        except (HubError, IllegalMoveError) as err:
            self._sending = False
            reason = getattr(err, "reason", str(err))
            if self._my_turn() and not self._finished:
                self._awaiting = True
            self._error(reason)
            self.refresh_all()
            return
        self._sending = False
        self._sent = key  # no new turn in this position: the move's events are on their way

    def _run(self, job: Coroutine[Any, Any, None], group: str) -> None:
        self.run_worker(job, group=group, exit_on_error=False)

    async def _quietly(self, job: Coroutine[Any, Any, None]) -> None:
        """Ask the hub for something whose refusal is shown on the message line."""
        try:
            await job
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
        if self._awaiting:
            return ((lr, "card"), (ud, "move"), ("Enter", "play"), ("m", "list"),
                    ("/", "chat"), ("?", "help"), ("q", "leave"))
        if self.watching:
            return (("/", "chat"), ("?", "help"), ("q", "leave"))
        return (("/", "chat"), (lr, "look at your cards"), ("?", "help"), ("q", "leave"))

    def _refresh_hand(self) -> None:
        if not self.watching:
            super()._refresh_hand()
            return
        seat = self._perspective
        names = self.session.names
        label = f" ({seat_labels(names)[seat]})" if self.compact_seats else ""
        box = self.query_one("#hand", HandView)
        box.border_title = Content(f"{names[seat]}'s hand{label} · watching")  # never markup
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
                self._run(self._quietly(net.client.next_round()), "round")
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
        self._set_modal_keys((("Enter t", "title screen"), ("q", "quit"), ("?", "help")))
        self.casino.push_screen(GameOverScreen(data, new_game=False), self._game_over_choice)

    def _game_over_choice(self, choice: GameOverChoice | None) -> None:
        self._leave_table()
        self.casino.game_over_choice("quit" if choice == "quit" else "menu")

    # ------------------------------------------------------------------ actions
    def _leave_table(self) -> None:
        """Leave the hub's table (the seat waits for its person); the app does it, as this
        screen is going."""
        client = self.net.client

        async def leave() -> None:
            with contextlib.suppress(HubError):  # the table is gone already
                await client.leave()

        self.casino.run_worker(leave(), group="table-leave", exit_on_error=False)

    def action_leave(self) -> None:
        def decided(yes: bool | None) -> None:
            if yes:
                self._finished = True
                self._token += 1
                self._leave_table()
                self.casino.back_to_title()

        if self.watching:
            question = "Stop watching this table and go back to the title screen?"
        else:
            question = ("Leave the table and go back to the title screen? Your seat waits for "
                        "you: the others see you are away until you come back.")
        self._push(ConfirmScreen(question), decided)

    def action_chat(self) -> None:
        if self._modal or self._gone:
            return
        from .chat import ChatScreen

        def said(text: str | None) -> None:
            if text:
                self._run(self._quietly(self.net.client.chat(text)), "chat")

        self._push(ChatScreen(), said)

    def action_skip(self) -> None:
        """The table's computers play in the server, at the table's pace: nothing to skip."""

    def action_save_copy(self) -> None:
        self._error("the server saves this table after every move")
