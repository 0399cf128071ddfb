"""Measure the server's one pool of computer players (issue 27, item 2). Two parts:

``memory``: the load tool's scripted SSH players (``benchmarks.load.play_sessions``), with
the server's pool (the default) and without it (``serve --computers 0``: every game starts its
own worker process and resource tracker, as before the pool), alternated in one run: processes
and PSS per session (each game's process group at the busiest moment), the server's own PSS
and that of its pool's processes.

``wait``: the pool itself, over its real channel (``ComputerService`` on a Unix socket, the
default pool size), with N busy sessions each asking for Hard moves without a pause (a
saturated pool: every request a four-player opening where Hard uses its whole second), while
a probe "solo player" asks for an Easy move every 0.25 s and a probe "table" for a Hard move
every second: the time from each probe's request to its answer, and the pool's own counters.

    python -m benchmarks.pool memory --sessions 10 --moves 6 --runs 2
    python -m benchmarks.pool wait --busy 0 4 16 64 --seconds 15

On a shared machine, run nothing else heavy meanwhile. Prints JSON lines.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import load, loadkit


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def percentile(values: list[float], q: float) -> float | None:
    return loadkit.percentile(values, q) if values else None


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


# ---------------------------------------------------------------------- memory
def pool_memory(server_pid: int) -> tuple[int, int]:
    """(processes, PSS KiB) of the server's children that are not games (its pool and the
    resource tracker)."""
    count = pss = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        st = loadkit._proc_stat(int(entry))
        if st is None:
            continue
        ppid, pgid = st
        if ppid == server_pid and pgid != int(entry):
            count += 1
            pss += loadkit._memory_kb(int(entry))[1]
    return count, pss


def make_server(computers: int | None, pool_peak: dict[str, int]) -> type:
    class Server(loadkit.LoopbackServer):
        async def start(self) -> int:
            argv = [sys.executable, "-m", "casino_tui", "serve", "--host", loadkit.HOST,
                    "--port", "0", "--data-dir", str(self.data_dir), "--max-sessions",
                    str(self.max_sessions), "--rate-limit", "0", "--idle-timeout", "0"]
            if computers is not None:
                argv += ["--computers", str(computers)]
            self._log_file = open(self.log_path, "wb")  # noqa: SIM115
            self._process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=self._log_file,
                stderr=self._log_file)
            port = await loadkit._wait_port(self.log_path, self._process, 30)
            self._sampler = asyncio.create_task(self._sample())
            return port

        async def _sample(self) -> None:
            inner = asyncio.create_task(loadkit.sample_memory(self.pid, self.peak))
            try:
                while True:
                    count, pss = await asyncio.to_thread(pool_memory, self.pid)
                    if pss > pool_peak.get("pss", 0):
                        pool_peak.update(processes=count, pss=pss)
                    await asyncio.sleep(1.0)
            finally:
                inner.cancel()

    return Server


async def memory_run(mode: str, sessions: int, moves: int) -> dict[str, Any]:
    pool_peak: dict[str, int] = {}
    server = make_server(0 if mode == "own" else None, pool_peak)
    load.LoopbackServer = server  # type: ignore[misc,assignment]
    before = load_average()
    work = Path(tempfile.mkdtemp(prefix="casino-tui-poolbench-"))
    done = await load.play_sessions(sessions, moves=moves, timeout=600, work=work)
    figures = load.session_figures(done, moves)
    per = list(done.peak.sessions.values())
    log = (work / "server.log").read_text(errors="replace")
    summary = [line.split("computer players: ", 1)[1] for line in log.splitlines()
               if "computer players: " in line and "answered" in line]
    shutil.rmtree(work, ignore_errors=True)
    return {
        "mode": "pool" if mode == "pool" else "own worker per game (--computers 0)",
        "sessions": sessions, "moves": moves,
        "finished": figures["sessions_finished"],
        "processes_per_session": statistics.mean(p[2] for p in per) if per else None,
        "pss_mib_per_session": figures["pss_mib_per_player"],
        "sessions_at_peak": figures["players_at_peak"],
        "server_pss_mib": round(done.peak.server_pss / 1024, 1),
        "server_children_not_games": pool_peak.get("processes", 0),
        "server_children_pss_mib": round(pool_peak.get("pss", 0) / 1024, 1),
        "key_to_screen_ms_p95": figures["key_to_screen_ms_p95"],
        "pool": summary[-1] if summary else None,
        "load_before": before, "load_after": load_average(),
    }


# ---------------------------------------------------------------------- wait
async def wait_run(busy: int, seconds: float) -> dict[str, Any]:
    from casino_tui.ai.pool import ComputerPool
    from casino_tui.engine import Rules, State
    from casino_tui.table.computers import ComputerClient, ComputerError, ComputerService
    from casino_tui.table.wire import Identity, new_secret

    work = Path(tempfile.mkdtemp(prefix="casino-tui-poolwait-"))
    pool = ComputerPool()
    await pool.start()
    service = ComputerService(pool)
    path = work / "computers" / "pool.sock"
    await service.start(path)
    big = State(Rules.preset("classic"), 4, seed=0)
    hard_view = big.view(big.current_player)  # type: ignore[arg-type]
    small = State(Rules.preset("classic"), 2, seed=4)
    easy_view = small.view(small.current_player)  # type: ignore[arg-type]

    def client(number: int) -> ComputerClient:
        secret = new_secret()
        service.register(secret, Identity(f"p{number}", f"fp{number}", number))
        return ComputerClient(path, secret)

    stop = time.monotonic() + seconds
    errors: list[str] = []

    async def busy_session(c: ComputerClient, n: int) -> None:
        i = 0
        while time.monotonic() < stop:
            try:
                await c.choose(hard_view, "hard", n * 1000 + i)
            except ComputerError as err:
                errors.append(str(err))
            i += 1

    async def probe(c: ComputerClient, level: str, every: float, out: list[float]) -> None:
        view = hard_view if level == "hard" else easy_view
        i = 0
        while time.monotonic() < stop:
            t = time.monotonic()
            try:
                await c.choose(view, level, i)
                out.append(time.monotonic() - t)
            except ComputerError as err:
                errors.append(f"probe {level}: {err}")
            i += 1
            await asyncio.sleep(max(0.0, every - (time.monotonic() - t)))

    before = load_average()
    easy: list[float] = []
    hard: list[float] = []
    clients = [client(i) for i in range(busy + 2)]
    tasks = [busy_session(clients[i], i) for i in range(busy)]
    tasks += [probe(clients[busy], "easy", 0.25, easy), probe(clients[busy + 1], "hard", 1.0,
                                                             hard)]
    await asyncio.gather(*tasks)
    stats = pool.stats()
    for c in clients:
        await c.close()
    await service.close()
    pool.shutdown()
    with contextlib.suppress(OSError):
        os.rmdir(path.parent)
        os.rmdir(work)
    return {
        "busy_sessions": busy, "seconds": seconds,
        "pool": f"{stats.workers} search + {stats.fast_workers} quick processes",
        "easy_probe_ms": {"n": len(easy), "median": ms(percentile(easy, 0.5)),
                          "p95": ms(percentile(easy, 0.95)), "max": ms(max(easy, default=None))},
        "hard_probe_ms": {"n": len(hard), "median": ms(percentile(hard, 0.5)),
                          "p95": ms(percentile(hard, 0.95)), "max": ms(max(hard, default=None))},
        "answered": stats.answered, "late": stats.late, "rushed_to_medium": stats.rushed,
        "queue_wait_ms_mean": ms(stats.wait_sum / stats.started if stats.started else None),
        "queue_wait_ms_max": ms(stats.wait_max), "errors": sorted(set(errors))[:5],
        "load_before": before, "load_after": load_average(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="part", required=True)
    m = sub.add_parser("memory")
    m.add_argument("--sessions", type=int, default=10)
    m.add_argument("--moves", type=int, default=6)
    m.add_argument("--runs", type=int, default=2)
    w = sub.add_parser("wait")
    w.add_argument("--busy", type=int, nargs="+", default=[0, 4, 16, 64])
    w.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    if args.part == "memory":
        for _ in range(args.runs):
            for mode in ("own", "pool"):
                print(json.dumps(asyncio.run(memory_run(mode, args.sessions, args.moves))),
                      flush=True)
    else:
        for n in args.busy:
            print(json.dumps(asyncio.run(wait_run(n, args.seconds))), flush=True)


if __name__ == "__main__":
    main()
