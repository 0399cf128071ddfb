"""What a key makes the game send: ``python -m benchmarks.keybytes [--turns 12] [--forked]``.

Plays one game as :mod:`benchmarks.keycpu` does (the same keys, size, seed and terminal) and
keeps every byte the game writes to its terminal. For each kind of key it prints the bytes sent
(mean) and what they are: text (the characters drawn), styles (``ESC[...m``, and the resets
``ESC[0m`` apart), cursor moves (``ESC[...H``), newlines, other escape sequences, and the
number of reads the bytes came in (what a server's pump reads from the game's terminal and
writes to the player's channel, one write each: ``python -m benchmarks.sshbytes`` gives the
server's CPU per write and per KB). ``--screens FILE`` also writes the screen after each key as
a terminal shows it (pyte, if installed: the text of each line, then each cell's colours and
attributes, as JSON lines), for comparing two versions of the game key by key. A measuring
tool, not a test.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import select
import sys
import time
from collections.abc import Sequence
from typing import Any

from . import keycpu
from .loadkit import KEY_ENTER, TITLE, YOUR_TURN

CSI = re.compile(rb"\x1b\[([0-?]*)[ -/]*([@-~])")


class RecordingGame(keycpu.Game):
    """:class:`benchmarks.keycpu.Game` that keeps what the game writes, and the reads."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.raw = bytearray()
        self.reads = 0

    def read(self, quiet: float = keycpu.QUIET, timeout: float = 10.0,
             until: str | re.Pattern[str] | None = None) -> str:
        start = len(self.text)
        deadline = time.monotonic() + timeout
        last = time.monotonic()
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.02)
            if ready:
                try:
                    chunk = os.read(self.fd, 16384)  # as the server's pump reads
                except OSError:
                    break
                if not chunk:
                    break
                self.raw += chunk
                self.reads += 1
                self.written += len(chunk)
                self.text += keycpu.ESCAPES.sub("", chunk.decode("utf-8", "replace"))
                last = time.monotonic()
                continue
            seen = until is None or re.search(until, self.text[start:]) is not None
            if seen and time.monotonic() - last >= quiet:
                break
        return self.text[start:]


def kinds_of_bytes(data: bytes) -> collections.Counter[str]:
    """``data``'s bytes by what they are."""
    counts: collections.Counter[str] = collections.Counter()
    position = 0
    for match in CSI.finditer(data):
        counts["text"] += match.start() - position
        position = match.end()
        params, final = match.group(1), match.group(2)
        if final == b"m":
            kind = "resets" if params in (b"0", b"") else "styles"
        elif final == b"H":
            kind = "moves"
        else:
            kind = "other escapes"
        counts[kind] += len(match.group(0))
    counts["text"] += len(data) - position
    newlines = data.count(b"\n") + data.count(b"\r")
    counts["text"] -= newlines
    counts["newlines"] += newlines
    return counts


class Screens:
    """The game's terminal as pyte shows it, written to a file after each key."""

    def __init__(self, path: str, size: tuple[int, int]) -> None:
        import pyte

        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)
        self.file = open(path, "w")  # noqa: SIM115 (closed in close())

    def after(self, name: str, data: bytes) -> None:
        self.stream.feed(data)
        screen = self.screen
        cells = [[(c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.strikethrough,
                   c.reverse, c.blink) for c in (screen.buffer[y][x]
                                                 for x in range(screen.columns))]
                 for y in range(screen.lines)]
        self.file.write(json.dumps({"key": name, "text": screen.display, "cells": cells}) + "\n")

    def close(self) -> None:
        self.file.close()


def play(turns: int, size: tuple[int, int], seed: int, forked: bool,
         screens: Screens | None) -> dict[str, list[tuple[collections.Counter[str], int]]]:
    costs: dict[str, list[tuple[collections.Counter[str], int]]] = {
        "right": [], "left": [], "play": []}
    game = RecordingGame(size, seed, None, forked)

    def press(name: str, data: bytes, until: str | re.Pattern[str] | None = None) -> str:
        before, reads = len(game.raw), game.reads
        _, _, text = game.key(data, until=until)
        sent = bytes(game.raw[before:])
        if name in costs:
            costs[name].append((kinds_of_bytes(sent), game.reads - reads))
        if screens is not None:
            screens.after(name, sent)
        return text

    try:
        game.read(until=TITLE, timeout=30)
        if screens is not None:
            screens.after("start", bytes(game.raw))
        press("n", b"n", until="Preset")
        press("enter", KEY_ENTER, until=YOUR_TURN)
        keycpu.play_turns(press, turns)
    finally:
        game.close()
        if screens is not None:
            screens.close()
    return costs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.keybytes",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=12, help="the player's turns")
    parser.add_argument("--seed", type=int, default=7, help="the deal (default 7)")
    parser.add_argument("--size", default="100x30", metavar="WxH")
    parser.add_argument("--forked", action="store_true",
                        help="fork the game from a warm fork server, as serve does")
    parser.add_argument("--truecolor", action="store_true",
                        help="the game's terminal says it has truecolour (COLORTERM=truecolor)")
    parser.add_argument("--screens", metavar="FILE",
                        help="write the screen after each key (pyte) into FILE as JSON lines")
    args = parser.parse_args(argv)
    w, h = (int(x) for x in args.size.lower().split("x"))
    screens = Screens(args.screens, (w, h)) if args.screens else None
    if args.truecolor:
        RecordingGame.extra_env = {"COLORTERM": "truecolor"}
    costs = play(args.turns, (w, h), args.seed, args.forked, screens)
    print(f"Bytes the game sends per key (one {'forked ' if args.forked else ''}game of "
          f"{args.turns} turns, {w}x{h}, TERM=xterm-256color"
          f"{', COLORTERM=truecolor' if args.truecolor else ''}), mean per key:")
    for name, values in costs.items():
        if not values:
            continue
        total: collections.Counter[str] = collections.Counter()
        for counts, _reads in values:
            total.update(counts)
        n = len(values)
        parts = ", ".join(f"{kind} {total[kind] / n:.0f}" for kind in
                          ("text", "styles", "resets", "moves", "newlines", "other escapes"))
        reads = sum(r for _c, r in values) / n
        print(f"  {name:6} {sum(total.values()) / n:7.0f} B ({parts}); {reads:.1f} reads "
              f"(n={n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
