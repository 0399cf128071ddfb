"""Every word the game says can be read at 80x24 (issue 30): the move line and the message wrap
instead of cutting the reason, the plays of the others wrap on the table, the log panel shows
a line an entry and ``l`` shows the whole log in full (at the table, in a replay and in a
round's review)."""

from __future__ import annotations

import re
from pathlib import Path

from textual.pilot import Pilot

from casino_tui.app.app import CasinoApp
from casino_tui.app.players import InProcessChooser
from casino_tui.app.screens.fulllog import FullLogScreen
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.widgets.table import LogView, MessageLine, RecentData, RecentPlays
from casino_tui.saves import open_store
from casino_tui.table.replay import open_replay

from .conftest import asynctest, make_app, settle
from .positions import biggest_build, greedy_first, longest_hint, new_deal_4p, table_2p
from .test_literal_text import screen_text

EXAMPLES = Path(__file__).resolve().parents[2] / "saves"
MULTI_BUILD = "West built [A♠ 2♣ 3♥ 4♥ 5♦ 6♠ 7♥]=7 multiple"


def squeeze(text: str) -> str:
    """The words of ``text`` with single spaces (wrapped lines joined)."""
    return " ".join(text.split())


def seen(app: CasinoApp) -> str:
    return squeeze(screen_text(app))


def game(app: CasinoApp) -> GameScreen:
    assert isinstance(app.screen, GameScreen), app.screen
    return app.screen


@asynctest
async def test_a_refused_selection_and_its_reason_are_read_in_full_at_80x24() -> None:
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(*["tab", "space"] * 5)  # every pile, with 8♣: no move uses them all
        move_line = game(app).query_one("#move-line", MessageLine)
        assert move_line.size.height == 2  # wrapped, not cut
        assert squeeze(move_line.render().plain) == (
            "Selected 3♣ 6♦ K♠ [5♥ 3♠]=8 [7♣ 2♦]=9: no legal move with 8♣ uses exactly "
            "these piles Esc clears")
        await pilot.press("enter")  # the engine says why
        reason = game(app)._message.text
        assert reason.startswith("8♣ (8) cannot take those piles") and len(reason) > 100
        message_line = game(app).query_one("#message-line", MessageLine)
        assert squeeze(message_line.render().plain) == "✗ " + squeeze(reason)
        assert "…" not in screen_text(app)


@asynctest
async def test_hard_s_longest_hint_is_read_in_full_at_80x24() -> None:
    app = make_app(table_2p(), chooser_factory=lambda: InProcessChooser(
        greedy_first, hint_fn=longest_hint))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        message = game(app)._message.text
        assert message.startswith("Hint: Build 9 with your A♥") and len(message) > 150
        message_line = game(app).query_one("#message-line", MessageLine)
        assert squeeze(message_line.render().plain) == "✓ " + squeeze(message)
        assert message_line.size.height == 4 and "…" not in screen_text(app)


async def four_players_after_a_new_deal(pilot: Pilot[None]) -> GameScreen:
    await settle(pilot)
    await pilot.press("t")  # South's last card of the deal; West, North, East play the next
    await settle(pilot)
    return game(pilot.app)  # type: ignore[arg-type]


@asynctest
async def test_the_others_plays_wrap_on_the_table_and_the_log_is_a_line_an_entry() -> None:
    app = make_app(new_deal_4p(), chooser_factory=lambda: InProcessChooser(biggest_build))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await four_players_after_a_new_deal(pilot)
        recent = screen.query_one("#recent", RecentPlays)
        shown = squeeze(recent.render().plain)
        assert f"New deal: the last one (3 of 3) · {MULTI_BUILD}" in shown
        assert "North trailed 6♣" in shown and "East took 6♣ with 6♥" in shown
        assert recent.size.height == 4  # the build's line wraps under itself
        log = screen.query_one("#log", LogView)
        lines = log.render().plain.split("\n")
        entries = [e.text for e in screen.session.log]
        assert len(lines) == len(entries)  # a line each, never wrapped into the next
        assert all(len(line) <= log.size.width for line in lines)
        assert any(line.endswith("…") for line in lines)  # the long ones cut, at the end
        assert log.border_subtitle == "l: in full"


@asynctest
async def test_the_recent_plays_ask_for_a_new_layout_only_when_their_height_changes() -> None:
    """A new layout places every widget again and draws the whole screen again (several times
    what drawing the plays alone costs): the plays' line count changing within their
    min-height (one line per other player) must not ask for one, a real change of height must."""
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        recent = game(app).query_one("#recent", RecentPlays)
        assert recent.size.height == 1  # one other player: at least one line
        layouts: list[bool] = []
        refresh = recent.refresh

        def counted(*regions: object, **options: bool) -> object:
            layouts.append(options.get("layout", False))
            return refresh(*regions, **options)  # type: ignore[arg-type]

        recent.refresh = counted  # type: ignore[method-assign, assignment]
        one = (False, "North trailed 6♣")
        for lines in ((), (one,), ((True, "New deal"),), (one, (False, "North took 6♣"))):
            recent.set_data(RecentData(lines))
        assert layouts.count(True) == 1 and layouts[-1] is True  # only 1 -> 2 lines
        await settle(pilot)
        assert recent.size.height == 2
        recent.set_data(RecentData((one,)))
        await settle(pilot)
        assert layouts[-1] is True and recent.size.height == 1


@asynctest
async def test_l_shows_the_whole_log_in_full_and_esc_goes_back() -> None:
    app = make_app(new_deal_4p(), chooser_factory=lambda: InProcessChooser(biggest_build))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await four_players_after_a_new_deal(pilot)
        entries = [e.text for e in screen.session.log]
        await pilot.press("l")
        assert isinstance(app.screen, FullLogScreen)
        text = seen(app)
        for entry in entries:
            assert squeeze(entry) in text, entry
        assert MULTI_BUILD in text and "…" not in screen_text(app)
        await pilot.press("escape")
        assert app.screen is screen and screen.awaiting_human


@asynctest
async def test_a_long_log_opens_at_its_end_and_scrolls(tmp_path: Path) -> None:
    replay = open_replay(open_store(tmp_path / "data"), EXAMPLES / "finished-game.json")
    app = make_app(replay=replay)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("end", "l")  # the replay's log up to the last move
        await pilot.pause()
        assert isinstance(app.screen, FullLogScreen)
        entries = app.screen.entries
        assert len(entries) > 30  # more than one screen
        text = seen(app)
        assert squeeze(entries[-1][0]) in text and squeeze(entries[0][0]) not in text
        await pilot.press("home")
        await pilot.pause()
        assert squeeze(entries[0][0]) in seen(app)
        await pilot.press("l")
        await pilot.pause()
        assert not isinstance(app.screen, FullLogScreen)


@asynctest
async def test_the_full_log_of_a_new_game_says_so() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(FullLogScreen([], "Log of the game"))
        await pilot.pause()
        assert re.search(r"Nothing has happened yet", screen_text(app))
