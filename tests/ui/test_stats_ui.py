"""Pilot tests of the Statistics and Daily deal screens, and their snapshots."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from casino_tui.app.screens.daily import DailyScreen
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.stats import StatsScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.screens.title import TitleScreen
from casino_tui.engine import State
from casino_tui.saves import DATA_ENV
from casino_tui.settings import SETTINGS_FILE, Settings
from casino_tui.stats import LEDGER_FILE, GameRecord, Ledger, compute, daily_seed
from casino_tui.stats.daily import PLAYERS_ENV
from casino_tui.table import GameConfig, default_seats

from .conftest import asynctest, make_app, settle

DAY = date(2026, 11, 24)


def clock() -> datetime:
    return datetime(2026, 11, 24, 15, 30, tzinfo=UTC)


def data_dir() -> Path:
    import os

    return Path(os.environ[DATA_ENV])


async def finish_game(pilot: Pilot[None], limit: int = 1500) -> State:
    """Play the game on screen to its end by keys (Enter for every move and summary); the
    state of the finished game."""
    app = pilot.app
    for _ in range(limit):
        await settle(pilot)
        screen = app.screen
        if isinstance(screen, GameOverScreen):
            game = next(s for s in app.screen_stack if isinstance(s, GameScreen))
            return game.session.state
        if isinstance(screen, RoundSummaryScreen):
            await pilot.press("enter")
            continue
        assert isinstance(screen, GameScreen), screen
        await pilot.press("enter" if screen.current_move is not None else "right")
    raise AssertionError("the game did not end")


def text_of(screen: Any, selector: str) -> str:
    """The text a widget shows, line by line."""
    widget = screen.query_one(selector, Static)
    return "\n".join(s.text for s in widget.render_lines(widget.region.reset_offset))


@asynctest
async def test_statistics_after_several_finished_games() -> None:
    config = GameConfig(preset="classic", players=2, seats=default_seats(2, 1, "easy"),
                        target=1, seed=5)
    app = make_app(config=config)
    finished: list[State] = []
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await pilot.press("enter", "enter")  # New game, start
            finished.append(await finish_game(pilot))
            await pilot.press("t")  # back to the title screen
            await settle(pilot)
            assert isinstance(app.screen, TitleScreen)
        await pilot.press("i")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        records = Ledger(data_dir()).read().records
        assert len(records) == 3 and len({r.game for r in records}) == 3
        assert [r.scores for r in records] == [tuple(s.scores) for s in finished]
        won = sum(s.winner == 0 for s in finished)
        f = screen.figures
        assert (f.total.played, f.total.won) == (3, won)
        assert f == compute(records)
        assert f.by_level["easy"].played == 3
        assert f.rounds == sum(s.round_no for s in finished)
        table = text_of(screen, "#stats-table")
        assert "All games" in table and "easy" in table
        assert text_of(screen, "#stats-chart").strip() == "".join(
            "█" if s.winner == 0 else "▁" for s in finished)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TitleScreen)


@asynctest
async def test_a_finished_game_opened_again_is_recorded_once() -> None:
    config = GameConfig(preset="classic", players=2, seats=default_seats(2, 1, "easy"),
                        target=1, seed=8)
    app = make_app(config=config)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "enter")
        await finish_game(pilot)
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("l")  # the finished game, from the Load screen
        await settle(pilot)
        await pilot.press("enter")
        await finish_game(pilot)
        assert len(Ledger(data_dir()).read().records) == 1


def damaged_ledger() -> None:
    data = data_dir()
    data.mkdir(parents=True, exist_ok=True)
    good = [fixed_record(i) for i in range(4)]
    (data / LEDGER_FILE).write_bytes(b"".join(r.to_line() for r in good[:3]) + b"{oops\n"
                                     + good[3].to_line()[:30])


@asynctest
async def test_a_damaged_ledger_on_the_screen() -> None:
    damaged_ledger()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("i")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        problem = text_of(screen, "#stats-problem")
        assert "2 damaged lines" in problem and "lines 4, 5" in problem
        assert screen.figures.total.played == 3
    again = Ledger(data_dir()).read()  # rebuilt: the good lines only, the damage kept aside
    assert len(again.records) == 3 and not again.damaged


@asynctest
async def test_the_daily_deal_goes_into_the_ledger() -> None:
    app = make_app(daily=True, clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        state = await finish_game(pilot)
        assert state.seed == daily_seed(DAY) and state.rules.preset_name == "classic"
        game = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        assert [s.level for s in game.session.config.seats if not s.human] == ["hard"]
        records = Ledger(data_dir()).read().records
        assert len(records) == 1
        r = records[0]
        assert r.daily == DAY and r.opponents == ("hard",) and r.scores == tuple(state.scores)
        assert r.ended == clock()
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("d")  # the daily deal's screen: today's result
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DailyScreen)
        assert screen.mine == r and "Your result today" in text_of(screen, "#daily-mine")
        assert not screen.query("#daily-ranking")  # not served: no ranking
        await pilot.press("enter")  # play it again
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        assert app.screen.session.state.seed == daily_seed(DAY)


@asynctest
async def test_the_daily_ranking_over_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    players = tmp_path / "players"
    me = players / "sha256-me"
    monkeypatch.setenv(DATA_ENV, str(me / "data"))
    monkeypatch.setenv(PLAYERS_ENV, str(players))
    for pid, name, points in (("sha256-a", "Ada", 25), ("sha256-me", "Me", 22),
                              ("sha256-b", "Bo", 12)):
        rec = fixed_record(1, daily=DAY, scores=(points, 21 if points < 21 else 14))
        Ledger(players / pid / "data").append(rec)
        (players / pid / "config").mkdir(parents=True)
        (players / pid / "config" / SETTINGS_FILE).write_text(
            json.dumps(Settings(display_name=name).to_dict()), encoding="utf-8")
    app = make_app(clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("d")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DailyScreen)
        assert screen.rows is not None
        assert [(r.rank, r.name, r.points, r.you) for r in screen.rows] == [
            (1, "Ada", 25, False), (2, "Me", 22, True), (3, "Bo", 12, False)]
        ranking = text_of(screen, "#daily-ranking")
        assert ranking.index("Ada") < ranking.index("Me") < ranking.index("Bo")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TitleScreen)


# ------------------------------------------------------------------ snapshots
def fixed_record(n: int, *, daily: date | None = None,
                 scores: tuple[int, int] | None = None) -> GameRecord:
    """Game ``n`` of a fixed, varied history (no clock: times from a fixed start)."""
    pattern = "WWLWLLWWWLWLWWWLLWWWWLWLLWWWLWWW"
    result = "win" if pattern[n % len(pattern)] == "W" else "loss"
    preset = ("classic", "classic", "royal_cassino", "classic", "spade_cassino_hoyle")[n % 5]
    level = ("medium", "hard", "easy", "hard")[n % 4]
    rounds = tuple(3 + (n * 7 + k * 5) % 9 for k in range(2 + n % 3))
    sweeps = tuple((n + k) % 3 == 0 for k in range(len(rounds)))
    mine = sum(rounds)
    if scores is None:
        scores = (mine, mine - 1 - n % 6) if result == "win" else (mine, mine + 2 + n % 5)
    return GameRecord(
        game=f"game-{n:04d}", ended=datetime(2026, 1, 5, 19, tzinfo=UTC) + timedelta(hours=7 * n),
        preset=preset, players=2, opponents=(level,), seat=0, side=0,
        result=result,  # type: ignore[arg-type]
        rounds=rounds, sweeps=tuple(int(s) for s in sweeps), scores=scores, daily=daily)


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.mark.parametrize("size", SIZES)
def test_statistics_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    ledger = Ledger(data_dir())
    for n in range(90):
        ledger.append(fixed_record(n, daily=date(2026, 2, 1) if n in (30, 31) else None))

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=before)


@asynctest
async def test_the_chart_in_ascii() -> None:
    ledger = Ledger(data_dir())
    for n in range(12):
        ledger.append(fixed_record(n))
    app = make_app(ascii_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("i")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        shown = text_of(screen, "#stats-chart").strip()
        assert shown == "".join("#" if r == "win" else "_" for r in screen.figures.results)
        assert shown.isascii() and len(shown) == 12
