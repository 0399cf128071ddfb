"""The game table: piles, your hand, the other players, the score, the log, and move selection.

Move selection: Left/Right (or 1-9) choose a hand card; Up/Down cycle that card's legal moves,
previewed on the table and described in one line; Enter plays. Tab moves a cursor over the
table piles and Space toggles them for a free selection, which narrows the moves to those using
exactly the selected piles (the engine says why when none does). ``m`` lists every legal move.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer

from casino_tui.engine import (
    Build,
    Card,
    IllegalMoveError,
    Move,
    MoveEvent,
    Phase,
    SeatView,
    State,
)
from casino_tui.saves.storestatus import BACK as STORE_BACK
from casino_tui.saves.storestatus import StoreStatus
from casino_tui.table import ComputerTurn, MoveRefused, TableController
from casino_tui.table import TableView as Seen

from ..background import in_background
from ..cardfmt import CardPainter
from ..describe import move_preview
from ..players import Chooser
from ..saveproblems import failure_message, save_status
from ..session import GameSession, SessionBase, pile_index_of, seat_labels, undo_words
from ..styles import css
from ..widgets.base import Column, Row
from ..widgets.table import (
    HandData,
    HandView,
    InfoBar,
    InfoData,
    KeyBar,
    LineData,
    LogData,
    LogView,
    MessageLine,
    RecentData,
    RecentPlays,
    ScoreData,
    ScorePanel,
    SeatBox,
    SeatData,
    SeatList,
    SeatListData,
    StatusLine,
    TableData,
    TableView,
)
from .confirm import ConfirmScreen
from .firstshow import FirstShow
from .gameover import GameOverData, GameOverScreen
from .picklist import PickListScreen
from .privacy import PrivacyScreen
from .summary import RoundSummaryScreen, summary_data

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.saves import SaveSlot, SaveStore

    from ..app import CasinoApp
    from .review import Reviewed

ResultT = TypeVar("ResultT")  # what a dialog opened over the table returns

SUIT_WORDS = ("Spades", "Hearts", "Diamonds", "Clubs")
LOG_LINES = 40  # entries kept on screen (more than fit in the panel at any size)
RECENT_KEPT = 24  # log entries remembered per seat for the recent-plays lines

GAME_KEYS: list[tuple[str, str]] = [
    ("← → or 1-9", "choose a card from your hand"),
    ("↑ ↓", "cycle its moves, previewed on the table"),
    ("Enter", "play the previewed move"),
    ("Tab Shift+Tab", "move the cursor over the table piles"),
    ("Space", "select the pile under the cursor (free selection)"),
    ("Esc", "clear the selection and any message"),
    ("t", "trail the chosen card"),
    ("p", "pluck the loose card under the cursor (Pluck)"),
    ("c", "claim the game (Call-out)"),
    ("m", "list every legal move, with a filter"),
    ("l", "the whole log of the game, every line in full"),
    ("h", "hint: the Hard computer suggests a move and says why"),
    ("u", "undo: take back your last play (against the computer)"),
    ("Ctrl+S", "save a named copy of the game (it is saved after every move anyway)"),
    ("s", "skip ahead: computers play without pausing"),
    ("r", "rules of this game"),
    ("o", "settings"),
    ("q", "leave the game (back to the title screen)"),
    ("click a card", "choose it; a second click plays the previewed move"),
    ("click a pile", "select it, or let it go (as Space)"),
    ("click a key", "in the bar at the bottom: press it"),
    ("wheel", "over the log: scroll it back"),
]


def _move_order(table: Sequence[object], m: Move) -> tuple[int, int, int, tuple[int, ...]]:
    if m.kind == "capture":
        n = sum(len(p.cards) if isinstance(p, Build) else 1
                for p in (table[i] for i in m.piles))
        return (0, -n, 0, m.piles)
    if m.kind == "build":
        return (1, 0, m.value or 0, m.piles)
    if m.kind == "trail":
        return (2, 0, 0, ())
    if m.kind == "pluck":
        return (3, 0, m.card, ())
    return (4, 0, 0, ())


class GameScreen(FirstShow, Screen[None]):
    """Plays one game from the first deal to the game-over screen. Shown for the first time
    laid out and drawn whole once, with its breakpoint classes from its first frame
    (:class:`FirstShow`): every player's deal."""

    # with the dialogs' (the round's summary, the game over screen, help...), read with the
    # table's own as it is first shown: a file read when a dialog first shows it makes Textual
    # restyle every widget of the app (the table's, under the dialog) at that moment, at the
    # end of every player's first round
    CSS_PATH: ClassVar[list[str | PurePath]] = css("game", "dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "card(-1)", "Card", show=False, id="game.card_left"),
        Binding("right", "card(1)", "Card", show=False, id="game.card_right"),
        *[Binding(str(i), f"pick({i - 1})", f"Card {i}", show=False, id=f"game.card_{i}")
          for i in range(1, 10)],
        Binding("up", "cycle(-1)", "Move", show=False, id="game.move_prev"),
        Binding("down", "cycle(1)", "Move", show=False, id="game.move_next"),
        Binding("enter", "play", "Play", show=False, id="game.play"),
        Binding("tab", "cursor(1)", "Pile", show=False, priority=True, id="game.cursor_next"),
        Binding("shift+tab", "cursor(-1)", "Pile", show=False, priority=True,
                id="game.cursor_prev"),
        Binding("space", "toggle_pile", "Select", show=False, id="game.toggle"),
        Binding("escape", "clear", "Clear", show=False, id="game.clear"),
        Binding("t", "trail", "Trail", show=False, id="game.trail"),
        Binding("p", "pluck", "Pluck", show=False, id="game.pluck"),
        Binding("c", "claim", "Claim", show=False, id="game.claim"),
        Binding("m", "move_list", "Moves", show=False, id="game.move_list"),
        Binding("l", "full_log", "Log", show=False, id="game.full_log"),
        Binding("h", "hint", "Hint", show=False, id="game.hint"),
        Binding("u", "undo", "Undo", show=False, id="game.undo"),
        Binding("ctrl+s", "save_copy", "Save a copy", show=False, id="game.save_copy"),
        Binding("s", "skip", "Skip", show=False, id="game.skip"),
        Binding("r", "rules", "Rules", show=False, id="game.rules"),
        Binding("o", "settings", "Settings", show=False, id="game.settings"),
        Binding("q", "leave", "Leave", show=False, id="game.leave"),
    ]

    HELP_TITLE = "Game table"
    SKIP_NOTE: ClassVar[str] = " (s skips ahead)"  # how not to wait for the computers
    SAVED_AGAIN_SECONDS: ClassVar[float] = 6.0  # "Saved again" stays this long
    FRAME_WAIT_SECONDS: ClassVar[float] = 0.1  # the longest wait for a move's frame
    STORE_LOOK_SECONDS: ClassVar[float] = 2.0  # between two looks whether the store is away
    # the five- and six-player table lists the other players in one column when tall enough
    # (Textual annotates it `ClassVar[...] | None`, which mypy reads as an instance variable)
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [  # type: ignore[misc]
        (0, "-short"), (34, "-tall")]
    # from each size up (width, height), a level of big cards (cardfmt.CARD_SIZES)
    BIG_CARDS: ClassVar[tuple[tuple[int, int], ...]] = ((100, 32), (150, 45))

    def __init__(self, session: SessionBase, chooser: Chooser, store: SaveStore | None = None,
                 slot: SaveSlot | None = None) -> None:
        super().__init__()
        self.session = session
        self.chooser = chooser
        self.store = store
        self.slot = slot  # None: not saved (read-only, or no store)
        if isinstance(session, GameSession):
            session.table.store = store  # the table autosaves after the deal and every move
            session.table.slot = slot
            # ... once the move is on the screen (see _after_frame)
            session.table.defer_saves(self._save_due)
        self._hinting: int | None = None  # the position key a hint is being computed for
        humans = session.human_seats
        self._perspective = humans[0] if humans else 0
        self._revealed: int | None = None if session.hot_seat else self._perspective
        self._card_i = 0
        self._move_i = 0
        self._selection: set[int] = set()
        self._cursor: int | None = None
        self._awaiting = False
        self._thinking: int | None = None
        self._token = 0
        self._pending: tuple[int, ComputerTurn, Move] | None = None
        self._timer: Timer | None = None
        self._timer_args: tuple[int, ComputerTurn, Move] | None = None
        self._skip = False
        self._skip_event = asyncio.Event()
        self._thought: asyncio.Task[None] | None = None  # the computer's turn (see _think)
        # what waits for the frame being drawn to be written (see _after_frame)
        self._frame_jobs: list[Callable[[], object]] = []
        self._frame_save = False  # the table's deferred autosave is among them, last
        self._frame_wait: asyncio.TimerHandle | None = None  # until the frame, at most
        self._moves_cache: tuple[int, list[Move]] | None = None
        self._seen_cache: tuple[tuple[int, ...], Seen] | None = None  # see _seen
        # per seat: the log entries (is_note, text) since that seat last played, and the
        # cards those plays put on the table (shown to whoever's hand is on screen)
        self._recent: dict[int, list[tuple[bool, str]]] = {}
        self._recent_cards: dict[int, set[Card]] = {}
        self._modal_keys: tuple[tuple[str, str], ...] | None = None
        self._message = LineData("")
        self._modal = False
        self._finished = False
        self._save_line_timer: Timer | None = None
        # served with a shared store: the server's file that says the store is away
        self._store_status = StoreStatus.from_env()
        self._reviews: dict[int, dict[int, Reviewed]] = {}  # Hard's estimates, by round
        self._clicked: tuple[int, int] | None = None  # (position, card) a click chose
        self.big_cards = 0  # the level of big cards (0: the small faces)

    # ------------------------------------------------------------------ app glue
    @property
    def casino(self) -> CasinoApp:
        return self.app  # type: ignore[return-value]

    @property
    def painter(self) -> CardPainter:
        return self.casino.painter

    @property
    def local(self) -> GameSession:
        """The game held in this process (a solo or hot-seat game; the game of a hub's table
        is held by the hub, and its screen only ever has its seat's view)."""
        session = self.session
        if not isinstance(session, GameSession):
            raise TypeError("the game of this screen is held by a table hub")
        return session

    @property
    def state(self) -> State:
        return self.local.state

    def _seen(self) -> Seen:
        """The table as the seat on screen sees it: all the table's drawing reads.

        A game held here keeps it until the game moves on (a key reads it a dozen times)."""
        session = self.session
        if not isinstance(session, GameSession):
            return session.view_for(self._perspective)
        table = session.table
        st = table.state
        key = (self._perspective, id(st), st.round_no, len(st.history), table.undos,
               id(table.events), len(table.events))
        if self._seen_cache is None or self._seen_cache[0] != key:
            self._seen_cache = (key, session.view_for(self._perspective))
        return self._seen_cache[1]

    @property
    def awaiting_human(self) -> bool:
        """A person is to move and the screen is waiting for their keys."""
        return self._awaiting

    @property
    def settled(self) -> bool:
        """Nothing will happen without a key: a person is to move, a dialog is open, or the
        game is over."""
        return self._awaiting or self._modal or self._finished

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, GAME_KEYS)]

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield InfoBar(id="game-header")
        with Row(id="game-body"):
            with Column(id="main-col"):
                others = self.session.num_players - 1
                if self.compact_seats:
                    yield SeatList(id="seat-list", classes=f"others-{others}")
                else:
                    with Row(id="opponents"):
                        for i in range(others):
                            yield SeatBox(id=f"seat-{i}", classes="seat")
                with Column(id="table-box"):
                    yield TableView(id="table")
                    yield RecentPlays(id="recent",
                                      classes=f"lines-{min(3, self.session.num_players - 1)}")
                yield HandView(id="hand")
                yield MessageLine(id="move-line")  # wrapped when long: never cut
                yield MessageLine(id="message-line")
                yield MessageLine(id="save-line")  # shown only while saving fails
            with Column(id="side-col"):
                yield ScorePanel(id="score")
                yield LogView(id="log")
        yield KeyBar(id="keys")

    @property
    def compact_seats(self) -> bool:
        """Five or six players: the others are listed in one compact panel (with short seat
        labels, also heading the score columns) instead of a box each."""
        return self.session.num_players >= 5

    def on_mount(self) -> None:
        self.set_class(self.compact_seats, "-many")
        self._size_cards()
        self.query_one("#table-box").border_title = "Table"
        self.query_one("#score").border_title = "Score"
        log = self.query_one("#log", LogView)
        log.border_title = "Log"
        log.hint = log.border_subtitle = "l: in full"
        self._start()
        self.refresh_all()
        if self._store_status is not None:  # only when served with a store
            self.set_interval(self.STORE_LOOK_SECONDS, self._look_at_store)
            self._look_at_store()

    def _start(self) -> None:
        """The game begins on screen: the log of the deal, the computers, the first save."""
        self.local.sync(self.painter)  # a new game: the first deal's lines
        if any(not self.session.is_human(s) for s in range(self.session.num_players)):
            self.chooser.start()
        if self.slot is not None and not self.slot.saved:
            self.autosave()  # a new game: saved right after the deal

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        self.refresh_all()
        self.call_after_refresh(self._advance)

    def on_resize(self, event: events.Resize) -> None:
        if self._size_cards():
            self.refresh_all()

    def _size_cards(self) -> bool:
        """Big cards from :attr:`BIG_CARDS` up (the classes ``-big-1`` and ``-big-2`` give
        the hand its height); True when that changed."""
        width, height = self.app.size
        level = sum(1 for w, h in self.BIG_CARDS if width >= w and height >= h)
        if level == self.big_cards:
            return False
        self.big_cards = level
        for i in range(1, len(self.BIG_CARDS) + 1):
            self.set_class(level == i, f"-big-{i}")
        return True

    def on_unmount(self) -> None:
        self.close_save()
        self._token += 1
        if self._thought is not None:
            self._thought.cancel()
            self._thought = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # ------------------------------------------------------------------ the flow of play
    def _advance(self) -> None:
        """Decide what happens next: a summary, a person's turn or a computer's turn."""
        if self._finished or self._modal or not self.is_active or self.casino.too_small:
            return
        if self._pending is not None:
            token, turn, move = self._pending
            self._pending = None
            self._computer_done(token, turn, move)
            return
        if self._awaiting or self._thinking is not None or self._timer is not None:
            return
        st = self.state
        session = self.session
        if st.is_round_over or st.is_game_over:
            if len(st.round_summaries) > session.summaries_shown:
                self._show_summary()
            elif st.is_game_over:
                self._show_game_over()
            return
        to_play = st.current_player
        if to_play is None:  # pragma: no cover - only in the phases handled above
            return
        if not self.local.table.computer_plays(to_play):
            self._begin_human_turn(to_play)
        else:
            self._begin_computer_turn(to_play)

    def _begin_human_turn(self, seat: int) -> None:
        session = self.session
        if session.hot_seat and self._revealed != seat:
            self._perspective = seat
            self._revealed = None
            self.refresh_all()
            self._push(PrivacyScreen(session.names[seat]), lambda _: self._reveal(seat))
            return
        self._perspective = seat
        self._skip = False
        self._skip_event.clear()
        self._awaiting = True
        self._moves_cache = None
        self._clamp_card()
        self._move_i = 0
        if self._seen().phase == Phase.PLAY and not self._choices():
            playable = {m.card for m in self._human_moves()}
            hand = self._hand()
            self._card_i = next((i for i, c in enumerate(hand) if c in playable), self._card_i)
        self._message = LineData("")
        self.refresh_all()

    def _reveal(self, seat: int) -> None:
        self._revealed = seat

    def _begin_computer_turn(self, seat: int) -> None:
        turn = self.local.table.computer_turn()
        if turn is None:  # pragma: no cover - _advance saw a computer to move
            return
        self._thinking = seat
        self._token += 1
        token = self._token
        self._message = LineData(f"{self.session.names[seat]} is thinking…", "thinking",
                                 "s: skip ahead")
        self.refresh_all()
        if self.chooser.in_process:
            move = self._safe_choose_now(turn)
            delay = 0.0 if self._skip else self.casino.settings.delay
            if delay > 0:
                self._timer_args = (token, turn, move)
                self._timer = self.set_timer(delay, self._timer_done)
            else:
                self.call_later(self._computer_done, token, turn, move)
        else:
            # asked once the frame that shows the move and the computer thinking is written
            # (the pace counts from now): a plain task, not a Textual worker, whose state
            # changes were three messages to the screen per turn
            started = time.monotonic()
            self._after_frame(lambda: self._ask(token, turn, started))

    def _ask(self, token: int, turn: ComputerTurn, started: float) -> None:
        if token != self._token or self._finished:
            return  # the game moved on (an undo, leaving) before the frame was written
        if self._thought is not None:
            self._thought.cancel()
        self._thought = task = asyncio.get_running_loop().create_task(
            self._think(token, turn, started))
        task.add_done_callback(self._thought_done)

    def _thought_done(self, task: asyncio.Task[None]) -> None:
        if self._thought is task:
            self._thought = None
        if not task.cancelled() and task.exception() is not None:
            # (a Textual worker with exit_on_error=False kept it in its state and went on)
            self.log.error("the computer's turn failed", task.exception())

    def _safe_choose_now(self, turn: ComputerTurn) -> Move:
        try:
            return self.chooser.choose_now(turn.view, turn.level, turn.seed)
        except Exception as err:  # a broken computer player must not stop the game
            move = self.local.table.fallback_move(turn.view, turn.seed, err)
            self.local.sync(self.painter)  # the note saying so
            return move

    async def _think(self, token: int, turn: ComputerTurn, started: float) -> None:
        move = await self.local.table.think(turn, self.chooser)  # a failure: a random move
        self.local.sync(self.painter)
        remaining = self.casino.settings.delay - (time.monotonic() - started)
        if remaining > 0 and not self._skip:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._skip_event.wait(), remaining)
        self._computer_done(token, turn, move)

    def _after_frame(self, job: Callable[[], object]) -> None:
        """Run ``job`` once the frame being drawn (what the key or the move changed) has been
        written to the terminal: what can wait (asking the computer, the autosave) then never
        holds up the screen's answer to a key, on a busy host neither, where the frame waited
        for them before (the key's first byte). Jobs run in order; the autosave last."""
        self._frame_jobs.append(job)
        self._wait_for_frame()

    def _save_due(self) -> None:
        """The table has an autosave due (see :meth:`TableController.defer_saves`): it is
        written once the frame that shows the move has been written, before anything else
        changes the game (the table writes one that is still due before the next move)."""
        self._frame_save = True
        self._wait_for_frame()

    def _wait_for_frame(self) -> None:
        if self._frame_wait is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (no event loop: nothing is drawn either)
            self._frame_written()
            return
        # Textual's call_after_refresh is no use here: it runs as soon as the screen is idle,
        # often before the widgets changed by the key have asked it for a frame. A frame that
        # never comes (nothing on this screen changed, or a dialog is on top) waits this long.
        self._frame_wait = loop.call_later(self.FRAME_WAIT_SECONDS, self._frame_drawn)

    def _compositor_refresh(self) -> None:
        super()._compositor_refresh()  # a frame of this screen, handed to the output thread
        if self._frame_wait is not None:
            self._frame_drawn()

    def _frame_drawn(self) -> None:
        """The frame is drawn (handed to Textual's output thread): on a terminal, the jobs
        wait for that thread to have written it, so that they do not take the interpreter
        from it meanwhile."""
        if self._frame_wait is not None:
            self._frame_wait.cancel()
            self._frame_wait = None
        driver = getattr(self.app, "_driver", None)
        after_written = getattr(driver, "after_written", None)
        if after_written is None:  # headless, or another driver: drawn is all there is
            self._frame_written()
            return
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # (the app's, for the jobs)

        def written() -> None:  # in the output thread
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing to do
                loop.call_soon_threadsafe(self._frame_written, context=context)

        after_written(written)

    def _frame_written(self) -> None:
        jobs, self._frame_jobs = self._frame_jobs, []
        save, self._frame_save = self._frame_save, False
        try:
            for job in jobs:
                job()
        finally:
            if save and isinstance(self.session, GameSession) \
                    and self.local.table.flush_save() is not None and self.is_mounted:
                self._save_notice()  # a problem, or that saving works again

    def _timer_done(self) -> None:
        self._timer = None
        args, self._timer_args = self._timer_args, None
        if args is not None:
            self._computer_done(*args)

    def _computer_done(self, token: int, turn: ComputerTurn, move: Move) -> None:
        if token != self._token or self._finished:
            return
        if not self.is_active or self.casino.too_small:
            self._pending = (token, turn, move)  # played when the screen is back
            self._thinking = None
            return
        self._thinking = None
        self._message = LineData("")  # no longer "… is thinking"
        start = len(self.session.log)
        # an illegal move (a computer bug) is replaced by a random legal one: never a stall
        played = self.local.play_computer(turn, move, self.painter)
        if played is None:  # pragma: no cover - the token guards against a stale answer
            self.call_later(self._advance)
            return
        ev, _before = played
        self._note_recent(ev, start)
        self._after_move()

    def _note_recent(self, ev: MoveEvent, start: int, end: int | None = None) -> None:
        """Remember a play (and the notes it caused, such as a new deal: the log from
        ``start`` to ``end``) for every seat but the person who made it, whose list starts
        again."""
        session = self.session
        entries = [(e.seat is None, e.text) for e in session.log[start:end]]
        notes = [e for e in entries if e[0]]
        card = ev.move.card if ev.move.kind in ("trail", "build") and ev.move.card >= 0 \
            else None
        for seat in range(session.num_players):
            lines = self._recent.setdefault(seat, [])
            cards = self._recent_cards.setdefault(seat, set())
            if seat == ev.seat and session.is_human(seat):
                lines[:] = notes
                cards.clear()
                continue
            lines.extend(entries)
            del lines[:-RECENT_KEPT]
            if card is not None:
                cards.add(card)

    def _clear_recent(self) -> None:
        self._recent.clear()
        self._recent_cards.clear()

    def _restore_recent(self) -> None:
        """The recent-plays lines of the player on screen rebuilt from the log and the table's
        events (after an undo, or in a resumed game): what the others played since that
        player's last play, and the cards they put on the table."""
        self._clear_recent()
        if not isinstance(self.session, GameSession):
            return
        seat = self._perspective
        log = self.session.log
        mine = [i for i, e in enumerate(log) if e.seat == seat]
        start = mine[-1] + 1 if mine else 0
        self._recent[seat] = [(e.seat is None, e.text) for e in log[start:]
                              if not e.text.startswith("Undo: ")][-RECENT_KEPT:]
        events = self.local.table.events
        moved = [i for i, e in enumerate(events) if e.kind == "move" and e.seat == seat]
        cards = self._recent_cards.setdefault(seat, set())
        for e in events[moved[-1] + 1 if moved else 0:]:
            if e.kind == "move" and e.move is not None and e.move.move.kind in (
                    "trail", "build") and e.move.move.card >= 0:
                cards.add(e.move.move.card)

    def _recent_lines(self) -> tuple[tuple[bool, str], ...]:
        """The plays the player on screen has not seen played: one line per play, a note
        (new deal) joined to the play before it (or after it), the latest lines that fit."""
        lines: list[list[tuple[bool, str]]] = []
        for note, text in self._recent.get(self._perspective, []):
            if not lines or (not note and not all(n for n, _ in lines[-1])):
                lines.append([])
            lines[-1].append((note, text))
        room = min(3, self.session.num_players - 1)
        return tuple((all(n for n, _ in line), " · ".join(t for _, t in line))
                     for line in lines[-room:])

    def _after_move(self) -> None:
        self._save_notice()  # the table saved the game after the move
        self._moves_cache = None
        self._selection.clear()
        self._cursor = None
        if self._players_turn_next():
            # The move and the player's turn after it in one frame: drawing them apart cost a
            # second frame of the hand, the key bar and both message lines after each
            # computer's move (benchmarks/keycpu.py).
            self._advance()
            if not self._awaiting:  # the turn did not begin after all: the move alone
                self.refresh_all()
            return
        if self._computers_turn_next():
            # Likewise the move and the computer thinking: one drawing of the table, not two
            # (the computer's turn draws it). The computer's answer comes later (a worker, a
            # timer or call_later), so a chain of computers stays flat.
            self._advance()
            if self._thinking is None:  # its turn did not begin after all: the move alone
                self.refresh_all()
            return
        self.refresh_all()
        st = self.state
        if (st.is_round_over or st.is_game_over) and self.is_active and not self._modal:
            # The round's last move is drawn first, and its summary comes once that frame is
            # written, as a play draws its move before the computer thinks: the summary is
            # a screen of its own, several times a move's drawing, and the key that ended the
            # round waited for all of it before its first byte reached the player.
            self._after_frame(self._advance)
            return
        self.call_later(self._advance)

    def _players_turn_next(self) -> bool:
        """The next turn is a person's at this screen, with nothing to show before it (no
        summary, no hand to hide on a shared screen): :meth:`_advance` may begin it now."""
        return self._next_turn_here(computer=False)

    def _computers_turn_next(self) -> bool:
        """The next turn is a computer's, with nothing to show before it: :meth:`_advance`
        may begin it now."""
        return self._next_turn_here(computer=True)

    def _next_turn_here(self, computer: bool) -> bool:
        st = self.state
        seat = st.current_player
        return (seat is not None and not st.is_round_over and not st.is_game_over
                and not self.session.hot_seat and self.is_active and not self._modal
                and self.local.table.computer_plays(seat) == computer)

    # ------------------------------------------------------------------ summaries and end
    def _push(self, screen: Screen[ResultT], callback: Callable[[ResultT | None], object],
              keys: tuple[tuple[str, str], ...] | None = None) -> None:
        """Open a dialog over the table; ``keys``: the dialog's own keys, shown in the key
        bar (which the dialog leaves visible) while it is open."""
        self._modal = True
        self._set_modal_keys(keys)

        def done(result: ResultT | None) -> None:
            self._modal = False
            self._set_modal_keys(None)
            callback(result)

        self.app.push_screen(screen, done)

    def _set_modal_keys(self, keys: tuple[tuple[str, str], ...] | None) -> None:
        self._modal_keys = keys
        if self.is_mounted:
            self.query_one("#keys", KeyBar).set_data(self._keys())

    def _show_summary(self) -> None:
        session = self.local
        st = self.state
        summary = st.round_summaries[-1]
        session.summaries_shown = len(st.round_summaries)
        session.add_note(f"Round {summary.round_no} over")
        self.refresh_all()
        data = summary_data(session, summary, self.painter)

        def after(result: str | None) -> None:
            if result == "undo" and self._undo():
                return  # the round is back in play: its summary comes again at its end
            if st.is_round_over:
                session.next_round()  # the table saves the new round
                self._save_notice()
                self._clear_recent()
                self._card_i = 0
                if session.hot_seat:
                    self._revealed = None
                self.refresh_all()

        review = self._reviewer(summary.round_no)
        self._push(RoundSummaryScreen(data, review, undo=self._undo_offered()), after,
                   keys=(("Enter", "see the result" if data.game_over else "next round"),
                         ("?", "help")))

    def _show_game_over(self) -> None:
        session = self.local
        st = self.state
        self._finished = True
        self.casino.record_game(self.slot, st)  # the player's statistics
        data = GameOverData(
            winner=None if st.winner is None else session.side_names[st.winner],
            sides=tuple(session.side_names), scores=tuple(st.scores), target=st.target,
            rounds=st.round_no, seed=str(session.seed))
        self._set_modal_keys((("n Enter", "new game"), ("t", "title screen"), ("q", "quit"),
                              ("?", "help")))
        self.casino.push_screen(GameOverScreen(data, review=self._reviewer(st.round_no)),
                                self.casino.game_over_choice)

    def _reviewer(self, round_no: int) -> Callable[[], object] | None:
        """What opens the review of round ``round_no`` (None: no review here)."""
        if not isinstance(self.session, GameSession):
            return None

        def open_review() -> None:
            from .review import ReviewScreen

            estimates = self._reviews.setdefault(round_no, {})
            self.app.push_screen(ReviewScreen(self.local, self.chooser, round_no, estimates))

        return open_review

    # ------------------------------------------------------------------ person's moves
    def _human_moves(self) -> list[Move]:
        key = self._moves_key()
        if self._moves_cache is None or self._moves_cache[0] != key:
            table = self._seen().table
            moves = sorted(self._legal_moves(), key=lambda m: _move_order(table, m))
            self._moves_cache = (key, moves)
        return self._moves_cache[1]

    def _moves_key(self) -> int:
        """Changes with every move and round (the legal moves are kept until it does)."""
        st = self.state
        return len(st.history) * 1000 + st.round_no

    def _legal_moves(self) -> list[Move]:
        """The legal moves of the person to move (the engine's order)."""
        return self.state.legal_moves()

    def _hand(self) -> tuple[Card, ...]:
        return self._seen().hand

    def _clamp_card(self) -> None:
        n = len(self._hand())
        self._card_i = min(self._card_i, max(0, n - 1))

    def _card(self) -> Card | None:
        hand = self._hand()
        return hand[self._card_i] if 0 <= self._card_i < len(hand) else None

    def _choices(self) -> list[Move]:
        """The moves Up/Down cycles through now."""
        if not self._awaiting:
            return []
        moves = self._human_moves()
        if self._seen().phase == Phase.PLUCK:
            return list(moves)
        card = self._card()
        out = [m for m in moves if m.card == card and m.kind in ("trail", "capture", "build")]
        if self._selection:
            sel = tuple(sorted(self._selection))
            out = [m for m in out if m.piles == sel]
        return out

    @property
    def current_move(self) -> Move | None:
        """The previewed move that Enter plays (None: there is none)."""
        return self._current()

    def _current(self) -> Move | None:
        choices = self._choices()
        if not choices:
            return None
        self._move_i %= len(choices)
        return choices[self._move_i]

    def _apply_human(self, move: Move) -> None:
        st = self.state
        seat = st.current_player
        start = len(self.session.log)
        try:  # the table checks the move with the engine and refuses it with a reason
            ev, _before = self.local.play(-1 if seat is None else seat, move, self.painter)
        except IllegalMoveError as err:
            self._error(str(err))
            return
        self._awaiting = False
        self._note_recent(ev, start)
        if ev.move.kind in ("trail", "capture", "build"):
            self._move_i = 0
        if self.session.hot_seat and st.current_player != seat:
            self._revealed = None
        self._message = LineData("")
        self._after_move()

    def _error(self, text: str) -> None:
        self._message = LineData(self.painter.text(text), "error")  # the engine's 3S is 3♠
        self._refresh_status()

    def _not_your_turn(self) -> bool:
        if self._awaiting:
            return False
        seat = self._seen().to_move
        who = self.session.names[seat] if seat is not None else "nobody"
        self._error(f"It is {who}'s turn: wait for your turn{self.SKIP_NOTE}")
        return True

    # ------------------------------------------------------------------ actions
    def action_card(self, delta: int) -> None:
        n = len(self._hand())
        if not n:
            return
        self._card_i = (self._card_i + delta) % n
        self._move_i = 0
        self._message = LineData("")
        self._refresh_choice()

    def action_pick(self, index: int) -> None:
        if index < len(self._hand()):
            self._card_i = index
            self._move_i = 0
            self._message = LineData("")
            self._refresh_choice()

    def action_cycle(self, delta: int) -> None:
        if self._not_your_turn():
            return
        choices = self._choices()
        if choices:
            self._move_i = (self._move_i + delta) % len(choices)
            self._message = LineData("")
        self._refresh_choice()

    def action_play(self) -> None:
        if self._not_your_turn():
            return
        move = self._current()
        if move is not None:
            self._apply_human(move)
            return
        card = self._card()
        if self._selection and card is not None and self._seen().phase == Phase.PLAY:
            try:
                self._check_capture(card, sorted(self._selection))
            except IllegalMoveError as err:
                self._error(str(err))
                return
            self._error("no legal move uses exactly those piles")  # pragma: no cover
            return
        self._error("there is no move to play")

    def _check_capture(self, card: Card, piles: list[int]) -> Move:
        """The capture of ``piles`` with ``card`` (raises IllegalMoveError saying why not)."""
        return self.state.check_capture(card, piles)

    def action_cursor(self, delta: int) -> None:
        n = len(self._seen().table)
        if not n:
            self._cursor = None
            return
        self._cursor = (0 if delta > 0 else n - 1) if self._cursor is None else (
            (self._cursor + delta) % n)
        self._refresh_table()

    def action_toggle_pile(self) -> None:
        n = len(self._seen().table)
        if not n:
            self._error("the table is empty")
            return
        if self._cursor is None:
            self._cursor = 0
        i = self._cursor
        if i in self._selection:
            self._selection.discard(i)
        else:
            self._selection.add(i)
        self._move_i = 0
        self._message = LineData("")
        self._refresh_choice()

    def action_clear(self) -> None:
        self._selection.clear()
        self._cursor = None
        self._move_i = 0
        self._message = LineData("")
        self._refresh_choice()

    # ------------------------------------------------------------------ mouse and touch
    @on(HandView.CardClicked)
    def _card_clicked(self, event: HandView.CardClicked) -> None:
        """A click on a card of the hand chooses it; on the card a click chose, it plays the
        previewed move (as Enter)."""
        event.stop()
        index = event.index
        if index >= len(self._hand()):
            return
        armed = (self._position_clicks(), index)
        if self._clicked == armed and index == self._card_i and self._awaiting:
            self._clicked = None
            self.action_play()
            return
        self._clicked = armed
        if index != self._card_i:
            self.action_pick(index)
        if self._awaiting and self._current() is not None and not self._message.text:
            card = self.painter.label(self._hand()[index])
            self._message = LineData(f"Click {card} again to play it, or click piles to "
                                     "choose", "ok")
            self._refresh_status()

    def _position_clicks(self) -> int:
        """Changes with every move (a card chosen by a click plays only in that position)."""
        return self._moves_key()

    @on(TableView.PileClicked)
    def _pile_clicked(self, event: TableView.PileClicked) -> None:
        """A click on a table pile selects it, or takes it out of the selection (as Space)."""
        event.stop()
        if event.index >= len(self._seen().table):
            return
        self._cursor = event.index
        self.action_toggle_pile()

    def action_trail(self) -> None:
        if self._not_your_turn():
            return
        card = self._card()
        if card is None or self._seen().phase != Phase.PLAY:
            self._error("you have no card to trail now")
            return
        self._apply_human(Move.trail(card))

    def action_pluck(self) -> None:
        if self._not_your_turn():
            return
        if not self.session.rules.pluck:
            self._error("plucking is not part of these rules")
            return
        if self._cursor is None:
            self._error("put the cursor on a loose table card first (Tab), then press p")
            return
        pile = self._seen().table[self._cursor]
        if isinstance(pile, Build):
            self._error("only a loose card can be plucked, never a build")
            return
        self._apply_human(Move.pluck(pile))

    def action_claim(self) -> None:
        if self._not_your_turn():
            return
        if self.session.rules.game_end != "claim":
            self._error("claiming is not part of these rules")
            return
        target = self._seen().target

        def decided(yes: bool | None) -> None:
            if yes:
                self._apply_human(Move.claim())

        self._push(ConfirmScreen(
            f"Claim the game? You win if your side has {target} points counting what you "
            f"have certainly won so far; otherwise you lose the game."), decided)

    def action_move_list(self) -> None:
        if self._not_your_turn():
            return
        moves = self._human_moves()
        table = self._seen().table
        sweeps = self.session.sweeps_score
        items = [(m, move_preview(table, m, self.painter, sweeps=sweeps)) for m in moves]

        def chosen(move: Move | None) -> None:
            if move is not None and self._awaiting:
                self._apply_human(move)

        self._push(PickListScreen(items, title="All legal moves", noun="moves", verb="plays",
                                  placeholder="take, build 9, trail, 10d, 7♣ …"), chosen)

    def action_full_log(self) -> None:
        """The whole log, every entry in full at the screen's width (the panel shows one line
        an entry)."""
        from .fulllog import FullLogScreen

        self.app.push_screen(FullLogScreen(
            [(e.text, e.seat is None) for e in self.session.log], "Log of the game"))

    def action_skip(self) -> None:
        self._skip = True
        self._skip_event.set()
        if self._timer is not None and self._timer_args is not None:
            self._timer.stop()
            self._timer = None
            args, self._timer_args = self._timer_args, None
            self._computer_done(*args)

    def action_rules(self) -> None:
        self.casino.show_rules(self.session.rules, self.session.num_players)

    def action_settings(self) -> None:
        self.casino.show_settings()

    def action_leave(self) -> None:
        def decided(yes: bool | None) -> None:
            if yes:
                self._finished = True
                self._token += 1
                self.casino.back_to_title()

        if isinstance(self.session, GameSession):
            self.local.table.flush_save()  # (what the question says of the save is so)
        if self.slot is not None and self.slot.saved and self.slot.last_error is None:
            fate = "It is saved: Continue on the title screen resumes it."
        elif self.slot is not None and self.slot.saved:
            fate = ("Its latest moves could not be saved and will be lost: Continue on the title "
                    "screen resumes it from its last save.")
        else:
            fate = "It could not be saved and will be lost."
        self._push(ConfirmScreen(f"Leave this game and go back to the title screen? {fate}"),
                   decided)

    # ------------------------------------------------------------------ undo
    def action_undo(self) -> None:
        """Take back the person's last play and the computers' plays after it (the table
        rebuilds the game from its moves, marks the save and autosaves)."""
        self._undo()

    def _undo_table(self) -> tuple[TableController, int] | str:
        """The table and the seat whose last play ``u`` takes back, or why ``u`` does nothing
        here (the table's own refusals come from :meth:`TableController.undo`)."""
        session = self.session
        if not isinstance(session, GameSession):
            return "there is no undo at a server's table: every play there is final"
        if self._finished:
            return "the game is over"
        if not self.casino.settings.undo:
            return "undo is off in the settings (o to change it)"
        humans = session.human_seats
        return session.table, humans[0] if humans else -1

    def _undo_offered(self) -> bool:
        """May ``u`` take back a play now (the round summary offers it then)?"""
        got = self._undo_table()
        return not isinstance(got, str) and got[0].undo_refusal(got[1]) is None

    def _undo(self) -> bool:
        """:meth:`action_undo`; False (with the reason shown) when nothing was taken back."""
        got = self._undo_table()
        if isinstance(got, str):
            self._error(got)
            return False
        table, seat = got
        session = self.local
        try:
            taken = table.undo(seat)
        except MoveRefused as err:
            self._error(f"No undo: {err.reason}")
            return False
        # a round taken back (its last play, or one of an earlier round) ends again later
        session.summaries_shown = min(session.summaries_shown,
                                      len(table.state.round_summaries))
        # whatever the computers were about to play belongs to the game taken back
        self._token += 1
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._timer_args = self._pending = None
        self._thinking = self._hinting = None
        self._awaiting = False
        self._moves_cache = None
        self._selection.clear()
        self._cursor = None
        session.undo_last = (len(table.state.history), taken)
        session.rebuild_log(self.painter, table.start_position)  # with the undo's line
        self._restore_recent()  # what the others played before the play taken back
        plays = undo_words(taken)
        self._save_notice()
        self.refresh_all()
        self._advance()
        self._message = LineData(f"Took back {plays}: your turn again", "ok")
        self._refresh_status()
        return True

    # ------------------------------------------------------------------ saving
    def autosave(self) -> None:
        """Save the game into its file now (a new game right after the deal; the table saves
        after every move and every new round). A problem is shown once (until a save succeeds
        again) and stays on the save line under the messages; play always continues."""
        self.local.table.save_now()
        self._save_notice()

    def _save_notice(self) -> None:
        """Tell the player about the table's last autosave, if there is something to say, and
        keep the save line under the messages up to date."""
        notice = self.local.table.take_notice()
        self._show_save_line(recovered=notice is not None and not notice.error,
                             store_back=self._store_back())
        if notice is None:
            return
        if notice.error:
            self.notify(notice.text, title="Not saved", severity="error", timeout=8,
                        markup=False)
        else:
            self.notify(notice.text, timeout=4, markup=False)

    def _store_back(self) -> bool:
        """Look whether the server's store is away (served with one); True when it just came
        back."""
        status = self._store_status
        return status is not None and status.look() and status.away is None

    def _look_at_store(self) -> None:
        """Every few seconds (served with a store): the save line follows the store."""
        status = self._store_status
        if status is not None and status.look():
            self._show_save_line(recovered=False, store_back=status.away is None)

    def _show_save_line(self, *, recovered: bool, store_back: bool = False) -> None:
        """While the autosave fails: why, where and what to do, on a line of its own (hidden
        while all is well); while the server's store is away, that the game is saved on the
        server only; when a save works again, "Saved again" for a few seconds."""
        error = self.slot.last_error if self.slot is not None else None
        away = self._store_status.away if self._store_status is not None else None
        if error is None and away is None and not recovered and not store_back:
            return  # (after every move: nothing looked up)
        line = self.query_one("#save-line", MessageLine)
        if self._save_line_timer is not None:
            self._save_line_timer.stop()
            self._save_line_timer = None
        if error is not None:
            line.set_data(LineData(save_status(error), "error"))
        elif away is not None:
            line.set_data(LineData(away, "warning"))
        else:
            again = ("Saved again: the game is saved after every move" if recovered
                     else STORE_BACK)
            line.set_data(LineData(again, "ok"))
            self._save_line_timer = self.set_timer(self.SAVED_AGAIN_SECONDS,
                                                   self._hide_save_line)
        line.set_class(True, "-shown")

    def _hide_save_line(self) -> None:
        self._save_line_timer = None
        if self._store_status is not None and self._store_status.away is not None:
            return
        if self.slot is None or self.slot.last_error is None:
            self.query_one("#save-line", MessageLine).set_class(False, "-shown")

    @property
    def save_line(self) -> str | None:
        """The text of the save line, None while it is hidden."""
        line = self.query_one("#save-line", MessageLine)
        return line.data.text if line.has_class("-shown") and line.data is not None else None

    def close_save(self) -> None:
        """Release the game's file (leaving the table or quitting), once the autosave that
        is due, if one is, has been written."""
        if isinstance(self.session, GameSession):
            self.local.table.flush_save()
        if self.slot is not None and self.store is not None:
            self.store.close(self.slot)

    def action_save_copy(self) -> None:
        from casino_tui.saves import SaveError, Seat

        store = self.store
        if store is None:
            self._error("saved games are not available")
            return
        slot = self.slot
        if slot is None:  # read-only: the copy is a new game with the same seats
            seats = [Seat(n, "human") if self.local.is_human(i)
                     else Seat(n, "computer", self.local.level(i))
                     for i, n in enumerate(self.local.names)]
            slot = store.new_game(seats)
            slot.undo = self.local.table.undos > 0  # a copy says undo was used, too

        def named(name: str | None) -> None:
            if name is None:
                return
            try:
                entry = store.save_copy(slot, self.state, name or None)
            except SaveError as e:
                self.notify(failure_message("Saving the copy", e), title="Not saved",
                            severity="error", timeout=8, markup=False)
                return
            self.notify(f"Saved a copy: “{entry.title}” (Load game on the title screen).",
                        markup=False)
            self.casino.saves_changed()

        from .name import NameScreen

        self._push(NameScreen("Save a copy of this game as:", placeholder="a name"), named)

    # ------------------------------------------------------------------ hints
    def _position_key(self) -> int:
        return self.local.table.position_key()  # changes with every move, round and undo

    def action_hint(self) -> None:
        if self._not_your_turn():
            return
        if self._hinting is not None:
            return
        key = self._position_key()
        self._hinting = key
        view = self._seat_view()
        seed = self._hint_seed()
        self._message = LineData("Hard is thinking about a hint…", "thinking")
        self._refresh_status()
        if self.chooser.in_process:
            try:
                move, why = self.chooser.hint_now(view, seed)
            except Exception as err:
                self._hint_failed(key, err)
                return
            self._hint_done(key, move, why)
        else:
            in_background(self, "hint", self._think_hint, key, view, seed, exclusive=True)

    def _seat_view(self) -> SeatView:
        """The engine's view of the seat on screen (what a hint may know)."""
        return self.state.view(self._perspective)

    def _hint_seed(self) -> int:
        return self.local.ai_seed()

    async def _think_hint(self, key: int, view: SeatView, seed: int) -> None:
        try:
            move, why = await self.chooser.hint(view, seed)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            self._hint_failed(key, err)
            return
        self._hint_done(key, move, why)

    def _hint_failed(self, key: int, err: BaseException) -> None:
        if self._hinting == key:
            self._hinting = None
        if key == self._position_key() and self._awaiting:
            self._error(f"no hint this time ({err})")

    def _hint_done(self, key: int, move: Move, why: str) -> None:
        if self._hinting == key:
            self._hinting = None
        if key != self._position_key() or not self._awaiting:
            return  # the game moved on while Hard was thinking
        why = self.painter.text(why)
        self._selection.clear()
        self._cursor = None
        seen = self._seen()
        if seen.phase == Phase.PLAY and move.kind in ("trail", "capture", "build"):
            hand = self._hand()
            if move.card in hand:
                self._card_i = hand.index(move.card)
        choices = self._choices()
        same = [i for i, m in enumerate(choices) if m == move]
        if not same:
            same = [i for i, m in enumerate(choices) if (m.kind, m.card, m.piles) ==
                    (move.kind, move.card, move.piles)]
        if same:
            self._move_i = same[0]
            self._message = LineData(f"Hint: {why}", "ok")
        else:
            preview = move_preview(seen.table, move, self.painter,
                                   sweeps=self.session.sweeps_score)
            self._message = LineData(f"Hint: {preview} · {why}", "ok")
        self._refresh_choice()

    # ------------------------------------------------------------------ drawing
    def settings_changed(self) -> None:
        """Called by the app when the card style or colours change."""
        self.refresh_all()

    def refresh_all(self) -> None:
        if not self.is_mounted:
            return
        self._refresh_header()
        self._refresh_seats()
        self._refresh_score()
        self._refresh_log()
        self._refresh_choice()
        self.query_one("#keys", KeyBar).set_data(self._keys())

    def _keys(self) -> tuple[tuple[str, str], ...]:
        sym = self.painter.symbols
        lr, ud = ("←→", "↑↓") if sym else ("<>", "^v")
        if self._modal_keys is not None:
            return self._modal_keys
        if self._awaiting:
            return ((lr, "card"), (ud, "move"), ("Enter", "play"), ("Space", "pile"),
                    ("m", "list"), ("?", "help"), ("q", "leave"))  # l: on the log's border
        return (("s", "skip ahead"), (lr, "look at your cards"), ("l", "log"), ("?", "help"),
                ("q", "leave"))

    def _refresh_choice(self) -> None:
        self._refresh_table()
        self._refresh_hand()
        self._refresh_status()

    def _refresh_header(self) -> None:
        st = self._seen()
        from ..session import preset_title

        parts = [preset_title(st.rules.preset_name), f"Round {st.round_no}"]
        if not st.rules.draw_mode:
            parts.append(f"Deal {st.deal_no} of {st.deals}")
        parts.append(f"Stock {st.stock_size}")
        parts.append(f"to {st.target}")
        if len(parts[0]) > 22:
            parts[0] = parts[0][:21] + "…"
        badge = "LAST DEAL" if st.is_last_deal and st.phase in (Phase.PLAY, Phase.PLUCK) \
            else ""
        self.query_one("#game-header", InfoBar).set_data(InfoData(" · ".join(parts), badge))

    def _refresh_seats(self) -> None:
        st = self._seen()
        session = self.session
        n = session.num_players
        partner = session.partner_of(self._perspective)
        labels = seat_labels(session.names)
        seats = []
        for i in range(n - 1):
            seat = (self._perspective + 1 + i) % n
            detail = "person" if session.is_human(seat) else session.level(seat)
            seats.append(SeatData(
                name=session.names[seat], detail=detail, partner=seat == partner,
                hand_size=st.hand_sizes[seat], taken=len(st.captured[seat]),
                sweeps=st.sweeps[seat] if session.sweeps_score else None,
                dealer=st.dealer == seat, to_move=st.to_move == seat,
                thinking=self._thinking == seat, painter=self.painter, label=labels[seat],
                away=self._away(seat)))
        if self.compact_seats:
            self.query_one("#seat-list", SeatList).set_data(
                SeatListData(tuple(seats), session.names[st.dealer]))
            return
        for i, data in enumerate(seats):
            self.query_one(f"#seat-{i}", SeatBox).set_data(data)

    def _away(self, seat: int) -> str:
        """How long a seat's person has been away (nothing in a game in this process)."""
        return ""

    def _refresh_score(self) -> None:
        st = self._seen()
        session = self.session
        suit = session.majority_suit
        self.query_one("#score", ScorePanel).set_data(ScoreData(
            headers=tuple("+".join(session.names[s] for s in side) for side in st.sides),
            labels=tuple(session.side_labels), game=tuple(st.scores),
            counts=tuple(session.side_counts(st)), suit_label=SUIT_WORDS[suit],
            big_casino=st.rules.big_casino, little_casino=st.rules.little_casino,
            painter=self.painter, sweeps=session.sweeps_score,
            highlight=session.side_of(self._perspective) if session.human_seats else None))

    def _refresh_log(self) -> None:
        entries = self.session.log[-LOG_LINES:]
        self.query_one("#log", LogView).set_data(
            LogData(tuple((e.text, e.seat is None) for e in entries)))

    def _refresh_table(self) -> None:
        st = self._seen()
        move = self._current()
        highlight: set[int] = set()
        if move is not None:
            if move.kind in ("capture", "build"):
                highlight.update(move.piles)
            elif move.kind == "pluck":
                i = pile_index_of(st.table, move.card)
                if i is not None:
                    highlight.add(i)
        recent = {i for c in self._recent_cards.get(self._perspective, ())
                  if (i := pile_index_of(st.table, c)) is not None}
        if self._cursor is not None and self._cursor >= len(st.table):
            self._cursor = None
        self.query_one("#table", TableView).set_data(TableData(
            piles=tuple(st.table), owner_names=tuple(self.session.names), painter=self.painter,
            highlight=frozenset(highlight), selected=frozenset(self._selection),
            cursor=self._cursor, recent=frozenset(recent), big=self.big_cards))
        self.query_one("#recent", RecentPlays).set_data(RecentData(self._recent_lines()))

    def _refresh_hand(self) -> None:
        seat = self._perspective
        hidden = self.session.hot_seat and self._revealed != seat
        hand = self._hand()
        self._clamp_card()
        box = self.query_one("#hand", HandView)
        name = self.session.names[seat]
        # the seat's label, as in the score columns and the list of players
        label = f" ({seat_labels(self.session.names)[seat]})" if self.compact_seats else ""
        if hidden:
            title = f"{name}'s hand{label} · hidden"
        elif self.session.human_seats and len(self.session.human_seats) == 1:
            title = f"Your hand · {name}{label}"
        elif not self.session.human_seats:
            title = f"{name}'s hand{label} · watching"
        else:
            title = f"{name}'s hand{label}"
        box.set_title(title)  # a name is never markup; repainted only when it changes
        box.set_data(HandData(cards=None if hidden else hand, count=len(hand),
                              selected=None if hidden else self._card_i, painter=self.painter,
                              active=self._awaiting, big=self.big_cards))

    def _refresh_status(self) -> None:
        move_line = self.query_one("#move-line", StatusLine)
        msg_line = self.query_one("#message-line", StatusLine)
        st = self._seen()
        p = self.painter
        sym = p.symbols
        ud = "↑↓" if sym else "up/down"
        if self._awaiting:
            choices = self._choices()
            move = self._current()
            if move is not None:
                preview = move_preview(st.table, move, p, sweeps=self.session.sweeps_score)
                move_line.set_data(LineData(preview, "move",
                                            f"{ud} {self._move_i + 1}/{len(choices)}"))
            elif self._selection:
                card = self._card()
                sel = " ".join(p.pile_label(st.table[i]) for i in sorted(self._selection)
                               if i < len(st.table))
                with_card = f" with {p.label(card)}" if card is not None else ""
                move_line.set_data(LineData(
                    f"Selected {sel}: no legal move{with_card} uses exactly these piles",
                    "info", "Esc clears"))
            else:
                card = self._card()
                what = p.label(card) if card is not None else "this card"
                move_line.set_data(LineData(f"{what} has no legal move here", "info"))
        else:
            move_line.set_data(self._waiting_line(st.to_move))
        msg = self._message
        if not msg.text and self._awaiting:
            msg = self._turn_message()
        msg_line.set_data(msg)

    def _waiting_line(self, seat: int | None) -> LineData:
        """The move line while the seat on screen is not to move: who is."""
        if seat is None:
            return LineData("")
        return LineData(f"Waiting for {self.session.names[seat]}", "info")

    def _turn_message(self) -> LineData:
        st = self._seen()
        if st.phase == Phase.PLUCK:
            return LineData("You may pluck a loose table card now, or pass", "ok")
        who = "Your turn" if not self.session.hot_seat else \
            f"{self.session.names[self._perspective]} to play"
        extra = " · last deal" if st.is_last_deal else ""
        return LineData(who + extra, "ok")
