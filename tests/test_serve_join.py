"""``ssh -t -p PORT HOST join CODE``: the one command the server accepts (issue 12); the game
gets ``--join CODE``. Every other command is still refused as before."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import (
    TITLE,
    Key,
    Server,
    Tmux,
    make_key,
    needs_ssh,
    needs_ssh_tmux,
    player_dir,
    saved_games,
    ssh_argv,
    ssh_run,
)

from casino_tui.cli import build_parser
from casino_tui.serve.players import PlayerDirs, app_arguments, join_command
from casino_tui.settings import Settings, save_settings


@pytest.mark.parametrize(("command", "code"), [
    ("join KAMIRO", "KAMIRO"), ("join kamiro", "KAMIRO"), ("join ka-mi-ro", "KAMIRO"),
    ("join  Ka Mi Ro ", "KAMIRO"), (" join BADEFU", "BADEFU"),
    ("join", None), ("join ", None), ("join KAMI", None), ("join KAMIRO; ls", None),
    ("Join KAMIRO", None), ("joinKAMIRO", None), ("ls", None), ("cat /etc/passwd", None),
    ("join LAMIRO", None), ("join\tKAMIRO", None), ("join KAMIRO\x1b[2J", None), ("", None),
])
def test_join_command(command: str, code: str | None) -> None:
    assert join_command(command) == code


def test_join_arguments_and_display_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "casino_tui.saves", None)
    dirs = PlayerDirs.for_fingerprint(tmp_path, "SHA256:p")
    dirs.ensure()
    (dirs.data / "autosave.json").write_text("{}")  # a game to continue
    assert app_arguments(dirs, continue_supported=True) == ["--continue"]
    # Joining a table does not continue the solo game.
    assert app_arguments(dirs, continue_supported=True, join="KAMIRO") == ["--join", "KAMIRO"]
    assert app_arguments(dirs, continue_supported=True, ascii=True, join="KAMIRO") == [
        "--join", "KAMIRO", "--ascii"]
    # The display name is read from the player's own settings.
    assert dirs.display_name() == ""
    monkeypatch.setenv("CASINO_TUI_CONFIG_DIR", str(dirs.config))
    save_settings(Settings(display_name="Ann"))
    monkeypatch.setenv("CASINO_TUI_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert dirs.display_name() == "Ann"


def test_game_command_line_join(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    assert parser.parse_args(["--join", "ka-mi-ro"]).join == "KAMIRO"
    assert parser.parse_args([]).join is None
    for bad in (["--join", "12345"], ["--join", "KAMIRO", "--continue"]):
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args(bad)
        assert exit_.value.code == 2
    assert "is not a table's code" in capsys.readouterr().err


# ====================================================================== end to end
@pytest.fixture
def key(tmp_path: Path) -> Key:
    return make_key(tmp_path, "alice")


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    """The server, with the arguments a test gives (indirect parametrization), if any."""
    s = Server(tmp_path / "data", *getattr(request, "param", ()))
    yield s
    s.stop()


# No game starts: no fork server to warm up and no pool of computer players (processes of
# their own, most of a server's start).
NO_GAMES = ("--no-fork-server", "--computers", "0")
# A game at the title or the tables, where no computer moves: no pool of computer players.
NO_COMPUTERS = ("--computers", "0")


@needs_ssh
@pytest.mark.parametrize("server", [NO_GAMES], ids=["no-games"], indirect=True)
def test_other_commands_are_still_refused(server: Server, key: Key) -> None:
    who = re.escape(key.fingerprint)
    for command in (["join"], ["join", "12345"], ["join", "KAMIRO", "now"], ["joinKAMIRO"],
                    ["plain", "ls"], ["plainly"]):
        refused = ssh_run(server.port, key, command=command)
        assert refused.returncode == 1, refused
        assert refused.stderr.strip() == ("casino-tui: this server only runs the game; connect "
                                          "without a command: ssh -t -p PORT HOST (or ssh -t "
                                          "-p PORT HOST plain for plain text, for screen "
                                          "readers)")
        server.wait_log(rf"refused {who} from 127\.0\.0\.1:\d+: asked for a command "
                        + re.escape(repr(" ".join(command))))
    # A valid join without a terminal: the game needs one.
    no_tty = ssh_run(server.port, key, "-T", command=["join", "KAMIRO"])
    assert no_tty.returncode == 1 and "the game needs a terminal" in no_tty.stderr
    assert "start: player" not in server.log()


@needs_ssh_tmux
@pytest.mark.parametrize("server", [NO_COMPUTERS], ids=["no-computers"], indirect=True)
def test_join_code_reaches_the_game(tmp_path: Path, server: Server, key: Key) -> None:
    tmux = Tmux(tmp_path)
    try:
        tmux.start("a", ssh_argv(server.port, key, "-t", command=["join", "ka-mi-ro"]), 100, 30)
        tmux.wait_for("a", "Your display name", timeout=30)  # asked once, before joining
        tmux.send("a", "Alice", "Enter")
        screen = tmux.wait_for("a", "There is no table KAMIRO to join", timeout=30)
        assert "Tables" in screen  # the list of the server's tables, where one can create one
        server.wait_log(rf"session 1 start: player {re.escape(key.fingerprint)} .* "
                        r"args \[--join KAMIRO\]")
        tmux.send("a", "Escape")
        tmux.wait_for("a", TITLE, timeout=30)
        tmux.send("a", "q")
        assert tmux.wait_exit("a") == 0
    finally:
        tmux.close()


@needs_ssh_tmux
def test_plain_mode_over_ssh(tmp_path: Path, server: Server, key: Key) -> None:
    """``ssh -t HOST plain``: the game as lines of text, with the player's own saves."""
    tmux = Tmux(tmp_path)
    try:
        tmux.start("a", ssh_argv(server.port, key, "-t", command=["plain"]), 60, 30)
        tmux.wait_for("a", "Casino, plain mode. Type help for the commands.", timeout=30)
        server.wait_log(rf"session 1 start: player {re.escape(key.fingerprint)} .* "
                        r"args \[--plain\]")
        tmux.send("a", "new seed 3", "Enter")
        tmux.wait_for("a", "Your turn.", timeout=30)
        tmux.send("a", "moves", "Enter")
        tmux.wait_for("a", "1. ", timeout=15)
        tmux.send("a", "1", "Enter")
        tmux.wait_match("a", r"You (took|trailed|built)", timeout=15)
        tmux.send("a", "quit", "Enter")
        tmux.wait_for("a", "The game is saved.", timeout=15)
        tmux.send("a", "quit", "Enter")
        assert tmux.wait_exit("a") == 0
    finally:
        tmux.close()
    assert len(saved_games(player_dir(server.data_dir, key))) == 1
