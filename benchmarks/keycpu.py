"""The CPU a key costs the game: ``python -m benchmarks.keycpu [--turns 12] [--runs 3]``.

At 200 players on two cores, drawing is what the cores are spent on, so what one key costs the
game's process is the figure that decides how many players a host holds. This starts the game
as a player's terminal runs it (``python -m casino_tui`` on a pseudo-terminal, 100x30 like the
load tool, TERM=xterm-256color, a throwaway data directory), starts a game (``n``, Enter), and
at each of the player's turns presses what a person does: Right to look at the next card (the
game previews its move), Left back, Right again, then Enter to play it (Right again while the
card has no move). After each key it waits until the screen has been quiet for a moment, and
reads the CPU time of the game's process (every thread, from ``/proc/PID/task/*/schedstat``,
in nanoseconds) and the bytes it wrote. ``--forked``: each game is forked from a fork server of
its own (``python -m casino_tui _fork-server FD``, warmed up as under ``serve``) instead of
started as a fresh process, as a served game is. A play's figure runs until the player's next
turn is on the screen, so it includes drawing the computer's answer (the computer itself thinks in a
process of its own, not counted).

It prints, per kind of key (the title's ``n`` and the New game screen's Enter, each once a game,
among them), the median and mean CPU milliseconds and bytes written, over
``--runs`` games of ``--turns`` turns each (the same seed each time). ``--profile FILE``
records the first game's turns (from its first turn on) with py-spy, if installed, into FILE as
collapsed stacks; ``--cprofile FILE`` runs the first game under cProfile (its main thread, from
its first turn on: :mod:`benchmarks.cprofiled`) and writes the statistics into FILE;
``--cprofile-keys play`` (or ``right``, ``left``; ``new``, the title's ``n``; ``start``, the
New game screen's Enter) profiles only those keys, each from the key to
its quiet screen (with ``CPROFILED_WARM=1`` in the environment the game first warms up as the
fork server does: :mod:`benchmarks.cprofiled`); ``last`` only the last turn's play (with
``--turns 24``, in the default two-player game, the play that ends the round and shows its
summary). A play that ends the round is counted apart from the other plays (``round_over``).
A measuring tool, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Mapping, Sequence
from fcntl import ioctl
from pathlib import Path
from typing import ClassVar, Protocol

from casino_tui.serve.forkserver import FORK_SERVER_FLAGS

from .loadkit import ESCAPES, KEY_ENTER, KEY_QUIT, KEY_RIGHT, NO_MOVE, ROUND_OVER, TITLE, YOUR_TURN

KEY_LEFT = b"\x1b[D"
# cards a player is dealt at a time (the default game's): every HAND-th play ends a hand
HAND = 4
# the module a --cprofile game runs under (benchmarks.framecount runs it under its own)
WRAPPER = "benchmarks.cprofiled"
QUIET = 0.25  # seconds without output after which a key's effect is taken as drawn


def cpu_ns(pid: int) -> int:
    """CPU time of every thread of ``pid`` so far (nanoseconds)."""
    total = 0
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
    return total


class Game:
    """The game on a pseudo-terminal: :meth:`key` presses a key and waits for quiet."""

    extra_env: ClassVar[Mapping[str, str]] = {}  # more of its environment (benchmarks.keybytes)

    def __init__(self, size: tuple[int, int], seed: int, cprofile: str | None = None,
                 forked: bool = False) -> None:
        self.home = tempfile.mkdtemp(prefix="casino-keycpu-")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home,
               "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "PYTHONUTF8": "1", "CASINO_TUI_DATA_DIR": f"{self.home}/data",
               "CASINO_TUI_CONFIG_DIR": f"{self.home}/config"}
        for name in ("PYTHONPATH", "CPROFILED_WARM"):
            if name in os.environ:
                env[name] = os.environ[name]
        env.update(self.extra_env)
        argv = [sys.executable, "-m", "casino_tui", "--seed", str(seed)]
        if cprofile:
            argv[2:3] = [WRAPPER, os.path.abspath(cprofile)]
        self.forker: ForkServerProcess | None = None
        if forked:
            self.forker = ForkServerProcess()
            fd, slave = pty.openpty()
            ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
            pid = self.forker.fork(slave, argv[3:], env, self.home)
            os.close(slave)
        else:
            pid, fd = pty.fork()
            if pid == 0:
                os.execvpe(argv[0], argv, env)
            ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        self.pid, self.fd = pid, fd
        self.text = ""
        self.written = 0
        self.spy: subprocess.Popen[bytes] | None = None
        self.cprofile = cprofile

    def start_cprofile(self) -> None:
        """Start the game's cProfile (``--cprofile``), if it runs under one."""
        if self.cprofile:
            os.kill(self.pid, signal.SIGUSR1)

    def pause_cprofile(self) -> None:
        """Pause the game's cProfile until :meth:`start_cprofile`."""
        if self.cprofile:
            os.kill(self.pid, signal.SIGUSR2)

    def profile(self, output: str) -> None:
        """Record the game's stacks from now on with py-spy (collapsed stacks in ``output``)."""
        spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        self.spy = subprocess.Popen([spy, "record", "--pid", str(self.pid), "--format", "raw",
                                     "--rate", "1000", "--nonblocking", "--output", output],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)  # py-spy attaches

    def read(self, quiet: float = QUIET, timeout: float = 10.0,
             until: str | re.Pattern[str] | None = None) -> str:
        """Output until ``quiet`` seconds pass without any (and ``until`` was seen, if
        given), at most ``timeout`` seconds; the new text, escapes removed."""
        start = len(self.text)
        deadline = time.monotonic() + timeout
        last = time.monotonic()
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.02)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self.written += len(chunk)
                self.text += ESCAPES.sub("", chunk.decode("utf-8", "replace"))
                last = time.monotonic()
                continue
            seen = until is None or re.search(until, self.text[start:]) is not None
            if seen and time.monotonic() - last >= quiet:
                break
        return self.text[start:]

    def key(self, data: bytes, until: str | re.Pattern[str] | None = None) -> tuple[float, int,
                                                                                     str]:
        """Press ``data``; its CPU milliseconds, bytes written and new text."""
        cpu, written = cpu_ns(self.pid), self.written
        os.write(self.fd, data)
        text = self.read(until=until)
        return (cpu_ns(self.pid) - cpu) / 1e6, self.written - written, text

    def ended(self) -> bool:
        if self.forker is not None:  # the fork server's child: it reaps it
            return self.forker.ended(self.pid)
        return bool(os.waitpid(self.pid, os.WNOHANG)[0])

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.fd, KEY_QUIT)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                select.select([self.fd], [], [], 0.05)
                os.read(self.fd, 65536)
            if self.ended():
                break
        else:
            os.kill(self.pid, signal.SIGKILL)
            if self.forker is None:
                os.waitpid(self.pid, 0)
        os.close(self.fd)
        if self.forker is not None:
            self.forker.close()
        if self.spy is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.spy.wait(10)
        shutil.rmtree(self.home, ignore_errors=True)


class ForkServerProcess:
    """A fork server of the game's own (``python -m casino_tui _fork-server FD``), spoken to
    as ``casino_tui.serve.forkserver.ForkServer`` does, without an event loop."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: os.environ[k] for k in ("PATH", "PYTHONPATH") if k in os.environ}
        env.update({"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"})
        self.proc = subprocess.Popen(
            [sys.executable, *FORK_SERVER_FLAGS, "-m", "casino_tui", "_fork-server",
             str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, cwd="/")
        theirs.close()
        self.sock = ours
        self.sock.settimeout(120)
        hello = json.loads(self.sock.recv(1 << 16))
        if hello.get("ready") is not True:
            raise SystemExit("the fork server did not start")
        self.exited: set[int] = set()

    def fork(self, slave: int, args: list[str], env: dict[str, str], cwd: str) -> int:
        message = {"id": 1, "args": args, "env": env, "cwd": cwd, "nice": 0}
        socket.send_fds(self.sock, [json.dumps(message).encode()], [slave])
        while True:
            answer = json.loads(self.sock.recv(1 << 16))
            if "pid" in answer:
                return int(answer["pid"])
            if "error" in answer:
                raise SystemExit(f"the fork server could not fork: {answer['error']}")

    def ended(self, pid: int) -> bool:
        self.sock.setblocking(False)
        try:
            while True:
                answer = json.loads(self.sock.recv(1 << 16))
                if "exited" in answer:
                    self.exited.add(int(answer["exited"]))
        except BlockingIOError:
            pass
        finally:
            self.sock.settimeout(120)
        return pid in self.exited

    def close(self) -> None:
        self.sock.close()  # the fork server ends when its socket closes
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def play(turns: int, size: tuple[int, int], seed: int, profile: str | None,
         cprofile: str | None = None,
         cprofile_keys: str = "all", forked: bool = False) -> dict[str, list[tuple[float, int]]]:
    costs: dict[str, list[tuple[float, int]]] = {"new": [], "start": [], "right": [],
                                                 "left": [], "play": [], "deal": [],
                                                 "round_over": []}
    game = Game(size, seed, cprofile, forked)
    plays = 0

    def press(name: str, data: bytes, until: str | re.Pattern[str] | None = None) -> str:
        nonlocal plays
        plays += name == "play"
        profiled = cprofile_keys == name or (
            cprofile_keys == "last" and name == "play" and plays == turns)
        if profiled:
            game.start_cprofile()
        ms, nbytes, text = game.key(data, until=until)
        if profiled:
            game.pause_cprofile()
        if name == "play" and ROUND_OVER.search(text):
            name = "round_over"  # the play that ends the round: counted apart
        elif name == "play" and plays % HAND == 0:
            name = "deal"  # the hand's last card: the next deal is drawn too, counted apart
        costs[name].append((ms, nbytes))
        return text

    try:
        game.read(until=TITLE, timeout=30)
        for name, data, until in (("new", b"n", "Preset"), ("start", KEY_ENTER, YOUR_TURN)):
            if cprofile_keys == name:
                game.start_cprofile()
            ms, nbytes, _ = game.key(data, until=until)
            if cprofile_keys == name:
                game.pause_cprofile()
            costs[name].append((ms, nbytes))
        if profile:
            game.profile(profile)
        if cprofile_keys == "all":
            game.start_cprofile()
        play_turns(press, turns)
    finally:
        game.close()
    return costs


class Press(Protocol):
    """Sends a key (its name and bytes) to the game and returns the screen's text once drawn
    (or once ``until`` shows)."""

    def __call__(self, name: str, data: bytes,
                 until: str | re.Pattern[str] | None = None) -> str: ...


def play_turns(press: Press, turns: int) -> None:
    """The player's ``turns`` from the first: Right, Left, Right (previews), Right again past a
    card with no move, then Enter to play, until the next turn or the round's end."""
    for _ in range(turns):
        last = ""
        for name, data in (("right", KEY_RIGHT), ("left", KEY_LEFT), ("right", KEY_RIGHT)):
            last = press(name, data)
        for _ in range(8):  # a card with no move: the next one
            if not NO_MOVE.search(last):
                break
            last = press("right", KEY_RIGHT)
        last = press("play", KEY_ENTER, until=re.compile(f"{YOUR_TURN}|{ROUND_OVER.pattern}"))
        if ROUND_OVER.search(last):
            break


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.keycpu",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=12, help="the player's turns a game")
    parser.add_argument("--runs", type=int, default=3, help="games (default 3)")
    parser.add_argument("--seed", type=int, default=7, help="the deal (default 7)")
    parser.add_argument("--size", default="100x30", metavar="WxH")
    parser.add_argument("--profile", metavar="FILE",
                        help="record the first game with py-spy into FILE (collapsed stacks)")
    parser.add_argument("--cprofile", metavar="FILE",
                        help="run the first game under cProfile, its statistics into FILE")
    parser.add_argument("--cprofile-keys",
                        choices=("all", "right", "left", "play", "last", "new", "start"),
                        default="all", help="with --cprofile: only these keys (default all, "
                        "from the first turn on; last: the last turn's play; new: the title's "
                        "n, the New game screen; start: its Enter, the deal)")
    parser.add_argument("--forked", action="store_true",
                        help="fork each game from a warm fork server, as serve does")
    args = parser.parse_args(argv)
    if args.forked and args.cprofile:
        parser.error("--forked runs no cProfile")
    w, h = (int(x) for x in args.size.lower().split("x"))
    load = os.getloadavg()
    totals: dict[str, list[tuple[float, int]]] = {}
    for run in range(args.runs):
        costs = play(args.turns, (w, h), args.seed, args.profile if run == 0 else None,
                     args.cprofile if run == 0 else None, args.cprofile_keys, args.forked)
        for name, values in costs.items():
            totals.setdefault(name, []).extend(values)
    print(f"CPU of the game's process per key ({args.runs} "
          f"{'forked ' if args.forked else ''}games of {args.turns} turns, "
          f"{w}x{h}; load average {load[0]:.2f} before, {os.getloadavg()[0]:.2f} after):")
    for name, values in totals.items():
        if not values:
            continue
        ms = [v[0] for v in values]
        nbytes = [v[1] for v in values]
        what = {"new": "n (the title's New game: its screen drawn)",
                "start": "Enter on the New game screen (the deal: the table drawn)",
                "right": "Right (next card, its move previewed)", "left": "Left (back)",
                "play": "Enter (play, then the computer's answer, to the next turn)",
                "deal": "Enter (a hand's last card: the next deal drawn)",
                "round_over": "Enter (the play that ends the round: its summary)"}[name]
        print(f"  {what:60} median {statistics.median(ms):6.1f} ms  mean "
              f"{statistics.mean(ms):6.1f} ms  bytes median {statistics.median(nbytes):6.0f}"
              f"  (n={len(ms)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
