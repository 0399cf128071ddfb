"""The server's CPU per byte it sends a player: ``python -m benchmarks.sshbytes [--kb 4000]``.

Under ``casino-tui serve`` one process holds every player's SSH connection: each byte a game
draws is read from its pseudo-terminal, written to the player's channel and encrypted there
(asyncssh, the server's ciphers: ``casino_tui.serve.server.CIPHERS``). This starts a server of
the same kind (asyncssh with the same ciphers and options, a throwaway host key; in a process
of its own) and, for each size of write, has it send ``--kb`` kilobytes to an asyncssh client
on loopback (another process: AES-GCM as a real client negotiates it) as writes of that size,
each followed by ``drain()`` as the server's pump does (``PtySession._pump_output``), and
reads the server process's CPU time around that. The sizes are what a game's keys send: about
0.8 KB a Right, 5 KB a play (``python -m benchmarks.keybytes``), and 16 KB, the pump's largest
read. It prints the CPU microseconds per KB and per write, and a fit of the two (the cost of a
write of any size, and of each KB), which tells what fewer bytes save the server and what
fewer, larger writes would. A measuring tool, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import asyncssh

from casino_tui.serve.server import CIPHERS

SIZES = (256, 800, 5200, 16384)


class _Server(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return False  # no authentication: loopback, a throwaway server


async def _send(process: asyncssh.SSHServerProcess[bytes]) -> None:
    """Read ``SIZE KB`` lines; for each, send KB kilobytes in writes of SIZE bytes, then the
    CPU seconds that took as a line on stderr."""
    try:
        while True:
            line = await process.stdin.readline()
            if not line:
                break
            size, kb = (int(x) for x in line.split())
            chunk = b"x" * size
            writes = max(1, kb * 1024 // size)
            cpu = time.process_time()
            for _ in range(writes):
                process.stdout.write(chunk)
                await process.stdout.drain()
            process.stderr.write(f"{time.process_time() - cpu:.6f} {writes}\n".encode())
            await process.stderr.drain()
    finally:
        process.exit(0)


async def _serve(port_file: str) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    acceptor = await asyncssh.create_server(
        _Server, "127.0.0.1", 0, server_host_keys=[key], process_factory=_send,
        encoding=None, line_editor=False, allow_pty=True, encryption_algs=list(CIPHERS))
    port = acceptor.sockets[0].getsockname()[1]
    Path(port_file).write_text(str(port))
    await asyncio.sleep(3600)


async def _measure(port: int, sizes: Sequence[int], kb: int, rounds: int
                   ) -> dict[int, list[tuple[float, int]]]:
    results: dict[int, list[tuple[float, int]]] = {size: [] for size in sizes}
    async with asyncssh.connect("127.0.0.1", port, known_hosts=None, username="bench",
                                client_keys=None, password=None) as conn:
        process = await conn.create_process(encoding=None, term_type="xterm-256color",
                                            term_size=(100, 30))
        for _ in range(rounds):
            for size in sizes:
                process.stdin.write(f"{size} {kb}\n".encode())
                want = max(1, kb * 1024 // size) * size
                got = 0
                while got < want:
                    got += len(await process.stdout.read(65536))
                cpu, writes = (await process.stderr.readline()).split()
                results[size].append((float(cpu), int(writes)))
        process.stdin.write_eof()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sshbytes",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--kb", type=int, default=4000, help="KB sent per size and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serve", metavar="PORT_FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        asyncio.run(_serve(args.serve))
        return 0
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        port_file = os.path.join(tmp, "port")
        server = subprocess.Popen([sys.executable, "-m", "benchmarks.sshbytes", "--serve",
                                   port_file])
        try:
            deadline = time.monotonic() + 30
            path = Path(port_file)
            while not path.exists() or not path.read_text():
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.05)
            port = int(path.read_text())
            load = os.getloadavg()
            results = asyncio.run(_measure(port, SIZES, args.kb, args.rounds))
        finally:
            server.terminate()
            server.wait(10)
    print(f"The server's CPU sending {args.kb} KB as writes of each size ({args.rounds} rounds, "
          f"ciphers {CIPHERS[0]} first; load average {load[0]:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after):")
    points = []
    for size, values in results.items():
        per_kb = statistics.median(cpu / (writes * size / 1024) * 1e6 for cpu, writes in values)
        per_write = statistics.median(cpu / writes * 1e6 for cpu, writes in values)
        points.append((size, per_write))
        print(f"  writes of {size:6} B: {per_kb:6.1f} us per KB, {per_write:7.1f} us per write")
    # per write = fixed + size * per_byte (least squares)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs)
    print(f"  fit: {my - slope * mx:.1f} us per write + {slope * 1024:.1f} us per KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
