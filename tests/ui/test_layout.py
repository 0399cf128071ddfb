"""Layout tests: what the screens show and where, at the sizes players use."""

from __future__ import annotations

from textual.widgets import Input

from casino_tui.app.cardfmt import CardPainter
from casino_tui.app.describe import move_preview
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.session import GameSession, seat_labels
from casino_tui.app.widgets.cycler import Cycler
from casino_tui.app.widgets.table import ScorePanel, SeatBox, SeatList
from casino_tui.engine import Move
from casino_tui.table import GameConfig, default_seats, seat_names

from .big_tables import table_6p
from .conftest import asynctest, make_app, settle
from .positions import cards, position, table_2p


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


def test_seat_labels_are_short_and_different() -> None:
    assert seat_labels(seat_names(6)) == ["S", "SW", "NW", "N", "NE", "SE"]
    assert seat_labels(seat_names(5)) == ["S", "W", "NW", "NE", "E"]
    assert seat_labels(["Ann", "Amy", "Bob", "Ada Byron"]) == ["An", "Am", "B", "AB"]
    assert seat_labels(["South", "Sam", "Ann", "Ann"]) == ["S", "Sa", "A3", "A4"]
    # Display names at a server's tables: a letter, not the markup-like or symbol start.
    assert seat_labels(["(Bob)", "~zoë", "- Max Pux"]) == ["B", "Z", "MP"]


def _sweep(preset: str) -> tuple[GameSession, str]:
    """South clears the table (3♣ 6♦ with 9♠) under ``preset``: the session and its log line."""
    state = position(preset, 2, table=cards("3C 6D"), hands=["9S 4H", "5C 8D"], to_move=0,
                     dealer=1, stock=0)
    session = GameSession(GameConfig(preset=preset, seats=default_seats(2)), state)
    p = CardPainter()
    move = Move.capture(cards("9S")[0], (0, 1))
    preview = move_preview(state.table, move, p, sweeps=session.sweeps_score)
    ev, _ = session.apply(move, p)
    assert ev.sweep
    return session, preview + " / " + session.log[-1].text


def test_sweeps_are_named_only_where_the_rules_score_them() -> None:
    session, text = _sweep("classic")
    assert session.sweeps_score
    assert text == "Take 3♣ 6♦ with 9♠ · sweep / South took 3♣ 6♦ with 9♠: sweep"
    for preset in ("royal_cassino", "california_cassino"):
        session, text = _sweep(preset)
        assert not session.sweeps_score
        assert "sweep" not in text


@asynctest
async def test_no_sweeps_in_the_panels_where_they_score_nothing() -> None:
    for preset, scored in (("royal_cassino", False), ("classic", True)):
        state = position(preset, 4, table=cards("3C 6D"),
                         hands=["9S 4H", "5C 8D", "7H 2C", "QS JD"], to_move=0, dealer=3,
                         stock=0, sweeps=[1, 1, 0, 0])
        app = make_app(state)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, GameScreen)
            score = screen.query_one("#score", ScorePanel)
            assert score.data is not None and score.data.sweeps is scored
            assert ("Sweeps" in score.render().plain) is scored
            west = screen.query_one("#seat-0", SeatBox)
            assert west.data is not None and west.data.sweeps == (1 if scored else None)
            assert ("1 sweep" in west.render().plain) is scored


@asynctest
async def test_six_players_at_80x24_show_every_seat_and_score_row() -> None:
    app = make_app(table_6p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        players = screen.query_one("#seat-list", SeatList).render().plain
        for name in ("SW Southwest", "NW Northwest", "N  North", "NE Northeast",
                     "SE Southeast"):
            assert name in players
        score = screen.query_one("#score", ScorePanel)
        lines = score.render().plain.split("\n")
        assert lines[0].split() == ["S", "SW", "NW", "N", "NE", "SE"]
        assert [line.split()[0] for line in lines[1:]] == ["Game", "Cards", "Spades", "Aces",
                                                          "10♦", "2♠"]
        assert all(len(line) <= score.size.width for line in lines)
        assert score.size.height == len(lines)


def test_card_faces_stand_out_in_light_themes() -> None:
    from textual.theme import BUILTIN_THEMES

    from casino_tui.app.cardfmt import FACE_BG, face_background

    assert face_background(True, "#1e1e1e") == FACE_BG
    for theme in BUILTIN_THEMES.values():
        face = face_background(theme.dark, theme.background)
        assert face != (theme.background or "").lower()
    assert face_background(False, "#E0E0E0") == "#ffffff"  # textual-light
    assert face_background(False, "#FAFAFA") != "#ffffff"  # almost white: a darker face


def test_hanging_indent() -> None:
    from rich.console import Console

    from casino_tui.app.hanging import Hanging

    console = Console(width=40, record=True, color_system=None)
    console.print(Hanging("Royal Cassino          Royal Cassino: J 11, Q 12, K 13, aces 1 "
                          "or 14; no sweep points.", 23))
    lines = console.export_text().splitlines()
    assert lines[0].startswith("Royal Cassino          Royal")
    assert len(lines) > 2 and all(line.startswith(" " * 23) and line[23] != " "
                                  for line in lines[1:])


@asynctest
async def test_preset_list_and_rules_wrap_under_their_text() -> None:
    """The preset picker's descriptions and the rules' bullets continue under their text, not
    at the left edge."""
    from textual.widgets import OptionList, Static

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "space")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        strips = options._get_option_render(options.get_option_at_index(0),
                                            options.get_visual_style("option-list--option"))
        assert len(strips) >= 2
        assert strips[1].text.startswith(" " * 23) and strips[1].text[23] != " "
        await pilot.press("escape", "escape", "r")
        await pilot.pause()
        text = app.screen.query_one("#rules-text", Static)
        lines = [s.text for s in text.render_lines(text.content_region.reset_offset)]
        bullets = [i for i, line in enumerate(lines) if line.startswith("• ")]
        assert bullets
        wrapped = [lines[i + 1] for i in bullets if i + 1 < len(lines)
                   and lines[i + 1].strip() and not lines[i + 1].startswith("• ")]
        assert wrapped and all(line.startswith("  ") for line in wrapped)


@asynctest
async def test_too_small_message_fits_every_size() -> None:
    """Below 80x24 the message, with its way out, fits entirely, down to 20x5 and beyond."""
    from textual.geometry import Region
    from textual.widgets import Static

    from casino_tui.app.screens.toosmall import TooSmallScreen

    app = make_app()
    async with app.run_test(size=(79, 24)) as pilot:
        for w, h in ((79, 24), (50, 15), (40, 10), (30, 8), (24, 6), (20, 5), (12, 2)):
            await pilot.resize_terminal(w, h)
            await pilot.pause()
            await pilot.pause()
            assert isinstance(app.screen, TooSmallScreen)
            box = app.screen.query_one("#too-small-text", Static)
            assert Region(0, 0, w, h).contains_region(box.region), (w, h, box.region)
            text = "\n".join(s.text for s in box.render_lines(box.region.reset_offset))
            assert "Ctrl+Q quits" in text, (w, h, text)
            if w >= 20 and h >= 5:
                assert "80x24" in text and f"{w}x{h}" in text


def test_fit_note_keeps_the_round() -> None:
    from casino_tui.app.screens.title import fit_note

    assert fit_note("Builds on the table · round 1", 32) == "Builds on the table · round 1"
    cut = fit_note("A marathon game against the hardest computer · round 12", 32)
    assert cut == "A marathon game agai… · round 12" and len(cut) == 32
    assert fit_note("x" * 40, 10) == "x" * 9 + "…"


@asynctest
async def test_title_continue_fits_on_its_line() -> None:
    """A saved game's name and round stay on the Continue line (a long name is cut)."""
    from textual.widgets import OptionList

    from casino_tui.engine import Rules, State
    from casino_tui.saves import SaveStore, Seat

    for size in ((80, 24), (120, 40)):
        app = make_app()
        store: SaveStore = app.store
        slot = store.new_game([Seat.human("South"), Seat.computer("North", "easy")],
                              "A marathon game against the hardest computer")
        store.autosave(slot, State(Rules.preset("classic"), 2, 5))
        store.close(slot)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            menu = app.screen.query_one("#title-menu", OptionList)
            option = menu.get_option("continue")
            strips = menu._get_option_render(option,
                                             menu.get_visual_style("option-list--option"))
            assert len(strips) == 1
            assert strips[0].text.rstrip().endswith("… · round 1")


@asynctest
async def test_your_game_score_is_underlined_not_in_reverse_video() -> None:
    """Reverse video on one number read as a stray cursor: your side's score is underlined,
    as its name is."""
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        score = screen.query_one("#score", ScorePanel)
        assert score.data is not None and score.data.highlight == 0
        text = score.render()
        assert not any("reverse" in str(span.style) for span in text.spans)
        game_row = text.plain.split("\n")[1]
        mine = text.plain.index(game_row) + game_row.index(str(score.data.game[0]))
        assert any(span.start <= mine < span.end and "underline" in str(span.style)
                   for span in text.spans)
