"""Text that comes from players or files (names, file names, file contents, error reasons) is
shown literally everywhere: Textual/Rich markup in it is neither interpreted nor a crash.

A name like ``[/]`` or ``[b=1=2]`` is invalid markup (MarkupError), ``[b]`` would vanish and
``[@click=app.quit]`` would be an action: each must appear on the screen as typed."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

from textual.widgets import Input, OptionList

from casino_tui.app.app import CasinoApp
from casino_tui.app.screens.confirm import ConfirmScreen
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.load import LoadScreen
from casino_tui.app.screens.name import NameScreen
from casino_tui.app.screens.privacy import PrivacyScreen
from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.engine import Rules, State
from casino_tui.saves import open_store

from .conftest import asynctest, make_app, settle
from .positions import config_for

EXAMPLES = Path(__file__).resolve().parents[2] / "saves"
BAD = "[b=1=2]"  # MarkupError in Textual and Rich markup
CLOSE = "[/]"  # MarkupError: nothing to close
CLICK = "[@click=app.quit]x[/]"  # an action, were it markup


def screen_text(app: CasinoApp) -> str:
    """Everything on the screen (notifications included), as plain text."""
    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r"<text[^>]*>(.*?)</text>", svg))).replace(
        "\xa0", " ")


def _games(tmp_path: Path) -> Path:
    games = tmp_path / "data" / "games"
    games.mkdir(parents=True, exist_ok=True)
    return games


@asynctest
async def test_file_names_contents_and_game_names_are_shown_literally(tmp_path: Path) -> None:
    games = _games(tmp_path)
    (games / f"{BAD}.json").write_text("not a save")  # a junk file with a markup-like name
    (games / "fmt.json").write_text(json.dumps({"format": BAD, "version": 1}))
    shutil.copy(EXAMPLES / "mid-round-builds.json", games / "named.json")
    store = open_store()
    store.rename(games / "named.json", CLOSE)
    app = make_app(store=store)
    said: list[str] = []
    real_notify = app.notify

    def notify(message: str, **kw: object) -> None:
        said.append(message)
        real_notify(message, **kw)  # type: ignore[arg-type]

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        title = app.screen
        assert isinstance(title, TitleScreen)
        assert f"{CLOSE} · round" in str(
            title.query_one("#title-menu", OptionList).get_option("continue").prompt)
        await pilot.press("l")
        screen = app.screen
        assert isinstance(screen, LoadScreen)
        menu = screen.query_one("#load-list", OptionList)
        index = {e.path.name: i for i, e in enumerate(screen.entries)}
        for name, title, words in ((f"{BAD}.json", BAD, "not valid JSON"),
                                   ("fmt.json", "fmt", f"(format '{BAD}')")):
            menu.highlighted = index[name]
            assert title in screen_text(app)  # listed
            await pilot.press("enter")  # cannot be opened: says why
            await pilot.pause()
            assert words in said[-1] and words in screen_text(app)
            await pilot.press("r")  # cannot be renamed
            await pilot.pause()
            await pilot.press("d")  # asks, naming the file
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert f"“{title}”" in screen_text(app)
            await pilot.press("n")
        menu.highlighted = index["named.json"]
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, NameScreen) and f"“{CLOSE}”" in screen_text(app)
        await pilot.press("ctrl+u")
        app.screen.query_one(Input).value = CLICK
        await pilot.press("enter")
        await pilot.pause()
        assert store.entry(games / "named.json").name == CLICK
        assert CLICK in screen_text(app)  # in the list
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and f"“{CLICK}”" in screen_text(app)
        await pilot.press("n")
        await pilot.press("enter")  # open it
        await settle(pilot)
        game = app.screen
        assert isinstance(game, GameScreen)
        await pilot.press("ctrl+s")
        app.screen.query_one(Input).value = BAD
        await pilot.press("enter")
        await pilot.pause()
        assert said[-1] == f"Saved a copy: “{BAD}” (Load game on the title screen)."
        assert f"“{BAD}”" in screen_text(app)


@asynctest
async def test_player_names_and_seeds_are_shown_literally_at_the_table() -> None:
    """Two people named like markup, a seed of text: the privacy screen, the table, the round
    summary and game over all show them as typed."""
    state = State(Rules.preset("classic", target=1), 2, seed=CLOSE)
    config = config_for(state, humans=2, names=[CLOSE, BAD])
    app = make_app(state, config)
    seen: set[type] = set()
    read: set[tuple[type, object]] = set()  # (screen, whose turn) whose text was checked
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(400):
            await settle(pilot)
            screen = app.screen
            seen.add(type(screen))
            # Each kind of screen is read for each person (a screenshot of the whole screen
            # costs a tenth of a second): the same names on the same screens every turn.
            game = next(s for s in app.screen_stack if isinstance(s, GameScreen))
            whose = (type(screen), game.state.current_player)
            text = "" if whose in read else screen_text(app)
            read.add(whose)
            if isinstance(screen, GameOverScreen):
                assert f"seed {CLOSE}" in text
                assert any(f"{name} won!" in text for name in (CLOSE, BAD)) or \
                    "The game is over" in text
                break
            if isinstance(screen, PrivacyScreen):
                assert not text or f"Pass the keyboard to {screen.player}" in text
                await pilot.press("space")
            elif isinstance(screen, RoundSummaryScreen):
                assert not text or (CLOSE in text and BAD in text)
                await pilot.press("enter")
            else:
                assert isinstance(screen, GameScreen) and screen.awaiting_human
                assert not text or \
                    f"{screen.session.names[screen.state.current_player or 0]}'s hand" in text
                if screen.current_move is None:
                    await pilot.press("right")
                    continue
                await pilot.press("enter")
        else:
            raise AssertionError("the game did not end")
    assert {PrivacyScreen, RoundSummaryScreen, GameOverScreen} <= seen


@asynctest
async def test_setup_errors_show_names_literally() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        for i in range(2):
            screen.query_one(f"#seat-name-{i}", Input).value = CLOSE
        await pilot.press("enter")
        await pilot.pause()
        assert f"two seats are called {CLOSE}" in screen_text(app)

