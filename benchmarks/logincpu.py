"""The CPU of a login, per process on its path, over real SSH on loopback.

    .venv/bin/python -m benchmarks.logincpu [--logins 20] [--kex ALG] [--openssh] [--json]

It starts its own server (``casino-tui serve``, as :mod:`benchmarks.load` does), then logs in
``--logins`` times one after another (each a new key, a PTY of 100x30, waiting for the title,
then ``q``, waiting for the session's end), and reads the CPU each process on a login's path
spent, from the kernel's accounts (``/proc/PID/stat`` for the whole process, its threads
included; ``/proc/PID/task/*/schedstat`` in nanoseconds):

* ``server``: the SSH server (key exchange, host-key signature, authentication, the channel
  and its PTY, the fork request, relaying the game's output);
* ``fork_server``: the fork server itself (receiving the request, forking, reaping);
* ``games``: the forked games, from their fork to their exit (the fork server's reaped
  children: ``cutime + cstime``);
* ``pool``: the computer players' pool (nothing of a login, as a check);
* ``client``: this process (asyncssh's client and the script), or with ``--openssh`` the
  OpenSSH client processes (their CPU as this process's reaped children).

Each figure is the mean per login in milliseconds, with the login's wall time to the title
(median) and ``output_chunks``, the pieces of output the client received per login (over
asyncssh, each an SSH data packet; through OpenSSH, each a read of the client's terminal).
``--kex`` and ``--host-key-alg`` make the asyncssh client ask for that key exchange or host-key
algorithm first (to compare what each costs the server). A measuring tool, not a test; the
traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .loadkit import HOST, TITLE, LoopbackServer, Screen, open_terminal

TICK = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_cpu(pid: int) -> float:
    """Seconds of CPU of a live process (its every thread, ended ones included)."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / TICK


def reaped_cpu(pid: int) -> float:
    """Seconds of CPU of the ended children a live process has reaped."""
    fields = _stat_fields(pid)
    return (int(fields[13]) + int(fields[14])) / TICK


def threads_ns(pid: int) -> int:
    """Nanoseconds on a CPU of a process's live threads (finer than :func:`process_cpu`)."""
    total = 0
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError):
                total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
    return total


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int(_stat_fields(int(entry))[1]) == pid:
                    found.append(int(entry))
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


async def _fork_server(server_pid: int, timeout: float = 60.0) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in _children(server_pid):
            if "_fork-server" in _cmdline(pid):
                return pid
        await asyncio.sleep(0.1)
    return None


def _pool(server_pid: int, fork_server: int | None) -> list[int]:
    return [pid for pid in _children(server_pid) if pid != fork_server]


async def login_asyncssh(port: int, number: int, kex: str | None, host_key_alg: str | None,
                         timeout: float) -> tuple[float, int]:
    """Log in, wait for the title, quit; the seconds to the title, and the chunks of output
    received (one an SSH data packet)."""
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519")
    options: dict[str, Any] = {}
    if kex:
        options["kex_algs"] = [kex]
    if host_key_alg:
        options["server_host_key_algs"] = [host_key_alg]
    screen = Screen()
    t0 = time.monotonic()
    async with asyncssh.connect(HOST, port, username=f"cpu{number}", client_keys=[key],
                                known_hosts=None, agent_path=None, preferred_auth="publickey",
                                **options) as conn:
        chan = await open_terminal(conn, screen, (100, 30))
        await screen.wait(TITLE, timeout=timeout)
        title = time.monotonic() - t0
        chan.write(b"q")
        await asyncio.wait_for(chan.wait_closed(), timeout)
    return title, screen.chunks


async def login_openssh(port: int, number: int, key_file: Path,
                        timeout: float) -> tuple[float, int]:
    """The same with OpenSSH's ``ssh -tt`` on a PTY of its own (100x30)."""
    from casino_tui.serve.pty_session import set_winsize

    master, slave = os.openpty()
    set_winsize(slave, 100, 30)
    screen = Screen()
    t0 = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        "ssh", "-tt", "-p", str(port), "-i", str(key_file), "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
        "-o", "IdentitiesOnly=yes", f"cpu{number}@{HOST}",
        stdin=slave, stdout=slave, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "TERM": "xterm-256color"})
    os.close(slave)
    os.set_blocking(master, False)
    loop = asyncio.get_running_loop()

    def read() -> None:
        with contextlib.suppress(BlockingIOError):
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: ssh has ended
                data = b""
            if data:
                screen.feed(data)
            else:
                loop.remove_reader(master)

    loop.add_reader(master, read)
    try:
        await screen.wait(TITLE, timeout=timeout)
        title = time.monotonic() - t0
        os.write(master, b"q")
        await asyncio.wait_for(proc.wait(), timeout)
    finally:
        loop.remove_reader(master)
        os.close(master)
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return title, screen.chunks


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="casino-logincpu-") as tmp:
        work = Path(tmp)
        server = LoopbackServer(work, max_sessions=args.logins + 5)
        port = await server.start()
        try:
            fork = await _fork_server(server.pid)
            # let the fork server warm up and the server settle
            await asyncio.sleep(args.settle)
            key_file = work / "id_ed25519"
            if args.openssh:
                import asyncssh

                asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(key_file))
                key_file.chmod(0o600)
            pool = _pool(server.pid, fork)
            before = {
                "server": process_cpu(server.pid),
                "server_ns": threads_ns(server.pid),
                "fork_server": process_cpu(fork) if fork else 0.0,
                "fork_server_ns": threads_ns(fork) if fork else 0,
                "games": reaped_cpu(fork) if fork else 0.0,
                "pool": sum(process_cpu(p) for p in pool),
                "client": time.process_time(),
                "client_children": _own_children_cpu(),
            }
            titles = []
            chunks = 0
            for number in range(args.logins):
                if args.openssh:
                    title, received = await login_openssh(port, number, key_file, args.timeout)
                else:
                    title, received = await login_asyncssh(port, number, args.kex,
                                                           args.host_key_alg, args.timeout)
                titles.append(title)
                chunks += received
                await asyncio.sleep(args.gap)
            await asyncio.sleep(0.5)  # the last game reaped
            n = args.logins
            after_games = reaped_cpu(fork) if fork else 0.0
            figures = {
                "logins": n,
                "load_average": os.getloadavg()[0],
                "title_s_median": round(statistics.median(titles), 3),
                "output_chunks": round(chunks / n, 1),
                "server_ms": round((process_cpu(server.pid) - before["server"]) / n * 1000, 2),
                "server_threads_ms": round((threads_ns(server.pid) - before["server_ns"])
                                           / n / 1e6, 2),
                "fork_server_ms": round(((threads_ns(fork) if fork else 0)
                                         - before["fork_server_ns"]) / n / 1e6, 2),
                "games_ms": round((after_games - before["games"]) / n * 1000, 2),
                "pool_ms": round((sum(process_cpu(p) for p in pool) - before["pool"])
                                 / n * 1000, 2),
                "client_ms": round(((time.process_time() - before["client"])
                                    + (_own_children_cpu() - before["client_children"]))
                                   / n * 1000, 2),
            }
            return figures
        finally:
            await server.stop()


def _own_children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.logincpu",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--logins", type=int, default=20)
    parser.add_argument("--kex", help="the key exchange the asyncssh client asks for")
    parser.add_argument("--host-key-alg", help="the host-key algorithm the client asks for")
    parser.add_argument("--openssh", action="store_true", help="log in with OpenSSH's ssh")
    parser.add_argument("--gap", type=float, default=0.3, help="seconds between two logins")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds to wait after the server starts")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--json", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    figures = asyncio.run(measure(args))
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
