"""Helpers for the SSH server tests: a ``casino-tui serve`` subprocess on loopback, test keys
made with ssh-keygen, and the real OpenSSH client driven in tmux."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

SSH = shutil.which("ssh")
SSH_KEYGEN = shutil.which("ssh-keygen")
SSH_KEYSCAN = shutil.which("ssh-keyscan")
TMUX = shutil.which("tmux")

needs_ssh = pytest.mark.skipif(
    not (SSH and SSH_KEYGEN and SSH_KEYSCAN),
    reason="needs the OpenSSH client tools ssh, ssh-keygen and ssh-keyscan "
           "(Debian: apt-get install openssh-client)")
needs_ssh_tmux = pytest.mark.skipif(
    not (SSH and SSH_KEYGEN and SSH_KEYSCAN and TMUX),
    reason="needs the OpenSSH client (ssh, ssh-keygen, ssh-keyscan) and tmux "
           "(Debian: apt-get install openssh-client tmux)")

TITLE = "the classic fishing card game"
LOGO_TOP = "╔═╗╔═╗╔═╗╔═╗╦╔╗╔╔═╗"
# A line of the move log for a move of the person (South, the first seat).
SOUTH_MOVED = r"South (trailed|took|raised|added|built|plucked|did not pluck)"
LOGO_ASCII_TOP = "___   _   ___ ___ ___ _  _  ___"  # capture-pane trims line ends


def wait_until(predicate: Callable[[], object], timeout: float, what: str,
               interval: float = 0.05, detail: Callable[[], str] | None = None) -> object:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            extra = f"\n--- {detail()}" if detail is not None else ""
            raise AssertionError(f"timed out after {timeout}s waiting for {what}{extra}")
        time.sleep(interval)


# ---------------------------------------------------------------------- keys
@dataclass(frozen=True)
class Key:
    path: Path
    public: str  # the .pub line
    fingerprint: str  # SHA256:...


def make_key(directory: Path, name: str) -> Key:
    path = directory / name
    assert SSH_KEYGEN is not None
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)],
                   check=True, stdin=subprocess.DEVNULL)
    out = subprocess.run([SSH_KEYGEN, "-l", "-E", "sha256", "-f", f"{path}.pub"], check=True,
                         capture_output=True, text=True).stdout
    fingerprint = out.split()[1]
    return Key(path, Path(f"{path}.pub").read_text().strip(), fingerprint)


def player_dir(data_dir: Path, key: Key) -> Path:
    from casino_tui.serve.players import PLAYERS_DIR, player_id

    return data_dir / PLAYERS_DIR / player_id(key.fingerprint)


def saved_games(player: Path) -> list[str]:
    """The ``.json`` files anywhere in a player's data directory: their saved games."""
    data = player / "data"
    return sorted(str(p.relative_to(data)) for p in data.rglob("*")
                  if p.is_file() and p.suffix == ".json") if data.is_dir() else []


# ---------------------------------------------------------------------- the server
class Server:
    """``python -m casino_tui serve --port 0`` on 127.0.0.1, logging to a file. ``python``:
    the interpreter's arguments before ``serve`` (``-c CODE`` to change something first)."""

    def __init__(self, data_dir: Path, *args: str, log_name: str = "server.log",
                 python: Sequence[str] = ("-m", "casino_tui")) -> None:
        self.data_dir = data_dir
        self.log_path = data_dir.parent / log_name
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop)
        env = dict(os.environ)
        env.pop("CASINO_TUI_DATA_DIR", None)
        env.pop("CASINO_TUI_CONFIG_DIR", None)
        # The games at the server's priority unless a test says otherwise: on a machine busy
        # with the rest of the suite, games at the lowest priority reach their screens too late
        # for the tests' waits (the default, 19 steps below, is tested where it is set).
        nice = () if any(a.startswith("--session-nice") for a in args) else (
            "--session-nice", "0")
        self.proc = subprocess.Popen(
            [sys.executable, *python, "serve", "--host", "127.0.0.1", "--port", "0",
             "--data-dir", str(data_dir), *nice, *args],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        try:
            found = wait_until(lambda: re.search(r"listening on \S+ port (\d+)", self.log())
                               or self.proc.poll() is not None, 20, "the server to listen",
                               detail=self.log)
        except BaseException:  # never listened (a loaded machine): no server left behind
            self.proc.kill()
            self.proc.wait()
            self._log.close()
            raise
        if self.proc.poll() is not None:
            self._log.close()
            raise AssertionError(f"the server stopped at start:\n{self.log()}")
        assert isinstance(found, re.Match)
        self.port = int(found.group(1))

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_log(self, pattern: str, timeout: float = 10) -> re.Match[str]:
        found = wait_until(lambda: re.search(pattern, self.log()), timeout,
                           f"{pattern!r} in the server log", detail=self.log)
        assert isinstance(found, re.Match)
        return found

    def session_pid(self, key: Key, nth: int = 1) -> int:
        """The game process of ``key``'s ``nth`` session (from the start line of the log)."""
        pattern = rf"session \d+ start: player {re.escape(key.fingerprint)} .* pid (\d+)"
        found = wait_until(lambda: len(re.findall(pattern, self.log())) >= nth, 10,
                           f"session {nth} of {key.fingerprint}", detail=self.log)
        assert found
        return int(re.findall(pattern, self.log())[nth - 1])

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


def ssh_argv(port: int, key: Key, *extra: str, command: Sequence[str] = ()) -> list[str]:
    assert SSH is not None
    return [SSH, "-F", "/dev/null", "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none",
            "-o", "ConnectTimeout=10", "-i", str(key.path), "-p", str(port), *extra,
            "player@127.0.0.1", *command]


def ssh_run(port: int, key: Key, *extra: str, command: Sequence[str] = (),
            timeout: float = 20) -> subprocess.CompletedProcess[str]:
    """Run the ssh client without a terminal of its own (stdin at EOF)."""
    return subprocess.run(ssh_argv(port, key, *extra, command=command),
                          stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)


def process_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _live_processes() -> Iterator[tuple[int, list[str]]]:
    """(pid, the fields of /proc/PID/stat after the command name) of every live process."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            yield int(entry.name), fields


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    return [child for child, fields in _live_processes() if int(fields[1]) == pid]


def group_alive(pgid: int) -> bool:
    return any(int(fields[2]) == pgid for _, fields in _live_processes())


# ---------------------------------------------------------------------- tmux
class Tmux:
    """A private tmux server: each session runs one ssh client under ``sh``, which writes the
    client's exit status to a file (tmux's own #{pane_dead_status} was seen to stay empty
    when tmux missed the child's exit); the pane stays after it ends (remain-on-exit).

    Each pane's output is also appended to a file (``pipe-pane``), so that :meth:`screen`
    asks tmux for the screen (``capture-pane``: a new tmux client, about 4 ms of CPU) only
    when the pane has written something since the last time, or after
    :data:`SCREEN_MAX_AGE` seconds (what tmux draws itself, such as a dead pane's status);
    otherwise it returns the screen it captured last. The waits poll every 50 ms for
    seconds on end, which cost the suite thousands of captures of unchanged screens. tmux
    writes a pane's output to the pipe after it has drawn it on the pane's screen, so a
    screen captured after the file grew has what the file holds, or more."""

    SCREEN_MAX_AGE = 0.25  # seconds

    def __init__(self, directory: Path) -> None:
        assert TMUX is not None
        self.directory = directory
        self.socket = directory / "tmux.sock"
        conf = directory / "tmux.conf"
        conf.write_text("set -g remain-on-exit on\nset -g history-limit 100\n")
        self._base = [TMUX, "-S", str(self.socket), "-f", str(conf)]
        # name -> (the size of its output file then, time.monotonic() then, the screen)
        self._captured: dict[str, tuple[int, float, str]] = {}

    def _tmux(self, *args: str, check: bool = True) -> str:
        out = subprocess.run([*self._base, *args], capture_output=True, text=True,
                             timeout=10, stdin=subprocess.DEVNULL)
        if check and out.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {out.stderr}")
        return out.stdout

    def _status_file(self, name: str) -> Path:
        return self.directory / f"exit-status-{name}"

    def start(self, name: str, argv: Sequence[str], width: int, height: int) -> None:
        status = self._status_file(name)
        script = f'"$@"; echo $? > {status}.tmp && mv {status}.tmp {status}'
        self._tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height),
                   "/bin/sh", "-c", script, "sh", *argv)
        output = self._output_file(name)
        output.touch()
        self._tmux("pipe-pane", "-t", name, f"exec cat >> {shlex.quote(str(output))}")
        self._captured.pop(name, None)

    def _output_file(self, name: str) -> Path:
        return self.directory / f"output-{name}"

    def screen(self, name: str) -> str:
        try:
            size = self._output_file(name).stat().st_size
        except OSError:  # not started here (or the file was removed): ask tmux each time
            return self._tmux("capture-pane", "-p", "-t", name)
        last = self._captured.get(name)
        now = time.monotonic()
        if last is not None and last[0] == size and now - last[1] < self.SCREEN_MAX_AGE:
            return last[2]
        screen = self._tmux("capture-pane", "-p", "-t", name)
        self._captured[name] = (size, now, screen)
        return screen

    def history(self, name: str) -> str:
        """Everything the pane showed, the lines scrolled off its top included (a count of
        lines on the screen alone can stay the same as one scrolls off and one comes)."""
        return self._tmux("capture-pane", "-p", "-S", "-", "-t", name)

    def wait_for(self, name: str, text: str, timeout: float = 15) -> str:
        found = wait_until(lambda: text in (s := self.screen(name)) and s, timeout,
                           f"{text!r} on {name}'s screen", detail=lambda: self.screen(name))
        assert isinstance(found, str)
        return found

    def wait_match(self, name: str, pattern: str, timeout: float = 15) -> re.Match[str]:
        found = wait_until(lambda: re.search(pattern, self.screen(name)), timeout,
                           f"{pattern!r} on {name}'s screen", detail=lambda: self.screen(name))
        assert isinstance(found, re.Match)
        return found

    def wait_gone(self, name: str, text: str, timeout: float = 10) -> str:
        wait_until(lambda: text not in self.screen(name), timeout,
                   f"{text!r} to leave {name}'s screen", detail=lambda: self.screen(name))
        return self.screen(name)

    def send(self, name: str, *keys: str) -> None:
        self._tmux("send-keys", "-t", name, *keys)
        self._captured.pop(name, None)

    def resize(self, name: str, width: int, height: int) -> None:
        self._tmux("resize-window", "-t", name, "-x", str(width), "-y", str(height))
        self._captured.pop(name, None)

    def exit_status(self, name: str) -> int | None:
        """The ssh client's exit status once it has ended."""
        try:
            return int(self._status_file(name).read_text())
        except (OSError, ValueError):
            return None

    def wait_exit(self, name: str, timeout: float = 15) -> int:
        wait_until(lambda: self.exit_status(name) is not None, timeout,
                   f"{name}'s ssh client to exit", detail=lambda: self.screen(name))
        status = self.exit_status(name)
        assert status is not None
        return status

    def client_pid(self, name: str) -> int:
        """The pid of the ssh client running in ``name`` (the child of the pane's ``sh``)."""
        shell = int(self._tmux("display-message", "-p", "-t", name, "#{pane_pid}").strip())
        found = wait_until(lambda: children(shell), 5, f"the ssh client in {name}")
        assert isinstance(found, list) and len(found) == 1, found
        return found[0]

    def kill_session(self, name: str) -> None:
        self._tmux("kill-session", "-t", name)
        self._captured.pop(name, None)

    def close(self) -> None:
        self._tmux("kill-server", check=False)


def hand_cards(screen: str) -> list[str]:
    """The cards in the "Your hand" box of the game table, as drawn (``KD``, ``10♥``); only
    inside the box (the log beside it names cards too)."""
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        if "Your hand" in line:
            title = line.index("Your hand")
            right = next((j for j in range(title, len(line)) if line[j] in "╮+"), len(line))
            for row in lines[i + 1:i + 4]:
                cards = re.findall(r"(?:10|[2-9AJQK])[SHDC♠♥♦♣]", row[:right])
                if cards:
                    return cards
    return []


def logo_column(screen: str, logo: str = LOGO_TOP) -> int | None:
    """The column of the title's logo, None when it is not (yet) drawn."""
    for line in screen.splitlines():
        if logo in line:
            return line.index(logo)
    return None


def wait_logo_at(tmux: Tmux, name: str, column: int, timeout: float = 15) -> None:
    """Until the title's logo is drawn at ``column`` (centred for the window's width)."""
    wait_until(lambda: logo_column(tmux.screen(name)) == column, timeout,
               f"the logo at column {column} on {name}'s screen",
               detail=lambda: tmux.screen(name))


def a_person_reacts() -> None:
    """Before a key at a table the player was taken back to on their own (logging in again,
    a reload): as a person would, only once it has shown (keys quicker than that are taken
    for keys typed at the screen before: ``TableGameScreen.TYPEAHEAD_GRACE``)."""
    from casino_tui.app.screens.tablegame import TableGameScreen

    time.sleep(TableGameScreen.TYPEAHEAD_GRACE)
