"""Saving while the disk is sick, in the app: a full disk during a game (ENOSPC injected into the
real save path), a data directory that is a file, a read-only saves folder on the Load screen,
a game already open in another window, settings that cannot be written. Each test checks what
the player is told (why, where, what to do), that play goes on, and that no save changed."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest
from saves_support import full_disk, read_only_folder

import casino_tui.__main__ as cli
from casino_tui.app.app import CasinoApp
from casino_tui.app.saveproblems import failure_message, save_status
from casino_tui.app.screens.confirm import ConfirmScreen
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.load import LoadScreen
from casino_tui.app.widgets.table import MessageLine
from casino_tui.engine.notation import format_position
from casino_tui.saves import ErrorKind, SaveError, open_store
from casino_tui.saves.storestatus import AWAY as STORE_AWAY
from casino_tui.saves.storestatus import (
    STATUS_FILE,
    STORE_STATUS_ENV,
    StoreStatus,
    clear_away,
    write_away,
)
from casino_tui.settings import Settings

from .conftest import asynctest, make_app, settle
from .positions import table_2p

EXAMPLES = Path(__file__).resolve().parents[2] / "saves"


def game_screen(app: CasinoApp) -> GameScreen:
    screen = app.screen
    assert isinstance(screen, GameScreen), screen
    return screen


def files(folder: Path) -> dict[str, bytes]:
    """Every file of ``folder`` (and below) with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def game_files(folder: Path) -> dict[str, bytes]:
    """The saved games and their backups (not the listing cache or lock files)."""
    return {name: data for name, data in files(folder).items()
            if not Path(name).name.startswith(".")}


def recorder(app: CasinoApp) -> list[tuple[str, str]]:
    said: list[tuple[str, str]] = []
    app.notify = lambda message, **kw: said.append(  # type: ignore[method-assign]
        (str(message), str(kw.get("severity", "information"))))
    return said


@asynctest
async def test_a_full_disk_during_a_game_stays_on_screen_until_saving_works_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC from write() in the real save path: the save line says why, where and what to
    do after every move while the disk is full (a toast once); the last good save is kept,
    with no temporary file left; once there is room the next move is saved, the line says
    "Saved again" and then goes."""
    # long enough to outlast settling after a move on a loaded machine (0.2 s did not)
    monkeypatch.setattr(GameScreen, "SAVED_AGAIN_SECONDS", 1.5)
    root = tmp_path / "data" / "games"
    app = make_app(table_2p())
    said = recorder(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game_screen(app)
        assert screen.save_line is None  # all is well: no line
        [path] = root.glob("*.json")
        saved = files(root)
        with monkeypatch.context() as m:
            full_disk(m, root)
            for _ in range(2):
                moves = len(screen.state.history)
                await pilot.press("enter")
                await settle(pilot)
                assert len(screen.state.history) > moves and screen.awaiting_human
                assert screen.save_line == (
                    f"Not saving: the disk is full — {root}; free some space on that disk "
                    "(saved again at the next move)")
            assert [s for _, s in said] == ["error"]  # told once, shown all along
            assert said[0][0] == ("The disk is full: your game could not be saved. Play "
                                  "continues; free some space to save again. The saves are "
                                  f"in {root}.")
            assert files(root) == saved  # the last good save, untouched; no .tmp left
            await pilot.press("q")  # leaving says what is lost and what is kept
            question = app.screen
            assert isinstance(question, ConfirmScreen)
            assert question.question == (
                "Leave this game and go back to the title screen? Its latest moves could not "
                "be saved and will be lost: Continue on the title screen resumes it from its "
                "last save.")
            await pilot.press("n")
            await settle(pilot)
        await pilot.press("enter")  # room again: this move is saved
        await settle(pilot)
        assert screen.save_line == "Saved again: the game is saved after every move"
        assert said[-1] == ("The game is being saved again.", "information")
        state = format_position(screen.state)
        await pilot.pause(1.7)
        assert screen.save_line is None
    assert format_position(open_store().load(path, read_only=True).state) == state


@asynctest
async def test_a_data_dir_that_is_a_file_is_named_in_game(tmp_path: Path) -> None:
    data = tmp_path / "data"  # $CASINO_TUI_DATA_DIR of the tests
    data.write_text("not a folder\n")
    app = make_app(table_2p())
    said = recorder(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)  # the first save, right after the deal, fails
        screen = game_screen(app)
        assert screen.save_line == (
            f"Not saving: a file stands where the saves folder should be — {data}; move that "
            "file away, or choose another folder with --data-dir (saved again at the next "
            "move)")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.awaiting_human and screen.save_line is not None
    assert said == [(f"The save folder {data / 'games'} cannot be made: {data} is a file, not "
                     "a folder. Play continues; move that file away (or choose another folder "
                     "with --data-dir) to save again.", "error")]
    assert data.read_text() == "not a folder\n"


@pytest.mark.parametrize(("key", "action"), [("r", "Renaming"), ("d", "Deleting")])
@asynctest
async def test_renaming_or_deleting_in_a_read_only_folder_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, action: str) -> None:
    root = tmp_path / "data" / "games"
    root.mkdir(parents=True)
    for f in EXAMPLES.glob("*.json"):
        shutil.copy(f, root / f.name)
    before = files(root)
    read_only_folder(monkeypatch, root, errno.EROFS)
    app = make_app()
    said = recorder(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("l")
        screen = app.screen
        assert isinstance(screen, LoadScreen)
        title = screen.entries[0].title
        await pilot.press(*((key, "ctrl+u", *"Won", "enter") if key == "r" else (key, "y")))
        assert [e.title for e in screen.entries].count(title) == 1
    assert said == [(f"{action} failed: the folder is read-only ({root}). Make it writable, "
                     "then try again.", "error")]
    monkeypatch.undo()
    assert files(root) == before


@asynctest
async def test_a_second_load_of_an_open_game_says_why_it_is_read_only(tmp_path: Path) -> None:
    root = tmp_path / "data" / "games"
    root.mkdir(parents=True)
    path = root / "mid-round-builds.json"
    shutil.copy(EXAMPLES / path.name, path)
    other_window = open_store()
    held = other_window.load(path)
    try:
        before = files(root)
        game, notice = cli._resume(open_store(), cli.build_parser().parse_args(
            ["--load", str(path)]))
        assert game is not None and game.read_only
        assert notice == (f"This game ({path}) is open in another window, so it is opened "
                          "here read-only. To play it here, quit it there and open it again.")
        app = make_app(resume=game, notice=notice)
        said = recorder(app)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert len(game_screen(app).state.history) > len(held.state.history)
        assert said[0] == (notice, "information")
        assert ("This game is open read-only: your moves are not saved.", "warning") in said
        assert files(root) == before
    finally:
        other_window.close(held.slot)


@asynctest
async def test_settings_that_cannot_be_saved_are_named(tmp_path: Path) -> None:
    config = tmp_path / "config"  # $CASINO_TUI_CONFIG_DIR of the tests
    config.write_text("a file\n")
    app = make_app(save=True)
    said = recorder(app)
    async with app.run_test(size=(80, 24)):
        app.apply_settings(Settings(speed="instant", card_style="ascii"))
        assert app.settings.card_style == "ascii"  # applied all the same
    assert said == [(f"Your settings could not be saved in {config}: they apply until you "
                     "quit. Free some space or make that folder writable to keep them.",
                     "warning")]
    assert config.read_text() == "a file\n"


@pytest.mark.parametrize(("code", "kind", "status", "failed"), [
    (errno.ENOSPC, "disk_full",
     "Not saving: the disk is full — /s/games; free some space on that disk",
     "Renaming failed: the disk is full (/s/games). Free some space on that disk, then try "
     "again."),
    (errno.EACCES, "permission",
     "Not saving: casino-tui may not write in the folder — /s/games; give yourself write "
     "permission on it, or choose another folder with --data-dir",
     "Renaming failed: casino-tui may not write in the folder (/s/games). Give yourself write "
     "permission on it, then try again."),
    (errno.EIO, "io", "Not saving: Input/output error — /s/games; check that disk, or "
     "choose another folder with --data-dir",
     "Renaming failed: Input/output error (/s/games). Check that disk, then try again."),
    (errno.ENOENT, "io", "Not saving: the saves folder cannot be created there — /s/games; "
     "choose another folder with --data-dir (or set CASINO_TUI_DATA_DIR)",
     "Renaming failed: the saves folder cannot be created there (/s/games). Choose another "
     "folder with --data-dir (or set CASINO_TUI_DATA_DIR), then try again."),
])
def test_messages_name_the_folder_and_what_to_do(code: int, kind: ErrorKind, status: str,
                                                 failed: str) -> None:
    try:
        try:
            raise OSError(code, "Input/output error" if code == errno.EIO else "x")
        except OSError as cause:
            raise SaveError("could not be saved", kind, Path("/s/games/g.json")) from cause
    except SaveError as err:
        assert save_status(err) == status + " (saved again at the next move)"
        assert failure_message("Renaming", err) == failed
    other = SaveError("This game cannot be saved (a reason). Play continues.", "cannot_save")
    assert save_status(other) == "Not saving: This game cannot be saved (a reason). Play " \
                                 "continues."
    assert failure_message("Renaming", SaveError("This game is open.", "in_use")) == \
        "This game is open."


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_data_dir_where_no_folder_can_be_made_says_what_to_do(tmp_path: Path) -> None:
    """``--data-dir /proc``: the message names another folder as the way out."""
    from casino_tui.engine import Rules, State
    from casino_tui.saves import SaveStore, Seat

    store = SaveStore(Path("/proc") / "games")
    slot = store.new_game([Seat("South", "human"), Seat("North", "computer", "easy")])
    with pytest.raises(SaveError) as err:
        store.autosave(slot, State(Rules.preset("classic"), 2, 1))
    status = save_status(err.value)
    assert status.startswith("Not saving: the saves folder cannot be created there — "
                             "/proc/games; choose another folder with --data-dir")


@asynctest
async def test_a_store_that_is_away_is_said_on_the_save_line_until_it_is_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Served with a shared store (CASINO_TUI_STORE_STATUS names the server's status file):
    while the file is there the save line says the game is saved on the server only, looked
    at after every move and every few seconds without one; once it goes, "Saved again" for a
    while. The game goes on all along, saving here."""
    # "Saved again" stays long enough to be seen after a move and the computer's answer on a
    # busy machine (the check below comes after both)
    monkeypatch.setattr(GameScreen, "SAVED_AGAIN_SECONDS", 4.0)
    monkeypatch.setattr(GameScreen, "STORE_LOOK_SECONDS", 0.2)
    status = tmp_path / "data" / STATUS_FILE
    monkeypatch.setenv(STORE_STATUS_ENV, str(status))
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = game_screen(app)
        assert screen.save_line is None  # the store is there: no line
        write_away(status)  # the server's sends fail: without a move, within a look
        for _ in range(200):  # a look every 0.2 s; up to 10 s on a busy machine
            await pilot.pause(0.05)
            if screen.save_line is not None:
                break
        assert screen.save_line == STORE_AWAY
        line = screen.query_one("#save-line", MessageLine).data
        assert line is not None and line.kind == "warning"  # a warning: the game goes on
        moves = len(screen.state.history)
        await pilot.press("enter")  # the game goes on, and is saved here
        await settle(pilot)
        assert len(screen.state.history) > moves and screen.awaiting_human
        assert screen.save_line == STORE_AWAY
        [path] = (tmp_path / "data" / "games").glob("*.json")
        assert format_position(open_store().load(path, read_only=True).state) == (
            format_position(screen.state))
        await pilot.pause(1.7)  # it stays while the store is away
        assert screen.save_line == STORE_AWAY
        clear_away(status)  # sent: the store is back
        await pilot.press("enter")  # looked at after the save of a move, too
        await settle(pilot)
        assert screen.save_line == "Saved again: the server has sent your game to its store " \
            "of players"
        for _ in range(200):  # gone after its 4 s
            await pilot.pause(0.05)
            if screen.save_line is None:
                break
        assert screen.save_line is None


def test_the_store_status_file_says_what_the_server_wrote(tmp_path: Path) -> None:
    path = tmp_path / STATUS_FILE
    status = StoreStatus(path)
    assert StoreStatus.from_env({}) is None
    assert not status.look() and status.away is None
    write_away(path)
    assert status.look() and status.away == STORE_AWAY
    assert not status.look()  # no change
    path.write_text("\x1b[31m[b]boo\n")  # not a sentence to show: the usual one
    assert not status.look() and status.away == STORE_AWAY
    write_away(path, "The store is away.")
    assert status.look() and status.away == "The store is away."
    clear_away(path)
    clear_away(path)  # twice is fine
    assert status.look() and status.away is None
