"""Signals to the real program: SIGTERM and SIGHUP save what is unsaved, restore the terminal
and exit with 128 + the signal; SIGKILL cannot be handled, but with any of them (and a terminal
that hangs up) no process of the game survives it: the computer players' worker and
multiprocessing's resource tracker end with the app. The save on disk is intact and loads.

Each program runs on a PTY of its own (``tests/pty_support.py``) in its own session, so "no
process of the game survives" is: no live process is left in that session."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pty_support import (
    RESTORE_SEQUENCES,
    PtyApp,
    app_env,
    children,
    command_line,
    session_processes,
    wait_until,
)
from serve_support import TITLE, Server, Tmux, make_key, needs_ssh_tmux, process_alive, ssh_argv

from casino_tui.saves import open_store

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="needs Linux (/proc, PTYs, PR_SET_PDEATHSIG)")


@pytest.fixture
def apps() -> Iterator[list[PtyApp]]:
    started: list[PtyApp] = []
    yield started
    for app in started:
        app.close()


def _moves(save: Path) -> int:
    try:
        return len(json.loads(save.read_bytes())["moves"])
    except (OSError, ValueError, KeyError):
        return -1


def start_game(app: PtyApp, data: Path) -> tuple[int, Path, bytes]:
    """From the title: a new game against the computer; South plays a move and the computer
    answers (saved after each). Returns the computer players' worker process, the game's
    save file and what it holds once South is to move again."""
    app.wait_for("fishing card game")
    app.send("n")
    app.wait_for("Preset")
    mark = app.mark()
    app.send("\r")
    app.wait_for("Your turn", since=mark)
    found = wait_until(lambda: [p for p in children(app.pid) if "spawn_main" in command_line(p)],
                       15, "the computer players' worker")
    assert isinstance(found, list) and len(found) == 1
    saves = wait_until(lambda: list((data / "games").glob("*.json")), 5, "the game's save")
    assert isinstance(saves, list) and len(saves) == 1
    save = saves[0]
    played = _moves(save)
    mark = app.mark()
    app.send("\r")  # South plays the move shown
    wait_until(lambda: _moves(save) >= played + 2, 15, "South's move and the computer's reply",
               detail=lambda: app.text(mark)[-2000:])
    app.wait_for("Your turn", since=mark)
    return found[0], save, save.read_bytes()


def assert_nothing_survives(app: PtyApp, worker: int) -> None:
    wait_until(lambda: not session_processes(app.pid), 5, "every process of the game to end",
               detail=lambda: "\n".join(f"{p} {command_line(p)}"
                                        for p in session_processes(app.pid)))
    assert worker not in session_processes(app.pid)


def assert_save_intact(data: Path, save: Path, before: bytes) -> None:
    assert save.read_bytes() == before  # everything had been saved: nothing changed
    assert not list(save.parent.glob("*.tmp"))
    store = open_store(data)
    game = store.load(save)
    try:
        assert game.slot is not None and len(game.state.history) >= 2
    finally:
        store.close(game.slot)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_terminate_and_hang_up_restore_the_terminal_and_end_every_process(
        sig: int, tmp_path: Path, apps: list[PtyApp]) -> None:
    data = tmp_path / "data"
    app = PtyApp([], app_env(tmp_path))
    apps.append(app)
    worker, save, before = start_game(app, data)
    helpers = set(session_processes(app.pid)) - {app.pid, worker}
    assert helpers, "the resource tracker runs beside the worker"
    mark = app.mark()
    os.kill(app.pid, sig)
    assert app.wait_exit() == 128 + sig
    out = app.raw(mark)
    for seq in RESTORE_SEQUENCES:
        assert seq in out, (seq, out[-400:])
    # the normal screen comes back after the last frame drawn
    assert out.rfind(b"\x1b[?1049l") > max(out.rfind(b"\x1b[?1049h"), out.rfind(b"\x1b[H"))
    assert_nothing_survives(app, worker)
    assert_save_intact(data, save, before)


def test_kill_leaves_no_process_behind(tmp_path: Path, apps: list[PtyApp]) -> None:
    """SIGKILL cannot be caught: the terminal stays as it was, but the worker and the resource
    tracker end at once (the kernel kills the worker with its parent; the tracker sees its
    last user gone) and print nothing over the screen."""
    data = tmp_path / "data"
    app = PtyApp([], app_env(tmp_path))
    apps.append(app)
    worker, save, before = start_game(app, data)
    mark = app.mark()
    os.kill(app.pid, signal.SIGKILL)
    assert app.wait_exit() == -signal.SIGKILL
    assert_nothing_survives(app, worker)
    assert "Warning" not in app.text(mark) and "leaked" not in app.text(mark)
    assert_save_intact(data, save, before)


def test_a_terminal_that_hangs_up_ends_the_game(tmp_path: Path, apps: list[PtyApp]) -> None:
    """The terminal itself goes away (its window closed, the SSH server gone): the kernel
    hangs up the session; the game ends with SIGHUP's status and takes its helpers along."""
    data = tmp_path / "data"
    app = PtyApp([], app_env(tmp_path))
    apps.append(app)
    worker, save, before = start_game(app, data)
    app.hang_up()
    assert app.wait_exit() == 128 + signal.SIGHUP
    assert_nothing_survives(app, worker)
    assert_save_intact(data, save, before)


# A program whose event loop never runs again after the handlers are in place (as when a
# terminal that hung up blocks the app's output): only the handlers and their timer can act.
_STUCK = """
import asyncio, sys, time
from casino_tui.app import signals

class App:
    exit_signal = None

async def main():
    signals.install(App())
    print("ready", flush=True)
    time.sleep(60)

asyncio.run(main())
"""


@pytest.mark.parametrize("twice", [False, True], ids=["grace-runs-out", "second-signal"])
def test_a_program_that_cannot_leave_is_ended(twice: bool) -> None:
    """When the app has not left :data:`GRACE` seconds after the signal, or a second signal
    comes, the process restores the terminal itself and exits with 128 + the signal."""
    from casino_tui.app.signals import GRACE, TERMINAL_RESET

    proc = subprocess.Popen([sys.executable, "-c", _STUCK], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        if twice:
            time.sleep(0.3)  # two signals sent at once may arrive as one
            proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=GRACE + 5)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM
    assert TERMINAL_RESET in err
    assert took < 1.5 if twice else GRACE - 0.2 < took < GRACE + 2


@needs_ssh_tmux
@pytest.mark.parametrize("own_computers", [False, True], ids=["pool", "own-worker"])
def test_over_ssh_no_game_process_outlives_its_server(tmp_path: Path,
                                                      own_computers: bool) -> None:
    """A session's game runs on the server's PTY: when the server itself is killed (SIGKILL,
    nothing of it can hang the game up politely), the terminal hangs up and every process of
    the game ends, and so does every helper of the server (its fork server, its pool of
    computer players); with ``--computers 0`` the game's own worker and resource tracker end
    too. The game's save loads."""
    from casino_tui.serve.players import PLAYERS_DIR

    data = tmp_path / "data"
    alice = make_key(tmp_path, "alice")
    tmux = Tmux(tmp_path)
    server = Server(data, *(["--computers", "0"] if own_computers else []))
    try:
        tmux.start("a", ssh_argv(server.port, alice), 100, 30)
        tmux.wait_for("a", TITLE)
        tmux.send("a", "n")
        tmux.wait_for("a", "Preset")
        tmux.send("a", "Enter")
        tmux.wait_for("a", "Your hand", timeout=20)
        game = server.session_pid(alice)
        if own_computers:
            worker = wait_until(
                lambda: [p for p in children(game) if "spawn_main" in command_line(p)], 15,
                "the computer players' worker")
            assert isinstance(worker, list)
            assert len(session_processes(game)) >= 3  # the game, its worker, the tracker
        else:
            assert session_processes(game) == [game]  # its computers think in the pool
        helpers = children(server.proc.pid)  # the fork server, the pool's processes
        assert helpers
        server.proc.kill()
        server.proc.wait()
        wait_until(lambda: not session_processes(game), 5, "every process of the game to end",
                   detail=lambda: "\n".join(f"{p} {command_line(p)}"
                                            for p in session_processes(game)))
        wait_until(lambda: not [p for p in helpers if process_alive(p)], 10,
                   "the server's helpers to end",
                   detail=lambda: "\n".join(f"{p} {command_line(p)}" for p in helpers
                                            if process_alive(p)))
    finally:
        server.stop()
        tmux.close()
    games = list((data / PLAYERS_DIR).glob("*/data/games/*.json"))
    assert len(games) == 1
    store = open_store(games[0].parent.parent)
    loaded = store.load(games[0])
    store.close(loaded.slot)


@needs_ssh_tmux
def test_over_ssh_a_terminated_game_ends_its_session_cleanly(tmp_path: Path) -> None:
    """SIGTERM to a session's game (an administrator, say): the game saves and leaves with 143;
    the player is told, the session ends as killed, and no process of the game is left."""
    alice = make_key(tmp_path, "alice")
    tmux = Tmux(tmp_path)
    server = Server(tmp_path / "data")
    try:
        tmux.start("a", ssh_argv(server.port, alice), 100, 30)
        tmux.wait_for("a", TITLE)
        tmux.send("a", "n")
        tmux.wait_for("a", "Preset")
        tmux.send("a", "Enter")
        tmux.wait_for("a", "Your hand", timeout=20)
        game = server.session_pid(alice)
        os.kill(game, signal.SIGTERM)
        assert tmux.wait_exit("a") == 1
        assert "The game stopped unexpectedly (SIGTERM). Your game was saved" in \
            tmux.screen("a")
        server.wait_log(r"session 1 end: player .* reason killed")
        wait_until(lambda: not session_processes(game), 5, "every process of the game to end")
    finally:
        server.stop()
        tmux.close()
