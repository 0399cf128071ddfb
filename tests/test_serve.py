"""``casino-tui serve``: the game over SSH.

Unit tests of the pieces, then end-to-end tests with the real OpenSSH client (in tmux where a
terminal is needed) against a server on 127.0.0.1 with a random port and a temporary data
directory.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import platform
import pty
import re
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import (
    LOGO_ASCII_TOP,
    LOGO_TOP,
    SOUTH_MOVED,
    SSH_KEYSCAN,
    TITLE,
    Key,
    Server,
    Tmux,
    group_alive,
    hand_cards,
    make_key,
    needs_ssh,
    needs_ssh_tmux,
    player_dir,
    process_alive,
    saved_games,
    ssh_argv,
    ssh_run,
    wait_logo_at,
    wait_until,
)

from casino_tui.serve import build_parser, config_from_args, main
from casino_tui.serve.config import (
    DEFAULT_MAX_SESSIONS,
    FILES_BASE,
    FILES_PER_SESSION,
    ServeConfig,
)
from casino_tui.serve.players import (
    HOST_KEY_FILE,
    AuthorizedKeys,
    PlayerDirs,
    app_arguments,
    app_supports_flag,
    has_saved_game,
    load_or_create_host_key,
    parse_authorized_keys,
    player_id,
)
from casino_tui.serve.pty_session import (
    child_environment,
    client_wants_ascii,
    get_winsize,
    set_winsize,
    valid_term,
)
from casino_tui.serve.server import CIPHERS, RateLimiter, interpreter_note

# ====================================================================== pieces


def test_game_start_up_never_imports_asyncssh() -> None:
    code = ("import sys, casino_tui.__main__ as m; m.build_parser().parse_args([]); "
            "import casino_tui.serve as s; s.build_parser().parse_args([]); "
            "print(sorted(n for n in sys.modules if n.split('.')[0] == 'asyncssh'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_serve_help_names_open_mode_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    from casino_tui.__main__ import main as game_main

    with pytest.raises(SystemExit) as exc:
        game_main(["serve", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for option in ("--host", "--port", "--data-dir", "--authorized-keys", "--max-sessions",
                   "--idle-timeout", "--rate-limit"):
        assert option in text
    assert "OPEN" in text and "ANY key is admitted" in text
    assert "default 127.0.0.1" in text


def test_serve_arguments() -> None:
    args = build_parser().parse_args([])
    assert (args.host, args.port, args.max_sessions, args.idle_timeout, args.rate_limit) == (
        "127.0.0.1", 2222, 200, 30.0, 10)
    assert config_from_args(args).max_sessions == ServeConfig(Path("x")).max_sessions == 200
    # Games run 19 nice steps below the server and its computers, unless told otherwise.
    assert config_from_args(args).session_nice == args.session_nice == 19
    assert config_from_args(build_parser().parse_args(["--session-nice", "0"])).session_nice == 0
    for bad in (["--port", "70000"], ["--max-sessions", "-1"], ["--idle-timeout", "soon"],
                ["--max-sessions", "0"], ["--session-nice", "20"], ["--session-nice", "-1"]):
        with pytest.raises(SystemExit) as exc:
            main(bad)
        assert exc.value.code == 2


def test_the_documented_max_sessions_default_is_the_servers() -> None:
    """docs/SERVE.md's table of options and the README say the default of --max-sessions."""
    root = Path(__file__).resolve().parents[1]
    docs = (root / "docs" / "SERVE.md").read_text()
    assert f"| `--max-sessions` | {DEFAULT_MAX_SESSIONS} |" in docs
    readme = " ".join((root / "README.md").read_text().split())
    assert f"`--max-sessions` players connected ({DEFAULT_MAX_SESSIONS};" in readme
    assert f"(default {DEFAULT_MAX_SESSIONS})" in " ".join(build_parser().format_help().split())


def test_the_server_raises_its_open_files_limit_for_its_players(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import resource

    from casino_tui.serve.server import raise_open_files_limit

    limits = {"soft": 1024, "hard": 4096}
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (limits["soft"], limits["hard"]))

    def setrlimit(_which: int, value: tuple[int, int]) -> None:
        limits["soft"], limits["hard"] = value

    monkeypatch.setattr(resource, "setrlimit", setrlimit)
    need = FILES_BASE + FILES_PER_SESSION * 200
    assert raise_open_files_limit(200) == (1024, need) and limits["soft"] == need
    assert raise_open_files_limit(10) == (need, need)  # enough already: unchanged
    with caplog.at_level("WARNING", logger="casino_tui.serve"):
        assert raise_open_files_limit(1000) == (need, 4096)  # the hard limit is the most
    assert "open files are limited to 4096" in caplog.text and "lower --max-sessions" in caplog.text


def test_player_id_is_a_safe_file_name() -> None:
    assert player_id("SHA256:ab+c/d9") == "sha256-ab-c_d9"
    for bad in ("", "SHA256:", "nocolon", "SHA256:../x", "SHA256:a b"):
        with pytest.raises(ValueError):
            player_id(bad)


def test_player_dirs_and_visits(tmp_path: Path) -> None:
    dirs = PlayerDirs.for_fingerprint(tmp_path, "SHA256:xyz")
    assert dirs.root == tmp_path / "players" / "sha256-xyz"
    dirs.ensure()
    assert dirs.data.is_dir() and dirs.config.is_dir()
    assert (dirs.root.stat().st_mode & 0o777) == 0o700
    dirs.record_visit("SHA256:xyz")
    dirs.record_visit("SHA256:xyz")
    info = json.loads((dirs.root / "player.json").read_text())
    assert info["fingerprint"] == "SHA256:xyz" and info["sessions"] == 2


def test_saved_game_detection_without_the_saves_module(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "casino_tui.saves", None)  # import fails
    data = tmp_path / "data"
    assert not has_saved_game(data)
    (data / "games").mkdir(parents=True)
    assert not has_saved_game(data)
    (data / "games" / "game-1.json").write_text("{}")
    assert has_saved_game(data)


def test_saved_game_detection_asks_the_saves_module(tmp_path: Path) -> None:
    saves = pytest.importorskip("casino_tui.saves")
    from casino_tui.engine import Rules, State

    data = tmp_path / "data"
    assert not has_saved_game(data)
    store = saves.SaveStore(saves.games_dir(data))
    (saves.games_dir(data)).mkdir(parents=True)
    (saves.games_dir(data) / "junk.json").write_text("not a game")
    assert not has_saved_game(data)  # files, but nothing to continue
    slot = store.new_game((saves.Seat.human("Ann"), saves.Seat.computer("Bot", "easy")))
    store.autosave(slot, State(Rules.preset("classic"), 2, seed=3))
    store.close(slot)
    assert has_saved_game(data)


def test_app_arguments_continue_only_with_a_save_and_a_flag(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setitem(sys.modules, "casino_tui.saves", None)
    dirs = PlayerDirs.for_fingerprint(tmp_path, "SHA256:p")
    dirs.ensure()
    assert app_arguments(dirs, continue_supported=True) == []
    (dirs.data / "autosave.json").write_text("{}")
    assert app_arguments(dirs, continue_supported=True) == ["--continue"]
    assert app_arguments(dirs, continue_supported=False) == []
    assert app_arguments(dirs, continue_supported=False, ascii=True) == ["--ascii"]


def test_app_flag_detection_reads_the_games_command_line() -> None:
    assert app_supports_flag("--ascii")
    assert not app_supports_flag("--no-such-flag")


def test_authorized_keys_parsing(tmp_path: Path) -> None:
    import asyncssh

    k1, k2, k3 = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(3))
    text = "\n".join([
        "# players",
        "",
        k1.export_public_key().decode().strip() + " alice@laptop",
        'from="10.0.0.0/8",command="echo hi there",no-pty ' +
        k2.export_public_key().decode().strip(),
        "ssh-ed25519 not-base64-at-all",
        "cert-authority " + k3.export_public_key().decode().strip(),
    ])
    keys, bad = parse_authorized_keys(text)
    assert [k.public_data for k in keys] == [k1.public_data, k2.public_data]
    assert bad == [5, 6]
    path = tmp_path / "authorized_keys"
    path.write_text(text)
    auth = AuthorizedKeys(path)
    assert auth.admits(k1) and auth.admits(k2) and not auth.admits(k3)
    path.write_text(k3.export_public_key().decode() + "# now only k3, longer\n")
    auth.reload()
    assert auth.admits(k3) and not auth.admits(k1)
    path.write_text("# nobody\n")
    with pytest.raises(ValueError, match="no usable public key"):
        AuthorizedKeys(path)
    with pytest.raises(ValueError, match="cannot read"):
        AuthorizedKeys(tmp_path / "missing")


def test_host_key_is_made_private_and_reused(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    data = tmp_path / "srv"
    key = load_or_create_host_key(data)
    path = data / HOST_KEY_FILE
    assert (path.stat().st_mode & 0o777) == 0o600
    first = path.read_bytes()
    again = load_or_create_host_key(data)
    assert again.public_data == key.public_data and path.read_bytes() == first
    os.chmod(path, 0o644)
    with caplog.at_level(logging.WARNING, logger="casino_tui.serve"):
        load_or_create_host_key(data)
    assert (path.stat().st_mode & 0o777) == 0o600
    assert "readable by others" in caplog.text
    assert (data / f"{HOST_KEY_FILE}.pub").read_text().startswith("ssh-ed25519 ")


def test_rate_limiter_sliding_window() -> None:
    now = [0.0]
    rate = RateLimiter(3, window=60, clock=lambda: now[0])
    assert [rate.allow("a") for _ in range(4)] == [True, True, True, False]
    assert rate.allow("b")
    now[0] = 61.0
    assert rate.allow("a")
    assert all(RateLimiter(0).allow("a") for _ in range(100))


def test_child_environment_is_built_afresh(tmp_path: Path) -> None:
    server_env = {"PATH": "/usr/bin", "SECRET_TOKEN": "x", "CASINO_TUI_DATA_DIR": "/srv/all",
                  "TEXTUAL": "devtools", "PYTHONPATH": "/src"}
    client = {"COLORTERM": "truecolor", "LD_PRELOAD": "/evil.so", "NO_COLOR": "1"}
    env = child_environment("xterm-kitty", client, tmp_path, tmp_path / "d", tmp_path / "c",
                            server_env=server_env)
    assert env["TERM"] == "xterm-kitty" and env["COLORTERM"] == "truecolor"
    assert env["CASINO_TUI_DATA_DIR"] == str(tmp_path / "d")
    assert env["CASINO_TUI_CONFIG_DIR"] == str(tmp_path / "c")
    assert env["HOME"] == str(tmp_path) and env["PYTHONPATH"] == "/src"
    assert "SECRET_TOKEN" not in env and "LD_PRELOAD" not in env and "TEXTUAL" not in env
    assert valid_term("tmux-256color") == "tmux-256color"
    assert valid_term("bad;rm -rf") == "xterm-256color" and valid_term(None) == "xterm-256color"


@pytest.mark.parametrize(("env", "ascii"), [
    ({}, False), ({"LANG": "C"}, False), ({"LANG": "en_US.UTF-8"}, False),
    ({"LC_ALL": "de_DE.utf8", "LANG": "de_DE.ISO-8859-1"}, False),
    ({"LANG": "en_US.ISO-8859-1"}, True), ({"LC_CTYPE": "ru_RU.KOI8-R"}, True),
])
def test_client_charset(env: dict[str, str], ascii: bool) -> None:
    assert client_wants_ascii(env) is ascii


def test_window_size_ioctl() -> None:
    master, slave = pty.openpty()
    try:
        set_winsize(master, 123, 45)
        assert get_winsize(slave) == (123, 45)
    finally:
        os.close(master)
        os.close(slave)


# ====================================================================== end to end


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Key]:
    return {name: make_key(tmp_path, name) for name in ("alice", "bob", "mallory")}


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for s in started:
        s.stop()


# For a server where no game is played (keys, logins refused, connections without a game):
# no fork server to warm up and no pool of computer players, which are most of a server's
# start (about 0.8 of its 1.5 CPU seconds, and 2 s before it listens).
NO_GAMES = ("--no-fork-server", "--computers", "0")
# For a server whose games stay at the title and its screens (no computer moves): no pool of
# computer players (about 0.6 of those CPU seconds).
NO_COMPUTERS = ("--computers", "0")


def start(servers: list[Server], data: Path, *args: str, log_name: str = "server.log") -> Server:
    server = Server(data, *args, log_name=log_name)
    servers.append(server)
    return server


def new_game_and_one_move(tmux: Tmux, name: str) -> list[str]:
    """From the title: start a classic game, play one move (the app saves after every move) and
    return the three cards left in the hand."""
    tmux.send(name, "n")
    tmux.wait_for(name, "Preset")
    tmux.send(name, "Enter")
    tmux.wait_for(name, "Your hand", timeout=20)
    tmux.send(name, "s")  # skip the computer's pause
    tmux.wait_for(name, "Your turn", timeout=20)
    tmux.send(name, "Enter")
    tmux.wait_match(name, SOUTH_MOVED)
    hand = hand_cards(tmux.screen(name))
    assert len(hand) == 3, tmux.screen(name)
    return hand


@needs_ssh_tmux
def test_title_at_client_size_keys_resize_and_quit(tmp_path: Path, keys: dict[str, Key],
                                                   tmux: Tmux, servers: list[Server]) -> None:
    server = start(servers, tmp_path / "data", *NO_COMPUTERS)
    assert "OPEN MODE" in server.log()
    # The game starts at the client's size (above the app's 80x24 minimum): the title's logo
    # is centred for 90 columns before any resize.
    tmux.start("a", ssh_argv(server.port, keys["alice"]), 90, 26)
    wait_logo_at(tmux, "a", (90 - len(LOGO_TOP)) // 2)
    assert TITLE in tmux.screen("a")
    # Window changes reach the app: too small, then large again.
    tmux.resize("a", 70, 20)
    tmux.wait_for("a", "It is 70x20")
    tmux.resize("a", 120, 40)
    wait_logo_at(tmux, "a", (120 - len(LOGO_TOP)) // 2)
    tmux.send("a", "n")  # the New game screen
    tmux.wait_for("a", "Preset")
    tmux.send("a", "Escape")
    tmux.wait_for("a", TITLE)
    tmux.send("a", "r")
    tmux.wait_for("a", "Esc close")
    tmux.send("a", "Escape")
    tmux.wait_gone("a", "Esc close")
    tmux.send("a", "q")
    assert tmux.wait_exit("a") == 0
    server.wait_log(rf"session 1 end: player {re.escape(keys['alice'].fingerprint)} "
                    r"duration [\d.]+s reason quit status 0")
    assert "start: player" in server.log() and "size 90x26" in server.log()
    # the operator is told which Python the games run on (its build weighs on their CPU)
    assert (f"games run on Python {platform.python_version()} ({sys.executable})"
            f"{interpreter_note(sys.version_info[:2])}\n" in server.log())


def test_the_log_advises_python_3_12_for_memory_only_on_3_11() -> None:
    note = interpreter_note((3, 11))
    assert note.startswith("; on Python 3.12 or later each game keeps about 1.7 MiB less")
    assert '"Which Python for a server"' in note
    readme = Path(__file__).resolve().parents[1] / "README.md"
    assert "Which Python for a server" in readme.read_text(encoding="utf-8")
    assert interpreter_note((3, 12)) == ""
    assert interpreter_note((3, 13)) == ""


@needs_ssh
def test_authorized_keys_no_terminal_and_no_passwords(tmp_path: Path, keys: dict[str, Key],
                                                      servers: list[Server]) -> None:
    listed = tmp_path / "authorized_keys"
    listed.write_text(f"# the players\nno-pty {keys['alice'].public}\n")
    server = start(servers, tmp_path / "data", "--authorized-keys", str(listed), *NO_GAMES)
    assert "OPEN MODE" not in server.log()
    refused = ssh_run(server.port, keys["mallory"], "-T")
    assert refused.returncode == 255
    assert "Permission denied (publickey)" in refused.stderr
    server.wait_log(rf"refused key {re.escape(keys['mallory'].fingerprint)}")
    assert not (player_dir(tmp_path / "data", keys["mallory"])).exists()
    # A listed key gets in; without a terminal it is told why, with status 1.
    alice = re.escape(keys["alice"].fingerprint)
    no_tty = ssh_run(server.port, keys["alice"], "-T")
    assert no_tty.returncode == 1
    assert "the game needs a terminal" in no_tty.stderr
    server.wait_log(rf"refused {alice} from 127\.0\.0\.1:\d+: no terminal \(ssh -T\)")
    command = ssh_run(server.port, keys["alice"], command=["cat", "/etc/passwd"])
    assert command.returncode == 1 and "only runs the game" in command.stderr
    server.wait_log(rf"refused {alice} from 127\.0\.0\.1:\d+: asked for a command "
                    r"'cat /etc/passwd'")
    sftp = ssh_run(server.port, keys["alice"], "-s", command=["sftp"])
    assert sftp.returncode == 255 and "subsystem request failed" in sftp.stderr
    server.wait_log(rf"refused {alice} from 127\.0\.0\.1:\d+: asked for a subsystem 'sftp'")
    # Passwords and keyboard-interactive are not even offered.
    pw = ssh_run(server.port, keys["alice"], "-o",
                 "PreferredAuthentications=password,keyboard-interactive")
    assert pw.returncode == 255 and "Permission denied (publickey)" in pw.stderr


def test_password_login_refused_by_asyncssh_client(tmp_path: Path,
                                                   servers: list[Server]) -> None:
    import asyncio

    import asyncssh

    server = start(servers, tmp_path / "data", *NO_GAMES)

    async def attempt() -> None:
        await asyncssh.connect("127.0.0.1", server.port, username="alice", password="secret",
                               client_keys=None, known_hosts=None, agent_path=None)

    with pytest.raises(asyncssh.PermissionDenied):
        asyncio.run(attempt())


# OpenSSH's own order of ciphers (ssh -Q cipher-auth and ssh_config(5), OpenSSH 9)
OPENSSH_CIPHERS = ["chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr",
                   "aes128-gcm@openssh.com", "aes256-gcm@openssh.com"]


def test_clients_get_an_aes_cipher_not_chacha20(tmp_path: Path, servers: list[Server]) -> None:
    """The server offers AES only (CIPHERS: ChaCha20-Poly1305 costs asyncssh more CPU a
    packet), so clients that would take ChaCha20 first take AES, and one that speaks nothing
    else is refused."""
    import asyncio

    import asyncssh

    server = start(servers, tmp_path / "data", *NO_GAMES)
    key = asyncssh.generate_private_key("ssh-ed25519")

    async def cipher(algs: list[str] | None) -> str:
        extra = {} if algs is None else {"encryption_algs": algs}
        async with asyncssh.connect("127.0.0.1", server.port, username="alice",
                                    client_keys=[key], known_hosts=None, agent_path=None,
                                    **extra) as conn:
            return str(conn.get_extra_info("send_cipher"))

    assert asyncio.run(cipher(None)) == "aes256-gcm@openssh.com"  # asyncssh's own order
    assert asyncio.run(cipher(OPENSSH_CIPHERS)) == "aes128-ctr"
    offer, refusal = key_exchange_by_hand(server.port, ["chacha20-poly1305@openssh.com"])
    assert offer == list(CIPHERS)
    assert refusal[0] == 3  # SSH_DISCONNECT_KEY_EXCHANGE_FAILED
    assert refusal[1].startswith("No matching encryption algorithm found"), refusal


def key_exchange_by_hand(port: int, ciphers: list[str]) -> tuple[list[str], tuple[int, str]]:
    """The start of an SSH connection (RFC 4253) read in order, by hand: the ciphers the
    server offers (client to server, from its KEXINIT), and its DISCONNECT (reason code and
    text) when the client's KEXINIT offers ``ciphers`` and otherwise the server's own lists.

    (Not asyncssh's client: it handles a KEXINIT in a task, and when it reads the server's
    KEXINIT together with the DISCONNECT that follows it, as a client late on a busy host
    does, it sees the end of the connection before the task fails, and reports
    ConnectionLost instead of KeyExchangeFailed.)"""
    import socket
    import struct

    def namelists(payload: bytes, at: int) -> list[list[str]]:
        lists = []
        for _ in range(10):
            (size,) = struct.unpack_from(">I", payload, at)
            lists.append([n for n in payload[at + 4:at + 4 + size].decode().split(",") if n])
            at += 4 + size
        return lists

    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock, \
            sock.makefile("rb") as stream:

        def packet() -> bytes:
            length, padding = struct.unpack(">IB", stream.read(5))
            return stream.read(length - 1)[:length - 1 - padding]

        sock.sendall(b"SSH-2.0-casino-tui-test\r\n")
        assert stream.readline().startswith(b"SSH-2.0-")
        kexinit = packet()
        assert kexinit[0] == 20  # SSH_MSG_KEXINIT
        theirs = namelists(kexinit, 17)  # (after the cookie)
        mine = [*theirs[:2], ciphers, ciphers, *theirs[4:]]
        payload = (bytes([20]) + os.urandom(16)
                   + b"".join(struct.pack(">I", len(n)) + n
                              for n in (",".join(names).encode() for names in mine))
                   + bytes(5))  # first_kex_packet_follows, reserved
        padding = 8 - (len(payload) + 5) % 8
        padding += 8 if padding < 4 else 0
        sock.sendall(struct.pack(">IB", len(payload) + padding + 1, padding) + payload
                     + bytes(padding))
        disconnect = packet()
    assert disconnect[0] == 1, disconnect  # SSH_MSG_DISCONNECT
    code, size = struct.unpack_from(">II", disconnect, 1)
    return theirs[2], (code, disconnect[9:9 + size].decode())


@needs_ssh_tmux
def test_players_are_isolated(tmp_path: Path, keys: dict[str, Key], tmux: Tmux,
                              servers: list[Server]) -> None:
    data = tmp_path / "data"
    server = start(servers, data)
    tmux.start("a", ssh_argv(server.port, keys["alice"]), 100, 30)
    tmux.start("b", ssh_argv(server.port, keys["bob"]), 100, 30)
    tmux.wait_for("a", TITLE)
    tmux.wait_for("b", LOGO_TOP)
    # Alice switches to ASCII cards; only her settings file changes.
    tmux.send("a", "s")
    tmux.wait_for("a", "Card style")
    tmux.send("a", "Right", "Enter")
    tmux.wait_for("a", LOGO_ASCII_TOP)
    alice, bob = player_dir(data, keys["alice"]), player_dir(data, keys["bob"])
    settings = wait_until(lambda: (alice / "config" / "settings.json").exists(), 5,
                          "alice's settings file")
    assert settings
    assert json.loads((alice / "config" / "settings.json").read_text())["card_style"] == "ascii"
    assert not (bob / "config" / "settings.json").exists()
    assert LOGO_TOP in tmux.screen("b")
    # Alice starts a game (saved right after the deal): it is in her saves, not Bob's.
    tmux.send("a", "n")
    tmux.wait_for("a", "Preset")
    tmux.send("a", "Enter")
    tmux.wait_for("a", "Your hand", timeout=20)
    wait_until(lambda: saved_games(alice), 5, "alice's saved game")
    assert saved_games(bob) == []
    tmux.send("b", "l")  # Load lists every saved game of the player, even one being played
    tmux.wait_for("b", "There are no saved games to load")
    # Killing Alice's game leaves Bob's running.
    pid_a, pid_b = server.session_pid(keys["alice"]), server.session_pid(keys["bob"])
    assert pid_a != pid_b and os.getpgid(pid_a) == pid_a and os.getsid(pid_a) == pid_a
    os.kill(pid_a, signal.SIGKILL)
    assert tmux.wait_exit("a") == 1
    assert "The game stopped unexpectedly (SIGKILL)" in tmux.screen("a")
    server.wait_log(r"session \d+ end: player .* reason killed \(SIGKILL\) status 1")
    wait_until(lambda: not group_alive(pid_a), 5, "alice's process group to go")
    assert process_alive(pid_b)
    # Her game is closed now (no longer in use): she could continue it, Bob cannot; and his
    # game still answers keys.
    assert has_saved_game(alice / "data") and not has_saved_game(bob / "data")
    tmux.send("b", "c")
    tmux.wait_for("b", "There is no saved game to continue")
    tmux.send("b", "q")
    assert tmux.wait_exit("b") == 0


@needs_ssh_tmux
def test_disconnect_hangs_up_and_reconnect_resumes(tmp_path: Path, keys: dict[str, Key],
                                                   tmux: Tmux, servers: list[Server]) -> None:
    from casino_tui.serve.players import CONTINUE_FLAG

    data = tmp_path / "data"
    server = start(servers, data)
    alice = keys["alice"]
    tmux.start("a", ssh_argv(server.port, alice), 100, 30)
    tmux.wait_for("a", TITLE)
    tmux.send("a", "s")
    tmux.wait_for("a", "Card style")
    tmux.send("a", "Right", "Enter")
    tmux.wait_for("a", LOGO_ASCII_TOP)
    hand = new_game_and_one_move(tmux, "a")
    pid = server.session_pid(alice)
    # The client vanishes mid-game: the server hangs the game up.
    tmux.kill_session("a")
    server.wait_log(r"session 1 end: player .* reason disconnect status 1")
    wait_until(lambda: not group_alive(pid), 5, "the hung-up game's processes to go")
    # The same key comes back: same player directory and settings (the hand below is drawn
    # in ASCII as before), and the move above was saved and is resumed (--continue).
    assert app_supports_flag(CONTINUE_FLAG)
    assert has_saved_game(player_dir(data, alice) / "data")
    tmux.start("a2", ssh_argv(server.port, alice), 100, 30)
    server.session_pid(alice, nth=2)
    args = re.findall(r"session 2 start: .* args \[([^\]]*)\]", server.log())[0].split()
    assert CONTINUE_FLAG in args
    tmux.wait_for("a2", "Your hand", timeout=20)  # back at the same table
    wait_until(lambda: hand_cards(tmux.screen("a2")) == hand, 10, f"the hand {hand}",
               detail=lambda: tmux.screen("a2"))
    assert len(list((data / "players").iterdir())) == 1
    # Stopping the server hangs up the session politely.
    assert server.stop() == 0
    assert tmux.wait_exit("a2") == 1
    assert "The server is shutting down" in tmux.screen("a2")
    assert re.search(r"session 2 end: .* reason shutdown status 1", server.log())


@needs_ssh_tmux
def test_half_open_connection_is_replaced_and_the_game_resumed(
        tmp_path: Path, keys: dict[str, Key], tmux: Tmux, servers: list[Server]) -> None:
    from casino_tui.serve.players import CONTINUE_FLAG

    data = tmp_path / "data"
    # One place only: the dead connection must not keep its own player out.
    server = start(servers, data, "--max-sessions", "1")
    alice = keys["alice"]
    tmux.start("a", ssh_argv(server.port, alice), 100, 30)
    tmux.wait_for("a", TITLE)
    hand = new_game_and_one_move(tmux, "a")
    pid = server.session_pid(alice)
    # The client freezes (like a laptop lid closed): its TCP connection stays open and the
    # server notices nothing until keepalives run out, a minute later.
    client = tmux.client_pid("a")
    os.kill(client, signal.SIGSTOP)
    try:
        tmux.start("a2", ssh_argv(server.port, alice), 100, 30)
        fp = re.escape(alice.fingerprint)
        server.wait_log(rf"login: player {fp} .* \(2/1 connected\) \(coming back")
        server.wait_log(rf"session 2: player {fp} connected again from 127\.0\.0\.1:\d+: "
                        r"hanging up their session 1")
        server.wait_log(r"session 1 end: player .* reason replaced status 1")
        wait_until(lambda: not group_alive(pid), 5, "the replaced game's processes to go")
        server.session_pid(alice, nth=2)
        args = re.findall(r"session 2 start: .* args \[([^\]]*)\]", server.log())[0].split()
        assert CONTINUE_FLAG in args
        tmux.wait_for("a2", "Your hand", timeout=20)  # the same game, at the same move
        wait_until(lambda: hand_cards(tmux.screen("a2")) == hand, 10, f"the hand {hand}",
                   detail=lambda: tmux.screen("a2"))
        # The old client, woken, is told what happened and ends.
        os.kill(client, signal.SIGCONT)
        assert tmux.wait_exit("a") == 1
        assert "You connected again from somewhere else" in tmux.screen("a")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(client, signal.SIGKILL)
    tmux.send("a2", "C-q")
    assert tmux.wait_exit("a2") == 0


@needs_ssh
def test_connections_without_a_game_take_a_place_and_are_closed(
        tmp_path: Path, keys: dict[str, Key], servers: list[Server]) -> None:
    # --idle-timeout 0.05 min: a connection without a game is closed after 3 s.
    server = start(servers, tmp_path / "data", "--max-sessions", "1", "--idle-timeout", "0.05",
                   *NO_GAMES)
    alice, bob = (re.escape(keys[k].fingerprint) for k in ("alice", "bob"))
    clients: list[subprocess.Popen[str]] = []

    def no_game(key: Key) -> subprocess.Popen[str]:
        clients.append(subprocess.Popen(ssh_argv(server.port, key, "-N"),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True))
        return clients[-1]

    try:
        idle = no_game(keys["alice"])
        server.wait_log(rf"login: player {alice} .* \(1/1 connected\)")
        # ssh -N holds the only place: Bob is told the server is full.
        full = ssh_run(server.port, keys["bob"], "-tt")
        assert full.returncode == 255, full
        assert "the server is full (1 players connected)" in full.stderr
        server.wait_log(rf"refused {bob} from 127\.0\.0\.1:\d+: the server is full")
        # Alice's connection, still without a game, is closed, and she is told why.
        _out, err = idle.communicate(timeout=15)
        assert idle.returncode == 255
        assert "no game was started on this connection within 3 seconds" in err
        server.wait_log(rf"closed the connection of {alice} from 127\.0\.0\.1:\d+: no game "
                        r"on it for 3s")
        # Her place is free again: Bob gets in.
        no_game(keys["bob"])
        server.wait_log(rf"login: player {bob} .* \(1/1 connected\)")
    finally:
        for client in clients:
            if client.poll() is None:
                client.kill()
            client.communicate()


@needs_ssh_tmux
def test_session_limit_and_rate_limit(tmp_path: Path, keys: dict[str, Key], tmux: Tmux,
                                      servers: list[Server]) -> None:
    server = start(servers, tmp_path / "data", "--max-sessions", "1", "--rate-limit", "3",
                   *NO_COMPUTERS)
    tmux.start("a", ssh_argv(server.port, keys["alice"]), 100, 30)
    tmux.wait_for("a", TITLE)
    for _ in range(2):  # connections 2 and 3 of this minute: the server is full
        full = ssh_run(server.port, keys["bob"], "-tt")
        assert full.returncode == 255, full
        assert "the server is full (1 players connected)" in full.stderr
    for _ in range(3):  # the 4th to 6th: over 3 a minute, told so before logging in
        throttled = ssh_run(server.port, keys["bob"], "-tt")
        assert throttled.returncode == 255
        assert ("too many connections from your address (limit 3 a minute)"
                in throttled.stderr), throttled
    dropped = ssh_run(server.port, keys["bob"], "-tt")  # going on: dropped without a word
    assert dropped.returncode == 255 and "too many" not in dropped.stderr, dropped
    server.wait_log(r"dropping further connections from 127\.0\.0\.1")
    # Only the first two were logged in (and found the server full).
    assert len(re.findall(r"the server is full", server.log())) == 2
    tmux.send("a", "n")  # the first player never noticed
    tmux.wait_for("a", "Preset")
    tmux.send("a", "Escape")
    tmux.wait_for("a", TITLE)
    tmux.send("a", "q")
    assert tmux.wait_exit("a") == 0


@needs_ssh_tmux
def test_idle_timeout_hangs_up(tmp_path: Path, keys: dict[str, Key], tmux: Tmux,
                               servers: list[Server]) -> None:
    server = start(servers, tmp_path / "data", "--idle-timeout", "0.04",  # 2.4 s
                   *NO_COMPUTERS)
    tmux.start("a", ssh_argv(server.port, keys["alice"]), 100, 30)
    tmux.wait_for("a", TITLE)
    pid = server.session_pid(keys["alice"])
    assert tmux.wait_exit("a", timeout=15) == 1
    assert "without a key press" in tmux.screen("a")
    server.wait_log(r"reason idle \(0.04 min\) status 1")
    wait_until(lambda: not group_alive(pid), 5, "the idle game's processes to go")


@needs_ssh
def test_host_key_generated_once_and_served(tmp_path: Path, servers: list[Server]) -> None:
    data = tmp_path / "data"

    def scan(port: int) -> str:
        assert SSH_KEYSCAN is not None
        out = subprocess.run([SSH_KEYSCAN, "-t", "ed25519", "-p", str(port), "127.0.0.1"],
                             capture_output=True, text=True, timeout=20).stdout
        return out.split(None, 1)[1].strip()

    first = start(servers, data, *NO_GAMES)
    key_file = data / HOST_KEY_FILE
    assert (key_file.stat().st_mode & 0o777) == 0o600
    content = key_file.read_bytes()
    public = (data / f"{HOST_KEY_FILE}.pub").read_text().split()[:2]
    assert scan(first.port).split()[:2] == public
    assert first.stop() == 0
    second = start(servers, data, *NO_GAMES, log_name="server2.log")
    assert "made a new host key" not in second.log()
    assert key_file.read_bytes() == content
    assert scan(second.port).split()[:2] == public


def test_servers_share_a_host_key_file(tmp_path: Path, servers: list[Server]) -> None:
    """--host-key FILE: every host of a store serves the operator's one key (read, never made
    or changed); a missing or unreadable file stops the server with what to do."""
    shared = tmp_path / "shared_host_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(shared)],
                   check=True, timeout=20)
    content = shared.read_bytes()
    public = shared.with_suffix(".pub").read_text().split()[:2]
    assert SSH_KEYSCAN is not None
    for name in ("a", "b"):
        server = start(servers, tmp_path / f"data-{name}", "--host-key", str(shared),
                       *NO_GAMES, log_name=f"server-{name}.log")
        out = subprocess.run([SSH_KEYSCAN, "-t", "ed25519", "-p", str(server.port),
                              "127.0.0.1"], capture_output=True, text=True, timeout=20).stdout
        assert out.split(None, 1)[1].split()[:2] == public
        assert not (tmp_path / f"data-{name}" / HOST_KEY_FILE).exists()
        assert str(shared) in server.log()
    assert shared.read_bytes() == content
    for bad, says in ((tmp_path / "missing", "there is no such file. Copy the key"),
                      (shared.with_suffix(".pub"), "it is not a private key")):
        run = subprocess.run([sys.executable, "-m", "casino_tui", "serve", "--port", "0",
                              "--data-dir", str(tmp_path / "d"), "--host-key", str(bad)],
                             capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
        assert run.returncode == 2 and f"cannot use the host key {bad}: {says}" in run.stderr


def test_the_server_collects_what_starting_left_then_freezes_what_it_holds() -> None:
    """Once listening, the server's full collections walk only what its sessions make: what
    it started with is frozen, after its garbage (a cycle left by starting) is collected."""
    code = textwrap.dedent("""
        import gc, weakref
        from casino_tui.serve import freeze_what_started
        class Node: pass
        left = Node(); left.me = left; gone = weakref.ref(left); del left
        kept = Node(); kept.me = kept
        gc.disable()  # (nothing collected but by the call)
        freeze_what_started()
        print(gone() is None, gc.get_freeze_count() > 10_000, len(gc.get_objects()),
              any(o is kept for o in gc.get_objects()))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert run.stdout.split() == ["True", "True", "0", "False"], run.stderr


def test_load_tool_sessions_play_quit_and_save(tmp_path: Path) -> None:
    """The load tool (python -m benchmarks.load), quick: 2 scripted players over SSH
    play 4 moves each (the whole first deal) at the same time at a pace (a key every 0.4 s at
    most), quit, and can continue their game later; every key is redrawn (Right is not pressed
    at the deal's last card); the figures come as --json gives them, the tool's own CPU and
    event-loop lag among them."""
    import asyncio

    from benchmarks import load

    # (the games at the server's priority: the suite beside them must not starve them)
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    done = asyncio.run(load.play_sessions(2, moves=4, timeout=60, step_timeout=20, pace=0.4,
                                          work=tmp_path, session_nice=0,
                                          transcripts=transcripts))
    assert done.ok, done.results
    assert list(transcripts.iterdir()) == []  # kept only for a player in trouble
    for r in done.results:
        assert (r.finished, r.exit_status, r.turns, r.saved, r.error) == (True, 0, 4, True, "")
        # each of the 4 moves: Right and Enter, each timed to the screen (the list: 2 more),
        # but the 4th, the deal's last card, with Enter alone
        assert len(r.latencies) + r.no_redraw == 2 * r.turns - 1 + 2 * r.move_list_used
        assert r.latencies and r.title_s > 0
        assert r.no_redraw == 0 and r.unredrawn == [], r.unredrawn
        # n, Enter, then per move Right and Enter (m and Enter more from the list), Ctrl+Q:
        # each key at least the pace after the one before
        assert len(r.keys_sent) == 3 + 2 * r.turns - 1 + 2 * r.move_list_used
        assert min(b - a for a, b in itertools.pairwise(r.keys_sent)) >= 0.4
    assert done.leftovers == 0
    f = load.session_figures(done, 4)
    json.dumps(f)
    assert (f["sessions"], f["sessions_finished"], f["saved"], f["pace_s"]) == (2, 2, 2, 0.4)
    assert f["rounds_finished"] == 0 and f["moves_without_redraw"] == sum(
        r.no_redraw for r in done.results)
    assert f["key_to_screen_samples"] == sum(len(r.latencies) for r in done.results)
    # the same keys by when they went: 10-second windows from the first connection
    windows = f["key_to_screen_timeline"]
    assert sum(w["samples"] for w in windows) == f["key_to_screen_samples"]
    assert [w["from_s"] for w in windows] == sorted({w["from_s"] for w in windows})
    assert all(w["from_s"] % 10 == 0 and 0 < w["p50_ms"] <= w["p95_ms"] for w in windows)
    # ... and by key: Right and Enter (the list's m and Enter when used), no round's end here
    keys = f["key_to_screen_by_key"]
    assert {"Right", "Enter"} <= set(keys) <= {"Right", "Enter", "m"}
    assert sum(k["samples"] for k in keys.values()) == f["key_to_screen_samples"]
    assert sum(k["over_250_ms"] for k in keys.values()) == sum(
        w["over_250_ms"] for w in windows)
    assert all(0 < k["p50_ms"] <= k["p95_ms"] for k in keys.values())
    # ... and each one (--samples FILE), in the order they went, on the monotonic clock
    load.write_samples(tmp_path / "samples.jsonl", done)
    rows = [json.loads(line) for line in
            (tmp_path / "samples.jsonl").read_text().splitlines()]
    assert len(rows) == f["key_to_screen_samples"]
    assert [r["at_s"] for r in rows] == sorted(r["at_s"] for r in rows) and rows[0]["at_s"] > 0
    assert {r["key"] for r in rows} == set(keys)
    assert {r["player"] for r in rows} == {f"load{r.number}" for r in done.results}
    for player in done.results:
        mine = [r for r in rows if r["player"] == f"load{player.number}"]
        assert sorted(r["n"] for r in mine) == list(range(len(player.latencies)))
        assert sorted(r["ms"] for r in mine) == sorted(round(x * 1000, 2)
                                                       for x in player.latencies)
        assert all(r["mono"] - r["at_s"] == pytest.approx(min(
            x.started_at for x in done.results), abs=1e-3) for r in mine)
    for name in ("key_to_screen_ms_p50", "key_to_screen_ms_p95", "key_to_screen_ms_p99",
                 "title_after_connect_s_median", "title_after_connect_s_p95"):
        assert isinstance(f[name], float) and f[name] > 0, name
    assert f["key_to_screen_ms_p50"] <= f["key_to_screen_ms_p95"] <= f["key_to_screen_ms_p99"]
    # memory from /proc of the games the server's log names, at the busiest moment
    assert f["players_at_peak"] == 2, f
    assert f["pss_mib_per_player"] > 5 and f["processes_per_player"] >= 1
    assert f["tree_processes"] >= 2 and f["tree_pss_mib"] >= f["pss_mib_per_player"]
    assert f["errors"] == [] and f["leftover_games"] == 0
    assert f["games_cpu_s"] > 0 and f["load_tool_cpu_s"] > 0  # where the CPU went
    # the interpreter the server and its games ran on (the tool starts it with its own)
    assert f["python"] == f"{platform.python_version()} ({sys.executable})"
    # the tool's own: its clients (per key sent) and its memory sampler (a process of its own)
    assert f["clients_cpu_s"] > 0 and f["sampler_cpu_s"] > 0
    assert f["load_tool_cpu_s"] == pytest.approx(f["clients_cpu_s"] + f["sampler_cpu_s"],
                                                 abs=0.11)
    assert f["clients_cpu_ms_per_key"] > 0
    # how late its event loop ran: a sample every 10 ms or so while the players played
    assert f["loop_lag_samples"] > 100
    assert 0 <= f["loop_lag_ms_p50"] <= f["loop_lag_ms_p95"] <= f["loop_lag_ms_max"]
    assert f["never_redrawn_by_key"] == {} and f["never_redrawn_drawn_later"] == 0
    assert f["never_redrawn_nothing_to_draw"] == 0 and f["never_drawn_by_key"] == {}
    log = (tmp_path / "server.log").read_text()
    assert len(re.findall(r"session \d+ end: .* reason quit status 0", log)) == 2
    # the pool's last word, for the JSON: its 2 games' computers answered
    assert re.match(r"\d+ answered \(waited", load.pool_summary(tmp_path) or "")


def test_load_tool_spreads_its_players_over_processes(tmp_path: Path) -> None:
    """--client-processes 2: the players run in two processes of clients, each with its own
    event loop; one set of figures comes back, with their CPU and loop lag added up. With
    --logins 2, two more players log in (from this process) while they play, and quit at the
    title: their figures come apart."""
    import asyncio

    from benchmarks import load

    done = asyncio.run(load.play_sessions(2, moves=1, timeout=60, step_timeout=20,
                                          work=tmp_path, session_nice=0, client_processes=2,
                                          logins=2, logins_after=0.2))
    assert done.ok, (done.results, done.logins)
    assert [(r.number, r.turns, r.saved, r.no_redraw) for r in done.results] == [
        (1, 1, True, 0), (2, 1, True, 0)]
    assert [(r.number, r.finished, r.turns, r.title_s is not None) for r in done.logins] == [
        (3, True, 0, True), (4, True, 0, True)]
    assert len({r.fingerprint for r in [*done.results, *done.logins]}) == 4
    f = load.session_figures(done, 1)
    assert f["key_to_screen_samples"] == 4 and f["sessions_finished"] == 2
    assert f["logins_finished"] == 2 and f["logins_title_s_p95"] is not None
    # this process only waited: the clients' CPU and lag are the two processes'
    assert f["clients_cpu_s"] > 0.3 and f["loop_lag_samples"] > 50


def test_load_tool_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import load

    args = load.build_parser().parse_args(["--tables", "10", "--players", "2", "--json"])
    assert (args.tables, args.players, args.json, args.moves) == (10, 2, True, 0)
    assert load.build_parser().parse_args(["--pace", "2"]).pace == 2.0
    assert load.build_parser().parse_args([]).session_nice is None  # the server's default
    assert load.build_parser().parse_args(["--session-nice", "0"]).session_nice == 0
    assert not load.build_parser().parse_args([]).every_right
    assert load.build_parser().parse_args(["--every-right"]).every_right
    assert load.build_parser().parse_args(["--samples", "keys.jsonl"]).samples == Path(
        "keys.jsonl")
    for bad in (["--tables", "2", "--players", "5"], ["--tables", "-1"], ["--moves", "-2"],
                ["--pace", "-1"], ["--redraw-timeout", "0"], ["--session-nice", "20"],
                ["--client-processes", "0"]):
        with pytest.raises(SystemExit) as exit_:
            load.main(bad)
        assert exit_.value.code == 2
    assert "--players must be between 2 and 4" in capsys.readouterr().err


def test_load_tool_tables_people_play_each_other(tmp_path: Path) -> None:
    """The load tool with --tables, quick: at one table, one person creates it and reads its
    code from the screen, the other joins with that code over SSH, and each plays 2 moves;
    every move is seen on the other's screen; the figures come as --json gives them."""
    import asyncio

    from benchmarks import load

    done = asyncio.run(load.play_tables(1, 2, moves=2, timeout=90, step_timeout=30, pace=0.2,
                                        work=tmp_path, session_nice=0))
    assert done.ok, done.results
    table = done.results[0]
    assert re.fullmatch(r"[BDFGKMNPRSTVZ][AEIOU]" * 3, table.code)
    assert [(p.name, p.exit_status, p.moves) for p in table.players] == [
        ("T1a", 0, 2), ("T1b", 0, 2)]
    assert len(table.latencies) == 4 and table.missed == 0  # each move on the other screen
    figures = done.figures()
    assert figures["tables_finished"] == 1 and figures["errors"] == []
    assert figures["move_to_other_screen_samples"] == 4
    for name in ("move_to_other_screen_ms_p50", "move_to_other_screen_ms_p95",
                 "key_to_own_screen_ms_p50", "round_s_median"):
        assert isinstance(figures[name], float), name
    assert figures["pss_mib_per_player"] is None or figures["pss_mib_per_player"] > 0
    assert figures["moves_played"] == 4 and figures["leftover_games"] == 0
    assert figures["moves_without_redraw"] == 0 and figures["never_redrawn_by_key"] == {}
    assert figures["loop_lag_samples"] > 0 and figures["clients_cpu_s"] > 0
    assert figures["sampler_cpu_s"] is not None
    # n, Enter... then per move Right and Enter, Ctrl+Q: each key's time kept
    assert all(len(p.keys_sent) >= 5 for p in table.players)
    json.dumps(figures)
    log = (tmp_path / "server.log").read_text()
    assert re.search(r"session 2 start: .* args \[--join " + table.code + r"\]", log)
    assert len(re.findall(r"session \d+ end: .* reason quit status 0", log)) == 2
