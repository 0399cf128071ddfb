"""What a key's frames draw: ``python -m benchmarks.framecount [--keys play] [--turns 10]``.

The game plays as :mod:`benchmarks.keycpu` plays it (a solo game on a pseudo-terminal of
100x30, Right, Left, Right and Enter at each turn), under :mod:`benchmarks.framecounted`,
which counts, for each key of the kind chosen (``play``: Enter, from the key to the player's
next turn on the screen, the computer's answer included; ``right``; ``left``): the frames
Textual drew (whole screen or a part), the regions marked, the spans and cells written and how
many of those cells changed on the screen, the layouts, and per widget the compositor's asks
for its lines, the lines Textual styled and those the game's widgets gave (kept or made around
their content). It prints the medians per key and the sums per widget. Counts, not times: the
counting costs CPU of its own. A measuring tool, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from typing import Any

from . import keycpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.framecount",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--keys", choices=("play", "right", "left"), default="play")
    parser.add_argument("--turns", type=int, default=10, help="the player's turns")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--size", default="100x30", metavar="WxH")
    parser.add_argument("--json", action="store_true", help="print every record as JSON")
    args = parser.parse_args(argv)
    w, h = (int(x) for x in args.size.lower().split("x"))
    fd, output = tempfile.mkstemp(prefix="casino-framecount-", suffix=".jsonl")
    os.close(fd)
    wrapper, keycpu.WRAPPER = keycpu.WRAPPER, "benchmarks.framecounted"
    try:
        keycpu.play(args.turns, (w, h), args.seed, None, output, args.keys)
        with open(output, encoding="utf-8") as lines:
            records: list[dict[str, Any]] = [json.loads(line) for line in lines]
    finally:
        keycpu.WRAPPER = wrapper
        os.remove(output)
    if args.json:
        for rec in records:
            print(json.dumps(rec))
        return 0
    if not records:
        print("no keys counted")
        return 1

    def med(values: list[float]) -> float:
        return statistics.median(values) if values else 0.0

    frames = [f for rec in records for f in rec["frames"]]
    print(f"{len(records)} keys ({args.keys}), {len(frames)} frames, {w}x{h}; per key, median:")
    rows = [
        ("frames", [len(r["frames"]) for r in records]),
        ("  of them the whole screen", [sum(f["full"] for f in r["frames"]) for r in records]),
        ("layouts (Screen._refresh_layout)", [r["layouts"] for r in records]),
        ("reflows (Compositor.reflow)", [r["reflows"] for r in records]),
        ("regions marked", [sum(f["regions"] for f in r["frames"]) for r in records]),
        ("spans written", [sum(f["spans"] for f in r["frames"]) for r in records]),
        ("cells written", [sum(f["written"] for f in r["frames"]) for r in records]),
        ("  of them changed", [sum(f["changed"] for f in r["frames"]) for r in records]),
        ("widgets asked for lines", [sum(r["asked"].values()) for r in records]),
        ("lines Textual styled", [sum(r["styled"].values()) for r in records]),
        ("lines the game widgets gave", [sum(r["given"].values()) for r in records]),
    ]
    for label, values in rows:
        print(f"  {label:36} {med([float(v) for v in values]):8.1f}")
    written: Counter[str] = Counter()
    changed: Counter[str] = Counter()
    for f in frames:
        for name, (wr, ch) in f["per_widget"].items():
            written[name] += wr
            changed[name] += ch
    styled: Counter[str] = Counter()
    given: Counter[str] = Counter()
    for rec in records:
        styled.update(rec["styled"])
        given.update(rec["given"])
    n = len(records)
    print("per widget, per key on average: cells written / changed, lines Textual styled / "
          "lines given")
    for name in sorted(set(written) | set(styled) | set(given), key=lambda k: -written[k]):
        print(f"  {name:30} {written[name] / n:7.1f} {changed[name] / n:7.1f} "
              f"{styled[name] / n:6.1f} {given[name] / n:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
