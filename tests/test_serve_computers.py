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
        tmux.wait_for("a", TITLE)
        tmux.send("a", "n")
        tmux.wait_for("a", "Preset")
        tmux.send("a", "Enter")
        tmux.wait_for("a", "Your hand", timeout=20)
        tmux.send("a", "s")  # skip the computer's pause
        tmux.wait_for("a", "Your turn", timeout=20)
        tmux.send("a", "h")  # a hint, from the pool
        wait_until(lambda: "thinking about a hint" not in tmux.screen("a"), 15, "the hint",
                   detail=lambda: tmux.screen("a"))
        assert "no hint this time" not in tmux.screen("a")
        tmux.send("a", "Enter")
        tmux.wait_match("a", SOUTH_MOVED)
        # the computer answers (in the server's pool) and it is the player's turn again
        tmux.wait_match("a", r"North (trailed|took|raised|added|built)", timeout=20)
        tmux.wait_for("a", "Your turn", timeout=20)
        screen = tmux.screen("a")
        assert "computer player failed" not in screen, screen
        pid = server.session_pid(key)
        assert session_processes(pid) == [pid], "the game started a process of its own"
        assert children(pid) == []
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert any(v.startswith(b"CASINO_TUI_COMPUTERS_SECRET=") for v in environ)
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        assert b"SECRET" not in cmdline
        # the pool's processes are the server's children
        assert len(children(server.proc.pid)) >= 3
        assert server.stop() == 0  # the session ends (hung up), then the pool stops
        assert re.search(r"session 1 end: .* reason shutdown", server.log())
        assert "Traceback" not in server.log()
    finally:
        server.stop()
