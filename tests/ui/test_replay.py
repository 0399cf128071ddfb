"""Replays: the Load screen's ``v`` and ``casino-tui replay FILE`` open a saved game read only;
left/right step by move, up/down (PgUp/PgDn) by round, Home/End to the ends. Finished rounds
show every hand; in the round a game is still in, only the viewer's hand (nobody's with two
people at the keyboard). The file is never changed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

import casino_tui.__main__ as cli
from casino_tui.app.screens.help import HelpScreen
from casino_tui.app.screens.load import LoadScreen
from casino_tui.app.screens.replay import HandsPanel, ReplayScreen
from casino_tui.saves import SaveError, open_store
from casino_tui.table.replay import Replay, open_replay

from .conftest import asynctest, make_app

EXAMPLES = Path(__file__).resolve().parents[2] / "saves"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def example(name: str, tmp_path: Path) -> Replay:
    return open_replay(open_store(tmp_path / "data"), EXAMPLES / name)


def replay_screen(pilot: Pilot[None]) -> ReplayScreen:
    screen = pilot.app.screen
    assert isinstance(screen, ReplayScreen), screen
    return screen


def fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


# ------------------------------------------------------------------------------ the steps
def test_every_example_replays_to_its_saved_position(tmp_path: Path) -> None:
    from casino_tui.engine.notation import format_position

    for path in sorted(EXAMPLES.glob("*.json")):
        replay = example(path.name, tmp_path)
        data = json.loads(path.read_text())
        assert replay.moves == len(data["moves"])
        assert format_position(replay.steps[-1].state) == data["position"]
        assert replay.steps[0].move_no == 0 and replay.steps[-1].move_no == replay.moves
        assert replay.rounds == data["summary"]["round"]
        assert len(replay.steps) == replay.moves + replay.rounds


def test_who_sees_which_hand(tmp_path: Path) -> None:
    finished = example("finished-game.json", tmp_path)
    assert all(finished.shown(step, s) for step in finished.steps for s in range(2))
    partners = example("partnership-4p.json", tmp_path)  # South, a person, in round 2
    first, second = partners.round_starts
    assert all(partners.shown(partners.steps[i], s) for i in range(second) for s in range(4))
    last = partners.steps[-1]
    assert [partners.shown(last, s) for s in range(4)] == [True, False, False, False]
    # two people at the keyboard: nobody's hand until the round is over
    from casino_tui.saves import Seat

    hot = Replay(partners.final, [Seat.human("A"), Seat.computer("B", "easy"),
                                  Seat.human("C"), Seat.computer("D", "easy")])
    assert not any(hot.shown(hot.steps[-1], s) for s in range(4))
    assert all(hot.shown(hot.steps[first + 1], s) for s in range(4))


# ------------------------------------------------------------------------------ the screen
@asynctest
async def test_load_screen_replays_a_game_in_progress(tmp_path: Path) -> None:
    games = tmp_path / "data" / "games"
    games.mkdir(parents=True)
    for f in EXAMPLES.glob("*.json"):
        shutil.copy(f, games / f.name)
    before = {f.name: fingerprint(f) for f in games.glob("[!.]*.json")}
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.show_load()
        await pilot.pause()
        load = app.screen
        assert isinstance(load, LoadScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert any(k == "v" for _t, keys in app.screen.sections for k, _w in keys)
        await pilot.press("escape")
        index = next(i for i, e in enumerate(load.entries) if e.path.name ==
                     "partnership-4p.json")
        load.query_one("#load-list", OptionList).highlighted = index
        await pilot.press("v")
        await pilot.pause()
        screen = replay_screen(pilot)
        replay = screen.replay
        assert screen.index == 0 and screen.hands_shown() == [True] * 4  # round 1: finished
        await pilot.press("right", "right")
        assert screen.index == 2 and screen.step.move_no == 2
        assert screen.describe().startswith(replay.names[replay.steps[2].event.seat])
        await pilot.press("left")
        assert screen.index == 1
        await pilot.press("down")  # round 2's deal
        assert screen.index == replay.round_starts[1] and screen.step.event is None
        assert screen.describe().startswith("Round 2:")
        assert screen.hands_shown() == [True, False, False, False]
        hands = screen.query_one(HandsPanel).text.plain
        assert "(hidden)" in hands
        await pilot.press("up")  # back to round 1's deal
        assert screen.index == 0
        await pilot.press("pagedown", "right", "pageup")  # inside round 2: its own deal first
        assert screen.index == replay.round_starts[1]
        await pilot.press("end")
        assert screen.index == len(replay.steps) - 1
        assert screen.hands_shown() == [True, False, False, False]
        await pilot.press("right")  # nothing after the end
        assert screen.index == len(replay.steps) - 1
        await pilot.press("home")
        assert screen.index == 0
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is load
    assert {f.name: fingerprint(f) for f in games.glob("[!.]*.json")} == before
    assert sorted(p.name for p in games.iterdir() if not p.name.startswith(".")) == \
        sorted(before)


@asynctest
async def test_a_finished_game_shows_every_hand(tmp_path: Path) -> None:
    replay = example("finished-game.json", tmp_path)
    app = make_app(replay=replay)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = replay_screen(pilot)
        await pilot.press("right")
        hands = screen.query_one(HandsPanel).text.plain
        assert "(hidden)" not in hands
        st = screen.step.state
        for seat in range(2):
            assert st.hands[seat] and all(screen.painter.label(c) in hands
                                          for c in st.hands[seat])
        await pilot.press("end")
        assert "game over" in screen.describe()
        await pilot.press("escape")  # opened from the command line: closing quits
        await pilot.pause()
        assert not app.is_running


@asynctest
async def test_an_unreadable_entry_is_told_on_the_load_screen(tmp_path: Path) -> None:
    games = tmp_path / "data" / "games"
    games.mkdir(parents=True)
    (games / "broken.json").write_text('{"format": "casino-tui-game", "version": 1')
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.show_load()
        await pilot.pause()
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, LoadScreen)
        [note] = list(app._notifications)
        assert note.message.startswith("This file cannot be opened: the file is cut short")


# ------------------------------------------------------------------------------ the command
def test_replay_command_on_an_example_never_changes_it(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    source = tmp_path / "game.json"
    shutil.copy(EXAMPLES / "mid-round-builds.json", source)
    os.utime(source, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    before = fingerprint(source)
    # no terminal here: the file is read and checked, then the command says it needs one
    assert cli.main(["replay", str(source), "--data-dir", str(tmp_path / "d")]) == 1
    assert "needs a terminal" in capsys.readouterr().err
    assert fingerprint(source) == before
    assert [p.name for p in tmp_path.iterdir() if p.name != "d"] == ["game.json"]
    assert not list(tmp_path.rglob("*.json.bak")) and len(list(tmp_path.rglob("*.json"))) == 1


def test_replay_command_on_a_corrupt_file_says_what_load_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    before = fingerprint(bad)
    assert cli.main(["replay", str(bad)]) == 2
    replay_err = capsys.readouterr().err
    assert cli.main(["--load", str(bad)]) == 2
    load_err = capsys.readouterr().err
    assert replay_err == load_err
    assert replay_err.startswith("casino-tui: This saved game cannot be opened: the file is "
                                 "not a casino-tui saved game") and "Traceback" not in replay_err
    assert fingerprint(bad) == before
    with pytest.raises(SaveError, match="There is no saved game"):
        open_replay(open_store(tmp_path / "d"), tmp_path / "missing.json")


@asynctest
async def test_replay_app_opens_the_file_and_quits_on_close(tmp_path: Path) -> None:
    source = tmp_path / "game.json"
    shutil.copy(EXAMPLES / "mid-round-builds.json", source)
    before = fingerprint(source)
    replay = open_replay(open_store(tmp_path / "data"), source)
    app = make_app(replay=replay)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = replay_screen(pilot)
        await pilot.press("end")
        assert screen.hands_shown() == [True, False]  # Ann's own hand only: in progress
        hands = screen.query_one(HandsPanel).text.plain
        assert "Bob" in hands and "(hidden)" in hands
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
    assert app.return_code == 0
    assert fingerprint(source) == before


# ------------------------------------------------------------------------------ snapshots
def _snap_app(tmp_path: Path, name: str) -> Any:
    return make_app(replay=example(name, tmp_path))


@pytest.mark.parametrize("size", SIZES)
def test_replay_snapshot(snap_compare: Any, size: tuple[int, int], tmp_path: Path) -> None:
    """The partnership example at round 2's deal: South's hand (the person's) face up, the
    computers' hidden (the round is still in progress)."""
    app = _snap_app(tmp_path, "partnership-4p.json")

    async def before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("down", "right", "right")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=before)


@pytest.mark.parametrize("size", SIZES)
def test_replay_finished_snapshot(snap_compare: Any, size: tuple[int, int],
                                  tmp_path: Path) -> None:
    """A finished game: every hand face up, a build just made highlighted."""
    app = _snap_app(tmp_path, "finished-game.json")

    async def before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("right", "right", "right")  # Ada builds 6
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=before)
