"""``casino-tui serve`` on a sick disk.

A data directory that cannot be used (a file, unwritable, on a read-only file system) is named,
with what to do, before the server listens, and the server exits with status 2: never blamed on
the port (a port in use is still status 1, "cannot listen"). A full disk, or player files that
cannot be written, keep nobody out: the player is told in the game, the log says so, and
nothing already saved changes. The full disk is a real one (a small tmpfs) where this machine
lets the tests mount one, and an injected ENOSPC everywhere.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from saves_support import read_only_folder
from serve_support import (
    TITLE,
    Key,
    Server,
    Tmux,
    hand_cards,
    make_key,
    needs_ssh_tmux,
    player_dir,
    saved_games,
    ssh_argv,
    wait_until,
)

from casino_tui.serve import main
from casino_tui.serve.players import (
    HOST_KEY_FILE,
    PLAYER_FILE,
    PlayerDirs,
    check_data_dir,
    load_or_create_host_key,
    prepare_player,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "saves" / "mid-round-builds.json"
SEED_PLAYER = "SHA256:seededplayer"


def files(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def seed(data: Path) -> None:
    """A data directory in use: a host key and a player with a saved game."""
    load_or_create_host_key(data)
    dirs = PlayerDirs.for_fingerprint(data, SEED_PLAYER)
    dirs.ensure()
    dirs.record_visit(SEED_PLAYER)
    (dirs.data / "games").mkdir()
    shutil.copy(EXAMPLE, dirs.data / "games" / EXAMPLE.name)


def serve(data: Path, *args: str, prefix: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """``casino-tui serve`` that is expected to stop at start."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CASINO_TUI_")}
    return subprocess.run([*prefix, sys.executable, "-m", "casino_tui", "serve", "--host",
                           "127.0.0.1", "--port", "0", "--data-dir", str(data), *args],
                          capture_output=True, text=True, timeout=30, env=env,
                          stdin=subprocess.DEVNULL)


def assert_data_dir_refused(run: subprocess.CompletedProcess[str], data: Path,
                            *words: str) -> None:
    assert run.returncode == 2, run
    assert f"ERROR casino_tui.serve: cannot use the data directory {data}: " in run.stderr
    for w in words:
        assert w in run.stderr, run.stderr
    assert "--data-dir DIR" in run.stderr  # what to do
    assert "cannot listen" not in run.stderr and "listening" not in run.stderr
    assert "Traceback" not in run.stderr


# ---------------------------------------------------------------------- a small disk
def _mount(path: Path, options: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    path.mkdir(parents=True, exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", options, "casino-tui-test",
                           str(path)], capture_output=True).returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB file system of its own (tmpfs), unmounted at the end."""
    disk = tmp_path / "disk"
    if not _mount(disk, "size=4m,mode=0755"):
        pytest.skip("cannot mount a tmpfs here (needs root and mount): the injected faults "
                    "cover the same paths")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def fill(disk: Path) -> Path:
    """Write a file until the disk is full; returns it (delete it to make room)."""
    filler = disk / "filler"
    chunk = b"\0" * 65536
    with open(filler, "wb", buffering=0) as f:
        with contextlib.suppress(OSError):
            while True:
                f.write(chunk)
        with contextlib.suppress(OSError):
            while True:
                f.write(b"\0")
    with pytest.raises(OSError) as err:
        (disk / "probe").write_bytes(b"x")
    assert err.value.errno == errno.ENOSPC
    (disk / "probe").unlink(missing_ok=True)
    return filler


# ====================================================================== the data directory
@pytest.mark.parametrize("where", ["itself", "a parent"])
def test_a_data_dir_that_is_a_file(tmp_path: Path, where: str) -> None:
    blocker = tmp_path / "server"
    blocker.write_text("not a directory\n")
    data = blocker if where == "itself" else blocker / "data"
    run = serve(data)
    what = "it is a file" if where == "itself" else f"{blocker} is a file"
    assert_data_dir_refused(run, data, f"{what}, not a directory", "Move ")
    assert blocker.read_text() == "not a directory\n"


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                    reason="as root, needs setpriv to drop the right to write anywhere")
def test_an_unwritable_data_dir(tmp_path: Path) -> None:
    data = tmp_path / "server"
    seed(data)
    before = files(data)
    data.chmod(0o555)
    # root may write in any directory: the server runs without that capability
    prefix = (["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
              if os.geteuid() == 0 else [])
    try:
        run = serve(data, prefix=prefix)
        assert_data_dir_refused(run, data, f"this user (uid {os.geteuid()}) may not write in "
                                           "it (Permission denied)", f"Make {data} writable")
        inside = serve(data / "sub", prefix=prefix)  # cannot be made
        assert_data_dir_refused(inside, data / "sub", "it cannot be made (Permission denied)",
                                f"Make {data} writable")
    finally:
        data.chmod(0o700)
    assert files(data) == before


def test_a_data_dir_on_a_read_only_file_system(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    if not _mount(disk, "size=4m,mode=0755"):
        pytest.skip("cannot mount a tmpfs here: test_a_read_only_data_dir_injected covers it")
    try:
        data = disk / "server"
        seed(data)
        before = files(data)
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        run = serve(data)
        assert_data_dir_refused(run, data, "it is on a read-only file system",
                                "Mount the file system of")
        assert files(data) == before
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


@pytest.mark.parametrize(("code", "words"), [
    (errno.EROFS, "it is on a read-only file system"),
    (errno.EACCES, f"this user (uid {os.geteuid()}) may not write in it"),
])
def test_a_read_only_data_dir_injected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       caplog: pytest.LogCaptureFixture, code: int,
                                       words: str) -> None:
    """The same checks in process, with every write in the directory failing (works
    anywhere, also as root and without mount)."""
    import asyncssh

    def listen(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server went on to listen")  # never wait for a signal here

    data = tmp_path / "server"
    seed(data)
    before = files(data)
    with monkeypatch.context() as m:
        m.setattr(asyncssh, "create_server", listen)
        read_only_folder(m, data, code)
        with caplog.at_level(logging.ERROR, logger="casino_tui.serve"):
            status = main(["--port", "0", "--data-dir", str(data)])
    assert status == 2
    [record] = [r for r in caplog.records if r.levelno == logging.ERROR]
    message = record.getMessage()
    assert message.startswith(f"cannot use the data directory {data}: ") and words in message
    assert files(data) == before


def test_a_full_disk_at_start_is_a_warning_not_an_error(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    data = tmp_path / "server"
    data.mkdir()
    real_write = os.write

    def full(fd: int, payload: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with caplog.at_level(logging.WARNING, logger="casino_tui.serve"):
        check_data_dir(data)  # does not raise
    monkeypatch.setattr(os, "write", real_write)
    assert f"the disk of the data directory {data} is full" in caplog.text
    assert list(data.iterdir()) == []  # the probe is gone


def test_a_damaged_host_key(tmp_path: Path) -> None:
    data = tmp_path / "server"
    data.mkdir()
    key = data / HOST_KEY_FILE
    key.write_text("not a key\n")
    key.chmod(0o600)
    run = serve(data)
    assert run.returncode == 2, run
    assert (f"cannot use the data directory {data}: the host key {key} is not a private key "
            "this server can read") in run.stderr
    assert "Restore it from a backup, or move it away to make a new one" in run.stderr
    assert "cannot listen" not in run.stderr and "Traceback" not in run.stderr
    assert key.read_text() == "not a key\n"


def test_a_port_in_use_is_still_the_ports_fault(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = serve(tmp_path / "server", "--port", str(port))
    assert run.returncode == 1
    assert f"cannot listen on 127.0.0.1 port {port}" in run.stderr
    assert "data directory" not in run.stderr


# ====================================================================== players' files
@pytest.mark.parametrize("fails", ["os.mkdir", "_write_atomic"])
def test_player_files_that_cannot_be_written_keep_nobody_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        fails: str) -> None:
    """ENOSPC while making a new player's directories (os.mkdir) or writing a returning
    player's player.json: prepare_player tells, logs, and changes nothing."""
    from casino_tui.serve import players

    fingerprint = "SHA256:returning" if fails == "_write_atomic" else "SHA256:newcomer"
    dirs = PlayerDirs.for_fingerprint(tmp_path, fingerprint)
    if fails == "_write_atomic":
        assert prepare_player(dirs, fingerprint) is None
    before = files(tmp_path)

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as m:
        if fails == "os.mkdir":
            m.setattr(os, "mkdir", full)
        else:
            m.setattr(players, "_write_atomic", full)
        with caplog.at_level(logging.WARNING, logger="casino_tui.serve"):
            said = prepare_player(dirs, fingerprint)
    assert said == (f"The server could not write your player files in {dirs.root} (the disk is "
                    "full). You can play, but your game may not be saved: please tell the "
                    "server's operator.")
    assert (f"cannot write the files of player {fingerprint} in {dirs.root} (the disk is full)"
            in caplog.text)
    assert f"free some space on the disk of {tmp_path}" in caplog.text
    assert files(tmp_path) == before


def test_the_server_and_the_game_agree_on_the_notice_variable() -> None:
    import casino_tui.__main__ as game
    from casino_tui.serve.pty_session import NOTICE_ENV

    assert game.NOTICE_ENV == NOTICE_ENV == "CASINO_TUI_NOTICE"


# ====================================================================== end to end
@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Key]:
    return {name: make_key(tmp_path, name) for name in ("alice", "bob")}


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for s in started:
        s.stop()


def a_move(tmux: Tmux, name: str) -> None:
    """At the table: wait for the player's turn (skipping the computer's pause) and play the
    previewed move."""
    tmux.send(name, "s")
    tmux.wait_for(name, "Your turn", timeout=20)
    hand = hand_cards(tmux.screen(name))
    tmux.send(name, "Enter")
    wait_until(lambda: hand_cards(tmux.screen(name)) != hand, 15, "the move to be played",
               detail=lambda: tmux.screen(name))


def new_game(tmux: Tmux, name: str) -> None:
    tmux.wait_for(name, TITLE)
    tmux.send(name, "n")
    tmux.wait_for(name, "Preset")
    tmux.send(name, "Enter")
    tmux.wait_for(name, "Your hand", timeout=20)


# The server as on a full disk for its own files: player.json cannot be written, and the
# directories of the player NEWCOMER cannot be made. The games' own saves work.
PROFILE_FULL = """
import errno, sys
import casino_tui.serve.players as players

def full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")

players._write_atomic = full
real_ensure = players.PlayerDirs.ensure
players.PlayerDirs.ensure = lambda self: (full() if self.root.name == NEWCOMER else
                                          real_ensure(self))
from casino_tui.__main__ import main
sys.exit(main())
"""


@needs_ssh_tmux
def test_players_play_while_their_files_cannot_be_written(
        tmp_path: Path, keys: dict[str, Key], tmux: Tmux, servers: list[Server]) -> None:
    """The server cannot write player.json, nor make a new player's directories: both players
    log in, are told, play and their games are saved; the log says why."""
    from casino_tui.serve.players import player_id

    data = tmp_path / "data"
    alice, bob = keys["alice"], keys["bob"]
    code = f"NEWCOMER = {player_id(bob.fingerprint)!r}\n{PROFILE_FULL}"
    server = Server(data, python=("-c", code))
    servers.append(server)
    for name, key in (("a", alice), ("b", bob)):
        fp = re.escape(key.fingerprint)
        tmux.start(name, ssh_argv(server.port, key), 100, 30)
        server.wait_log(rf"cannot write the files of player {fp} in \S+ \(the disk is "
                        r"full\): the game starts anyway")
        tmux.wait_for(name, "The server could not write")
        new_game(tmux, name)
        a_move(tmux, name)
        wait_until(functools.partial(saved_games, player_dir(data, key)), 10,
                   "the saved game")
        assert not (player_dir(data, key) / PLAYER_FILE).exists()
        tmux.send(name, "C-q")
        assert tmux.wait_exit(name) == 0
        server.wait_log(rf"session \d+ end: player {fp} .* reason quit status 0")
    assert "Traceback" not in server.log()


@needs_ssh_tmux
def test_a_full_disk_keeps_nobody_out_and_loses_nothing(
        tmp_path: Path, keys: dict[str, Key], tmux: Tmux, servers: list[Server],
        small_disk: Path) -> None:
    """A real full disk under the server: a returning player continues her game and a new
    one gets in; both are told, the log says why; her moves cannot be saved and the game says
    so until there is room again; nothing saved before is lost."""
    (small_disk / "server").mkdir()
    data = tmp_path / "data"  # the server's log goes next to this, off the small disk
    data.symlink_to(small_disk / "server")
    server = Server(data)
    servers.append(server)
    alice, bob = keys["alice"], keys["bob"]
    tmux.start("a", ssh_argv(server.port, alice), 100, 30)
    new_game(tmux, "a")
    a_move(tmux, "a")
    tmux.send("a", "C-q")
    assert tmux.wait_exit("a") == 0
    [game] = saved_games(player_dir(data, alice))
    path = player_dir(data, alice) / "data" / game
    before = files(data)
    filler = fill(small_disk)

    # Alice comes back: in, told, at her table.
    tmux.start("a2", ssh_argv(server.port, alice), 100, 30)
    fa = re.escape(alice.fingerprint)
    server.wait_log(rf"cannot write the files of player {fa} in \S+ \(the disk is full\)")
    server.wait_log(rf"session 2 start: player {fa} .* args \[--continue\]")
    tmux.wait_for("a2", "The server could not write")
    tmux.wait_for("a2", "Your hand", timeout=20)
    a_move(tmux, "a2")
    tmux.wait_for("a2", "Not saving: the disk is full")
    # Bob, new here, gets in as well.
    tmux.start("b", ssh_argv(server.port, bob), 100, 30)
    tmux.wait_for("b", TITLE)
    tmux.wait_for("b", "The server could not write")
    server.wait_log(rf"cannot write the files of player {re.escape(bob.fingerprint)}")
    a_move(tmux, "a2")  # still full: still said
    assert "Not saving: the disk is full" in tmux.screen("a2")
    assert files(data) == before  # nothing written, nothing lost

    filler.unlink()  # room again
    a_move(tmux, "a2")
    tmux.wait_for("a2", "Saved again")
    assert path.read_bytes() != before[str(path.relative_to(data))]
    assert json.loads(path.read_text())["moves"]  # a whole, newer save
    tmux.send("a2", "C-q")
    tmux.send("b", "q")
    assert tmux.wait_exit("a2") == 0 and tmux.wait_exit("b") == 0
    assert "Traceback" not in server.log()
