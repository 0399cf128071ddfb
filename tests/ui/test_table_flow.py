"""The game as a player meets it between moves: what the table tells them, and what the
command line and the lists accept (one behaviour per test)."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from casino_tui import __main__ as cli
from casino_tui.app.cardfmt import CardPainter
from casino_tui.app.screens.game import GameScreen
from casino_tui.app.screens.gameover import GameOverScreen
from casino_tui.app.screens.picklist import PickListScreen, matches, search_key
from casino_tui.app.screens.privacy import PrivacyScreen
from casino_tui.app.screens.setup import SetupScreen
from casino_tui.app.screens.summary import RoundSummaryScreen
from casino_tui.app.widgets.table import KeyBar, MessageLine, StatusLine, TableView
from casino_tui.cli import _preset
from casino_tui.engine import PRESET_ALIASES, PRESET_NAMES, resolve_preset_name
from casino_tui.table import SEED_MAX, GameConfig, default_seats, parse_seed

from .conftest import asynctest, make_app, settle
from .positions import cards, position, table_2p


def table_screen(app: object) -> GameScreen:
    return next(s for s in app.screen_stack  # type: ignore[attr-defined]
                if isinstance(s, GameScreen))


def recent(screen: GameScreen) -> list[str]:
    data = screen.query_one("#recent").data  # type: ignore[attr-defined]
    return [text for _, text in data.lines]


def recent_piles(screen: GameScreen) -> frozenset[int]:
    data = screen.query_one("#table", TableView).data
    assert data is not None
    return data.recent


async def show_hand(pilot: Pilot[None], seat_name: str) -> None:
    """Dismiss the hot-seat privacy screen of ``seat_name``."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, PrivacyScreen) and screen.player == seat_name
    await pilot.press("x")
    await settle(pilot)


# ---------------------------------------------------------------------- recent plays
@asynctest
async def test_the_last_play_before_a_new_deal_stays_listed_with_the_deal() -> None:
    """North's last card ends the deal: its play and the new deal share the one line."""
    state = position("classic", 2, table=cards("3C 9H"), hands=["4H", "KD"], to_move=0,
                     dealer=1, stock=16)
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = table_screen(app)
        await pilot.press("enter")  # South trails 4♥; North trails K♦, the last card
        await settle(pilot)
        assert screen.awaiting_human and len(state.hands[0]) == 4
        deal = f"New deal ({state.deal_no} of {len(state.deal_sizes)})"
        assert recent(screen) == [f"North trailed K♦ · {deal}"]
        assert recent_piles(screen) == {state.table.index(cards("KD")[0])}


@asynctest
async def test_hot_seat_players_see_every_play_since_their_last_turn() -> None:
    """South and West are people, East the computer: each person sees (and finds
    highlighted) what everybody else did since their own last play, never their own play."""
    state = position("classic", 3, table=cards("3C 9H"), hands=["4H 6S", "KD 2C", "QS 5D"],
                     to_move=0, dealer=2, stock=12)
    app = make_app(state, humans=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_hand(pilot, "South")
        screen = table_screen(app)
        assert recent(screen) == []
        await pilot.press("enter")  # South trails 4♥
        await show_hand(pilot, "West")
        assert recent(screen) == ["South trailed 4♥"]
        assert recent_piles(screen) == {state.table.index(cards("4H")[0])}
        await pilot.press("enter")  # West trails K♦, then East (the computer) plays
        await show_hand(pilot, "South")
        east = screen.session.log[-1].text
        assert east.startswith("East ")
        assert recent(screen) == ["West trailed K♦", east]
        assert state.table.index(cards("KD")[0]) in recent_piles(screen)
        assert state.table.index(cards("4H")[0]) not in recent_piles(screen)


# ---------------------------------------------------------------------- messages
def test_cards_in_messages_follow_the_card_style() -> None:
    reason = "3S (3) cannot take those piles; take 10♦ with J♣ · [7C 2D]=9, not AS2 or X3S"
    assert CardPainter().text(reason) == (
        "3♠ (3) cannot take those piles; take 10♦ with J♣ · [7♣ 2♦]=9, not AS2 or X3S")
    assert CardPainter(symbols=False).text(reason) == (
        "3S (3) cannot take those piles; take 10D with JC · [7C 2D]=9, not AS2 or X3S")


@asynctest
async def test_a_long_engine_reason_is_shown_in_full_at_80x24() -> None:
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = table_screen(app)
        await pilot.press("2", "space", "tab", "space", "tab", "space", "enter")
        await pilot.pause()
        line = screen.query_one("#message-line", MessageLine)
        assert line.data is not None and line.data.kind == "error"
        reason = line.data.text
        assert reason.startswith("9♠ (9) cannot take those piles") and "9S" not in reason
        shown = " ".join(t.plain.strip() for t in line._lines(line.size.width))
        assert shown == "✗ " + reason
        assert 2 <= line.size.height <= 3
        await pilot.press("escape")  # the message goes, and so does its room
        await pilot.pause()
        assert line.size.height == 1


# ---------------------------------------------------------------------- round end
@asynctest
async def test_round_summary_shows_only_its_keys_and_nobody_is_thinking() -> None:
    """North's last card ends the round: the summary's keys, no "North is thinking"."""
    state = position("classic", 2, table=cards("3C 9H"), hands=["4H", "KD"], to_move=0,
                     dealer=1, stock=0)
    app = make_app(state)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RoundSummaryScreen)
        screen = table_screen(app)
        keys = screen.query_one("#keys", KeyBar).data
        assert keys == (("Enter", "next round"), ("?", "help"))
        message = screen.query_one("#message-line", StatusLine).data
        assert message is not None and "thinking" not in message.text
        move_line = screen.query_one("#move-line", StatusLine).data
        assert move_line is not None and "Waiting" not in move_line.text


@asynctest
async def test_a_new_game_after_game_over_gets_a_new_deal() -> None:
    """``--seed 5 --target 1``: n on game over keeps the settings, not the seed."""
    config = GameConfig(preset="royal_cassino", players=2, seats=default_seats(2), target=1,
                        seed=5)
    state = position("royal_cassino", 2, table=cards("3C 9H"), hands=["4H", ""], to_move=0,
                     dealer=1, stock=0, scores=[0, 0], target=1)
    app = make_app(state, config=config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # the last card
        await settle(pilot)
        await pilot.press("enter")  # the summary
        await settle(pilot)
        assert isinstance(app.screen, GameOverScreen)
        keys = table_screen(app).query_one("#keys", KeyBar).data
        assert keys is not None and all("cards" not in desc for _, desc in keys)
        await pilot.press("n")
        await settle(pilot)
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        new = setup.build_config()
        assert new.seed is None and new.target == 1 and new.preset == "royal_cassino"


# ---------------------------------------------------------------------- move list filter
def test_move_filter_words_begin_words_or_cards() -> None:
    take_seven = search_key("Take 7♥ with 7♣")
    assert not matches("take k", take_seven)  # "k" is inside "take", not a king
    assert matches("take 7", take_seven) and matches("TAKE 7c", take_seven)
    assert matches("with 7♣", take_seven) and matches("♥", take_seven)
    assert not matches("♦", take_seven) and not matches("ake", take_seven)
    build = search_key("Build 9 (single): 7♣ on [2♦]=2")
    assert matches("build 9", build) and matches("2d", build) and matches("sing", build)
    assert matches("take k", search_key("Take K♠ with K♦ · sweep"))


@asynctest
async def test_a_filter_without_matches_says_so() -> None:
    app = make_app(table_2p())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("m", *"take k")  # no king can take anything here
        picker = app.screen
        assert isinstance(picker, PickListScreen) and picker.shown == []
        from textual.widgets import OptionList

        options = picker.query_one(OptionList)
        assert options.option_count == 1
        assert str(options.get_option_at_index(0).prompt) == "No moves match “take k”."
        await pilot.press("enter")  # nothing to play
        assert app.screen is picker


# ---------------------------------------------------------------------- command line
def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        cli.main(list(args))
    return int(exc.value.code or 0), capsys.readouterr().err


def test_presets_are_listed_by_their_short_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--list-presets"]) == 0
    out = capsys.readouterr().out
    assert "_seed0" not in out
    names = [line.split()[0] for line in out.splitlines()[1:]]
    assert len(names) == len(PRESET_NAMES) == len(set(names))
    assert {"french", "danish", "spade_cassino", "royal", "classic"} <= set(names)
    for name in names:  # every listed name, and every full name, still works
        assert resolve_preset_name(name) in PRESET_NAMES
    code, err = run_cli(capsys, "--preset", "nosuchgame")
    assert code == 2 and "french, " in err and "_seed0" not in err
    assert _preset("french_casino_seed000") == _preset("french") == PRESET_ALIASES[
        "french"]


@pytest.mark.parametrize("seed", ["-1", str(SEED_MAX + 1), "1.5", "9" * 5000])
def test_bad_seeds_are_refused(capsys: pytest.CaptureFixture[str], seed: str) -> None:
    code, err = run_cli(capsys, "--seed", seed)
    assert code == 2 and "the seed must be a whole number from 0 to" in err
    assert len(err) < 600


def test_good_seeds() -> None:
    assert parse_seed(" 0 ") == 0 and parse_seed(str(SEED_MAX)) == SEED_MAX
