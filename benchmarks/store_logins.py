"""The store's part of a login, measured: what ``serve --store`` adds to each login.

    .venv/bin/python -m benchmarks.store_logins URL [--players 50] [--files 3]

No SSH and no game: the server's own pieces (``casino_tui.store.link.StoreLink`` and
``casino_tui.store.mirror.PlayerMirror``) against the PostgreSQL store at URL (a database of
its own: the benchmark fills it). First host A's link pushes ``--players`` players with their
files (a saved game of 20 KB, the statistics ledger, the settings: ``--files 3``). Then host B
logs each of them in one after the other, as ``SharedPlayers`` does at a login and at the end
of the session: the visit, the claim, the pull of every file, a push that finds nothing
changed, the release. It prints the time of one login's store part (median, p95, max) and the
logins per second one host's link can do (its calls go one at a time over one connection),
with the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(url: str, players: int, files: int) -> None:
    from casino_tui.store import players as P
    from casino_tui.store.link import StoreLink
    from casino_tui.store.mirror import PlayerMirror
    from casino_tui.store.schemas import all_schemas

    work = Path(tempfile.mkdtemp(prefix="casino-store-bench-"))
    contents = {"data/games/g1.json": os.urandom(10_000).hex().encode(),
                "data/ledger.jsonl": b'{"game":"g0"}\n' * 40,
                "config/settings.json": b'{"display_name": "P"}\n'}
    chosen = dict(list(contents.items())[:files])
    a, b = StoreLink(url, f"bench-a-{os.getpid()}"), StoreLink(url, f"bench-b-{os.getpid()}")
    await a.open(all_schemas())
    await b.open(all_schemas())
    ids = [f"sha256-bench{os.getpid()}x{i}" for i in range(players)]
    try:
        for pid in ids:
            root = work / "a" / pid
            for rel, content in chosen.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_bytes(content)
            mirror = PlayerMirror(pid, root, work / "a-store" / f"{pid}.json", a.host)
            await a.run(lambda c, p=pid: P.ensure(c, p, "SHA256:bench"))  # type: ignore[misc]
            await a.run(lambda c, m=mirror: m.push(c, force=True))  # type: ignore[misc]
        times: list[float] = []
        started = time.perf_counter()
        for n, pid in enumerate(ids, start=1):
            t0 = time.perf_counter()
            mirror = PlayerMirror(pid, work / "b" / pid, work / "b-store" / f"{pid}.json",
                                  b.host)
            await b.run(lambda c, p=pid: P.visit(c, p, "SHA256:bench"))  # type: ignore[misc]
            await b.run(lambda c, p=pid, k=n: P.claim(c, p, b.host, k))  # type: ignore[misc]
            got = await b.run(mirror.pull, timeout=30)
            assert got == len(chosen), got
            await b.run(lambda c, m=mirror: m.push(c, force=True))  # type: ignore[misc]
            await b.run(lambda c, p=pid, k=n: P.release(c, p, b.host, k))  # type: ignore[misc]
            times.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - started
    finally:
        await a.close()
        await b.close()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{players} logins, {len(chosen)} file(s) each; load average {load}")
    print(f"the store's part of a login: median {statistics.median(times) * 1000:.1f} ms, "
          f"p95 {_percentile(times, 0.95) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
    print(f"one host's link: {players / elapsed:.0f} logins a second, one after the other")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.store_logins",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("url", metavar="URL", help="a PostgreSQL database for the benchmark")
    parser.add_argument("--players", type=int, default=50, metavar="N")
    parser.add_argument("--files", type=int, default=3, choices=(1, 2, 3), metavar="N")
    args = parser.parse_args(argv)
    asyncio.run(run(args.url, args.players, args.files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
