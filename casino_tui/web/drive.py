"""``casino-tui web`` driven from outside, as a person with a browser meets it: the command in
a process of its own, and the screen of a Playwright page. The benchmark
(:mod:`benchmarks.web`) and the browser tests use these.

The page draws the terminal on a canvas, so its screen is read from the page's own websocket:
every binary frame the browser receives is fed to a terminal emulator (pyte, from the test
extra; imported when a page is watched). Linux only (processes are found in ``/proc``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
LINK = re.compile(r"(http://127\.0\.0\.1:\d+/link/[A-Za-z0-9_-]+)")
TITLE = "fishing card game"
POLL_MS = 50  # how often PageScreen.wait_for looks at the screen (milliseconds)


def chromium_missing() -> str | None:
    """Why a browser cannot be driven here, or None."""
    if CHROMIUM is None:
        return ("no Chromium on PATH (Debian package 'chromium'; .ci/run installs it): the "
                "browser tests need it")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    return None


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z" and int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


class WebCommand:
    """``python -m casino_tui web --port 0 --data-dir DATA`` with its own settings folder
    (computers that move at once); ``link`` is the first one-time link it printed."""

    def __init__(self, data: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.data = data
        config = data / "config"
        config.mkdir(parents=True, exist_ok=True)
        if not (config / "settings.json").exists():
            (config / "settings.json").write_text(json.dumps({"speed": "instant"}))
        environment = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH",
                                                                     "TMPDIR")}
        environment.update(HOME=str(data), CASINO_TUI_CONFIG_DIR=str(config),
                           LANG="C.UTF-8", LC_ALL="C.UTF-8")
        environment.update(env or {})
        self.process = subprocess.Popen(
            [sys.executable, "-m", "casino_tui", "web", "--port", "0", "--data-dir", str(data),
             *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=environment, text=True, bufsize=1)
        self.output: list[str] = []
        self.link = self._next_link()
        self.base_url = self.link.split("/link/", 1)[0]

    def _next_link(self) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                err = self.process.stderr.read() if self.process.stderr else ""
                raise RuntimeError(f"casino-tui web ended: {''.join(self.output)}{err}")
            self.output.append(line)
            found = LINK.search(line)
            if found:
                return found.group(1)
        raise RuntimeError(f"no link printed: {''.join(self.output)}")

    def new_link(self) -> str:
        """Press Enter in its terminal: the new link it prints."""
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        return self._next_link()

    def app_processes(self) -> list[int]:
        """The game processes it runs (its children: one per browser session)."""
        return _children(self.process.pid)

    def session_processes(self) -> list[int]:
        """Its game processes and their children (each session's computer players)."""
        apps = self.app_processes()
        return apps + [c for pid in apps for c in _children(pid)]

    def wait_idle(self, timeout: float = 30) -> None:
        """Until no game process runs (a closed page's app has saved and ended), and a
        moment for the machine to settle."""
        deadline = time.monotonic() + timeout
        while self.app_processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)

    def stop(self) -> int:
        """SIGTERM (as Ctrl+C would): every game is stopped and saved; its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(30)
        finally:
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


class PageScreen:
    """The terminal screen of a Playwright page, rebuilt from the frames its websocket
    receives (a new websocket, after a reload, starts a new screen). With ``watch``,
    ``seen_at`` is the number of frames received when that text first appeared."""

    def __init__(self, page: Any, watch: str | None = None) -> None:
        import pyte

        self._pyte = pyte
        self.page = page
        self.screen: Any = None
        self.sockets: list[str] = []  # the URLs of the websockets the page opened
        self.closed = 0  # websockets that closed
        self.frames = 0
        self.last_frame = 0.0  # time.monotonic() of the latest frame
        self.watch = watch
        self.seen_at: int | None = None
        self._text: tuple[Any, int, str] | None = None  # (screen, frames, its text) of text()
        page.on("websocket", self._on_websocket)

    def _on_websocket(self, ws: Any) -> None:
        self.sockets.append(ws.url)
        size = re.search(r"width=(\d+)&height=(\d+)", ws.url)
        width, height = (int(size.group(1)), int(size.group(2))) if size else (80, 24)
        screen = self._pyte.Screen(width, height)
        stream = self._pyte.ByteStream(screen)
        self.screen = screen

        def received(payload: str | bytes) -> None:
            if isinstance(payload, bytes) and self.screen is screen:
                stream.feed(payload)
                self.frames += 1
                self.last_frame = time.monotonic()
                if self.watch is not None and self.seen_at is None and \
                        self.watch in self.text():
                    self.seen_at = self.frames

        def closed(_: Any) -> None:
            self.closed += 1

        ws.on("framereceived", received)
        ws.on("close", closed)

    def text(self) -> str:
        """The screen as text: made again only after a new frame (about 2 ms of CPU for a
        111x33 screen, and the waits ask for it every poll)."""
        screen = self.screen
        if screen is None:
            return ""
        cached = self._text
        if cached is not None and cached[0] is screen and cached[1] == self.frames:
            return cached[2]
        text = "\n".join(line.rstrip() for line in screen.display)
        self._text = (screen, self.frames, text)
        return text

    def wait_for(self, predicate: Callable[[], object], timeout: float = 15,
                 what: str = "the screen") -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.text()}")
            # Lets Playwright deliver the frames. Every poll is a round trip to Playwright's
            # driver: every 20 ms, waiting cost 12% of a core (0.6 CPU-s in 5 s), every 50 ms
            # about half of that, and a frame is still seen within 50 ms.
            self.page.wait_for_timeout(POLL_MS)

    def wait_for_text(self, text: str, timeout: float = 15) -> None:
        self.wait_for(lambda: text in self.text(), timeout, repr(text))
