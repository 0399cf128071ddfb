"""The CPU each test of the suite costs, its child processes' included (a pytest plugin), and a
report of the figures.

Run the suite with the plugin, then read the report:

    SUITECPU_OUT=/tmp/cpu.jsonl .venv/bin/python -m pytest -n auto --dist worksteal \\
        -p benchmarks.suitecpu
    python -m benchmarks.suitecpu /tmp/cpu.jsonl --top 40 [--durations tests/durations.json]

Each test process (each pytest-xdist worker, or pytest itself with ``-n 0``) moves itself into
a ``cpuacct`` cgroup of its own (cgroup v1, ``/sys/fs/cgroup/cpuacct``: needs root), so that
everything it starts is counted with it, even what leaves its process tree: a server and its
games, tmux's server, PostgreSQL, Chromium. Per test (its setup, call and teardown) the cgroup's
CPU is read before and after: a module-scoped fixture counts with the first test of the module
that uses it on that worker. Where no cgroup can be made the process's own CPU and that of the
children it has waited for are counted instead (``getrusage``; what daemonizes is missed),
and the file says so (``"how": "rusage"``).

Each line of the file is a JSON object: ``id`` (the test's node id), ``cpu`` and ``wall``
(seconds), ``start`` (seconds since the epoch), ``worker`` (its pid) and ``how``; one line
per process has ``id`` ``"__process__"``, the process's whole CPU (from its start: importing
and collecting too) and its peak resident memory (``maxrss_mib``, the process alone).
Measurement only: with the variable unset the plugin does nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

OUT_ENV = "SUITECPU_OUT"
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
DURATION_FLOOR = 0.5  # seconds: shorter tests are left out of tests/durations.json


class _Meter:
    """The CPU of this process and of everything it starts (seconds)."""

    def __init__(self) -> None:
        self.group: Path | None = None
        group = CPUACCT / f"suitecpu_{os.getpid()}"
        try:
            group.mkdir(exist_ok=True)
            (group / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            return
        self.group = group

    @property
    def how(self) -> str:
        return "cgroup" if self.group is not None else "rusage"

    def cpu(self) -> float:
        if self.group is not None:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        total = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            usage = resource.getrusage(who)
            total += usage.ru_utime + usage.ru_stime
        return total

    def close(self) -> None:
        """Leave the cgroup (to the root) and remove it once nothing is left in it."""
        if self.group is None:
            return
        try:
            (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            return
        for _ in range(40):  # a server or PostgreSQL still on its way out: a moment more
            try:
                self.group.rmdir()
                return
            except OSError:
                time.sleep(0.05)
        # a process the tests left behind: the empty cgroup stays (rmdir it later), harmless


_meter: _Meter | None = None
_out: Path | None = None


def _write(record: dict[str, Any]) -> None:
    assert _out is not None
    with _out.open("a") as f:  # one short line per write: lines of workers never interleave
        f.write(json.dumps(record) + "\n")


def pytest_configure(config: Any) -> None:
    global _meter, _out
    out = os.environ.get(OUT_ENV)
    if not out:
        return
    numprocesses = getattr(config.option, "numprocesses", None) or 0
    if not hasattr(config, "workerinput") and numprocesses:
        return  # pytest-xdist's controller: its workers measure
    _out = Path(out)
    _meter = _Meter()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Generator[None, object, object]:
    if _meter is None:
        return (yield)
    cpu0, wall0, start = _meter.cpu(), time.monotonic(), time.time()
    try:
        return (yield)
    finally:
        _write({"id": item.nodeid, "cpu": round(_meter.cpu() - cpu0, 4),
                "wall": round(time.monotonic() - wall0, 4), "start": round(start, 3),
                "worker": os.getpid(), "how": _meter.how})


def pytest_unconfigure(config: Any) -> None:
    global _meter
    if _meter is None:
        return
    _write({"id": "__process__", "cpu": round(_meter.cpu(), 4), "wall": 0.0,
            "start": round(time.time(), 3), "worker": os.getpid(), "how": _meter.how,
            "maxrss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)})
    _meter.close()
    _meter = None


# ---------------------------------------------------------------------- the report
def report(path: Path, top: int) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    processes = [r for r in rows if r["id"] == "__process__"]
    tests = [r for r in rows if r["id"] != "__process__"]
    lines = [f"{len(tests)} tests, {sum(r['cpu'] for r in tests):.1f} CPU-s in the tests; "
             f"{len(processes)} test processes, {sum(r['cpu'] for r in processes):.1f} CPU-s "
             "in all (" + ", ".join(f"{r['cpu']:.1f}" for r in processes) + "), peak memory "
             + ", ".join(f"{r.get('maxrss_mib', '?')}" for r in processes) + " MiB"]
    if tests:
        first = min(r["start"] for r in tests)
        last = max(r["start"] + r["wall"] for r in tests)
        lines.append(f"from the first test's start to the last one's end: {last - first:.1f} s")
        ends: dict[int, float] = collections.defaultdict(float)
        for r in tests:
            ends[r["worker"]] = max(ends[r["worker"]], r["start"] + r["wall"] - first)
        lines.append("each worker's last test ended at: "
                     + ", ".join(f"{v:.1f}" for v in sorted(ends.values())) + " s")
    per_file: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for r in tests:
        entry = per_file[r["id"].split("::")[0]]
        entry[0] += r["cpu"]
        entry[1] += r["wall"]
        entry[2] += 1
    lines.append("\nper module: CPU-s, wall s, tests")
    for name, (cpu, wall, n) in sorted(per_file.items(), key=lambda kv: -kv[1][0])[:top]:
        lines.append(f"{cpu:7.1f} {wall:7.1f} {int(n):4d}  {name}")
    lines.append("\nper test: CPU-s, wall s, started (s after the first)")
    first = min((r["start"] for r in tests), default=0.0)
    for r in sorted(tests, key=lambda r: -r["cpu"])[:top]:
        lines.append(f"{r['cpu']:6.2f} {r['wall']:6.2f} {r['start'] - first:6.1f}  {r['id']}")
    lines.append("\nthe last tests to end: wall s, ended (s after the first start)")
    for r in sorted(tests, key=lambda r: -(r["start"] + r["wall"]))[:10]:
        lines.append(f"{r['wall']:6.2f} {r['start'] + r['wall'] - first:6.1f}  {r['id']}")
    return "\n".join(lines)


def durations(path: Path, least: float = DURATION_FLOOR) -> dict[str, float]:
    """The wall time of each test of the run that took ``least`` seconds or more (the suite's
    order: ``tests/durations.json``, read by ``tests/conftest.py``), by node id; rounded to
    tenths, sorted by id so that a new measurement changes only the lines it must."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["id"]: round(r["wall"], 1) for r in sorted(rows, key=lambda r: r["id"])
            if r["id"] != "__process__" and r["wall"] >= least}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path, help=f"the file the plugin wrote (${OUT_ENV})")
    parser.add_argument("--top", type=int, default=40, help="rows per table (default 40)")
    parser.add_argument("--durations", type=Path, metavar="JSON",
                        help="also write the wall time of every test of "
                             f"{DURATION_FLOOR} s or more to JSON (tests/durations.json: the "
                             "order in which the suite starts its tests)")
    args = parser.parse_args(argv)
    print(report(args.file, args.top))
    if args.durations is not None:
        found = durations(args.file)
        args.durations.write_text(json.dumps(found, indent=0, ensure_ascii=False) + "\n")
        print(f"\n{len(found)} tests of {DURATION_FLOOR} s or more written to {args.durations}")


if __name__ == "__main__":
    main()
