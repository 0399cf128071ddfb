"""One game at one table, without any user interface: the :class:`TableController`.

It holds the engine :class:`State` and the seats, and is the only thing that changes them:

- whose turn it is (:attr:`~TableController.to_move`) and whether a person or a computer plays
  it (:meth:`~TableController.awaiting`, :meth:`~TableController.computer_turn`);
- a seat's move (:meth:`~TableController.play`): refused with a reason
  (:class:`MoveRefused`) when it is not that seat's turn or the engine finds it illegal;
- computer turns through an injected :class:`Thinker` (the app's worker process, a hub's shared
  one, a deterministic function in tests), with a random legal move if the computer fails;
- the end of a round and the next round (:meth:`~TableController.next_round`), the end of the
  game;
- the autosave after the deal, every move and every new round (``store`` and ``slot``), in
  the caller's thread or, with a :class:`BackgroundSaver` (a hub serving many tables), in a
  thread of its own so that writing and syncing the file never holds up the event loop; or,
  with :meth:`~TableController.defer_saves` (a game screen), when the caller says, once what
  the move changed is on the screen (never more than one move behind: a save still due is
  written before the next move is taken);
- a log of numbered :class:`~casino_tui.table.events.TableEvent`, and per-seat filtered views
  (:meth:`~TableController.view_for`) and events (:meth:`~TableController.events_after`).

The solo and hot-seat game screen drives one in its own process; a table hub owns one per
table on the server.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import threading
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from casino_tui.engine import (
    CasinoError,
    IllegalMoveError,
    Move,
    MoveEvent,
    Phase,
    Pile,
    SeatView,
    State,
)
from casino_tui.engine.serialize import replay

from .codec import JSON, cards_to_json, summary_to_json
from .config import GameConfig
from .events import EventKind, SeatInfo, TableEvent, TableView

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.saves import SaveSlot, SaveStore


class Thinker(Protocol):
    """Chooses computer moves (``casino_tui.app.players.Chooser`` is one)."""

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        """The move the computer at ``level`` plays in ``view`` (may raise: the table then
        plays a random legal move and says so)."""
        ...


class MoveRefused(IllegalMoveError):
    """A move the table does not accept (not that seat's turn, or illegal): ``reason`` says
    why, in a player's words. An :class:`IllegalMoveError`, so code that catches the engine's
    refusals catches the table's too."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ComputerTurn:
    """A computer is to move: what to ask its thinker (``view`` is all it may know)."""

    seat: int
    view: SeatView
    level: str
    seed: int
    position: int  # the controller's position key when it was asked (see play_computer)


@dataclass(frozen=True)
class SaveNotice:
    """Something to tell the player about saving: a problem (``error``) or that it works
    again."""

    text: str
    error: bool


def autosave(store: SaveStore | None, slot: SaveSlot | None, state: State) -> SaveNotice | None:
    """Save ``state`` into ``slot`` (after the deal, every move and every new round; nothing
    when the game is not saved: read-only, or no store). Play always continues: a problem is
    returned once (until a save succeeds again), then that saving works again."""
    from casino_tui.saves import SaveError

    if slot is None or store is None or slot.closed:
        return None
    before = slot.last_error
    try:
        store.autosave(slot, state)
    except SaveError as e:
        if before is None or str(before) != str(e):
            return SaveNotice(str(e), error=True)
        return None
    if before is not None:
        return SaveNotice("The game is being saved again.", error=False)
    return None


class BackgroundSaver:
    """Autosaves one game in a thread of its own, in order: :meth:`submit` hands it a copy
    of the game after a change and returns at once; a thread writes the latest copy given
    (when several came while it was writing, only the latest is written: it holds every move
    of the ones before). :meth:`close` writes what is left and waits for the thread: after it,
    the file holds the last game submitted. ``noticed`` gets each :class:`SaveNotice` (in the
    saving thread).

    Submitted from an event loop (a hub's), the thread starts only after what the loop had
    to do already: the move's events, which went to their subscribers before the save was
    submitted, are sent to the people at the table first. Starting a thread waits until it
    runs, and it then serializes the game holding the interpreter's lock (up to 5 ms before
    it must give it back), which held up the sending of every move's events to the other
    players (the server's trace: 0.8 ms median, 4.4 ms p95 from a move played to its events
    written to the other player's channel)."""

    def __init__(self, store: SaveStore, slot: SaveSlot,
                 noticed: Callable[[SaveNotice], None] | None = None) -> None:
        self.store = store
        self.slot = slot
        self.noticed = noticed
        self._mutex = threading.Lock()  # guards _latest, _running and closed
        self._saving = threading.Lock()  # held while a file is written
        self._latest: State | None = None
        self._running = False
        self.closed = False

    def submit(self, state: State) -> None:
        """Save ``state`` (a copy nobody changes any more) soon: in a thread started at once,
        or, from an event loop, once the loop has run the callbacks it already had."""
        with self._mutex:
            if self.closed:
                return
            self._latest = state
            if self._running:
                return
            self._running = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._start()
        else:
            loop.call_soon(self._start)

    def _start(self) -> None:
        threading.Thread(target=self._drain, name="table-save").start()

    def _drain(self) -> None:
        try:
            while True:
                with self._mutex:
                    state, self._latest = self._latest, None
                    if state is None or self.closed:
                        self._running = False
                        return
                self._write(state)
        except BaseException:  # (the thread's error goes to stderr) the next submit tries again
            with self._mutex:
                self._running = False
            raise

    def _write(self, state: State) -> None:
        with self._saving:
            try:
                notice = autosave(self.store, self.slot, state)
            except (OSError, ValueError):  # the slot was closed meanwhile: nothing to save
                return
        if notice is not None and self.noticed is not None:
            self.noticed(notice)

    def close(self) -> None:
        """Write the game submitted last, if it is not yet, and stop."""
        with self._mutex:
            state, self._latest = self._latest, None
            self.closed = True
        if state is not None:
            self._write(state)
        else:
            with self._saving:  # a write under way ends first
                pass


EventListener = Callable[[TableEvent], None]


class TableController:
    """The game at one table: the engine State, the seats and the numbered events.

    ``state``: a game to continue (else a new one is dealt from ``config``); ``resumed``: it
    comes from a save, so its events are rebuilt by replaying its moves (from its seed, or from
    ``start_position``). ``store`` and ``slot``: where the game is autosaved (None: not saved).
    """

    def __init__(self, config: GameConfig, state: State | None = None, *,
                 resumed: bool = False, start_position: str | None = None,
                 store: SaveStore | None = None, slot: SaveSlot | None = None) -> None:
        self.config = config
        self.rules = state.rules if state is not None else config.rules()
        if state is not None:
            self.seed: int | str = state.seed
        else:
            self.seed = config.seed if config.seed is not None else random.randrange(1, 10**6)
        self.state = state if state is not None else State(self.rules, config.players, self.seed)
        self.start_position = start_position
        self.store = store
        self.slot = slot
        self.seats: list[SeatInfo] = [
            SeatInfo(s.name, s.human, None if s.human else s.level)
            for s in config.seats[:self.state.num_players]]
        self._levels = [s.level for s in config.seats[:self.state.num_players]]
        self.events: list[TableEvent] = []
        self.epoch = secrets.token_hex(4)  # this numbering of the events (see TableView)
        self.listeners: list[EventListener] = []
        self.notice: SaveNotice | None = None  # the latest autosave's notice, until taken
        self.game_no = 1  # the games played at this table by this controller (see new_game)
        self.creator_seat: int | None = None  # the seat of the table's creator (a hub's)
        self.saver: BackgroundSaver | None = None  # saves in a thread (see save_in_background)
        self.save_due = False  # a deferred autosave not yet written (see defer_saves)
        self._on_save_due: Callable[[], None] | None = None
        self.undos = 0  # plays taken back at this table (see undo)
        if resumed and state is not None and (state.history or state.round_no > 1):
            self.rebuild_events(start_position)
        else:
            self._round_start(self.state)

    # ------------------------------------------------------------------ seats
    @property
    def num_players(self) -> int:
        return self.state.num_players

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def is_human(self, seat: int) -> bool:
        """A person's seat (even while a computer stands in for them)."""
        return self.seats[seat].human

    def computer_plays(self, seat: int) -> bool:
        """A computer chooses this seat's moves now (its own seat, or standing in)."""
        return self.seats[seat].computer_plays

    def level(self, seat: int) -> str:
        """The computer level of the seat (of a stand-in for a person's seat)."""
        return self.seats[seat].level or self._levels[seat]

    @property
    def human_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.human]

    def set_seat(self, seat: int, info: SeatInfo) -> None:
        """Change how a seat is shown or played (a name, a stand-in, away since)."""
        self.seats[seat] = info

    def stand_in(self, seat: int, level: str | None) -> None:
        """A computer at ``level`` plays the person's seat from now on (None: the person plays
        it again)."""
        info = self.seats[seat]
        if not info.human:
            raise ValueError("only a person's seat can be handed to a computer")
        self.seats[seat] = replace(info, stand_in=level is not None,
                                   level=level if level is not None else None)

    # ------------------------------------------------------------------ whose turn
    @property
    def to_move(self) -> int | None:
        """The seat to move (None: the round or the game is over)."""
        return self.state.current_player

    @property
    def round_over(self) -> bool:
        """The round is over and the game is not: call :meth:`next_round` to go on."""
        return self.state.is_round_over and not self.state.is_game_over

    @property
    def game_over(self) -> bool:
        return self.state.is_game_over

    def awaiting(self) -> int | None:
        """The seat whose person is to move (None: nobody, or a computer)."""
        seat = self.to_move
        return seat if seat is not None and not self.computer_plays(seat) else None

    def waiting_reason(self, seat: int | None) -> str:
        """Why ``seat`` cannot move now, in a player's words."""
        st = self.state
        if st.is_game_over:
            return "the game is over"
        if st.is_round_over:
            return "the round is over"
        to_move = self.to_move
        if to_move is None:  # pragma: no cover - only in the phases above
            return "nobody is to move"
        if to_move == seat:
            return "it is your turn"
        return f"it is {self.seats[to_move].name}'s turn: wait for your turn"

    # ------------------------------------------------------------------ moves
    def position_key(self) -> int:
        """Changes with every move and every round (a computer's answer for an older position
        is stale)."""
        return (self.undos * 1000 + self.state.round_no) * 100_000 + len(self.state.history)

    def ai_seed(self) -> int:
        """A seed for the computer's next decision, fixed by the game seed and the move number
        (so a seeded game replays identically)."""
        st = self.state
        return zlib.crc32(f"{self.seed}/{st.round_no}/{len(st.history)}".encode())

    def check(self, seat: int, move: Move) -> Move:
        """``move`` as the engine accepts it for ``seat`` now; raises :class:`MoveRefused`."""
        to_move = self.to_move
        if to_move is None or to_move != seat:
            raise MoveRefused(self.waiting_reason(seat))
        try:
            return self.state.check_move(move)
        except IllegalMoveError as err:
            raise MoveRefused(str(err)) from None

    def play(self, seat: int, move: Move) -> list[TableEvent]:
        """Play ``move`` for ``seat`` (a person's move, or any seat's move the caller has
        chosen). Raises :class:`MoveRefused` (nothing changes) when it is not that seat's turn
        or the move is illegal. Returns the events it caused; autosaves."""
        checked = self.check(seat, move)
        events = self._apply(checked)
        self._autosave()
        return events

    def computer_turn(self) -> ComputerTurn | None:
        """What to ask the thinker, when a computer is to move (else None)."""
        seat = self.to_move
        if seat is None or not self.computer_plays(seat):
            return None
        return ComputerTurn(seat, self.state.view(seat), self.level(seat), self.ai_seed(),
                            self.position_key())

    async def think(self, turn: ComputerTurn, thinker: Thinker) -> Move:
        """The thinker's move for ``turn`` (a random legal move, with a note, if it fails)."""
        try:
            return await thinker.choose(turn.view, turn.level, turn.seed)
        except Exception as err:  # a broken computer player must not stop the game
            return self.fallback_move(turn.view, turn.seed, err)

    def fallback_move(self, view: SeatView, seed: int, err: BaseException) -> Move:
        """A random legal move for a computer that failed, with a note saying so."""
        self.add_note(f"The computer player failed ({err}); it played a random move")
        return random.Random(seed).choice(view.legal_moves())

    def play_computer(self, turn: ComputerTurn, move: Move) -> list[TableEvent]:
        """Play the thinker's ``move`` for ``turn`` (an illegal one is replaced by a random
        legal move, with a note). Returns [] when the game has moved on since ``turn``, or a
        person plays the seat again."""
        if turn.position != self.position_key() or self.to_move != turn.seat \
                or not self.computer_plays(turn.seat):  # its person came back meanwhile
            return []
        try:
            checked = self.state.check_move(move)
        except IllegalMoveError as err:  # a computer bug: never let it stall the game
            checked = self.fallback_move(self.state.view(turn.seat), turn.seat, err)
        events = self._apply(checked)
        self._autosave()
        return events

    async def run_computers(self, thinker: Thinker) -> list[TableEvent]:
        """Let the computers move until a person is to move or the round ends."""
        out: list[TableEvent] = []
        while (turn := self.computer_turn()) is not None:
            move = await self.think(turn, thinker)
            played = self.play_computer(turn, move)
            if not played:
                break
            out.extend(played)
        return out

    def next_round(self) -> list[TableEvent]:
        """Deal the next round (after a round is over); autosaves."""
        if not self.round_over:
            raise MoveRefused("the round is not over" if not self.game_over
                              else "the game is over")
        self.state.next_round()
        events = self._round_start(self.state)
        self._autosave()
        return events

    def new_game(self, seed: int | None = None) -> list[TableEvent]:
        """Deal a new game with the same seats (after the game is over): a ``note`` event with
        ``data.new_game`` (the game's number at this table) and the new game's
        ``round_start``; the events go on with the same numbering. Autosaves."""
        if not self.game_over:
            raise MoveRefused("the game is not over")
        self.seed = seed if seed is not None else random.randrange(1, 10**6)
        self.state = State(self.rules, self.num_players, self.seed)
        self.start_position = None
        self.game_no += 1
        out = [self._emit("note", text="A new game begins at this table",
                          data={"new_game": self.game_no}), *self._round_start(self.state)]
        self._autosave()
        return out

    # ------------------------------------------------------------------ undo
    def undo_refusal(self, seat: int) -> str | None:
        """Why ``seat`` may not take back a play now (None: it may; see :meth:`undo`)."""
        return self._undo_point(seat)[0]

    def _undo_point(self, seat: int) -> tuple[str | None, tuple[int, State] | None]:
        """Why ``seat`` may not take back a play now, or (None and) the game just before its
        last play with how many moves of the history come before that play. The play may be
        the one that ended the round (the round is then back in play, its points not yet
        scored) or one of an earlier round (the rounds after it are taken back too)."""
        if not 0 <= seat < self.num_players or not self.is_human(seat):
            return "only a person's play can be taken back", None
        if any(self.is_human(s) for s in range(self.num_players) if s != seat):
            return ("with more than one person at the table, plays cannot be taken back "
                    "(undo is for games against the computer)"), None
        if self.state.is_game_over:
            return "the game is over", None
        st = replay(self.rules, self.num_players, self.seed, [],
                    start_position=self.start_position)
        found: tuple[int, State] | None = None
        for i, move in enumerate(self.state.history):
            if st.is_round_over:
                st.next_round()
            if st.current_player == seat and st.phase is Phase.PLAY:  # (not a pluck or pass)
                found = (i, st.clone())
            st.apply(move, validate=False)
        if found is None:
            return "you have no play to take back", None
        return None, found

    def undo(self, seat: int) -> int:
        """Take back ``seat``'s last play and the computers' plays after it (also across the
        end of a round: the play that ended it, or one of an earlier round): the game is
        rebuilt from its moves (from the seed, or ``start_position``) without them, its events
        rebuilt (a new epoch), the save marked (``extra.undo``) and autosaved.

        Only in a game where every other seat is a computer, before the game is over. Raises
        :class:`MoveRefused` with the reason (nothing changes). Returns how many moves were
        taken back."""
        reason, found = self._undo_point(seat)
        if found is None:
            raise MoveRefused(reason or "there is no play to take back")
        keep, st = found
        old = self.state
        self.state = st
        self.undos += 1
        taken = len(old.history) - keep
        if self.slot is not None:
            self.slot.undo = True
            self.slot.undo_last = (keep, taken)
        self.rebuild_events(self.start_position)
        self._autosave()
        return taken

    def add_note(self, text: str) -> TableEvent:
        return self._emit("note", text=text)

    def add_event(self, kind: EventKind, *, seat: int | None = None, text: str = "",
                  data: dict[str, JSON] | None = None) -> TableEvent:
        """An event that is not a move (chat, a seat changing hands: see TableEvent)."""
        return self._emit(kind, seat=seat, text=text, data=data or {})

    def _apply(self, move: Move) -> list[TableEvent]:
        self.flush_save()  # the save is never more than one move behind
        st = self.state
        table_before = tuple(st.table)
        deal_before = st.deal_no
        ev = st.apply(move, validate=False)
        return self._after_apply(st, ev, table_before, deal_before)

    def _after_apply(self, st: State, ev: MoveEvent, table_before: tuple[Pile, ...],
                     deal_before: int) -> list[TableEvent]:
        out = [self._emit("move", seat=ev.seat, move=ev, table_before=table_before,
                          round_no=st.round_no)]
        if ev.redeal and not st.is_round_over:
            out.append(self._emit("deal", round_no=st.round_no, data={
                "deal_no": st.deal_no, "deals": len(st.deal_sizes), "last": st.is_last_deal,
                "changed": st.deal_no != deal_before}))
        if ev.round_over and st.round_summaries:
            out.append(self._emit("round_over", round_no=st.round_no,
                                  data={"summary": summary_to_json(st.round_summaries[-1])}))
        if ev.game_over:
            out.append(self._emit("game_over", round_no=st.round_no, data={
                "winner": st.winner, "scores": list(st.scores)}))
        return out

    def _round_start(self, st: State) -> list[TableEvent]:
        grant: JSON = None
        if st.initial_grant is not None:
            seat, cards = st.initial_grant
            grant = [seat, cards_to_json(cards)]
        return [self._emit("round_start", round_no=st.round_no,
                           data={"dealer": st.dealer, "grant": grant})]

    def _emit(self, kind: EventKind, *, seat: int | None = None, text: str = "",
              move: MoveEvent | None = None, table_before: Sequence[Pile] = (),
              data: dict[str, JSON] | None = None, round_no: int | None = None) -> TableEvent:
        event = TableEvent(len(self.events) + 1, kind,
                           self.state.round_no if round_no is None else round_no, seat, text,
                           move, tuple(table_before), data or {})
        self.events.append(event)
        for listener in list(self.listeners):
            listener(event)
        return event

    def rebuild_events(self, start_position: str | None = None) -> None:
        """The events of a resumed game, as they were when it was saved: its moves replayed
        from the seed (or from ``start_position``, a game dealt from a set-up position). A
        game that does not replay (never one read from a save, which is checked) starts its
        events at the current round."""
        self.start_position = start_position
        listeners, self.listeners = self.listeners, []
        self.events = []
        self.epoch = secrets.token_hex(4)
        try:
            self._replay_events()
        except (CasinoError, ValueError):
            self.events = []
            self._round_start(self.state)
        finally:
            self.listeners = listeners

    def _replay_events(self) -> None:
        st = replay(self.rules, self.num_players, self.seed, [],
                    start_position=self.start_position)
        self._round_start(st)
        for move in self.state.history:
            if st.is_round_over:
                st.next_round()
                self._round_start(st)
            table_before = tuple(st.table)
            deal_before = st.deal_no
            ev = st.apply(move)
            self._after_apply(st, ev, table_before, deal_before)
        if st.round_no < self.state.round_no:  # saved just after the next round was dealt
            self._round_start(self.state)

    # ------------------------------------------------------------------ what each seat sees
    @property
    def number(self) -> int:
        """The number of the latest event (0: none yet)."""
        return len(self.events)

    def events_after(self, number: int, seat: int | None) -> list[TableEvent]:
        """The events after ``number``, as ``seat`` (None: a spectator) may receive them."""
        return [e.for_seat(seat) for e in self.events[max(0, number):]]

    def view_for(self, seat: int | None) -> TableView:
        """The table as ``seat`` may see it (None: a spectator, who sees no hidden card)."""
        st = self.state
        if seat is not None and not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat} at this table")
        summary = st.round_summaries[-1] if (st.is_round_over or st.is_game_over) \
            and st.round_summaries else None
        return TableView.of(st.view(0 if seat is None else seat), seat=seat,
                            number=self.number, seats=tuple(self.seats),
                            deals=len(st.deal_sizes), winner=st.winner, summary=summary,
                            epoch=self.epoch, game=self.game_id,
                            creator_seat=self.creator_seat)

    @property
    def game_id(self) -> str:
        """This game's id: its save's (each game at a table has its own), else one made of
        the table's event numbering and the game's number."""
        if self.slot is not None:
            return self.slot.game_id
        return f"{self.epoch}-{self.game_no}"

    # ------------------------------------------------------------------ saving
    def save_now(self) -> SaveNotice | None:
        """Autosave now (a new game right after its deal); the notice is also kept in
        :attr:`notice` until :meth:`take_notice`."""
        self.save_due = False
        return self._write_save()

    def defer_saves(self, due: Callable[[], None]) -> None:
        """From now on, an autosave is not written at once: it becomes due (:attr:`save_due`)
        and ``due()`` is called (once, until it is written), so that the caller writes it with
        :meth:`flush_save` when it has a moment, after the move is on the screen. A save that
        is due is written before the next move is taken (and by :meth:`close`), so the file
        is never more than one move behind the game; each save is still whole (written
        atomically), as before."""
        self._on_save_due = due

    def flush_save(self) -> SaveNotice | None:
        """Write the autosave that is due, if one is (see :meth:`defer_saves`)."""
        if not self.save_due:
            return None
        self.save_due = False
        return self._write_save()

    def save_in_background(self) -> None:
        """From now on, autosave in a thread of its own (:class:`BackgroundSaver`): the move
        is taken and its events go out without waiting for the file to be written; a notice
        comes in :attr:`notice` when the save is done. :meth:`close` waits for the last
        save."""
        if self.saver is None and self.store is not None and self.slot is not None:
            self.saver = BackgroundSaver(self.store, self.slot, self._noticed)

    def _noticed(self, notice: SaveNotice) -> None:
        self.notice = notice

    def _autosave(self) -> SaveNotice | None:
        due = self._on_save_due
        if due is not None and self.store is not None and self.slot is not None:
            if not self.save_due:
                self.save_due = True
                due()
            return None
        return self._write_save()

    def _write_save(self) -> SaveNotice | None:
        if self.saver is not None and self.saver.slot is self.slot:
            self.saver.submit(self.state.clone())
            return None
        notice = autosave(self.store, self.slot, self.state)
        if notice is not None:
            self.notice = notice
        return notice

    def take_notice(self) -> SaveNotice | None:
        notice, self.notice = self.notice, None
        return notice

    def close(self) -> None:
        """Release the game's file (the table closes; the file stays), once the last save is
        written."""
        self.flush_save()
        if self.saver is not None:
            self.saver.close()
        if self.slot is not None and self.store is not None:
            self.store.close(self.slot)
