"""A server's link to the store (casino_tui/store/link.py), against a real PostgreSQL: calls
bounded in time, a lost connection made again, the store away and back in the log, one
server per host name."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from pg_support import PgCluster

pytest.importorskip("psycopg")

from casino_tui.store import db
from casino_tui.store import players as P
from casino_tui.store.link import StoreLink
from casino_tui.store.schemas import all_schemas


async def one(conn: db.Conn) -> int:
    row = await (await conn.execute("select 1")).fetchone()
    assert row is not None
    return int(row[0])


def test_a_lost_connection_is_made_again_without_a_failure(pg_url: str) -> None:
    async def go() -> None:
        link = StoreLink(pg_url, "h1")
        await link.open(all_schemas())
        try:
            killer = await db.connect(pg_url)
            await killer.execute("select pg_terminate_backend(pid) from pg_stat_activity "
                                 "where application_name = 'casino-tui' and pid <> "
                                 "pg_backend_pid()")
            await killer.close()
            assert await link.run(one) == 1  # as after a restart of the database
            assert link.available
        finally:
            await link.close()

    asyncio.run(go())


def test_a_store_that_does_not_answer_fails_in_time_and_comes_back(
        pg_cluster: PgCluster, pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "casino_tui.store")

    async def go() -> None:
        link = StoreLink(pg_url, "h1", timeout=1.0)
        await link.open(all_schemas())
        try:
            pg_cluster.pause()
            try:
                started = time.monotonic()
                with pytest.raises(db.StoreUnavailable, match="did not answer within 1 s"):
                    await link.run(one)
                assert time.monotonic() - started < 2.5
                assert not link.available
                with pytest.raises(db.StoreUnavailable):
                    await link.run(one)
            finally:
                pg_cluster.resume()
            for _ in range(40):  # the abandoned call's cancellation ends in the background
                try:
                    assert await link.run(one) == 1
                    break
                except db.StoreUnavailable:
                    await asyncio.sleep(0.25)
            assert link.available
        finally:
            await link.close()

    asyncio.run(go())
    text = caplog.text
    assert "is away (no answer within 1 s): new logins are refused" in text
    assert "is back after" in text and text.count("is away") == 1


def test_two_servers_cannot_share_a_host_name(pg_url: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from casino_tui.store import link

    monkeypatch.setattr(P, "HOST_STALE", 1.0)  # heartbeats 5 times as often: 0.2 s
    monkeypatch.setattr(link, "HEARTBEAT_EVERY", 0.2)

    async def go() -> None:
        first = StoreLink(pg_url, "web-1")
        await first.open(all_schemas())
        try:
            with pytest.raises(db.StoreError, match="another server runs as host 'web-1'"):
                await StoreLink(pg_url, "web-1").open(all_schemas())
        finally:
            await first.close()
        # once it stopped, the name is free at once
        again = StoreLink(pg_url, "web-1")
        await again.open(all_schemas())
        await again.close()

    asyncio.run(go())
