"""A process of the load tool's scripted SSH players (``python -m benchmarks.loadclients``),
for ``python -m benchmarks.load --client-processes N``: it reads what to play as JSON on
standard input (the run's :class:`benchmarks.load.Group`, the players' numbers and seeds),
plays them in its own event loop, and prints their results, its event loop's lag and its CPU
seconds as JSON."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import time
from typing import Any

from .load import Group, play_group
from .loadkit import LoopLag


async def _play(spec: dict[str, Any]) -> dict[str, Any]:
    group = Group(**spec["group"])
    lag = LoopLag()
    lag.start()
    try:
        results = await play_group(group, spec["numbers"], spec["seeds"])
    finally:
        await lag.stop()
    return {"results": [dataclasses.asdict(r) for r in results], "lag": lag.samples,
            "cpu": time.process_time()}


def main() -> int:
    spec = json.load(sys.stdin)
    print(json.dumps(asyncio.run(_play(spec))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
