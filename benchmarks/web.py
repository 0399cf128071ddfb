"""Benchmark of the game in a browser: ``python -m benchmarks.web``.

Runs ``casino-tui web`` (port 0, a fresh data directory, computers that move at once) and
drives Debian's Chromium through Playwright (``executable_path``; the test extra installs
Playwright and pyte). It prints JSON:

- ``first_frame_ms``: from the start of the page's navigation (the one-time link, its redirect,
  the page, its script, the websocket, the app's start) to the paint after the frame that
  completes the title screen, measured in the page (``performance.now()``, a
  ``requestAnimationFrame`` after the websocket message). Median (and each) of ``--opens``
  fresh browser profiles, each opened once the previous page's app has ended (a reload, whose
  new app waits for the old one to save and end, takes longer). Target: within 1.5 s.
  ``websocket_open_ms``: the same start to the page's websocket opening (the page and its
  script; the rest is the app's start up to its first complete frame).
- ``key_to_screen_ms``: on the game table, ``--keys`` arrow keys (Right and Left in turn, a
  pause between them) pressed in the page; each from the moment the page sends the key on its
  websocket to the paint after the first frame that follows it. Median and p95. Target: median
  under 50 ms.
- ``session_pss_mib`` / ``session_rss_mib``: the memory of one browser session's processes (the
  app and its computer players' worker) with the game on screen (``/proc/PID/smaps_rollup``).

The screen is read through pyte from the frames the page's websocket receives, to know when the
title and the table are there. It prints figures only; the tests never assert on timings.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from casino_tui.web.drive import CHROMIUM, TITLE, PageScreen, WebCommand, chromium_missing

VIEWPORT = {"width": 1000, "height": 640}

# Runs in the page before its own script: every message of the game's websocket and every key
# it sends, timed with performance.now() (from the navigation's start); a received frame's
# paint is the requestAnimationFrame after it.
PAGE_HOOK = """
(() => {
  const bench = window.__bench = {sent: [], frames: [], opened: null};
  const Native = window.WebSocket;
  function Timed(url, protocols) {
    const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    ws.addEventListener("open", () => { bench.opened = performance.now(); });
    const send = ws.send.bind(ws);
    ws.send = (data) => {
      if (typeof data === "string" && data.startsWith('["stdin"')) {
        bench.sent.push(performance.now());
      }
      return send(data);
    };
    ws.addEventListener("message", (event) => {
      if (typeof event.data !== "string") {
        const entry = [performance.now(), null];
        bench.frames.push(entry);
        requestAnimationFrame(() => { entry[1] = performance.now(); });
      }
    });
    return ws;
  }
  Timed.prototype = Native.prototype;
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) { Timed[k] = Native[k]; }
  window.WebSocket = Timed;
})();
"""


def _memory_kib(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def first_frame(browser: Any, server: WebCommand, link: str) -> tuple[float, float]:
    """Milliseconds from the navigation's start to the paint of the complete title screen,
    and to the websocket's opening (the rest is the app's start and first frame)."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.add_init_script(PAGE_HOOK)
        screen = PageScreen(page, watch=TITLE)
        page.goto(link)
        screen.wait_for(lambda: screen.seen_at is not None, timeout=30)
        index = screen.seen_at
        assert index is not None
        page.wait_for_function(f"window.__bench.frames.length >= {index} && "
                               f"window.__bench.frames[{index - 1}][1] !== null")
        painted: float = page.evaluate(f"window.__bench.frames[{index - 1}][1]")
        opened: float = page.evaluate("window.__bench.opened")
        return painted, opened
    finally:
        context.close()


def key_to_screen(browser: Any, server: WebCommand, link: str, keys: int,
                  pause: float) -> tuple[list[float], float, float]:
    """Per key, milliseconds from the key leaving the page to the paint of the next frame;
    and the session's PSS and RSS (MiB) with the game on screen."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.add_init_script(PAGE_HOOK)
        screen = PageScreen(page)
        page.goto(link)
        screen.wait_for_text(TITLE, timeout=30)
        page.keyboard.press("n")
        screen.wait_for_text("Preset", timeout=30)
        page.keyboard.press("Enter")
        screen.wait_for_text("Your turn", timeout=30)
        page.wait_for_timeout(1000)  # the table settled: its worker started, nothing pending
        pids = server.session_processes()
        pss = sum(_memory_kib(pid, "Pss") for pid in pids) / 1024
        rss = sum(_memory_kib(pid, "Rss") for pid in pids) / 1024
        latencies = []
        for i in range(keys):
            page.evaluate("window.__bench.sent = []; window.__bench.frames = []")
            page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            page.wait_for_function("window.__bench.sent.length > 0 && "
                                   "window.__bench.frames.some(f => f[1] !== null && "
                                   "f[0] >= window.__bench.sent[0])", timeout=10000)
            latency: float = page.evaluate(
                "(() => { const s = window.__bench.sent[0];"
                " const f = window.__bench.frames.find(f => f[0] >= s && f[1] !== null);"
                " return f[1] - s; })()")
            latencies.append(latency)
            page.wait_for_timeout(pause * 1000)
        return latencies, pss, rss
    finally:
        context.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.web",
                                     description=__doc__.split("\n\n", 1)[0] if __doc__ else "")
    parser.add_argument("--opens", type=int, default=5, help="page opens timed (default 5)")
    parser.add_argument("--keys", type=int, default=40, help="keys timed (default 40)")
    parser.add_argument("--pause", type=float, default=0.15,
                        help="seconds between two keys (default 0.15)")
    args = parser.parse_args(argv)
    missing = chromium_missing()
    if missing is not None:
        print(f"casino-tui web bench: {missing}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="casino-web-bench-") as tmp:
        server = WebCommand(Path(tmp) / "data")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM)
                try:
                    version = browser.version
                    first_frame(browser, server, server.link)  # warm-up (caches, imports)
                    opens = []
                    for _ in range(args.opens):
                        server.wait_idle()  # the previous page's app has ended
                        opens.append(first_frame(browser, server, server.new_link()))
                    server.wait_idle()
                    keys, pss, rss = key_to_screen(browser, server, server.new_link(),
                                                   args.keys, args.pause)
                finally:
                    browser.close()
        finally:
            try:
                server.stop()
            finally:
                server.kill()
    result = {
        "first_frame_ms": round(statistics.median(v for v, _ in opens), 1),
        "first_frame_ms_each": [round(v, 1) for v, _ in opens],
        "websocket_open_ms": round(statistics.median(w for _, w in opens), 1),
        "key_to_screen_ms": {"median": round(statistics.median(keys), 1),
                             "p95": round(_percentile(keys, 0.95), 1),
                             "max": round(max(keys), 1), "keys": len(keys)},
        "session_pss_mib": round(pss, 1),
        "session_rss_mib": round(rss, 1),
        "chromium": version,
        "cpus": os.cpu_count(),
        "load_average": [round(v, 2) for v in os.getloadavg()],
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
