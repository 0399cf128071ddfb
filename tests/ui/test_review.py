"""The round review (``r`` on the round summary and on game over): stepping through the plays
with every hand shown, the play highlighted, Hard's estimates arriving in the background (the
keys working meanwhile) and the header summing them up; snapshots at 80x24 and 120x40."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.pilot import Pilot

from casino_tui.ai.review import Estimate, game_start, round_plays
from casino_tui.app.app import CasinoApp
from casino_tui.app.players import InProcessChooser
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.help import HelpScreen
from casino_tui.app.screens.review import ReviewScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.widgets.review import HandsList
from casino_tui.app.widgets.table import (
    HandView,
    LineData,
    MessageLine,
    StatusLine,
    TableView,
)
from casino_tui.engine import Build, Move, Rules, SeatView, State
from casino_tui.settings import Settings

from .conftest import asynctest, settle
from .positions import cards, config_for, greedy_first, greedy_hint, position

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def fake_review(view: SeatView, played: Move, *, seed: int) -> Estimate:
    """A deterministic, instant estimator: "Hard" plays the test player's move (the biggest
    capture); a different play is worth half a point per pile that move would take, plus half."""
    best = greedy_first(view, "hard", seed=seed)
    if best == played:
        return Estimate(played, best, 0.0)
    return Estimate(played, best, 0.5 * (1 + len(best.piles)))


class GatedChooser(InProcessChooser):
    """The test player, whose estimates wait until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__(greedy_first, hint_fn=greedy_hint, review_fn=fake_review)
        self.gate: asyncio.Event | None = None
        self.asked = 0

    async def review(self, view: SeatView, played: Move, seed: int) -> Estimate:
        self.asked += 1
        if self.gate is None:
            self.gate = asyncio.Event()
        await self.gate.wait()
        return self.review_now(view, played, seed)


def review_app(state: State, *, humans: int = 1, chooser: InProcessChooser | None = None,
               review_fn: Any = fake_review) -> CasinoApp:
    made = chooser or InProcessChooser(greedy_first, hint_fn=greedy_hint, review_fn=review_fn)
    return CasinoApp(config=config_for(state, humans), state=state,
                     chooser_factory=lambda: made, settings=Settings(speed="instant"),
                     save_settings_to_disk=False)


def seeded() -> State:
    """Classic for two, a seeded deal: South (the person) against the test player."""
    return State(Rules.preset("classic"), 2, 5)


def last_deal() -> State:
    """The last deal of a round, two cards each, South to move: four plays in all."""
    return position("classic", 2, table=[*cards("3C 6D KS"),
                                         Build(tuple(cards("5H 3S")), 8, True, 0)],
                    hands=["8C 9S", "4C KD"], to_move=0, dealer=1, stock=0,
                    captured=["2S 5C 5D", "AC QS QD KH 6H"], scores=[3, 4])


async def play_round(pilot: Pilot[None]) -> None:
    """Enter for every move of the person until the round summary."""
    app = pilot.app
    for _ in range(200):
        await settle(pilot)
        if isinstance(app.screen, RoundSummaryScreen):
            return
        assert isinstance(app.screen, GameScreen) and app.screen.awaiting_human
        await pilot.press("enter")
    raise AssertionError("the round did not end")


async def until_reviewed(pilot: Pilot[None], screen: ReviewScreen) -> None:
    for _ in range(400):
        await pilot.pause(0)
        if not screen.pending:
            await pilot.pause(0)
            return
    raise AssertionError("the estimates did not arrive")


def line(screen: ReviewScreen, wid: str) -> LineData:
    data = screen.query_one(wid, StatusLine).data
    assert data is not None
    return data


@asynctest
async def test_review_steps_through_the_round_with_every_hand() -> None:
    state = seeded()
    app = review_app(state)
    async with app.run_test(size=(100, 30)) as pilot:
        await play_round(pilot)
        summary = app.screen
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await until_reviewed(pilot, screen)
        plays = round_plays(game_start(State(Rules.preset("classic"), 2, 5)), state.history, 1)
        assert len(screen.plays) == len(plays) == len(state.history)
        assert screen.index == 0

        def shown() -> tuple[Any, ...]:
            hand = screen.query_one("#hand", HandView).data
            others = screen.query_one("#review-hands", HandsList).data
            table = screen.query_one("#table", TableView).data
            assert hand is not None and others is not None and table is not None
            return hand, others, table

        for key, index in (("right", 1), ("right", 2), ("left", 1), ("end", len(plays) - 1),
                           ("right", len(plays) - 1), ("home", 0), ("left", 0)):
            await pilot.press(key)
            assert screen.index == index, key
            play = plays[index]
            hand, others, table = shown()
            # the mover's hand and every other hand of that moment, face up
            assert hand.cards == tuple(play.before.hands[play.seat])
            assert [r.cards for r in others.rows] == [tuple(play.before.hands[1 - play.seat])]
            assert table.piles == tuple(play.before.table)
            move = play.move
            if move.kind in ("trail", "capture", "build"):  # the card played, chosen
                assert hand.selected == hand.cards.index(move.card)
            assert table.highlight == (frozenset(move.piles)
                                       if move.kind in ("capture", "build") else frozenset())
            assert f"Play {index + 1} of {len(plays)}" in \
                screen.query_one("#review-header").data.left  # type: ignore[attr-defined]
        # a play of the computer is not reviewed; the person's all are
        computer = next(p for p in plays if p.seat == 1)
        for _ in range(computer.number - 1):
            await pilot.press("right")
        assert screen.play is not None and screen.play.seat == 1
        assert "not reviewed" in line(screen, "#review-estimate").text
        assert set(screen.estimates) == {p.number for p in plays if p.seat == 0}
        await pilot.press("escape")
        assert app.screen is summary
        await pilot.press("enter")  # and the game goes on: the next round
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen.awaiting_human
        assert state.round_no == 2


@asynctest
async def test_estimates_arrive_while_the_keys_work_and_the_header_sums_them() -> None:
    state = seeded()
    chooser = GatedChooser()
    app = review_app(state, chooser=chooser)
    async with app.run_test(size=(100, 30)) as pilot:
        await play_round(pilot)
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.pause()
        total = len(screen.to_review)
        assert screen.pending == total and chooser.asked == 1  # one at a time
        assert line(screen, "#review-sum").right == f"Hard is reviewing: 0 of {total} plays"
        # the keys step while the estimate is pending
        await pilot.press("right", "right", "end", "home")
        assert screen.index == 0 and screen.pending == total
        for _ in range(screen.to_review[0].number - 1):
            await pilot.press("right")
        assert line(screen, "#review-estimate").kind == "thinking"
        assert chooser.gate is not None
        chooser.gate.set()
        await until_reviewed(pilot, screen)
        assert chooser.asked == total
        assert line(screen, "#review-sum").right == ""  # no progress once all are in
        expected = [fake_review(p.view(), p.move, seed=0) for p in screen.to_review]
        changed = [e for e in expected if e.changes]
        assert changed, "the seeded round has plays the test's Hard would change"
        points = sum(e.difference for e in changed)
        count = f"{len(changed)} plays" if len(changed) > 1 else "1 play"
        assert line(screen, "#review-sum").text == \
            f"{count} Hard would change, about {points:g} points"
        # the first play Hard would change says what Hard would play and the points
        first = next(p for p in screen.to_review if fake_review(p.view(), p.move, seed=0)
                     .changes)
        await pilot.press("home")
        for _ in range(first.number - 1):
            await pilot.press("right")
        est = line(screen, "#review-estimate")
        assert est.kind == "error" and est.text.startswith("Hard would rather: ")
        assert "points more)" in est.text or "point more)" in est.text


@asynctest
async def test_closing_the_review_stops_asking_and_reopening_keeps_the_estimates() -> None:
    state = seeded()
    chooser = GatedChooser()
    app = review_app(state, chooser=chooser)
    async with app.run_test(size=(100, 30)) as pilot:
        await play_round(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert chooser.asked == 1
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoundSummaryScreen)
        assert chooser.asked == 1  # cancelled: nothing more is asked
        assert chooser.gate is not None
        chooser.gate.set()
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await until_reviewed(pilot, screen)
        asked = chooser.asked
        await pilot.press("escape", "r")
        again = app.screen
        assert isinstance(again, ReviewScreen) and again is not screen
        await pilot.pause()
        assert chooser.asked == asked and not again.pending  # kept from the first time


@asynctest
async def test_review_with_hard_itself_from_game_over() -> None:
    """The default in-process estimator (Hard, a fixed effort) on the last deal of a game: from
    game over, ``r`` opens the review of the last round."""
    state = last_deal()
    state.scores = [18, 19]  # this round ends the game
    app = review_app(state, review_fn=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await play_round(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameOverScreen)
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await until_reviewed(pilot, screen)
        assert len(screen.plays) == 4 and [p.seat for p in screen.plays] == [0, 1, 0, 1]
        ests = [screen.estimates[p.number] for p in screen.to_review]
        assert all(isinstance(e, Estimate) for e in ests)
        first = ests[0]
        assert isinstance(first, Estimate) and first.exact  # nothing hidden: solved
        assert screen.query_one("#review-estimate", MessageLine).data is not None
        await pilot.press("escape")
        assert isinstance(app.screen, GameOverScreen)


@asynctest
async def test_the_review_key_is_in_the_help_of_summary_and_game_over() -> None:
    state = last_deal()
    state.scores = [18, 19]  # this round ends the game
    app = review_app(state)

    def review_help() -> list[str]:
        return [what for _, keys in app.screen.help_sections()  # type: ignore[attr-defined]
                for k, what in keys if k == "r"]

    async with app.run_test(size=(100, 30)) as pilot:
        await play_round(pilot)
        assert review_help() and "review" in review_help()[0]
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        helpscreen = app.screen
        assert isinstance(helpscreen, HelpScreen)
        keys = [k for _, ks in helpscreen.sections for k, _ in ks]
        assert "← →" in keys and "Home End" in keys
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameOverScreen)
        assert review_help() and "review" in review_help()[0]
    bindings = {b.id for b in ReviewScreen.BINDINGS}  # type: ignore[union-attr]
    assert {"review.prev", "review.next", "review.first", "review.last"} <= bindings
    assert "summary.review" in {b.id for b in RoundSummaryScreen.BINDINGS}  # type: ignore
    assert "gameover.review" in {b.id for b in GameOverScreen.BINDINGS}  # type: ignore


@asynctest
async def test_hot_seat_reviews_every_person() -> None:
    app = review_app(last_deal(), humans=2)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(40):
            await settle(pilot)
            if isinstance(app.screen, RoundSummaryScreen):
                break
            await pilot.press("enter")  # the privacy screen's key, then the play
        assert isinstance(app.screen, RoundSummaryScreen)
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await until_reviewed(pilot, screen)
        assert len(screen.to_review) == 4  # both people's plays
        text = line(screen, "#review-sum").text
        assert text.startswith("South: ") and " · North: " in text


@pytest.mark.parametrize("size", SIZES)
def test_review_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    """The seeded round's review at the first play of South that Hard would change (what it
    would play, and the points), every estimate in."""

    async def before(pilot: Pilot[None]) -> None:
        await play_round(pilot)
        await pilot.press("r")
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        await until_reviewed(pilot, screen)
        first = next(p for p in screen.to_review
                     if isinstance(e := screen.estimates[p.number], Estimate) and e.changes)
        for _ in range(first.number - 1):
            await pilot.press("right")
        await pilot.pause()

    assert snap_compare(review_app(seeded()), terminal_size=size, run_before=before)


@asynctest
async def test_estimates_come_from_the_worker_process() -> None:
    """The default chooser: Hard's estimates are made in the AI worker's process."""
    from casino_tui.app.players import WorkerChooser

    state = last_deal()
    app = CasinoApp(config=config_for(state, level="random"), state=state,
                    settings=Settings(speed="instant"), save_settings_to_disk=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            screen = app.screen
            if isinstance(screen, RoundSummaryScreen):
                break
            if isinstance(screen, GameScreen) and screen.awaiting_human:
                await pilot.press("enter")
        assert isinstance(app.screen, RoundSummaryScreen)
        assert isinstance(app.chooser(), WorkerChooser)
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        for _ in range(1000):
            await pilot.pause(0.02)
            if not screen.pending:
                break
        assert not screen.pending
        assert all(isinstance(screen.estimates[p.number], Estimate) for p in screen.to_review)
    assert app._chooser is None  # shut down with the app
