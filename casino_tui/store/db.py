"""The store's URL, connections and versioned schema.

A store is named by a URL (`postgresql://USER@HOST/DB`, or with `?host=/socket/dir`), from
`--store` or the `CASINO_TUI_STORE` environment variable. Every part of the store declares its
tables as a `Schema`: a component name and the SQL steps that bring it from one version to the
next. `migrate` applies the missing steps of every component in one transaction under an
advisory lock, so hosts starting together never race, and refuses a database whose schema a
newer casino-tui wrote.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import psycopg
from psycopg.rows import TupleRow

STORE_ENV = "CASINO_TUI_STORE"
# the advisory lock every host takes while it upgrades the schema (any fixed 64-bit number)
_SCHEMA_LOCK = 0x636173696E6F  # "casino"


# a connection of the store: rows come back as tuples
Conn = psycopg.AsyncConnection[TupleRow]


class StoreError(Exception):
    """The store cannot be used; the message says why and what to do."""


class StoreUnavailable(StoreError):
    """The database cannot be reached (it is down, or the network is)."""


@dataclass(frozen=True)
class Schema:
    """One part of the store's tables: `steps[i]` brings it from version i to i + 1."""

    component: str
    steps: tuple[str, ...]

    @property
    def version(self) -> int:
        return len(self.steps)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = parts.username or ""
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[-1]}"))


def check_url(url: str) -> str:
    """`url` if it names a PostgreSQL database, else a `StoreError` saying what a store URL is."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in ("postgresql", "postgres"):
        raise StoreError(
            f"{redact(url)!r} is not a store URL: give a PostgreSQL URL such as "
            "postgresql://casino@db.example.org/casino (or "
            "postgresql://casino@/casino?host=/run/postgresql for a Unix socket)")
    parts = urllib.parse.urlsplit(url)
    if not parts.path.strip("/") and "dbname=" not in parts.query:
        raise StoreError(f"the store URL {redact(url)!r} names no database: end it with /DBNAME")
    return url


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    # libpq's messages repeat the address for every attempt: keep the first reason
    m = re.search(r"failed: (.*?)(?: Is the server running|$)", text)
    return (m.group(1) if m else text).rstrip(". ") or type(exc).__name__


async def connect(url: str, *, timeout: float = 5.0) -> Conn:
    """An autocommit connection to the store, or `StoreUnavailable` with the reason."""
    check_url(url)
    try:
        return await psycopg.AsyncConnection.connect(
            url, autocommit=True, connect_timeout=max(1, round(timeout)),
            application_name="casino-tui")
    except psycopg.OperationalError as exc:
        raise StoreUnavailable(
            f"cannot reach the store {redact(url)}: {_reason(exc)}. Check that PostgreSQL "
            "is running and the URL is right (--store or CASINO_TUI_STORE)") from exc


_BOOKKEEPING = """
create table if not exists casino_schema (
    component text primary key,
    version integer not null,
    upgraded timestamptz not null default now()
)
"""


async def versions(conn: Conn) -> dict[str, int]:
    """Each component's schema version in the database (empty before the first `migrate`)."""
    found = await (await conn.execute(
        "select to_regclass('casino_schema') is not null")).fetchone()
    if not found or not found[0]:
        return {}
    rows = await (await conn.execute("select component, version from casino_schema")).fetchall()
    return {str(c): int(v) for c, v in rows}


async def migrate(conn: Conn,
                  schemas: Sequence[Schema]) -> dict[str, tuple[int, int]]:
    """Bring every component to this program's version; returns {component: (before, after)}.

    Everything happens in one transaction under an advisory lock: a second host waits, then
    finds nothing to do. A component the database holds at a newer version than this program
    knows is refused (`StoreError`) before anything changes.
    """
    done: dict[str, tuple[int, int]] = {}
    async with conn.transaction():
        await conn.execute("select pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        await conn.execute(_BOOKKEEPING)
        have = {str(c): int(v) for c, v in await (await conn.execute(
            "select component, version from casino_schema")).fetchall()}
        for schema in schemas:
            if have.get(schema.component, 0) > schema.version:
                raise StoreError(
                    f"the store's {schema.component!r} tables are at version "
                    f"{have[schema.component]}, newer than this casino-tui knows "
                    f"({schema.version}): upgrade casino-tui on this host")
        for schema in schemas:
            before = have.get(schema.component, 0)
            for step in schema.steps[before:]:
                await conn.execute(step.encode())
            if before < schema.version:
                await conn.execute(
                    "insert into casino_schema (component, version) values (%s, %s) "
                    "on conflict (component) do update set version = excluded.version, "
                    "upgraded = now()", (schema.component, schema.version))
            done[schema.component] = (before, schema.version)
    return done


def describe(done: Mapping[str, tuple[int, int]]) -> str:
    """A line for the log or the command: what `migrate` did."""
    parts = [f"{c} {a} -> {b}" if a != b else f"{c} {b} (current)"
             for c, (a, b) in sorted(done.items())]
    return "schema: " + (", ".join(parts) if parts else "nothing to do")
