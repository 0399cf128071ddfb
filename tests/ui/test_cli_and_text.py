"""The command line, settings storage, and the UI's texts (no Textual app needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from casino_tui import __main__ as cli
from casino_tui.app.cardfmt import CardPainter
from casino_tui.app.describe import move_log_line, move_preview
from casino_tui.app.rules_text import rules_summary
from casino_tui.app.screens.summary import preset_items, summary_data
from casino_tui.app.session import GameSession, preset_title
from casino_tui.engine import PRESET_DESCRIPTIONS, PRESET_NAMES, Move, Rules, card_str
from casino_tui.settings import Settings, load_settings, save_settings
from casino_tui.table import GameConfig, default_seats

from .positions import cards, last_play, table_2p


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        cli.main(list(args))
    out, err = capsys.readouterr()
    return int(exc.value.code or 0), out, err


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0
    for opt in ("--version", "--preset", "--players", "--seed", "--ascii", "--list-presets"):
        assert opt in out
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.startswith("casino-tui ")


def test_list_presets(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--list-presets"]) == 0
    out = capsys.readouterr().out
    for name in PRESET_NAMES:  # each by its short name (test_table_flow)
        assert PRESET_DESCRIPTIONS[name] in out
    assert "royal" in out and "2,3,4" in out


@pytest.mark.parametrize("args", [
    ["--preset", "nosuchgame"], ["--players", "7"], ["--players", "two"], ["--seed", "x"],
    ["--preset", "five_player", "--players", "2"], ["--bogus"], ["--target", "0"],
    ["--target", "10000"], ["--target", "1000001"],
])
def test_bad_arguments_exit_2_with_a_message(capsys: pytest.CaptureFixture[str],
                                             args: list[str]) -> None:
    code, _, err = run_cli(capsys, *args)
    assert code == 2
    assert "error:" in err and len(err.strip().splitlines()[-1]) > 20


def test_no_terminal_is_refused(capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_is_terminal", lambda: False)
    assert cli.main(["--preset", "royal", "--players", "4"]) == 1
    assert "needs a terminal" in capsys.readouterr().err


@pytest.mark.parametrize(("crash", "status"), [(False, 0), (True, 1)])
def test_a_crash_in_the_app_exits_with_status_1(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch, crash: bool,
                                                status: int) -> None:
    """The app runs headless; an unhandled exception ends it with status 1, quitting with 0."""
    from textual.app import App

    from casino_tui.app.app import CasinoApp
    from casino_tui.app.screens.title import TitleScreen

    def mounted(self: TitleScreen) -> None:
        if crash:
            raise RuntimeError("a bug in a screen")
        self.app.exit()

    monkeypatch.setattr(cli, "_is_terminal", lambda: True)
    monkeypatch.setattr(CasinoApp, "run", lambda self, **kw: App.run(self, headless=True))
    monkeypatch.setattr(TitleScreen, "on_mount", mounted)
    assert cli.main([]) == status
    assert ("a bug in a screen" in capsys.readouterr().err) == crash


def test_arena_subcommand_dispatches(monkeypatch: pytest.MonkeyPatch) -> None:
    import casino_tui.arena as arena

    got: list[list[str]] = []
    monkeypatch.setattr(arena, "main", lambda argv: got.append(list(argv)) or 0)
    assert cli.main(["arena", "--games", "3"]) == 0
    assert got == [["--games", "3"]]


def test_settings_round_trip_and_damage(_config_dir: Path) -> None:
    assert load_settings() == Settings()
    s = Settings(card_style="ascii", four_colour=True, theme="nord", speed="fast")
    path = save_settings(s)
    assert path == _config_dir / "settings.json"
    assert load_settings() == s
    path.write_text("{not json")
    assert load_settings() == Settings()
    path.write_text(json.dumps({"card_style": "braille", "speed": 3, "four_colour": True}))
    assert load_settings() == Settings(four_colour=True)


def test_card_labels_match_the_engine_notation() -> None:
    for symbols in (True, False):
        painter = CardPainter(symbols=symbols)
        assert [painter.label(c) for c in range(52)] == [card_str(c, symbols) for c in range(52)]


def test_rules_summary_for_every_preset() -> None:
    painter = CardPainter()
    for name in PRESET_NAMES:
        rules = Rules.preset(name)
        text = rules_summary(rules, painter).plain
        assert preset_title(name) in text
        assert f"{rules.target}" in text or rules.game_end == "fixed_rounds"
        assert "Scoring each round" in text
    pluck = rules_summary(Rules.preset("pluck_cassino"), painter).plain
    assert "Pluck:" in pluck and "Pluck:" not in rules_summary(Rules.preset("classic"),
                                                               painter).plain
    assert "never one that could capture" in rules_summary(Rules.preset("danish"), painter).plain
    ascii_royal = rules_summary(Rules.preset("royal"), CardPainter(symbols=False)).plain
    assert "♦" not in ascii_royal and "kings 13" in ascii_royal


def test_move_descriptions() -> None:
    p = CardPainter()
    state = table_2p()
    table = list(state.table)
    nine = cards("9S")[0]
    assert move_preview(table, Move.capture(nine, (0, 1)), p) == "Take 3♣ 6♦ with 9♠"
    assert move_preview(table, Move.capture(nine, (4,)), p) == "Take [7♣ 2♦]=9 with 9♠"
    ace = cards("AH")[0]
    assert move_preview(table, Move.build(ace, (4,), 10, True), p) == \
        "Raise [7♣ 2♦]=9 to 10 with A♥"
    session = GameSession(GameConfig(seats=default_seats(2)), state)
    ev, before = session.apply(Move.capture(nine, (0, 1)), p)
    assert move_log_line(before, ev, session.names, session.side_names, p) == \
        "South took 3♣ 6♦ with 9♠"
    assert session.log[-1].text == "South took 3♣ 6♦ with 9♠"


def test_round_summary_lists_every_item_of_the_preset() -> None:
    p = CardPainter()
    state = last_play()
    session = GameSession(GameConfig(seats=default_seats(2)), state)
    session.apply(state.legal_moves()[0], p)
    assert state.is_round_over
    data = summary_data(session, state.round_summaries[-1], p)
    labels = [label for label, _ in data.items]
    assert labels == ["Most cards", "Most spades", "Big Casino 10♦", "Little Casino 2♠", "Aces",
                      "Sweeps"]
    assert data.game_totals == tuple(state.scores)
    assert sum(data.round_totals) == sum(s.total for s in state.round_summaries[-1].scores)
    assert preset_items(Rules.preset("danish")) == ["cards", "most_C", "big_casino",
                                                     "little_casino", "aces", "sweeps",
                                                     "last_capture"]


def test_every_stylesheet_exists() -> None:
    import casino_tui.app.screens.game as game
    from casino_tui.app.app import CasinoApp
    from casino_tui.app.screens import (
        confirm,
        gameover,
        help,
        load,
        name,
        picklist,
        privacy,
        rules,
        settings,
        setup,
        summary,
    )
    from casino_tui.app.styles import styles_dir

    classes = [CasinoApp, game.GameScreen, confirm.ConfirmScreen, gameover.GameOverScreen,
               help.HelpScreen, picklist.PickListScreen, privacy.PrivacyScreen,
               rules.RulesScreen, settings.SettingsScreen, setup.SetupScreen,
               summary.RoundSummaryScreen, load.LoadScreen, name.NameScreen]
    used = {Path(p) for cls in classes for p in cls.CSS_PATH}  # type: ignore[attr-defined]
    assert used == set(styles_dir().glob("*.tcss"))


def test_a_resumed_games_log_is_rebuilt_as_it_was_played() -> None:
    """Two rounds and a bit, logged as the table logs them; the log rebuilt from the saved
    game (replayed from its seed) has the same lines."""
    from casino_tui.engine.serialize import game_from_dict, game_to_dict

    painter = CardPainter()
    config = GameConfig(seats=default_seats(2), seed=5)
    live = GameSession(config)
    live.round_start_notes()
    while live.state.round_no < 3 or len(live.log) < 120:
        st = live.state
        if st.is_round_over:
            live.add_note(f"Round {st.round_no} over")  # as the table does with the summary
            live.next_round()
            continue
        live.apply(st.legal_moves()[0], painter)
    saved = game_from_dict(game_to_dict(live.state))
    resumed = GameSession(config, saved, resumed=True)
    resumed.rebuild_log(painter)
    assert [e.text for e in resumed.log] == [e.text for e in live.log]
    assert [e.round_no for e in resumed.log] == [e.round_no for e in live.log]
    assert "Round 2 over" in [e.text for e in resumed.log]


def test_the_target_is_refused_above_what_the_new_game_screen_takes(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A save holds any target the command line accepts (--target 1000001 was played and then
    never opened again): the same limit as the New game screen's four digits."""
    from casino_tui.table import MAX_TARGET

    code, _, err = run_cli(capsys, "--target", str(MAX_TARGET + 1))
    assert code == 2 and f"a target is from 1 to {MAX_TARGET} points" in err
    args = cli.build_parser().parse_args(["--target", str(MAX_TARGET)])
    assert args.target == MAX_TARGET == 9999
