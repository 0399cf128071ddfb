"""The store's URL checks, connections and versioned schema, against a real PostgreSQL."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

pytest.importorskip("psycopg")

from casino_tui.store import db

TOY = db.Schema("toy", (
    "create table toy_things (id serial primary key, name text not null)",
    "alter table toy_things add column size integer not null default 0",
))


def test_store_urls_are_checked_with_a_clear_message() -> None:
    assert db.check_url("postgresql://casino@db/casino") == "postgresql://casino@db/casino"
    assert db.check_url("postgres://u@/casino?host=/run/postgresql")
    with pytest.raises(db.StoreError, match="is not a store URL: give a PostgreSQL URL"):
        db.check_url("/srv/casino")
    with pytest.raises(db.StoreError, match="names no database"):
        db.check_url("postgresql://casino@db")


def test_a_password_never_reaches_a_message() -> None:
    assert db.redact("postgresql://casino:s3cret@db/casino") == "postgresql://casino:***@db/casino"
    with pytest.raises(db.StoreError) as err:
        db.check_url("mysql://casino:s3cret@db/casino")
    assert "s3cret" not in str(err.value)


def test_an_unreachable_store_is_refused_at_once_with_the_reason(tmp_path) -> None:
    url = f"postgresql://nobody:pw@/casino?host={tmp_path}"
    with pytest.raises(db.StoreUnavailable) as err:
        asyncio.run(db.connect(url, timeout=2))
    text = str(err.value)
    assert text.startswith("cannot reach the store postgresql://nobody:***@/casino")
    assert "No such file or directory" in text and "pw@" not in text


def test_migrate_creates_then_upgrades_and_a_second_run_changes_nothing(pg_url: str) -> None:
    async def go() -> None:
        conn = await db.connect(pg_url)
        assert await db.versions(conn) == {}
        first = db.Schema("toy", TOY.steps[:1])
        assert await db.migrate(conn, [first]) == {"toy": (0, 1)}
        await conn.execute("insert into toy_things (name) values ('kept')")
        assert await db.migrate(conn, [TOY]) == {"toy": (1, 2)}
        assert await db.migrate(conn, [TOY]) == {"toy": (2, 2)}
        assert await db.versions(conn) == {"toy": 2}
        rows = await (await conn.execute("select name, size from toy_things")).fetchall()
        assert rows == [("kept", 0)]
        assert db.describe({"toy": (1, 2), "b": (3, 3)}) == "schema: b 3 (current), toy 1 -> 2"
        await conn.close()

    asyncio.run(go())


def test_hosts_migrating_at_once_apply_each_step_once(pg_url: str) -> None:
    async def go() -> list[dict[str, tuple[int, int]]]:
        conns = [await db.connect(pg_url) for _ in range(4)]
        done = await asyncio.gather(*(db.migrate(c, [TOY]) for c in conns))
        for c in conns:
            await c.close()
        return list(done)

    done = asyncio.run(go())
    assert sorted(d["toy"] for d in done) == [(0, 2), (2, 2), (2, 2), (2, 2)]


def test_a_schema_newer_than_the_program_is_refused_and_nothing_changes(pg_url: str) -> None:
    async def go() -> None:
        conn = await db.connect(pg_url)
        await db.migrate(conn, [TOY])
        older = db.Schema("toy", TOY.steps[:1])
        other = db.Schema("other", ("create table other_things (id integer)",))
        with pytest.raises(db.StoreError, match="version 2, newer than this casino-tui knows"):
            await db.migrate(conn, [other, older])
        assert await db.versions(conn) == {"toy": 2}
        await conn.close()

    asyncio.run(go())


def test_the_game_and_the_server_start_without_loading_psycopg() -> None:
    code = ("import sys, casino_tui.__main__, casino_tui.serve.server, casino_tui.app.app; "
            "print('psycopg' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
