"""A host of the shared store's tables in a process of its own, for the tests that stop it
(SIGSTOP) or kill it: ``python tests/store_host.py URL HOST`` opens a PgHub (lease 2 s), creates
a table of Ann (a person) and a computer whose thinker takes a second and a half a move, starts
it, prints the table's id and code as a JSON line, and runs until it is ended."""

from __future__ import annotations

import asyncio
import json
import logging
import sys

from table_support import SeededThinker

from casino_tui.engine import Move, SeatView
from casino_tui.store.tables import open_hub
from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.hub import Person

THINK = 1.5  # seconds a computer's move takes on this host


class SlowThinker(SeededThinker):
    async def choose(self, view: SeatView, level: str, seed: int) -> Move:
        await asyncio.sleep(THINK)
        return await super().choose(view, level, seed)


async def main(url: str, host: str) -> None:
    hub = await open_hub(url, SlowThinker(), host=host, lease=2.0, renew=0.5, scan=0.3,
                         poll=0.3, call_timeout=8.0)
    ann = Person("key-ann", "Ann")
    seats = (SeatConfig("South", True), SeatConfig("North", False, "easy"))
    info = await hub.create_table(GameConfig(players=2, seats=seats, seed=12), ann)
    await hub.start(info.table_id, ann)
    print(json.dumps({"table": info.table_id, "code": info.code}), flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(message)s")
    asyncio.run(main(sys.argv[1], sys.argv[2]))
