"""Where a move's time goes at the server's tables, from a trace of the load tool
(``python -m benchmarks.load --tables 50 --players 2 --pace 2 --trace FILE``, then
``python -m benchmarks.tracetables FILE``).

Every process on a move's way appends its steps to FILE (:mod:`casino_tui.table.trace`), with
one clock for the whole machine. Each move the load tool saw on the other player's screen is
followed through them:

=============  ==============================================================================
input          the tool sends Enter -> the mover's app takes the key (SSH, the server, the PTY,
               the app's event loop)
a_prep         the key -> the move sent on the table channel (the app's own drawing first)
to_server      sent -> the server's table channel takes the call
hub            the call -> the hub has played it (the controller, the save queued)
push           played -> the server has written the event to the other player's channel
to_b           written -> the other player's app has read it
b_wait         read -> the other app's screen takes the update (its event loop busy)
b_take         taking the update (the screen prepares every widget's new text)
b_draw         taken -> the frame drawn (Textual's next refresh: compositor, the lines written)
output         drawn -> the tool sees the move on that screen (the PTY, the server, SSH)
=============  ==============================================================================

It prints each step's median, p95 and p99 over all moves, and the mean of each step over the
slowest 5% of moves (what the tail is made of); for the steps inside one app (``a_prep``,
``b_take``, ``b_draw``) also the CPU that app's process used meanwhile (``..._cpu``): wall time
well above it is time the process waited for a core.
"""

from __future__ import annotations

import argparse
import bisect
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

STEPS = ("input", "a_prep", "to_server", "hub", "push", "to_b", "b_wait", "b_take", "b_draw",
         "output")


class _Times:
    """One kind of step of one person: its times in order, with their lines."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.times: list[float] = []

    def add(self, line: dict[str, Any]) -> None:
        self.lines.append(line)

    def sort(self) -> None:
        self.lines.sort(key=lambda x: x["t"])
        self.times = [x["t"] for x in self.lines]

    def before(self, t: float) -> dict[str, Any] | None:
        """The last step at or before ``t``."""
        i = bisect.bisect_right(self.times, t)
        return self.lines[i - 1] if i else None

    def after(self, t: float, ok: Any = None) -> dict[str, Any] | None:
        """The first step at or after ``t`` (that ``ok`` accepts)."""
        for line in self.lines[bisect.bisect_left(self.times, t):]:
            if ok is None or ok(line):
                return line
        return None


def moves(lines: Sequence[dict[str, Any]]) -> list[dict[str, float]]:
    """Each move seen on another screen, as the duration of each step (seconds)."""
    by: dict[tuple[str, str], _Times] = defaultdict(_Times)
    pushed: dict[str, _Times] = defaultdict(_Times)  # by the person it went to
    for line in lines:
        stage = line["stage"]
        if stage == "server-pushed":
            pushed[line["to"]].add(line)
        else:
            by[(stage, line.get("who", ""))].add(line)
    for times in (*by.values(), *pushed.values()):
        times.sort()
    out = []
    for seen in by_stage(by, "tool-seen"):
        mover, other = seen["who"], seen["to"]
        t_sent, arrived = seen["sent"], seen["arrived"]
        key = by[("key", mover)].after(t_sent)
        if key is None:
            continue
        answer = by[("answer", mover)].after(key["t"])
        send = by[("send", mover)].after(key["t"])
        if answer is None or send is None:
            continue
        n = answer["n"]
        played = by[("server-played", mover)].after(send["t"], lambda x, n=n: x["n"] == n)
        call = by[("server-call", mover)].before(played["t"]) if played else None
        push = pushed[other].after(played["t"], lambda x, n=n: x["n"] <= n <= x["upto"]) \
            if played else None
        recv = by[("recv", other)].after(send["t"], lambda x, n=n: x["n"] == n)
        take = by[("take", other)].after(recv["t"], lambda x, n=n: x["n"] <= n) \
            if recv else None
        taken = by[("taken", other)].after(take["t"]) if take else None
        drawn = by[("drawn", other)].after(taken["t"]) if taken else None
        if None in (played, call, push, recv, take, taken, drawn):
            continue
        assert played and call and push and recv and take and taken and drawn
        if key["t"] > arrived or drawn["t"] > arrived + 0.001:
            continue  # not this move's steps (the round ended meanwhile)
        out.append({
            "input": key["t"] - t_sent, "a_prep": send["t"] - key["t"],
            "to_server": call["t"] - send["t"], "hub": played["t"] - call["t"],
            "push": push["t"] - played["t"], "to_b": recv["t"] - push["t"],
            "b_wait": take["t"] - recv["t"], "b_take": taken["t"] - take["t"],
            "b_draw": drawn["t"] - taken["t"], "output": arrived - drawn["t"],
            "total": arrived - t_sent,
            # CPU the processes used meanwhile (all their threads)
            "a_prep_cpu": send.get("cpu", 0.0) - key.get("cpu", 0.0),
            "b_take_cpu": taken.get("cpu", 0.0) - take.get("cpu", 0.0),
            "b_draw_cpu": drawn.get("cpu", 0.0) - taken.get("cpu", 0.0),
        })
    return out


def by_stage(by: dict[tuple[str, str], _Times], stage: str) -> list[dict[str, Any]]:
    return [line for (s, _), times in by.items() if s == stage for line in times.lines]


def _q(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def report(found: list[dict[str, float]], seen: int) -> dict[str, Any]:
    totals = [m["total"] for m in found]
    cut = _q(totals, 0.95)
    tail = [m for m in found if m["total"] >= cut]
    rows = {}
    for step in (*STEPS, "total", "a_prep_cpu", "b_take_cpu", "b_draw_cpu"):
        values = [m[step] for m in found]
        rows[step] = {"p50_ms": round(statistics.median(values) * 1000, 1),
                      "p95_ms": round(_q(values, 0.95) * 1000, 1),
                      "p99_ms": round(_q(values, 0.99) * 1000, 1),
                      "tail_mean_ms": round(statistics.fmean(m[step] for m in tail) * 1000, 1)}
    return {"moves_seen": seen, "moves_followed": len(found), "tail_moves": len(tail),
            "steps": rows}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tracetables",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", type=Path, help="the file given to the load tool's --trace")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    lines = []
    for raw in args.trace.read_text().splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            continue
    seen = sum(1 for x in lines if x.get("stage") == "tool-seen")
    found = moves(lines)
    if not found:
        print(f"no move could be followed ({seen} seen by the tool)", file=sys.stderr)
        return 1
    figures = report(found, seen)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{figures['moves_followed']} of {seen} moves followed; the slowest 5%: "
          f"{figures['tail_moves']}")
    print(f"{'step':<10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'tail mean':>10}")
    for step, row in figures["steps"].items():
        print(f"{step:<10} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['p99_ms']:>8} "
              f"{row['tail_mean_ms']:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
