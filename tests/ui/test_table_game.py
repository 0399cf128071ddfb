"""The game screen of a seat at a hub's table, with the Textual pilot against an in-process
LocalHub: a person plays with the keys while the other person's moves, sent through the hub,
appear; "Waiting for NAME"; a move the hub refuses; chat shown literally; a spectator without a
hand; the round summary and the next round; a person away; and the app never holds another
seat's cards."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from table_support import SeededThinker, cards_in
from textual.binding import Binding
from textual.pilot import Pilot

from casino_tui.app.app import CasinoApp
from casino_tui.app.netsession import away_for, printable
from casino_tui.app.screens.chat import ChatScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.help import HelpScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.screens.tablegame import TableGameScreen
from casino_tui.app.widgets.table import (
    HandView,
    KeyBar,
    LogView,
    RecentPlays,
    SeatBox,
    StatusLine,
    TableView,
)
from casino_tui.engine import Card, Move, State
from casino_tui.table import GameConfig, MoveRefused, SeatConfig, TableEvent
from casino_tui.table import TableView as SeatTableView
from casino_tui.table.client import SeatClient, TableChoice
from casino_tui.table.hub import LocalHub, Person, Subscription

from .conftest import asynctest, make_app, record_frames

ANN = Person("key-ann", "Ann")
BOB = Person("key-bob", "Bob")
EVE = Person("key-eve", "Eve")
START = 1_000_000.0


class Clock:
    """The hub's clock, moved on by the tests."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def two_people(seed: int = 13) -> GameConfig:
    return GameConfig(players=2, seats=(SeatConfig("South", True), SeatConfig("North", True)),
                      seed=seed)


async def new_table(hub: LocalHub, config: GameConfig | None = None) -> str:
    """Ann's table with Bob at it, started (Ann, seat 0, is to move first)."""
    info = await hub.create_table(config or two_people(), ANN)
    await hub.join(info.code, BOB)
    await hub.take_seat(info.table_id, BOB)
    await hub.start(info.table_id, ANN)
    await hub.idle(info.table_id)
    return info.table_id


def table_app(hub: LocalHub, person: Person = ANN, clock: Callable[[], float] | None = None,
              ) -> CasinoApp:
    app = make_app(hub=hub, person=person)
    if clock is not None:
        app.table_clock = clock
    return app


def table_screen(app: Any) -> TableGameScreen:
    screens = [s for s in app.screen_stack if isinstance(s, TableGameScreen)]
    assert screens, f"no table screen in {app.screen_stack}"
    return screens[-1]


async def settle_table(pilot: Pilot[None], hub: LocalHub, tid: str, limit: int = 400) -> None:
    """Wait until the table's computers are done and the screen has taken every event (some
    tests' hubs hold events back for a while: after the first tries, each waits 5 ms more)."""
    app = pilot.app
    for tries in range(limit):
        await hub.idle(tid)
        await pilot.pause(0 if tries < 40 else 0.005)
        screens = [s for s in app.screen_stack if isinstance(s, TableGameScreen)]
        if not screens:
            continue
        screen = screens[-1]
        if screen.settled and screen.net.client.number >= hub.controller(tid).number:
            await pilot.pause(0)
            await pilot.pause(0)
            if screen.settled:
                return
    raise AssertionError("the table screen did not settle")


async def sit_at(pilot: Pilot[None], hub: LocalHub, tid: str,
                 seat: int | None) -> TableGameScreen:
    pilot.app.open_table(TableChoice(tid, seat))  # type: ignore[attr-defined]
    await settle_table(pilot, hub, tid)
    return table_screen(pilot.app)


async def plays(hub: LocalHub, tid: str, person: Person, kind: str | None = None) -> Move:
    """``person`` plays their first legal move (of ``kind`` if they have one) through the hub,
    from their own view."""
    view = await hub.snapshot(tid, person)
    assert view.seat is not None
    moves = view.seat_view().legal_moves()
    move = next((m for m in moves if m.kind == kind), moves[0])
    await hub.submit_move(tid, person, view.seat, move)
    await hub.idle(tid)
    return move


def line(screen: TableGameScreen, which: str) -> str:
    data = screen.query_one(which, StatusLine).data
    return "" if data is None else data.text


def log_texts(screen: TableGameScreen) -> list[str]:
    data = screen.query_one("#log", LogView).data
    return [] if data is None else [text for text, _note in data.entries]


# ---------------------------------------------------------------------------- playing
@asynctest
async def test_a_person_plays_with_keys_and_the_other_persons_moves_appear() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        ctl = hub.controller(tid)
        assert screen.awaiting_human and line(screen, "#message-line") == "Your turn"
        hand = screen.query_one("#hand", HandView)
        assert str(hand.border_title) == "Your hand · Ann"
        assert hand.data is not None and hand.data.cards == tuple(ctl.state.hands[0])
        move = screen.current_move
        assert move is not None
        await pilot.press("enter")  # Ann's move goes to the hub, which plays it
        await settle_table(pilot, hub, tid)
        assert ctl.state.history[-1] == move
        assert not screen.awaiting_human
        assert line(screen, "#move-line") == "Waiting for Bob"
        await pilot.press("enter")  # not her turn: nothing is sent
        assert "It is Bob's turn: wait for your turn" in line(screen, "#message-line")
        assert len(ctl.state.history) == 1

        played = await plays(hub, tid, BOB, "trail")  # Bob plays from his own terminal
        assert played.kind == "trail"
        await settle_table(pilot, hub, tid)
        assert screen.awaiting_human and line(screen, "#message-line") == "Your turn"
        assert log_texts(screen)[-1].startswith("Bob trailed")
        recent = screen.query_one("#recent", RecentPlays).data
        assert recent is not None and [text for _n, text in recent.lines] == [
            log_texts(screen)[-1]]
        # the card Bob trailed is highlighted on Ann's table
        table = screen.query_one("#table", TableView).data
        assert table is not None and table.recent == frozenset(
            {table.piles.index(played.card)})
        # Ann plays again with the keys: the next card's move, previewed then played
        await pilot.press("right")
        second = screen.current_move
        assert second is not None
        await pilot.press("enter")
        await settle_table(pilot, hub, tid)
        assert ctl.state.history[-1] == second and len(ctl.state.history) == 3
        assert screen.query_one("#hand", HandView).data.cards == tuple(  # type: ignore[union-attr]
            ctl.state.hands[0])


class RefusingHub(LocalHub):
    """A hub that refuses the next move (as when the game moved on before it arrived)."""

    refuse: str | None = None

    async def submit_move(self, table_id: str, person: Person, seat: int,
                          move: Move) -> list[TableEvent]:
        if self.refuse is not None:
            reason, self.refuse = self.refuse, None
            raise MoveRefused(reason)
        return await super().submit_move(table_id, person, seat, move)


@asynctest
async def test_a_move_the_hub_refuses_is_shown_and_the_turn_goes_on() -> None:
    hub = RefusingHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        hub.refuse = "it is Bob's turn: wait for your turn"
        await pilot.press("enter")
        await settle_table(pilot, hub, tid)
        message = screen.query_one("#message-line", StatusLine).data
        assert message is not None and message.kind == "error"
        assert message.text == "it is Bob's turn: wait for your turn"
        assert screen.awaiting_human and not hub.controller(tid).state.history
        await pilot.press("enter")  # the same keys play it once the hub accepts
        await settle_table(pilot, hub, tid)
        assert len(hub.controller(tid).state.history) == 1


# ---------------------------------------------------------------------------- chat
@asynctest
async def test_chat_is_shown_literally_and_its_refusals_are_told() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(120, 40)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        await pilot.press("question_mark")  # the help names the chat key
        assert isinstance(app.screen, HelpScreen)
        keys = [k for _title, entries in app.screen.sections for k, _what in entries]
        assert "/" in keys and "Ctrl+S" not in keys and "s" not in keys
        await pilot.press("escape")
        assert any(b.id == "game.chat" and b.key == "slash"
                   for b in TableGameScreen.BINDINGS if isinstance(b, Binding))
        await pilot.press("slash")
        assert isinstance(app.screen, ChatScreen)
        for key in "[b]hi[/b]":
            await pilot.press(key)
        await pilot.press("enter")
        await settle_table(pilot, hub, tid)
        assert log_texts(screen)[-1] == "Ann: [b]hi[/b]"
        await hub.chat(tid, BOB, "\x1b[2J\x1b]0;pwned\x07[red]x[/red]\u202e\nok")
        await settle_table(pilot, hub, tid)
        shown = log_texts(screen)[-1]
        assert shown == "Bob: \ufffd[2J\ufffd]0;pwned\ufffd[red]x[/red]\ufffd\ufffdok"
        assert not any(not c.isprintable() for c in shown)
        # what the log draws is that text, unstyled (no markup was read)
        rendered = screen.query_one("#log", LogView).render()
        assert "[red]x[/red]" in rendered.plain and "[b]hi[/b]" in rendered.plain
        assert screen.awaiting_human  # chatting takes nothing from the turn
        for _ in range(4):  # with the first, five lines: the sixth within ten seconds is too fast
            await hub.chat(tid, ANN, "hello")
        await pilot.press("slash")
        for key in "more":
            await pilot.press(key)
        await pilot.press("enter")
        await settle_table(pilot, hub, tid)
        message = screen.query_one("#message-line", StatusLine).data
        assert message is not None and message.kind == "error"
        assert "too fast" in message.text
        await pilot.press("slash", "escape")  # Esc says nothing
        await settle_table(pilot, hub, tid)
        assert log_texts(screen)[-1] == "Ann: hello"


def test_printable_replaces_control_and_invisible_characters() -> None:
    assert printable("Ann [b]x[/b] ♠") == "Ann [b]x[/b] ♠"
    assert printable("a\x1b[31mb\tc\r\n\u200bd\u202ee") == "a\ufffd[31mb\ufffdc\ufffd\ufffd" \
        "\ufffdd\ufffde"
    assert [away_for(s) for s in (0, 59, 60, 125, 3599, 3600, 3900)] == \
        ["0s", "59s", "1m", "2m", "59m", "1h", "1h 5m"]


# ---------------------------------------------------------------------------- watching
@asynctest
async def test_a_spectator_sees_no_hand_and_has_no_move_keys() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub, EVE)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, None)
        assert screen.watching and screen.net.client.view.hand == ()
        hand = screen.query_one("#hand", HandView)
        assert str(hand.border_title) == "Ann's hand · watching"
        assert hand.data is not None and hand.data.cards is None  # backs only
        assert hand.data.count == len(hub.controller(tid).state.hands[0])
        assert line(screen, "#move-line") == "Waiting for Ann"
        keys = screen.query_one("#keys", KeyBar).data
        assert keys is not None and [k for k, _ in keys] == ["/", "?", "q"]
        await pilot.press("enter")
        assert "watching" in line(screen, "#message-line")
        await pilot.press("t")
        assert not hub.controller(tid).state.history  # nothing was played for anyone
        await plays(hub, tid, ANN)
        await settle_table(pilot, hub, tid)
        assert log_texts(screen)[-1].startswith("Ann ")
        assert line(screen, "#move-line") == "Waiting for Bob"


# ---------------------------------------------------------------------------- rounds
async def play_round_through_hub(hub: LocalHub, tid: str, pilot: Pilot[None]) -> None:
    """Both people play their first legal moves until the round is over."""
    ctl = hub.controller(tid)
    while not (ctl.round_over or ctl.game_over):
        seat = ctl.to_move
        assert seat is not None
        await plays(hub, tid, ANN if seat == 0 else BOB)
        await pilot.pause(0)


@asynctest
async def test_round_summary_for_everyone_then_the_next_round() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        ctl = hub.controller(tid)
        await play_round_through_hub(hub, tid, pilot)
        await settle_table(pilot, hub, tid)
        assert ctl.round_over
        assert isinstance(app.screen, RoundSummaryScreen)
        assert app.screen.data.round_no == 1
        await pilot.press("enter")  # Ann has seen it; Bob has not
        await settle_table(pilot, hub, tid)
        assert app.screen is screen and ctl.state.round_no == 1
        assert line(screen, "#move-line") == "Waiting for everyone to see the round's summary"
        await hub.next_round(tid, BOB)
        await hub.idle(tid)
        await settle_table(pilot, hub, tid)
        assert ctl.state.round_no == 2 and screen.net.view.round_no == 2
        assert "Round 1 over" in log_texts(screen)
        assert any(t.startswith("Round 2: ") for t in log_texts(screen))
        recent = screen.query_one("#recent", RecentPlays).data
        assert recent is not None and not recent.lines  # a new round: no recent plays
        hand = screen.query_one("#hand", HandView).data
        assert hand is not None and hand.cards == tuple(ctl.state.hands[0])
        if ctl.to_move == 0:
            assert screen.awaiting_human
        else:
            assert line(screen, "#move-line") == "Waiting for Bob"


@asynctest
async def test_the_rounds_last_move_is_drawn_before_its_summary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At a table too, the move that ends the round comes in a frame of its own, the summary
    after it (as at a game of one's own: tests/ui/test_play_order.py)."""
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    steps = record_frames(monkeypatch, TableGameScreen, lambda screen: "frame" + (
        " summary" if isinstance(screen.app.screen, RoundSummaryScreen) else ""))
    record_frames(monkeypatch, RoundSummaryScreen, lambda screen: "summary", steps)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        await sit_at(pilot, hub, tid, 0)
        ctl = hub.controller(tid)
        while not (sum(map(len, ctl.state.hands)) == 1 and not ctl.state.stock):
            seat = ctl.to_move
            assert seat is not None
            await plays(hub, tid, ANN if seat == 0 else BOB)
            await pilot.pause(0)
        await settle_table(pilot, hub, tid)
        assert not ctl.round_over and not isinstance(app.screen, RoundSummaryScreen)
        steps.clear()
        await plays(hub, tid, ANN if ctl.to_move == 0 else BOB)  # the round's last card
        await settle_table(pilot, hub, tid)
        assert ctl.round_over and isinstance(app.screen, RoundSummaryScreen)
        assert steps[:1] == ["frame"] and "summary" in steps, steps


@asynctest
async def test_game_over_is_shown_and_leads_back_to_the_title_screen() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    config = GameConfig(players=2, seats=(SeatConfig("South", True), SeatConfig("North", True)),
                        seed=13, target=1)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub, config)
        await sit_at(pilot, hub, tid, 0)
        await play_round_through_hub(hub, tid, pilot)
        await settle_table(pilot, hub, tid)
        assert hub.controller(tid).game_over
        assert isinstance(app.screen, RoundSummaryScreen) and app.screen.data.game_over
        await pilot.press("enter")
        await settle_table(pilot, hub, tid)
        assert isinstance(app.screen, GameOverScreen) and not app.screen.new_game
        await pilot.press("enter")
        await pilot.pause()
        assert not any(isinstance(s, TableGameScreen) for s in app.screen_stack)
        await hub.idle(tid)
        info = hub.controller(tid).seats[0]
        assert info.away_since is not None  # she left the table


# ---------------------------------------------------------------------------- away
@asynctest
async def test_a_person_away_for_how_long_and_a_computer_playing_for_them() -> None:
    clock = Clock()
    hub = LocalHub(SeededThinker(), clock=clock, away_grace=60.0)
    app = table_app(hub, clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        await pilot.press("enter")  # Ann plays; Bob is to move
        await settle_table(pilot, hub, tid)
        await hub.mark_away(tid, BOB)
        clock.now += 125
        await settle_table(pilot, hub, tid)
        box = screen.query_one("#seat-0", SeatBox)
        assert box.data is not None and box.data.away == "away 2m"
        assert "away 2m" in box.render().plain
        assert line(screen, "#move-line") == "Waiting for Bob (away 2m)"
        assert log_texts(screen)[-1] == "Bob is away"
        await hub.hand_to_computer(tid, ANN, 1)
        await settle_table(pilot, hub, tid)
        assert "A computer plays for Bob" in log_texts(screen)
        assert screen.awaiting_human  # the computer played Bob's turn
        box = screen.query_one("#seat-0", SeatBox)
        assert box.data is not None and box.data.away == "a computer plays for Bob (away 2m)"
        assert "a computer plays for Bob" in box.render().plain
        await hub.come_back(tid, BOB)
        await settle_table(pilot, hub, tid)
        assert log_texts(screen)[-1] == "Bob is back and plays again"
        assert screen.query_one("#seat-0", SeatBox).data.away == ""  # type: ignore[union-attr]


# ---------------------------------------------------------------------------- no leaks
class Recording:
    """A hub seen through what one person's app receives from it (every answer recorded with
    the cards hidden from that person when it came)."""

    def __init__(self, hub: LocalHub, tid: str, person: Person) -> None:
        self.hub = hub
        self.tid = tid
        self.person = person
        self.received: list[tuple[object, set[Card]]] = []

    def hidden(self) -> set[Card]:
        state: State = self.hub.controller(self.tid).state
        seat = next((i for i, s in enumerate(self.hub.controller(self.tid).seats)
                     if s.name == self.person.name), None)
        out = set(state.stock)
        for i, hand in enumerate(state.hands):
            if i != seat:
                out.update(hand)
        return out

    def got(self, value: SeatTableView | TableEvent) -> None:
        self.received.append((json.loads(json.dumps(value.to_json())), self.hidden()))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.hub, name)

    async def snapshot(self, table_id: str, person: Person) -> SeatTableView:
        view = await self.hub.snapshot(table_id, person)
        self.got(view)
        return view

    async def spectate(self, table_id: str, person: Person) -> SeatTableView:
        view = await self.hub.spectate(table_id, person)
        self.got(view)
        return view

    async def events_after(self, table_id: str, person: Person,
                           number: int) -> list[TableEvent]:
        events = await self.hub.events_after(table_id, person, number)
        for e in events:
            self.got(e)
        return events

    async def subscribe(self, table_id: str, person: Person, after: int) -> Subscription:
        return RecordingSubscription(self, await self.hub.subscribe(table_id, person, after))


class RecordingSubscription:
    def __init__(self, rec: Recording, sub: Subscription) -> None:
        self.rec = rec
        self.sub = sub

    @property
    def lost(self) -> bool:
        return self.sub.lost

    async def next(self) -> TableEvent:
        event = await self.sub.next()
        self.rec.got(event)
        return event

    def ready(self) -> list[TableEvent]:
        events = self.sub.ready()
        for e in events:
            self.rec.got(e)
        return events

    def close(self) -> None:
        self.sub.close()


@asynctest
async def test_the_app_never_holds_another_seats_cards() -> None:
    """A whole round at Ann's screen and at Eve's (watching): every view and event their apps
    received held no card of another hand or of the stock; nor does what the screen keeps."""
    hub = LocalHub(SeededThinker(), clock=Clock())
    for person, seat in ((ANN, 0), (EVE, None)):
        app = table_app(hub, person)
        async with app.run_test(size=(80, 24)) as pilot:
            tid = await new_table(hub)
            rec = Recording(hub, tid, person)
            app.hub = rec  # type: ignore[assignment]
            screen = await sit_at(pilot, hub, tid, seat)
            ctl = hub.controller(tid)
            checked = 0
            while not ctl.round_over:
                to_move = ctl.to_move
                assert to_move is not None
                if to_move == 0 and person is ANN:
                    await pilot.press("enter")
                else:
                    await plays(hub, tid, ANN if to_move == 0 else BOB)
                await settle_table(pilot, hub, tid)
                client: SeatClient = screen.net.client
                held = cards_in(client.view.to_json())
                hidden = rec.hidden()
                assert not held & hidden, f"the screen's view holds {held & hidden}"
                assert set(client.view.hand) == (set(ctl.state.hands[0]) if seat == 0
                                                 else set())
                checked += 1
            assert checked > 20
            assert rec.received
            for value, hidden in rec.received:
                leaked = cards_in(value) & hidden
                assert not leaked, f"{person.name} received hidden cards {leaked}: {value}"
            assert any(cards_in(v) for v, _ in rec.received)  # the scan does find cards


class BreakingHub(LocalHub):
    """A hub whose channel breaks once (``broken``): the next event wait fails."""

    broken = False

    async def subscribe(self, table_id: str, person: Person, after: int) -> Subscription:
        return Breaking(self, await super().subscribe(table_id, person, after))


class Breaking:
    def __init__(self, hub: BreakingHub, sub: Subscription) -> None:
        self.hub = hub
        self.sub = sub

    @property
    def lost(self) -> bool:
        return self.sub.lost

    async def next(self) -> TableEvent:
        event = await self.sub.next()
        if self.hub.broken:
            self.hub.broken = False
            raise ConnectionResetError("the server went away")
        return event

    def ready(self) -> list[TableEvent]:
        return self.sub.ready()

    def close(self) -> None:
        self.sub.close()


@asynctest
async def test_a_broken_connection_is_told_and_the_table_taken_afresh() -> None:
    hub = BreakingHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    TableGameScreen.RETRY_AFTER = 0.3
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            tid = await new_table(hub)
            screen = await sit_at(pilot, hub, tid, 0)
            await pilot.press("enter")
            await settle_table(pilot, hub, tid)
            hub.broken = True
            await plays(hub, tid, BOB)  # its event is lost with the connection
            told = False
            for _ in range(100):
                await pilot.pause(0.01)
                told = told or line(screen, "#message-line").startswith(
                    "The connection to the table broke (the server went away)")
                if told:
                    break
            assert told
            await pilot.pause(0.5)
            await settle_table(pilot, hub, tid)
            assert screen.awaiting_human and line(screen, "#message-line") == "Your turn"
            assert screen.net.view.number == hub.controller(tid).number
            assert log_texts(screen)[-1].startswith("Bob ")  # the log taken afresh has it
    finally:
        TableGameScreen.RETRY_AFTER = 2.0


@asynctest
async def test_a_partnership_table_of_two_people_and_two_computers() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    seats = (SeatConfig("South", True), SeatConfig("West", False, "easy"),
             SeatConfig("North", True), SeatConfig("East", False, "easy"))
    config = GameConfig(preset="classic", players=4, seats=seats, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub, config)
        ctl = hub.controller(tid)
        assert [s.name for s in ctl.seats] == ["Ann", "West", "Bob", "East"]
        screen = await sit_at(pilot, hub, tid, 0)
        for _ in range(3):  # Ann, then West (a computer in the hub), then Bob's turn
            while ctl.to_move != 0:
                if ctl.to_move == 2:
                    assert line(screen, "#move-line") == "Waiting for Bob"
                    boxes = [screen.query_one(f"#seat-{i}", SeatBox).data for i in range(3)]
                    assert [b.name for b in boxes if b is not None] == ["West", "Bob", "East"]
                    assert boxes[1] is not None and boxes[1].partner
                    await plays(hub, tid, BOB)
                    await settle_table(pilot, hub, tid)
            assert screen.awaiting_human
            before = len(ctl.state.history)
            await pilot.press("enter")
            await settle_table(pilot, hub, tid)
            assert len(ctl.state.history) > before
        moved = [e.seat for e in ctl.events if e.kind == "move"]
        assert {1, 2, 3} <= set(moved)
        logged = log_texts(screen)
        assert any(t.startswith("West ") for t in logged)
        assert any(t.startswith("East ") for t in logged)


@asynctest
async def test_a_seat_left_open_at_the_start_is_taken_by_a_computer_and_said_so() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        info = await hub.create_table(two_people(), ANN)
        await hub.start(info.table_id, ANN)  # nobody took North: a computer plays it
        await hub.idle(info.table_id)
        screen = await sit_at(pilot, hub, info.table_id, 0)
        logged = log_texts(screen)
        level = hub.controller(info.table_id).seats[1].level
        assert f"A computer ({level}) takes the open seat North" in logged
        assert not any(t.startswith("A computer plays for") for t in logged)


def count_redraws(screen: TableGameScreen) -> list[int]:
    """A list that gets an item at each of the screen's ``refresh_all`` from now on."""
    redraws: list[int] = []
    redraw = screen.refresh_all

    def counted() -> None:
        redraws.append(1)
        redraw()

    screen.refresh_all = counted  # type: ignore[method-assign]
    return redraws


class SlowAnswerHub(LocalHub):
    """A hub whose answer to a move comes after the move's events, as over a busy channel."""

    async def submit_move(self, table_id: str, person: Person, seat: int,
                          move: Move) -> list[TableEvent]:
        import asyncio

        events = await super().submit_move(table_id, person, seat, move)
        await asyncio.sleep(0.3)  # the events reach the seat's screen before this answer
        return events


@asynctest
async def test_a_moves_events_before_its_answer_show_it_in_one_redraw() -> None:
    """Over the table channel a move's events usually come before its answer: the screen
    draws the move with them at once (no "Playing your move…" before it, no redraw at the
    answer), one redraw in all."""
    import asyncio

    hub = SlowAnswerHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        redraws = count_redraws(screen)
        await pilot.press("enter")
        await pilot.pause(0.1)  # the events are in; the answer comes 0.3 s after them
        assert not screen._sending  # played: its events said so
        assert line(screen, "#move-line") == "Waiting for Bob"
        assert log_texts(screen)[-1].startswith("Ann ")
        assert len(redraws) == 1
        await asyncio.sleep(0.4)  # the answer: nothing more to draw
        await settle_table(pilot, hub, tid)
        assert len(redraws) == 1
        assert line(screen, "#move-line") == "Waiting for Bob"
        assert len(hub.controller(tid).state.history) == 1


class SlowHub(LocalHub):
    """A hub that takes its time to play a move (a busy server): events and answer late."""

    async def submit_move(self, table_id: str, person: Person, seat: int,
                          move: Move) -> list[TableEvent]:
        import asyncio

        await asyncio.sleep(0.4)
        return await super().submit_move(table_id, person, seat, move)


@asynctest
async def test_a_move_the_hub_is_slow_to_play_says_playing_your_move_meanwhile() -> None:
    hub = SlowHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        await pilot.press("enter")
        await pilot.pause(screen.SENDING_SHOWN_AFTER + 0.15)
        assert screen._sending
        assert line(screen, "#move-line") == "Playing your move…"
        assert not screen.awaiting_human
        await pilot.press("enter")  # sent already: nothing more goes
        for _ in range(100):
            await pilot.pause(0.02)
            if not screen._sending:
                break
        await settle_table(pilot, hub, tid)
        assert line(screen, "#move-line") == "Waiting for Bob"
        assert len(hub.controller(tid).state.history) == 1


@asynctest
async def test_the_other_persons_move_and_the_turn_it_gives_are_prepared_once() -> None:
    hub = LocalHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        await pilot.press("enter")
        await settle_table(pilot, hub, tid)
        assert not screen.awaiting_human
        redraws = count_redraws(screen)
        await plays(hub, tid, BOB)
        await settle_table(pilot, hub, tid)
        assert screen.awaiting_human and line(screen, "#message-line") == "Your turn"
        assert log_texts(screen)[-1].startswith("Bob ")
        assert len(redraws) == 1


class LateEventsHub(LocalHub):
    """A hub whose events reach each subscriber only when the test lets them go: the answer to
    a move comes before its events, as the table channel usually delivers them. Events flow
    until :meth:`hold`; those made after it wait until :meth:`release` (no race with a busy
    host: a test that pauses while they are held sees them held)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = asyncio.Event()
        self.gate.set()

    async def subscribe(self, table_id: str, person: Person, after: int) -> Subscription:
        return _Late(await super().subscribe(table_id, person, after), self.gate)

    def hold(self) -> None:
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()


class _Late:
    def __init__(self, sub: Subscription, gate: asyncio.Event) -> None:
        self.sub = sub
        self.gate = gate

    @property
    def lost(self) -> bool:
        return self.sub.lost

    async def next(self) -> TableEvent:
        event = await self.sub.next()
        await self.gate.wait()
        return event

    def ready(self) -> list[TableEvent]:
        return self.sub.ready() if self.gate.is_set() else []

    def close(self) -> None:
        self.sub.close()


@asynctest
async def test_a_moves_answer_before_its_events_draws_nothing_and_its_events_draw_it() -> None:
    """The hub's answer to a move usually comes before the move's events over the table
    channel: the answer draws nothing (the table without the move), the events draw the move
    and the turn it gives the other person, one redraw in all."""
    import asyncio

    hub = LateEventsHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        screen.SENDING_SHOWN_AFTER = 5.0  # (no "Playing your move…" meanwhile)
        redraws = count_redraws(screen)
        hub.hold()
        await pilot.press("enter")
        for _ in range(100):  # until the hub has answered
            if screen._answered is not None:
                break
            await asyncio.sleep(0.01)
        assert len(hub.controller(tid).state.history) == 1  # played and answered
        await pilot.pause()
        assert screen._sending and not redraws  # the events are still on their way
        hub.release()
        await settle_table(pilot, hub, tid)
        assert not screen._sending
        assert line(screen, "#move-line") == "Waiting for Bob"
        assert log_texts(screen)[-1].startswith("Ann ")
        assert len(redraws) == 1
        await plays(hub, tid, BOB)  # and the turn comes back as before
        await settle_table(pilot, hub, tid)
        assert screen.awaiting_human and line(screen, "#message-line") == "Your turn"
        assert len(redraws) == 2


@asynctest
async def test_once_the_hub_has_answered_a_move_playing_your_move_is_not_drawn() -> None:
    """The answer says the move was played, and its events were written right behind it:
    waiting for them draws no "Playing your move…" frame (one redraw in all, with them)."""
    hub = LateEventsHub(SeededThinker(), clock=Clock())
    app = table_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        screen = await sit_at(pilot, hub, tid, 0)
        redraws = count_redraws(screen)
        hub.hold()
        await pilot.press("enter")
        await pilot.pause(screen.SENDING_SHOWN_AFTER + 0.1)
        assert screen._answered is not None  # (the hub answered at once: a LocalHub)
        assert screen._sending and not redraws
        assert line(screen, "#move-line") != "Playing your move…"
        hub.release()
        await settle_table(pilot, hub, tid)
        assert log_texts(screen)[-1].startswith("Ann ") and len(redraws) == 1


@asynctest
async def test_keys_typed_as_a_table_comes_up_unasked_are_not_moves() -> None:
    """Taken back to her seat from the title screen, Ann's keys of the table's first moment
    (until its first frame was written, and a quarter of a second more) were typed for the
    screen before (``t`` for Tables would trail a card): dropped. Once the moment has passed,
    the same keys play; a table Bob opened himself takes his keys at once."""
    clock = Clock()
    hub = LocalHub(SeededThinker(), clock=clock)
    app = table_app(hub, clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        tid = await new_table(hub)
        ctl = hub.controller(tid)
        app.open_table(TableChoice(tid, 0), unasked=True)
        await settle_table(pilot, hub, tid)
        screen = table_screen(app)
        assert screen.awaiting_human and app.screen is screen
        await pilot.press("t", "enter", "question_mark")
        await settle_table(pilot, hub, tid)
        assert ctl.state.history == [] and app.screen is screen  # no move, no help
        clock.now += TableGameScreen.TYPEAHEAD_GRACE
        await pilot.press("enter")
        await settle_table(pilot, hub, tid)
        assert len(ctl.state.history) == 1 and not screen.awaiting_human
        # Bob opens the same table himself: his key is a move at once
        other = table_app(hub, BOB, clock=clock)
        async with other.run_test(size=(80, 24)) as bob:
            bobs = await sit_at(bob, hub, tid, 1)
            assert bobs.awaiting_human
            await bob.press("enter")
            await settle_table(bob, hub, tid)
            assert len(ctl.state.history) == 2
