"""A person's play before a computer's turn is saved once with the computer's answer when that
answer comes at once (one save a play, not two: the CPU a play costs, benchmarks/keycpu.py),
and on its own while a computer thinks for long, or when the person leaves meanwhile: a play is
never left unsaved for longer than the pause between moves."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from casino_tui.app.app import CasinoApp
from casino_tui.app.screens.game import GameScreen
from casino_tui.engine import Move, SeatView
from casino_tui.saves import SaveStore, open_store
from casino_tui.table import GameConfig, default_seats

from .conftest import asynctest, make_app, settle
from .positions import greedy_first


class CountingStore(SaveStore):
    """A store that counts its autosaves."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.autosaves = 0

    def autosave(self, slot: Any, state: Any) -> None:
        self.autosaves += 1
        super().autosave(slot, state)


class SlowChooser:
    """A computer in another process, as far as the screen knows, that answers when told."""

    in_process = False

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.go.set()  # until the test holds it back

    def start(self) -> None:
        pass

    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        await self.go.wait()
        return greedy_first(view, level, seed=seed)

    def shutdown(self) -> None:
        pass


def game_screen(app: CasinoApp) -> GameScreen:
    screen = app.screen
    assert isinstance(screen, GameScreen), screen
    return screen


def saved_moves(root: Path) -> int:
    """The moves of the one game saved under ``root``."""
    [path] = sorted(root.rglob("*.json"))
    return len(SaveStore(path.parent).load(path, read_only=True).state.history)


async def wait_for(pilot: Pilot[None], check: Any, limit: int = 200) -> None:
    for _ in range(limit):
        if check():
            return
        await pilot.pause(0.01)
    raise AssertionError("never happened")


CONFIG = GameConfig(seats=default_seats(2), seed=17)


@asynctest
async def test_a_play_and_the_computers_quick_answer_are_saved_once(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "games-root")
    app = make_app(config=CONFIG, store=store)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(CONFIG, None)
        await settle(pilot)
        for _ in range(3):
            before = store.autosaves
            moves = len(game_screen(app).state.history)
            await pilot.press("enter")
            await settle(pilot)
            assert len(game_screen(app).state.history) == moves + 2  # the play, the answer
            assert store.autosaves == before + 1  # one save for both
            assert saved_moves(tmp_path / "games-root") == moves + 2


@asynctest
async def test_a_play_is_saved_while_the_computer_thinks_long(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GameScreen, "HELD_SAVE_SECONDS", 0.05)
    chooser = SlowChooser()
    root = tmp_path / "games-root"
    app = make_app(config=CONFIG, store=open_store(root), chooser_factory=lambda: chooser)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(CONFIG, None)
        await wait_for(pilot, lambda: game_screen(app)._awaiting)
        chooser.go.clear()
        moves = len(game_screen(app).state.history)
        await pilot.press("enter")
        screen = game_screen(app)
        assert screen._thinking is not None  # the computer thinks, and goes on thinking
        await wait_for(pilot, lambda: saved_moves(root) == moves + 1)
        assert screen._thinking is not None and not screen.local.table.unsaved
        chooser.go.set()
        await wait_for(pilot, lambda: screen._awaiting)
        assert saved_moves(root) == moves + 2


@asynctest
async def test_leaving_while_the_computer_thinks_saves_the_play(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GameScreen, "HELD_SAVE_SECONDS", 600.0)  # held all along
    chooser = SlowChooser()
    root = tmp_path / "games-root"
    app = make_app(config=CONFIG, store=open_store(root), chooser_factory=lambda: chooser)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(CONFIG, None)
        await wait_for(pilot, lambda: game_screen(app)._awaiting)
        chooser.go.clear()
        moves = len(game_screen(app).state.history)
        await pilot.press("enter")
        await pilot.pause(0.05)
        assert game_screen(app).local.table.unsaved  # held for the computer's answer
        assert saved_moves(root) == moves
        await app.action_quit()
    assert saved_moves(root) == moves + 1
