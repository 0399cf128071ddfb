"""Join codes cannot be found by guessing (casino_tui.table.guard and the table channel's
``find`` and ``join``): a few wrong codes are free, then each try waits twice as long as the one
before, per player and per address; a try too soon is refused without a look-up; a wrong code
is answered no faster than a right one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from table_support import SeededThinker

from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.codes import CODE_COUNT
from casino_tui.table.config import config_to_json
from casino_tui.table.guard import (
    FORGET_AFTER,
    FREE_TRIES,
    MAX_DELAY,
    CodeGuard,
    address_key,
    delay_after,
    tries_per_day,
)
from casino_tui.table.hub import LocalHub
from casino_tui.table.service import HubService
from casino_tui.table.wire import Identity, Message, WireClient, new_secret, socket_path

ANN = Identity("player-ann", "SHA256:ann", 1, "192.0.2.7")
EVE = Identity("player-eve", "SHA256:eve", 2, "198.51.100.9")
MALLORY = Identity("player-mallory", "SHA256:mallory", 3, "198.51.100.9")  # Eve's address
TRENT = Identity("player-trent", "SHA256:trent", 4, "203.0.113.5")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_few_wrong_codes_are_free_then_each_waits_twice_as_long() -> None:
    clock = Clock()
    guard = CodeGuard(clock)
    for _ in range(FREE_TRIES):
        assert guard.check("eve", "198.51.100.9") == 0
        guard.failed("eve", "198.51.100.9")
    waits = []
    for _ in range(12):
        wait = guard.check("eve", "198.51.100.9")
        assert wait > 0  # too soon: refused
        waits.append(wait)
        clock.now += wait
        assert guard.check("eve", "198.51.100.9") == 0
        guard.failed("eve", "198.51.100.9")
    assert waits[:4] == [1, 2, 4, 8]
    assert waits[-1] == MAX_DELAY  # it grows up to the longest wait, then stays there
    assert guard.refused == 12 and guard.wrong == FREE_TRIES + 12
    # the same address under another key waits as long; another address does not
    assert guard.check("mallory", "198.51.100.9") == MAX_DELAY
    assert guard.check("eve", "203.0.113.5") == MAX_DELAY  # the key is limited too
    assert guard.check("trent", "203.0.113.5") == 0
    # wrong codes are forgotten after a day
    clock.now += FORGET_AFTER
    assert guard.check("eve", "198.51.100.9") == 0


def test_an_ipv6_client_counts_with_its_whole_64() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::9") \
        == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1"
    assert address_key("192.0.2.1") == "192.0.2.1"
    assert address_key("") == ""


def test_finding_a_private_code_takes_longer_than_a_table_lives() -> None:
    """What the README says: at the allowed pace one address tries about 150 codes a day,
    so even a thousand addresses need far longer than a table lives (a day) to find one of a
    thousand private tables."""
    per_day = tries_per_day()
    assert 140 <= per_day <= 160
    assert delay_after(FREE_TRIES - 1) == 0 and delay_after(FREE_TRIES) == 1
    from casino_tui.table.codes import PRIVATE_CODE_COUNT

    days = PRIVATE_CODE_COUNT / 1000 / (1000 * per_day)
    assert days > 30
    assert CODE_COUNT / per_day > 1  # even a short code takes one address over a day


# ---------------------------------------------------------------------- over the channel
def run(coro: Coroutine[Any, Any, None], timeout: float = 60) -> None:
    asyncio.run(asyncio.wait_for(coro, timeout))


async def call(client: WireClient, number: int, op: str, args: dict[str, Any],
               name: str = "Eve") -> tuple[Message, float]:
    """A raw call on the channel: its answer and how long it took."""
    began = time.monotonic()
    await client.send({"type": "call", "id": number, "op": op, "args": args, "name": name})
    while True:
        reply = await asyncio.wait_for(client.receive(), 10)
        assert reply is not None
        if reply.get("id") == number:
            return reply, time.monotonic() - began


def test_guessing_over_the_table_channel_is_limited(tmp_path: Path) -> None:
    async def main() -> None:
        hub = LocalHub(SeededThinker())
        service = HubService(hub)
        clock = Clock()
        service.codes.clock = clock
        path = socket_path(tmp_path)
        await service.start(path)
        clients: dict[Identity, WireClient] = {}
        try:
            for who in (ANN, EVE, MALLORY, TRENT):
                secret = new_secret()
                service.register(secret, who)
                clients[who] = await WireClient.connect(path, secret)
            config = GameConfig(preset="classic", players=2, seats=(
                SeatConfig("South", True), SeatConfig("North", True)), seed=3)
            created, _ = await call(clients[ANN], 0, "create_table",
                                    {"config": config_to_json(config), "public": False},
                                    name="Ann")
            assert created["type"] == "result", created
            right, table_id = created["value"]["code"], created["value"]["table"]
            assert len(right) == 12  # a private table's code is long
            wrong = "BABABA" if right != "BABABA" else "BEBEBE"
            eve = clients[EVE]
            # a right code is answered at once; a wrong one no sooner than the floor
            found, right_time = await call(eve, 1, "find", {"code": right})
            assert found["type"] == "result" and found["value"]["table"] == table_id
            for i in range(FREE_TRIES):
                refused, wrong_time = await call(eve, 10 + i, "find", {"code": wrong})
                assert refused["type"] == "refused" and "no table has this code" \
                    in refused["reason"]
                assert wrong_time >= max(service.code_answer_floor, right_time)
            # then every try must wait: even the right code is not looked up
            refused, _ = await call(eve, 20, "join", {"code": right})
            assert refused["type"] == "refused"
            assert "too many wrong codes: wait 1 s" in refused["reason"]
            # Mallory is another key at Eve's address: limited too; Trent is not
            refused, _ = await call(clients[MALLORY], 21, "find", {"code": right},
                                    name="Mallory")
            assert "too many wrong codes" in refused["reason"]
            found, _ = await call(clients[TRENT], 22, "join", {"code": right}, name="Trent")
            assert found["type"] == "result"
            assert service.refused_joins == 2 and service.codes.wrong == FREE_TRIES
            # once the wait is over, one more try; a wrong one doubles the wait
            clock.now += 1
            refused, _ = await call(eve, 23, "find", {"code": wrong})
            assert "no table has this code" in refused["reason"]
            refused, _ = await call(eve, 24, "find", {"code": wrong})
            assert "wait 2 s" in refused["reason"]
            # the code of a table Ann came to stays hers to use, however many wrong codes
            ann = clients[ANN]
            for i in range(FREE_TRIES + 1):
                await call(ann, 40 + i, "find", {"code": wrong}, name="Ann")
            refused, _ = await call(ann, 50, "find", {"code": "BOBOBO"}, name="Ann")
            assert "too many wrong codes" in refused["reason"]
            found, _ = await call(ann, 51, "find", {"code": right}, name="Ann")
            assert found["type"] == "result"
            assert service.codes.wrong == 2 * FREE_TRIES + 1
            # at the pace of a script, one connection gets nowhere: a few answers a second
            began = time.monotonic()
            for i in range(8):
                await call(eve, 30 + i, "find", {"code": wrong})
            assert time.monotonic() - began >= 8 * service.code_answer_floor
            assert service.codes.wrong == 2 * FREE_TRIES + 1
        finally:
            for client in clients.values():
                await client.close()
            await service.close()
            hub.shutdown()

    run(main())
