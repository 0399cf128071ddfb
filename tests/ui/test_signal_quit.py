"""SIGTERM or SIGHUP while the last save failed: the app saves the game once more, then exits
with 128 + the signal (the signal's path through a real terminal: tests/test_signals.py)."""

from __future__ import annotations

import signal
from pathlib import Path

from casino_tui.app.screens.game import GameScreen
from casino_tui.app.signals import quit_on_signal
from casino_tui.saves import SaveError, open_store

from .conftest import asynctest, make_app, settle
from .positions import table_2p


def test_the_signal_saves_a_game_whose_last_save_failed(tmp_path: Path) -> None:
    """The last moves could not be saved (a full disk, say); on SIGTERM the game is saved
    once more before the app exits with 143."""
    store = open_store(tmp_path / "data")

    @asynctest
    async def run() -> None:
        app = make_app(table_2p(), store=store)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, GameScreen) and screen.slot is not None
            slot = screen.slot
            saved = slot.path.read_bytes()
            real = store.autosave

            def full_disk(slot_: object, state: object) -> None:
                err = SaveError("The disk is full.", "disk_full", slot.path)
                slot.last_error = err
                raise err

            store.autosave = full_disk  # type: ignore[method-assign]
            await pilot.press("enter")  # South plays; the computer answers; neither saved
            await settle(pilot)
            assert slot.last_error is not None and slot.path.read_bytes() == saved
            moves = len(screen.state.history)
            store.autosave = real  # type: ignore[method-assign]
            quit_on_signal(app, signal.SIGTERM)
            await pilot.pause()
        assert app.return_code == 128 + signal.SIGTERM
        assert slot.closed and slot.last_error is None
        game = store.load(slot.path)
        try:
            assert len(game.state.history) == moves > 0
        finally:
            store.close(game.slot)

    run()
