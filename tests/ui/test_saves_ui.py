"""Saved games in the app: autosave, --continue, --load, the title's Continue and Load, the Load
screen (rename, delete), ctrl+s, a full disk, and the hint key. Every test uses the test's own
data directory (conftest sets $CASINO_TUI_DATA_DIR)."""

from __future__ import annotations

import errno
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from saves_support import read_only_folder
from textual.widgets import OptionList

import casino_tui.__main__ as cli
from casino_tui.app.app import CasinoApp
from casino_tui.app.players import InProcessChooser
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.load import LoadScreen
from casino_tui.engine.notation import format_position
from casino_tui.saves import SaveError, SaveStore, open_store
from casino_tui.settings import Settings
from casino_tui.table import GameConfig, default_seats

from .conftest import asynctest, make_app, settle
from .positions import greedy_first, table_2p

EXAMPLES = Path(__file__).resolve().parents[2] / "saves"


def games(data: Path) -> list[Path]:
    return sorted((data / "games").glob("*.json"))


def copy_examples(data: Path) -> None:
    (data / "games").mkdir(parents=True, exist_ok=True)
    for f in EXAMPLES.glob("*.json"):
        shutil.copy(f, data / "games" / f.name)


def resume_args(*argv: str) -> Any:
    return cli.build_parser().parse_args(list(argv))


def game_screen(app: CasinoApp) -> GameScreen:
    screen = app.screen
    assert isinstance(screen, GameScreen), screen
    return screen


@asynctest
async def test_autosave_after_the_deal_and_every_move(tmp_path: Path) -> None:
    config = GameConfig(seats=default_seats(2), seed=17)
    app = make_app(config=config)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(config, None)
        await settle(pilot)
        [path] = games(tmp_path / "data")
        for _ in range(2):
            await pilot.press("enter")
            await settle(pilot)
            state = game_screen(app).state
            saved = open_store().load(path, read_only=True)
            assert format_position(saved.state) == format_position(state)
            assert [s.name for s in saved.seats] == ["South", "North"]
        assert len(state.history) >= 2


@asynctest
async def test_continue_resumes_and_the_computer_plays_as_if_uninterrupted(
        tmp_path: Path) -> None:
    """Medium decides in process from seeds derived from the game: after --continue it plays
    exactly the move it would have played had the game never stopped. The move log comes back
    as it was."""
    config = GameConfig(seats=default_seats(2, level="medium"), seed=31)

    def app_for(store: SaveStore, **kw: Any) -> CasinoApp:
        return CasinoApp(config=config, chooser_factory=InProcessChooser, store=store,
                         settings=Settings(speed="instant"), save_settings_to_disk=False, **kw)

    first = open_store(tmp_path / "one")
    app = app_for(first)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(config, None)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        stopped = format_position(game_screen(app).state)
        stopped_log = [e.text for e in game_screen(app).session.log]
        copy = tmp_path / "two" / "games"
        copy.mkdir(parents=True)
        for f in games(tmp_path / "one"):
            shutil.copy(f, copy / f.name)
        await pilot.press("enter")  # the same first move again, then the computer answers
        await settle(pilot)
        uninterrupted = format_position(game_screen(app).state)

    second = open_store(tmp_path / "two")
    resumed, notice = cli._resume(second, resume_args("--continue"))
    assert resumed is not None and notice is None
    app = app_for(second, resume=resumed)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert format_position(game_screen(app).state) == stopped
        log = [e.text for e in game_screen(app).session.log]
        assert len(stopped_log) >= 3 and log == [*stopped_log, "Continued from the saved game"]
        await pilot.press("enter")
        await settle(pilot)
        assert format_position(game_screen(app).state) == uninterrupted
    assert cli._resume(open_store(tmp_path / "empty"), resume_args("--continue")) == (
        None, "There is no unfinished game to continue.")


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
@asynctest
async def test_load_each_example(name: str, tmp_path: Path) -> None:
    source = EXAMPLES / name
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    store = open_store(tmp_path / "data")
    game, _ = cli._resume(store, resume_args("--load", str(source)))
    assert game is not None and game.notice and "copied" in game.notice
    position = format_position(game.state)
    app = make_app(store=store, resume=game)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen_stack[1], GameScreen)
        assert format_position(app.screen_stack[1].session.state) == position
    assert hashlib.sha256(source.read_bytes()).hexdigest() == digest
    [copied] = games(tmp_path / "data")
    assert format_position(store.load(copied, read_only=True).state) == position


def test_load_of_a_bad_file_is_a_clear_message(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli.main(["--load", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("casino-tui: This saved game cannot be opened") and "Traceback" not in err
    assert cli.main(["--load", str(tmp_path / "missing.json")]) == 2
    assert "There is no saved game" in capsys.readouterr().err


@asynctest
async def test_title_continue_and_load_follow_the_saves(tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.screen.query_one("#title-menu", OptionList)
        assert menu.get_option("continue").disabled and menu.get_option("load").disabled
    copy_examples(tmp_path / "data")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.screen.query_one("#title-menu", OptionList)
        assert not menu.get_option("continue").disabled
        assert "Partners, round two" in str(menu.get_option("continue").prompt)
        await pilot.press("c")
        await settle(pilot)
        expected = open_store().load(tmp_path / "data" / "games" / "partnership-4p.json",
                                     read_only=True)
        assert format_position(game_screen(app).state) == format_position(expected.state)


@asynctest
async def test_load_screen_rename_and_delete(tmp_path: Path) -> None:
    copy_examples(tmp_path / "data")
    (tmp_path / "data" / "games" / "broken.json").write_text("{not json")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("l")
        screen = app.screen
        assert isinstance(screen, LoadScreen)
        assert len(screen.entries) == 5
        broken = screen.entries[-1]
        assert broken.path.name == "broken.json" and broken.error
        prompt = str(screen.query_one("#load-list", OptionList).get_option_at_index(4).prompt)
        assert broken.error in prompt and "cannot be opened" in prompt
        assert screen.entries[0].title == "A whole game"
        await pilot.press("r", "ctrl+u", *"Won", "enter")
        assert screen.entries[0].title == "Won"
        assert open_store().entry(screen.entries[0].path).name == "Won"
        await pilot.press("d", "n")
        assert len(screen.entries) == 5
        await pilot.press("end", "d", "y")
        assert len(screen.entries) == 4
        assert not (tmp_path / "data" / "games" / "broken.json").exists()


@asynctest
async def test_ctrl_s_saves_a_named_copy(tmp_path: Path) -> None:
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s", *"keep", "enter")
        state = game_screen(app).state
    titles = {e.title: e for e in open_store().entries()}
    assert "keep" in titles and len(titles) == 2
    copy = open_store().load(titles["keep"], read_only=True)
    assert format_position(copy.state) == format_position(state)


@asynctest
async def test_a_full_disk_is_reported_once_and_play_continues(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def full(self: SaveStore, slot: Any, state: Any) -> None:
        slot.last_error = SaveError("The disk is full: the game could not be saved.",
                                    "disk_full")
        raise slot.last_error

    monkeypatch.setattr(SaveStore, "autosave", full)
    app = make_app(table_2p())
    said: list[str] = []
    app.notify = lambda message, **kw: said.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game_screen(app)
        moves = len(screen.state.history)
        for _ in range(2):
            await pilot.press("enter")
            await settle(pilot)
        assert len(screen.state.history) >= moves + 4 and screen.awaiting_human
    assert said == ["The disk is full: the game could not be saved."]


@asynctest
async def test_hint_previews_hards_move() -> None:
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game_screen(app)
        expected = greedy_first(screen.state.view(0), "hard", seed=0)
        assert screen.current_move != expected  # the hint changes the preview
        await pilot.press("h")
        assert screen.current_move == expected
        message = screen.query_one("#message-line").data
        assert message.text == ("Hint: it takes the most cards with your 9♠, and what stays "
                                "on the table is worth the least to your opponent")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.state.history[-2] == expected


@asynctest
async def test_a_game_open_elsewhere_opens_read_only(tmp_path: Path) -> None:
    copy_examples(tmp_path / "data")
    other_window = open_store()
    held = other_window.load(tmp_path / "data" / "games" / "mid-round-builds.json")
    try:
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("l")
            screen = app.screen
            assert isinstance(screen, LoadScreen)
            index = next(i for i, e in enumerate(screen.entries) if e.in_use)
            prompt = screen.query_one("#load-list", OptionList).get_option_at_index(index)
            assert "open in another window" in str(prompt.prompt)
            screen.query_one("#load-list", OptionList).highlighted = index
            await pilot.press("enter")  # asks whether to open it read-only
            await pilot.press("y")
            await settle(pilot)
            game = game_screen(app)
            assert game.slot is None
            await pilot.press("enter")
            await settle(pilot)
            assert len(game.state.history) > len(held.state.history)
        assert other_window.load(held.path, read_only=True).state.history == \
            held.state.history  # nothing was written
    finally:
        other_window.close(held.slot)


@asynctest
async def test_times_out_of_range_do_not_crash_load_or_continue(tmp_path: Path) -> None:
    """Times at the ends of datetime's range (which overflow when converted to another time
    zone) in a save: the Load screen lists it, and the game opens, plays and saves (from Load
    and with --continue)."""
    games_dir = tmp_path / "data" / "games"
    games_dir.mkdir(parents=True)
    data = json.loads((EXAMPLES / "mid-round-builds.json").read_text())
    data["extra"].update(created="0001-01-01T00:00:00+01:00",
                         updated="9999-12-31T23:59:59-14:00")
    path = games_dir / "edge.json"
    path.write_text(json.dumps(data))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("l")
        screen = app.screen
        assert isinstance(screen, LoadScreen) and screen.entries[0].ok
        prompt = str(screen.query_one("#load-list", OptionList).get_option_at_index(0).prompt)
        assert "last played" in prompt
        await pilot.press("enter")
        await settle(pilot)
        moves = len(game_screen(app).state.history)
        await pilot.press("enter")
        await settle(pilot)
        assert len(game_screen(app).state.history) > moves
    path.write_text(json.dumps(data))  # the same times again, for --continue
    resumed, notice = cli._resume(open_store(), resume_args("--continue"))
    assert resumed is not None and notice is None
    app = make_app(resume=resumed)
    said: list[str] = []
    app.notify = lambda message, **kw: said.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # the first move saves the game
        await settle(pilot)
        assert len(game_screen(app).state.history) > moves
    assert said == []  # saved without a problem
    extra = json.loads(path.read_text())["extra"]
    assert extra["created"].endswith("Z") and extra["updated"].endswith("Z")


@asynctest
async def test_a_read_only_save_folder_is_reported_and_play_continues(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saves copied onto read-only media (no lock files): Continue opens the game, the first
    move says once that the folder is read-only, and play goes on."""
    copy_examples(tmp_path / "data")
    root = tmp_path / "data" / "games"
    assert not list(root.glob(".*.lock"))
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    read_only_folder(monkeypatch, root, errno.EROFS)
    app = make_app()
    said: list[tuple[str, str]] = []
    app.notify = lambda message, **kw: said.append(  # type: ignore[method-assign]
        (str(message), str(kw.get("severity"))))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        screen = game_screen(app)
        assert screen.slot is not None and said == []
        moves = len(screen.state.history)
        for _ in range(2):
            await pilot.press("enter")
            await settle(pilot)
        assert len(screen.state.history) >= moves + 4 and screen.awaiting_human
    assert len(said) == 1, said  # once, not after every move
    message, severity = said[0]
    assert severity == "error"
    assert message.startswith(f"The save folder {root} is read-only: your game could not be "
                              "saved. Play continues")
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before


@asynctest
async def test_continue_says_the_game_is_open_in_another_window(tmp_path: Path) -> None:
    root = tmp_path / "data" / "games"
    root.mkdir(parents=True)
    for name in ("mid-round-builds.json", "finished-game.json"):
        shutil.copy(EXAMPLES / name, root / name)
    other_window = open_store()
    held = other_window.load(root / "mid-round-builds.json")
    try:
        resumed, notice = cli._resume(open_store(), resume_args("--continue"))
        assert resumed is None
        assert notice == ("Your unfinished game is open in another window: play it there, or "
                          "quit it there and Continue here. Load game opens it here read-only.")
        app = make_app()
        said: list[str] = []
        app.notify = lambda message, **kw: said.append(str(message))  # type: ignore
        async with app.run_test(size=(80, 24)) as pilot:
            option = app.screen.query_one("#title-menu", OptionList).get_option("continue")
            assert option.disabled and "open in another window" in str(option.prompt)
            await pilot.press("c")
            assert said == [notice]
    finally:
        other_window.close(held.slot)
