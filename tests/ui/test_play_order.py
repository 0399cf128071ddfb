"""The order of what a play does: the frame that shows the move comes first; the autosave and
the question to the computer wait for it, and the save is written before the computer's answer
is shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from casino_tui.app.players import InProcessChooser
from casino_tui.app.screens.game import GameScreen
from casino_tui.engine import Move, SeatView
from casino_tui.saves import open_store
from casino_tui.settings import Settings

from .conftest import asynctest, make_app, record_frames, settle
from .positions import greedy_first, greedy_hint, table_2p


class AskedChooser(InProcessChooser):
    """The test player, asked as the worker process and the server's pool are (awaited), and
    saying when it is asked."""

    in_process = False

    def __init__(self, asked: list[str]) -> None:
        super().__init__(greedy_first, hint_fn=greedy_hint)
        self.asked = asked

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        self.asked.append("ask")
        return self.choose_now(view, level, seed)


@asynctest
async def test_the_move_is_drawn_before_it_is_saved_and_saved_before_the_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(tmp_path / "data")
    steps: list[str] = []
    app = make_app(table_2p(), store=store, settings=Settings(speed="fast"),
                   chooser_factory=lambda: AskedChooser(steps))
    autosave = store.autosave

    def noted_autosave(slot: object, state: object) -> None:
        steps.append(f"save {len(state.history)}")  # type: ignore[attr-defined]
        autosave(slot, state)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "autosave", noted_autosave)
    record_frames(monkeypatch, GameScreen, lambda screen: f"frame {len(screen.state.history)}",
                  steps)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.slot is not None
        steps.clear()
        await pilot.press("enter")  # South plays; North answers a moment later
        for _ in range(200):
            await pilot.pause(0.02)
            if screen.settled and "save 2" in steps:
                break
        assert screen.awaiting_human and len(screen.state.history) == 2
        # the move's frame first, then the move is saved and the computer asked; North's
        # answer is shown after that save, and saved once it is on the screen
        once = [s for i, s in enumerate(steps) if i == 0 or steps[i - 1] != s]
        assert once == ["frame 1", "save 1", "ask", "frame 2", "save 2"], steps
    game = store.load(screen.slot.path, read_only=True)
    try:
        assert game.state.history == screen.state.history
    finally:
        store.close(game.slot)


@asynctest
async def test_leaving_right_after_a_move_saves_it(tmp_path: Path) -> None:
    """The save that waits for the move's frame is written when the game is left before that
    frame (the question to leave says the game is saved)."""
    store = open_store(tmp_path / "data")
    app = make_app(table_2p(), store=store, settings=Settings(speed="slow"),
                   chooser_factory=lambda: AskedChooser([]))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.slot is not None
        slot = screen.slot
        screen.action_play()  # the move, its frame not yet drawn
        assert len(screen.state.history) == 1 and screen.local.table.save_due
        screen.action_leave()
        assert not screen.local.table.save_due
        await pilot.pause()
        assert "It is saved" in app.screen.question  # type: ignore[attr-defined]
        await pilot.press("y")
        await settle(pilot)
    assert slot.closed
    game = store.load(slot.path, read_only=True)
    try:
        assert len(game.state.history) == 1
    finally:
        store.close(game.slot)


@asynctest
async def test_the_rounds_last_move_is_drawn_before_its_summary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The play that ends the round is drawn first, as any play: a frame of the table with the
    move (the hand empty, the summary not yet there), then the summary. It used to be one frame
    with the summary, the key's first byte waiting for all of the summary's work."""
    from casino_tui.app.screens.summary import RoundSummaryScreen

    from .positions import last_play

    app = make_app(last_play(), settings=Settings(speed="fast"))
    steps = record_frames(monkeypatch, GameScreen, lambda screen: (
        f"frame {len(screen.state.history)}"
        + (" summary" if isinstance(screen.app.screen, RoundSummaryScreen) else "")))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.state.history == []
        steps.clear()
        await pilot.press("enter")  # South's last card: the round is over
        for _ in range(100):
            await pilot.pause(0.02)
            if isinstance(app.screen, RoundSummaryScreen):
                break
        assert isinstance(app.screen, RoundSummaryScreen)
        assert screen.state.is_round_over
        # the move's frame, with the game screen on top, before the summary was pushed
        assert steps and steps[0] == "frame 1", steps
