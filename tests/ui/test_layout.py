"""Layout tests: what the screens show and where, at the sizes players use."""

from __future__ import annotations

from textual.widgets import Input

from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.session import seat_names
from casino_tui.app.widgets.cycler import Cycler

from .conftest import asynctest, make_app


def _seat_fields(screen: SetupScreen, n: int) -> list[str]:
    return [screen.query_one(f"#seat-name-{i}", Input).value for i in range(n)]


@asynctest
async def test_setup_names_follow_the_seats_when_the_player_count_changes() -> None:
    """Title, Enter, Down, Right, Right: four players sit South, West, North, East (as with
    --players 4); a name the player typed stays where it is."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        assert _seat_fields(screen, 2) == ["South", "North"]
        await pilot.press("down", "right")
        assert _seat_fields(screen, 3) == list(seat_names(3))
        await pilot.press("right")
        await pilot.pause()
        assert _seat_fields(screen, 4) == ["South", "West", "North", "East"]
        config = screen.build_config()
        assert [s.name for s in config.seats] == list(seat_names(4))
        screen.query_one("#seat-name-1", Input).value = "Ann"
        await pilot.press("left")  # back to three players: Ann stays, the others move
        await pilot.pause()
        assert _seat_fields(screen, 3) == ["South", "Ann", seat_names(3)[2]]
        await pilot.press("left")
        await pilot.pause()
        assert _seat_fields(screen, 2) == ["South", "Ann"]


@asynctest
async def test_setup_names_for_five_and_six_players() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, SetupScreen)

        async def choose(field: str, value: object) -> None:
            cycler = screen.query_one(field, Cycler)
            cycler.set_value(value)  # as if chosen with Left/Right
            cycler.post_message(Cycler.Changed(cycler, value))
            await pilot.pause()

        await choose("#setup-preset", "california_cassino")
        await choose("#setup-players", 6)
        assert _seat_fields(screen, 6) == list(seat_names(6))
        await choose("#setup-preset", "five_player")
        assert _seat_fields(screen, 5) == list(seat_names(5))
