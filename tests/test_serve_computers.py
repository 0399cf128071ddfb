"""The server's one pool of computer players, through a real server and real ssh clients: a
game under ``casino-tui serve`` is one process (no computer-player worker, no resource
tracker), its computers and hints come from the server's pool, and a game on the player's
own machine keeps its own worker."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import (
    SOUTH_MOVED,
    TITLE,
    Key,
    Server,
    Tmux,
    _live_processes,
    children,
    make_key,
    needs_ssh_tmux,
    ssh_argv,
    wait_until,
)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    t = Tmux(tmp_path)
    yield t
    t.close()


def session_processes(sid: int) -> list[int]:
    """Every live process of the session ``sid`` (a game's PTY session)."""
    return [pid for pid, fields in _live_processes() if int(fields[3]) == sid]


def play_until_the_computer_moved(tmux: Tmux, name: str, hint: bool = False) -> None:
    """From the title: a new game against the computer, (a hint,) one move of the player and
    the computer's answer; back at the player's turn."""
    tmux.wait_for(name, TITLE)
    tmux.send(name, "n")
    tmux.wait_for(name, "Preset")
    tmux.send(name, "Enter")
    tmux.wait_for(name, "Your hand", timeout=20)
    tmux.send(name, "s")  # skip the computer's pause
    tmux.wait_for(name, "Your turn", timeout=20)
    if hint:
        tmux.send(name, "h")
        wait_until(lambda: "thinking about a hint" not in tmux.screen(name), 15, "the hint",
                   detail=lambda: tmux.screen(name))
        assert "no hint this time" not in tmux.screen(name)
    tmux.send(name, "Enter")
    tmux.wait_match(name, SOUTH_MOVED)
    tmux.wait_match(name, r"North (trailed|took|raised|added|built)", timeout=20)
    tmux.wait_for(name, "Your turn", timeout=20)
    assert "computer player failed" not in tmux.screen(name), tmux.screen(name)


def test_the_pool_size_on_the_command_line() -> None:
    from casino_tui.serve import build_parser, config_from_args, main

    assert config_from_args(build_parser().parse_args([])).computers is None
    assert config_from_args(build_parser().parse_args(["--computers", "0"])).computers == 0
    with pytest.raises(SystemExit) as exc:
        main(["--computers", "-1"])
    assert exc.value.code == 2


@needs_ssh_tmux
def test_a_served_game_is_one_process_and_its_computers_think_in_the_servers_pool(
        tmp_path: Path, tmux: Tmux) -> None:
    key: Key = make_key(tmp_path, "alice")
    server = Server(tmp_path / "data")
    try:
        server.wait_log(r"computer players: one pool of \d+ processes")
        pool_dir = tmp_path / "data" / "computers"
        assert pool_dir.stat().st_mode & 0o777 == 0o700
        tmux.start("a", ssh_argv(server.port, key), 100, 30)
        play_until_the_computer_moved(tmux, "a", hint=True)
        pid = server.session_pid(key)
        assert session_processes(pid) == [pid], "the game started a process of its own"
        assert children(pid) == []
        # (a game forked from the fork server gets its secret in its environment from the
        # fork server, which /proc/PID/environ, the environment it was started with, does not
        # show: the game's computers answering with no process of its own shows it has it)
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        assert b"SECRET" not in cmdline
        # the pool's processes are the server's children
        assert len(children(server.proc.pid)) >= 3
        assert server.stop() == 0  # the session ends (hung up), then the pool stops
        assert re.search(r"session 1 end: .* reason shutdown", server.log())
        assert re.search(r"computer players: [1-9]\d* answered", server.log())
        assert "Traceback" not in server.log()
    finally:
        server.stop()


@needs_ssh_tmux
def test_without_the_pool_a_served_game_starts_its_own_computer_player(
        tmp_path: Path, tmux: Tmux) -> None:
    """``--computers 0``: the game is as on a player's own machine, its worker process and
    multiprocessing's resource tracker beside it. (A fresh process per game, so that its
    environment can be read in /proc.)"""
    key: Key = make_key(tmp_path, "bob")
    server = Server(tmp_path / "data", "--computers", "0", "--no-fork-server")
    try:
        server.wait_log(r"computer players: each game starts its own")
        tmux.start("b", ssh_argv(server.port, key), 100, 30)
        play_until_the_computer_moved(tmux, "b")
        pid = server.session_pid(key)
        assert len(session_processes(pid)) == 3
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        assert b"CASINO_TUI_COMPUTERS_SECRET=" not in environ
    finally:
        server.stop()
