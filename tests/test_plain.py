"""Plain mode (``casino-tui --plain``): games played by reading lines and typing commands.

In process, a console answers each prompt from what was said so far (a golden transcript of a
seeded round keeps every change of wording visible in review); through a real PTY, the real
program plays a whole seeded game at 40 columns, and writes no escape sequence at all.
Regenerate the golden transcript with ``CASINO_TUI_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pty_support import PtyApp, app_env

from casino_tui.engine import Rules
from casino_tui.engine.notation import parse_position
from casino_tui.plain import services
from casino_tui.plain.console import wrap
from casino_tui.plain.game import PlainGame, PlainSettings
from casino_tui.plain.shell import PlainShell
from casino_tui.saves import SaveStore
from casino_tui.saves.storestatus import (
    AWAY,
    BACK,
    STATUS_FILE,
    STORE_STATUS_ENV,
    clear_away,
    write_away,
)
from casino_tui.table import GameConfig, TableController, default_seats

GOLDEN = Path(__file__).parent / "data" / "plain_round.txt"
CLOCK = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


class Player:
    """A console whose answers come from ``answer(prompt, lines said so far)``."""

    def __init__(self, answer: Callable[[str, list[str]], str | None], width: int = 40) -> None:
        self.answer = answer
        self.out: list[str] = []
        self.width = width
        self.asked = 0

    def say(self, text: str = "") -> None:
        self.out += wrap(text, self.width - 1)

    def ask(self, prompt: str) -> str | None:
        self.asked += 1
        assert self.asked < 2000, "the game never ended"
        line = self.answer(prompt, self.out)
        self.out.append(prompt + ("" if line is None else line))
        return line

    def set_words(self, words: Callable[[], Iterable[str]]) -> None:
        pass


def shell(tmp_path: Path, player: Player) -> PlainShell:
    store = SaveStore(tmp_path / "data" / "games", clock=lambda: CLOCK)
    svc = services(store, clock=lambda: CLOCK, iterations=30)
    svc.save_settings = lambda s: None
    return PlainShell(player, store, PlainSettings(), svc)


def first_move_answers(menu: list[str]) -> Callable[[str, list[str]], str | None]:
    """At the menu, the next of ``menu``; in a game, the first legal move; between rounds,
    quit."""
    def answer(prompt: str, said: list[str]) -> str | None:
        if prompt.startswith("casino>"):
            return menu.pop(0) if menu else None
        if prompt.startswith("Enter for the next round"):
            return "quit"
        return "1"
    return answer


def test_golden_transcript_of_a_seeded_round(tmp_path: Path) -> None:
    player = Player(first_move_answers(["new seed 5", "quit"]))
    assert shell(tmp_path, player).run() == 0
    text = "\n".join(player.out) + "\n"
    assert all(len(line) <= 40 for line in player.out)
    if os.environ.get("CASINO_TUI_UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8"), (
        "the plain-mode transcript changed: review tests/data/plain_round.txt "
        "(CASINO_TUI_UPDATE_GOLDEN=1 writes the new one)")


def test_a_game_is_saved_continued_and_counted(tmp_path: Path) -> None:
    # two plays, quit to the menu, continue, play to the end: the game is in the statistics
    plays = {"n": 0}

    def answer(prompt: str, said: list[str]) -> str | None:
        if prompt.startswith("casino>"):
            if any("Game over" in s for s in said):
                return "stats" if not any("You have played" in s for s in said) else "quit"
            return "new seed 9 target 5" if plays["n"] == 0 else "continue"
        if prompt.startswith("Enter for"):
            return ""
        plays["n"] += 1
        return "quit" if plays["n"] == 3 else "1"

    player = Player(answer, width=80)
    assert shell(tmp_path, player).run() == 0
    text = "\n".join(player.out)
    assert "The game is saved. Type continue to play it again." in text
    assert "Continuing Standard Cassino, 2 players, to 5 points, round 1." in text
    assert "Game over after" in text
    assert re.search(r"You have played 1 games and won [01]", text)
    store = SaveStore(tmp_path / "data" / "games")
    entries = store.entries()
    assert len(entries) == 1 and entries[0].finished
    assert (tmp_path / "data" / "ledger.jsonl").read_text().count("\n") == 1


def test_the_round_review_reads_each_play(tmp_path: Path) -> None:
    asked = {"review": False}

    def answer(prompt: str, said: list[str]) -> str | None:
        if prompt.startswith("casino>"):
            return "new seed 5" if not asked["review"] else "quit"
        if prompt.startswith("Enter for the next round"):
            if not asked["review"]:
                asked["review"] = True
                return "review"
            return "quit"
        return "1"

    player = Player(answer, width=400)  # a play and its verdict on one line
    assert shell(tmp_path, player).run() == 0
    text = "\n".join(player.out)
    assert "Round 1 review: 24 plays of yours, each with Hard's opinion." in text
    verdicts = re.findall(r"^Play \d+: You .*?(Hard agrees|only move|Hard would rather)",
                          text, re.M)
    assert len(verdicts) == 24
    assert re.search(r"(no play Hard would change|Hard would change, about)", text, re.I)


def game_at(tmp_path: Path, position: str) -> tuple[PlainGame, Player, list[str]]:
    lines: list[str] = []
    player = Player(lambda prompt, said: lines.pop(0) if lines else None, width=80)
    store = SaveStore(tmp_path / "games")
    config = GameConfig(seats=default_seats(2), seed=1)
    game = PlainGame(player, config, store, PlainSettings(),
                     choose=lambda v, lv, s: v.legal_moves()[0],
                     hint=lambda v, s: (v.legal_moves()[0], "because"))
    game.table = TableController(config, parse_position(position, Rules.preset("classic"),
                                                        complete=False))
    return game, player, lines


def test_an_illegal_move_gets_the_engines_reason_and_changes_nothing(tmp_path: Path) -> None:
    game, player, _ = game_at(tmp_path, "turn=0 table=5C,KD hands=4H,9S,2D/2C,2S,3H,3D")
    before = game.table.state.clone()
    game._command(0, "take king with 2")
    game._command(0, "take 5 with 9")
    game._command(0, "trail 8")
    game._command(0, "fly away")
    said = "\n".join(player.out)
    assert "Not allowed: " in said  # the engine's reason, in words
    assert "You do not hold that card." in said
    assert "I do not know 'fly away'" in said or "I do not understand" in said
    assert game.table.state.hands == before.hands and game.table.state.table == before.table
    game._command(0, "build 9 with 4 on 5")
    assert game.table.state.hands[0] != before.hands[0]  # played: the build stands


def test_short_cards_and_no_turn_summary(tmp_path: Path) -> None:
    game, player, _ = game_at(tmp_path, "turn=0 table=5C,KD hands=4H,9S,2D/2C,2S,3H,3D")
    game._command(0, "set cards short")
    game._command(0, "set brief on")
    game._command(0, "hand")
    assert player.out[-1] == "You hold 2D, 4H and 9S."
    assert not game.settings.turn_summary


# ---------------------------------------------------------------------- a real terminal
_ESC = re.compile(rb"\x1b")


def test_a_whole_game_through_a_pty_at_40_columns(tmp_path: Path) -> None:
    env = app_env(tmp_path)
    app = PtyApp(["--plain", "--seed", "4", "--target", "7"], env, size=(40, 24))
    try:
        seen = 0
        for _ in range(600):
            app.wait_for(r"(> |Goodbye\.\s*)$", since=seen, timeout=30)
            text = app.text(seen)
            if "Goodbye." in text:
                break
            seen = app.mark()
            if text.endswith("casino> "):
                app.send("quit\r" if "Game over" in app.text() else "new\r")
            elif text.endswith(("Enter for the next round> ", "Enter for the menu> ")):
                app.send("\r")
            else:  # our turn: hear the moves, then play a capture if there is one
                app.send("moves\r")
                app.wait_for(r"\n> $", since=seen)
                listed = app.text(seen)
                seen = app.mark()
                take = re.search(r"^(\d+)\. Take", listed, re.M)
                app.send(f"{take.group(1) if take else 1}\r")
        assert app.wait_exit(20) == 0
    finally:
        app.close()
    raw = app.raw()
    out = app.text()
    assert "Game over after" in out
    assert not _ESC.search(raw), "plain mode wrote an escape sequence"
    lines = out.replace("\r", "").split("\n")
    assert max(len(line) for line in lines) <= 40
    assert (tmp_path / "data" / "ledger.jsonl").exists()


# ---------------------------------------------------------------------- a hub's table
class TableConsole:
    """A console for a seat at a hub's table: each answer waits until the table has said
    something to answer (lines arrive from the event loop while a prompt waits)."""

    def __init__(self, first: list[str]) -> None:
        import threading

        self.out: list[str] = []
        self.first = first
        self.cond = threading.Condition()
        self.read = 0  # lines already answered

    def say(self, text: str = "") -> None:
        with self.cond:
            self.out += wrap(text, 200)
            self.cond.notify_all()

    def _next(self) -> str | None:
        """The answer to give now (None: wait for the table to say more)."""
        if self.first:
            return self.first[0]
        new = self.out[self.read:]
        if any(line.startswith("You left the table") for line in new):
            return "quit"
        if any(line.startswith("Game over:") for line in new):
            return "leave"
        if any(line.startswith("Press Enter when you are ready") for line in new):
            return ""
        if any(line.startswith("Your turn.") for line in new):
            return "1"
        return None

    def ask(self, prompt: str) -> str | None:
        with self.cond:
            assert self.cond.wait_for(lambda: self._next() is not None, timeout=30), \
                "\n".join(self.out[-20:])
            line = self._next()
            if self.first:
                self.first.pop(0)
            self.read = len(self.out)
            self.out.append(prompt + (line or ""))
            return line

    def set_words(self, words: Callable[[], Iterable[str]]) -> None:
        pass


def test_a_whole_game_at_a_hubs_table_is_told_and_counted(tmp_path: Path) -> None:
    import asyncio

    from table_support import SeededThinker

    from casino_tui.plain.tables import PlainTables, TableSettings
    from casino_tui.plain.words import Speaker
    from casino_tui.stats import Ledger
    from casino_tui.table.hub import LocalHub, Person

    store = SaveStore(tmp_path / "data" / "games")
    records = []

    def add(record: object) -> None:
        records.append(record)
        Ledger(tmp_path / "data").record(record, store)  # type: ignore[arg-type]

    async def play() -> bool:
        hub = LocalHub(SeededThinker())
        console = TableConsole(["start"])
        tables = PlainTables(console, hub, "p-ann", TableSettings("Ann", lambda n: None),
                             lambda: Speaker("words"), lambda v: (v.legal_moves()[0], "why"),
                             add)
        person = Person("p-ann", "Ann")
        config = GameConfig(seats=default_seats(2, humans=1, level="random"), seed=3,
                            target=5)
        ended = await tables.create(person, config, public=False)
        said = "\n".join(console.out)
        assert "The game begins." in said and "Game over: " in said
        assert "Round 1 is over." in said
        assert re.search(r"^South (took|trailed|built)", said, re.M) is None  # "You", not South
        assert re.search(r"^You (took|trailed|built)", said, re.M)
        assert re.search(r"^North (took|trailed|built)", said, re.M)
        return ended

    assert asyncio.run(play()) is False  # left the table, back at the menu
    assert len(records) == 1
    assert (tmp_path / "data" / "ledger.jsonl").read_text().count("\n") == 1


def test_tab_completes_and_the_arrows_recall_commands_on_a_pty(tmp_path: Path) -> None:
    app = PtyApp(["--plain"], app_env(tmp_path), size=(60, 24))
    try:
        app.wait_for(r"casino> $")
        app.send("ne\t")  # completes to "new "
        app.wait_for(r"casino> new $")
        app.send("seed 5\r")
        app.wait_for(r"Your turn\.[\s\S]*> $")
        mark = app.mark()
        app.send("mo\t\r")  # moves
        app.wait_for(r"4 moves:[\s\S]*> $", since=mark)
        assert not _ESC.search(app.raw()), "completion wrote an escape sequence"
        mark = app.mark()
        app.send("\x1b[A")  # up: the last command again
        app.wait_for(r"moves", since=mark)
        app.send("\r")
        app.wait_for(r"4 moves:[\s\S]*> $", since=mark)
        app.send("quit\r")
        app.wait_for(r"casino> $", since=mark)
        app.send("quit\r")
        assert app.wait_exit(20) == 0
    finally:
        app.close()
    # kept for the next session (readline keeps a line repeated at once only once)
    history = (tmp_path / "data" / "plain_history").read_text().splitlines()
    assert [line.strip() for line in history] == ["new seed 5", "moves", "quit"]


def test_the_engines_notation_with_or_without_a_builds_value(tmp_path: Path) -> None:
    game, player, _ = game_at(tmp_path, "turn=0 table=5C,KD hands=4H,9S,2D/2C,2S,3H,3D")
    game._command(0, "4Hx5C")
    assert "Not allowed: four of hearts (4) cannot take those piles" in " ".join(player.out)
    player.out.clear()
    game._command(0, "4H>")
    assert player.out[0].startswith("I do not understand '4H>'")
    hand = list(game.table.state.hands[0])
    game._command(0, "4h>5c")  # the one build it can be: 9
    assert game.table.state.hands[0] != hand
    game._tell_events()
    assert any("built 9 with the four of hearts on the five of clubs" in line
               for line in player.out)


def test_the_rules_are_the_rules_screens_sentences_in_words(tmp_path: Path) -> None:
    game, player, _ = game_at(tmp_path, "turn=0 table=5C,KD hands=4H,9S,2D/2C,2S,3H,3D")
    game._command(0, "rules")
    said = "\n".join(player.out)
    for heading in ("Goal:", "The deal:", "Your turn: play one card:", "Scoring each round:"):
        assert heading in said
    assert "Big Casino ten of diamonds: 2" in said and "10D" not in said


def test_a_game_begun_in_plain_mode_continues_full_screen(tmp_path: Path) -> None:
    """The same saves: a game started and left in plain mode is the one ``--continue`` opens
    in the full-screen game, at the same position."""
    env = app_env(tmp_path)
    plain = PtyApp(["--plain", "--seed", "5"], env, size=(80, 24))
    try:
        plain.wait_for(r"Your turn\.[\s\S]*> $")
        plain.send("1\r")
        plain.wait_for(r"You trailed the three of spades\.[\s\S]*> $")
        plain.send("quit\r")
        plain.wait_for(r"casino> $")
        plain.send("quit\r")
        assert plain.wait_exit(20) == 0
    finally:
        plain.close()
    screen = PtyApp(["--continue"], env, size=(100, 30))
    try:
        screen.wait_for("Continued from the sav", timeout=30)  # (the log panel cuts it)
        screen.wait_for("South trailed 3♠")  # the play made in plain mode, in the log
    finally:
        screen.close()


def test_a_store_that_is_away_is_said_once_and_once_when_it_is_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Served with a shared store: the server's status file says the store is away; plain
    mode says so once when it goes, once when it is back (looked at after every save)."""
    status = tmp_path / STATUS_FILE
    monkeypatch.setenv(STORE_STATUS_ENV, str(status))
    game, player, _ = game_at(tmp_path, "turn=0 table=5C,KD hands=4H,9S,2D/2C,2S,3H,3D")
    game._tell_events()
    assert AWAY not in player.out
    write_away(status)
    game._command(0, "trail 4")
    game._tell_events()
    game._tell_events()
    said = "\n".join(player.out)
    assert said.count("Saved on this server only") == 1
    assert " ".join(player.out).count(AWAY) == 1
    clear_away(status)
    game._tell_events()
    game._tell_events()
    assert " ".join(player.out).count(BACK) == 1
