"""Fixtures of the UI tests: a private config directory and apps with a deterministic,
in-process computer player (nothing races: no worker process, no wall clock)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

import pytest
import textual.css.stylesheet as textual_stylesheet
from textual.pilot import Pilot
from textual.screen import Screen

from casino_tui.app import sharedcss
from casino_tui.app.app import CasinoApp
from casino_tui.app.players import InProcessChooser
from casino_tui.app.screens.game import GameScreen
from casino_tui.engine import State
from casino_tui.saves import DATA_ENV, SaveStore
from casino_tui.settings import CONFIG_ENV, Settings
from casino_tui.table import GameConfig

from .positions import config_for, greedy_first, greedy_hint


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CSS sources Textual's parser is given (each entry: where the CSS was read from),
    with the app's shared cache of parsed CSS (casino_tui/app/sharedcss.py) emptied first."""
    monkeypatch.setattr(sharedcss, "_parsed", {})
    seen: list[str] = []
    parse = textual_stylesheet.parse

    def counting(scope: str, css: str, read_from: Any, **kw: Any) -> Iterable[Any]:
        seen.append(str(read_from))
        return parse(scope, css, read_from, **kw)

    monkeypatch.setattr(textual_stylesheet, "parse", counting)
    return seen


@pytest.fixture(autouse=True)
def _config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "config"))
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path / "config"


def make_app(state: State | None = None, config: GameConfig | None = None, *, humans: int = 1,
             settings: Settings | None = None, ascii: bool = False,
             save: bool = False, store: SaveStore | None = None,
             **kwargs: Any) -> CasinoApp:
    """An app with the deterministic test player (and hint); with ``state`` it opens at the
    table. Saved games go to the test's data directory unless ``store`` is given."""
    if state is not None and config is None:
        config = config_for(state, humans)
    chooser = kwargs.pop("chooser_factory", None) or (
        lambda: InProcessChooser(greedy_first, hint_fn=greedy_hint))
    return CasinoApp(config=config, state=state, chooser_factory=chooser,
                     settings=settings or Settings(speed="instant"), ascii=ascii,
                     save_settings_to_disk=save, store=store, **kwargs)


def record_frames(monkeypatch: pytest.MonkeyPatch, screen_class: type[Screen[Any]],
                  note: Callable[[Any], str], notes: list[str] | None = None) -> list[str]:
    """A list (``notes``, or a new one) that gets ``note(screen)`` for each frame a
    ``screen_class`` screen draws (hands to Textual's output), in order."""
    notes = [] if notes is None else notes
    refresh = screen_class._compositor_refresh

    def noted_refresh(screen: Screen[Any]) -> None:
        if isinstance(screen, screen_class):
            notes.append(note(screen))
        refresh(screen)

    monkeypatch.setattr(screen_class, "_compositor_refresh", noted_refresh)
    return notes


async def settle(pilot: Pilot[None], limit: int = 400) -> None:
    """Wait until nothing happens without a key (a person to move, a dialog, game over)."""
    app = pilot.app
    for _ in range(limit):
        await pilot.pause(0)
        screen = app.screen
        if not isinstance(screen, GameScreen) or screen.settled:
            await pilot.pause(0)
            return
    raise AssertionError("the game did not settle")



def asynctest(fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test with asyncio (no async pytest plugin needed)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(fn(*args, **kwargs))

    return wrapper
