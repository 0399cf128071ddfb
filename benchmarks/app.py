"""Benchmarks of the interface: ``python -m benchmarks.app``.

1. Time to the first interactive frame: ``casino-tui`` and a minimal Textual app are started
   alternately in a pseudo-terminal (80x24, TERM=xterm-256color), and the time from the spawn
   to the first screen showing their text is measured (median of several runs). Target: at most
   1.5 times the minimal app.
2. Key-to-screen latency on the game table: a game against a "hard" computer (which thinks in
   its worker process for about a second a move) runs headless; while the computer thinks, Left
   and Right are sent and the time from each key to the next frame written by the driver is
   measured. The same is measured while nobody thinks. Target: median under 25 ms.

It prints figures only; the tests never assert on timings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from collections.abc import Sequence
from fcntl import ioctl
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from textual import events

MINIMAL_APP = """
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("Hello from a minimal Textual app")

Minimal().run()
"""

ANSI = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)"
                  rb"|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def first_frame(argv: Sequence[str], marker: bytes, env: dict[str, str],
                timeout: float = 20.0) -> float:
    """Seconds from spawning ``argv`` in an 80x24 pty until ``marker`` appears on screen."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.execvpe(argv[0], list(argv), env)
    try:
        ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        buf = b""
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            if marker in ANSI.sub(b"", buf):
                return time.perf_counter() - start
        raise RuntimeError(f"{argv!r} showed no {marker!r} within {timeout} s")
    finally:
        _stop(pid, fd)


def _stop(pid: int, fd: int) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, b"\x11")  # Ctrl+Q
    deadline = time.perf_counter() + 3
    while time.perf_counter() < deadline:
        try:
            select.select([fd], [], [], 0.05)
            os.read(fd, 65536)
        except OSError:
            pass
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)


def bench_startup(runs: int) -> tuple[list[float], list[float]]:
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="")
    env.pop("NO_COLOR", None)
    env["CASINO_TUI_CONFIG_DIR"] = tempfile.mkdtemp(prefix="casino-bench-")
    ours = [sys.executable, "-m", "casino_tui"]
    minimal = [sys.executable, "-c", MINIMAL_APP]
    first_frame(ours, b"New game", env)  # warm the file cache and .pyc files once
    first_frame(minimal, b"Hello from", env)
    ours_t, minimal_t = [], []
    for _ in range(runs):
        ours_t.append(first_frame(ours, b"New game", env))
        minimal_t.append(first_frame(minimal, b"Hello from", env))
    return ours_t, minimal_t


async def bench_latency(samples: int, level: str) -> tuple[list[float], list[float]]:
    """Key-to-frame latencies (seconds) while the computer thinks, and while nobody does."""
    from casino_tui.app.app import CasinoApp
    from casino_tui.app.screens.game import GameScreen
    from casino_tui.settings import Settings
    from casino_tui.table import GameConfig, default_seats

    config = GameConfig(preset="classic", players=2, seats=default_seats(2, 1, level), seed=3)
    app = CasinoApp(config=config, settings=Settings(speed="fast"), save_settings_to_disk=False)
    thinking: list[float] = []
    idle: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        # A frame is ready when the app hands a compositor update to the display (headless
        # runs stop there; a terminal would then get the bytes).
        frames: list[float] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            if renderable is not None:
                frames.append(time.perf_counter())
            original(screen, renderable)

        app._display = display  # type: ignore[method-assign]
        await pilot.press("enter", "enter")
        keys = ["right", "left"]
        deadline = time.perf_counter() + 120
        while (len(thinking) < samples or len(idle) < samples // 2) and \
                time.perf_counter() < deadline:
            screen = app.screen
            if not isinstance(screen, GameScreen):
                await pilot.press("enter")  # round summary
                continue
            busy = screen._thinking is not None
            bucket = thinking if busy else idle
            if screen.awaiting_human and len(idle) >= samples // 2:
                # play (so the computer thinks again); a card with no move: take the next
                await pilot.press("enter" if screen.current_move is not None else "right")
                continue
            if not busy and not screen.awaiting_human:
                await asyncio.sleep(0.01)
                continue
            key = keys[len(bucket) % 2]
            before = len(frames)
            t0 = time.perf_counter()
            app.post_message(_key(key))
            while len(frames) == before and time.perf_counter() - t0 < 1:
                await asyncio.sleep(0.0005)
            if len(frames) > before and (screen._thinking is not None) == busy:
                bucket.append(frames[before] - t0)
            await asyncio.sleep(0.03)
        app._display = original  # type: ignore[method-assign]
        app.shutdown_chooser()
    return thinking, idle


def _key(key: str) -> events.Key:
    from textual import events

    return events.Key(key, None)


def _ms(values: list[float]) -> str:
    if not values:
        return "no samples"
    ms = sorted(v * 1000 for v in values)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    return (f"median {statistics.median(ms):6.1f} ms   p90 {p90:6.1f} ms   "
            f"max {ms[-1]:6.1f} ms   (n={len(ms)})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.app",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7, help="start-ups of each app (default 7)")
    parser.add_argument("--samples", type=int, default=60,
                        help="key presses measured while the computer thinks (default 60)")
    parser.add_argument("--level", default="hard", help="the computer's level (default hard)")
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args(argv)
    if not args.skip_startup:
        ours, minimal = bench_startup(args.runs)
        m_ours, m_min = statistics.median(ours), statistics.median(minimal)
        print("Time to first interactive frame (pty 80x24, median of "
              f"{args.runs}):")
        print(f"  casino-tui          {m_ours * 1000:7.1f} ms   "
              f"(runs: {', '.join(f'{t * 1000:.0f}' for t in ours)})")
        print(f"  minimal Textual app {m_min * 1000:7.1f} ms   "
              f"(runs: {', '.join(f'{t * 1000:.0f}' for t in minimal)})")
        print(f"  ratio               {m_ours / m_min:7.2f}x   (target <= 1.5x)")
    if not args.skip_latency:
        thinking, idle = asyncio.run(bench_latency(args.samples, args.level))
        print(f"Key-to-screen latency on the game table ({args.level} computer, "
              "Left/Right on the hand):")
        print(f"  while the computer thinks  {_ms(thinking)}   (target: median < 25 ms)")
        print(f"  while nobody thinks        {_ms(idle)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
