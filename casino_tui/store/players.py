"""The players' part of the store: who they are, their files, and which host plays them.

Tables (component ``players`` of the versioned schema):

* ``players``: one row a key: its id (``sha256-...``, the name of its directory), the key's
  fingerprint, the display name (from its settings), first and last visit, sessions.
* ``player_files``: every file of a player's directory that the game wrote (``data/...`` and
  ``config/...``, relative paths), as whole contents with a version from one sequence for the
  whole store (so "what changed since version N" is one query), its SHA-256, size and mtime;
  a deleted file stays as a tombstone (``deleted``, no content) so other hosts delete it too.
* ``store_hosts``: every server, with a heartbeat every few seconds (a host whose heartbeat
  is older than :data:`HOST_STALE` seconds is taken for gone).
* ``player_sessions``: the host and session that plays a player now. A login on another host
  takes the row over, names the old host in ``handover_from`` and notifies it
  (:data:`CHANNEL`); the old host hangs up, pushes its last files, and clears
  ``handover_from``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from casino_tui.settings import SETTINGS_FILE
from casino_tui.stats.ledger import LEDGER_FILE

from .db import Conn, Schema

# the files of a player's directory that other hosts copy for the daily deal's ranking
LEDGER = f"data/{LEDGER_FILE}"
SETTINGS = f"config/{SETTINGS_FILE}"

# the NOTIFY channel on which a host is asked to hand a player over
CHANNEL = "casino_players"
HOST_STALE = 10.0  # seconds without a heartbeat: the host is gone

SCHEMA = Schema("players", ("""
create table players (
    id text primary key,
    fingerprint text not null,
    display_name text not null default '',
    first_seen timestamptz not null default now(),
    last_seen timestamptz not null default now(),
    sessions integer not null default 0
);
create sequence player_file_versions;
create table player_files (
    player text not null references players (id) on delete cascade,
    path text not null,
    content bytea,
    sha256 text not null default '',
    size bigint not null default 0,
    mtime_ns bigint not null default 0,
    version bigint not null,
    deleted boolean not null default false,
    updated timestamptz not null default now(),
    host text not null default '',
    primary key (player, path)
);
create index player_files_version on player_files (version);
create table store_hosts (
    host text primary key,
    started timestamptz not null default now(),
    heartbeat timestamptz not null default now()
);
create table player_sessions (
    player text primary key references players (id) on delete cascade,
    host text not null,
    session integer not null,
    started timestamptz not null default now(),
    handover_from text
);
""",))


@dataclass(frozen=True)
class PlayerRow:
    id: str
    fingerprint: str
    display_name: str
    first_seen: datetime
    last_seen: datetime
    sessions: int

    def player_json(self) -> str:
        """The player's ``player.json`` (the server's record of the key), as on one host."""
        fmt = "%Y-%m-%dT%H:%M:%S%z"
        return json.dumps({"fingerprint": self.fingerprint,
                           "first_seen": self.first_seen.astimezone().strftime(fmt),
                           "last_seen": self.last_seen.astimezone().strftime(fmt),
                           "sessions": self.sessions}, indent=2) + "\n"


@dataclass(frozen=True)
class FileMeta:
    """What the store has of one file (without its content)."""

    path: str
    version: int
    sha256: str
    size: int
    mtime_ns: int
    deleted: bool


_PLAYER_COLUMNS = "id, fingerprint, display_name, first_seen, last_seen, sessions"


def _player(row: tuple[object, ...]) -> PlayerRow:
    return PlayerRow(str(row[0]), str(row[1]), str(row[2]), row[3], row[4],  # type: ignore[arg-type]
                     int(row[5]))  # type: ignore[call-overload]


async def visit(conn: Conn, player: str, fingerprint: str) -> PlayerRow:
    """Record a visit of ``player`` (made on the first): last visit now, one more session."""
    cur = await conn.execute(
        f"insert into players (id, fingerprint, sessions) values (%s, %s, 1) "
        f"on conflict (id) do update set last_seen = now(), fingerprint = excluded.fingerprint,"
        f" sessions = players.sessions + 1 returning {_PLAYER_COLUMNS}", (player, fingerprint))
    row = await cur.fetchone()
    assert row is not None
    return _player(row)


async def ensure(conn: Conn, player: str, fingerprint: str) -> None:
    """Make ``player``'s row if it has none (no visit counted)."""
    await conn.execute("insert into players (id, fingerprint) values (%s, %s) "
                       "on conflict (id) do nothing", (player, fingerprint))


async def import_player(conn: Conn, player: str, fingerprint: str, first_seen: str | None,
                        last_seen: str | None, sessions: int) -> None:
    """The row of an imported ``player.json``: the earliest first visit, the latest last, the
    most sessions (a second import of the same directory changes nothing)."""
    await conn.execute(
        "insert into players (id, fingerprint, first_seen, last_seen, sessions) values "
        "(%s, %s, coalesce(%s::timestamptz, now()), coalesce(%s::timestamptz, now()), %s) "
        "on conflict (id) do update set "
        "first_seen = least(players.first_seen, excluded.first_seen), "
        "last_seen = greatest(players.last_seen, excluded.last_seen), "
        "sessions = greatest(players.sessions, excluded.sessions)",
        (player, fingerprint, first_seen, last_seen, sessions))


async def get_player(conn: Conn, player: str) -> PlayerRow | None:
    cur = await conn.execute(f"select {_PLAYER_COLUMNS} from players where id = %s", (player,))
    row = await cur.fetchone()
    return None if row is None else _player(row)


async def set_display_name(conn: Conn, player: str, name: str) -> None:
    await conn.execute("update players set display_name = %s where id = %s and "
                       "display_name <> %s", (name, player, name))


# ---------------------------------------------------------------------- files
_META = "path, version, sha256, size, mtime_ns, deleted"


def _meta(row: tuple[object, ...]) -> FileMeta:
    return FileMeta(str(row[0]), int(row[1]), str(row[2]), int(row[3]),  # type: ignore[call-overload]
                    int(row[4]), bool(row[5]))  # type: ignore[call-overload]


async def files(conn: Conn, player: str) -> dict[str, FileMeta]:
    """Every file (and tombstone) the store has of ``player``, without contents."""
    cur = await conn.execute(f"select {_META} from player_files where player = %s", (player,))
    return {m.path: m for m in map(_meta, await cur.fetchall())}


async def contents(conn: Conn, player: str, paths: Iterable[str]) -> dict[str, tuple[int, bytes]]:
    """{path: (version, content)} of the files of ``player`` named (tombstones left out)."""
    cur = await conn.execute(
        "select path, version, content from player_files where player = %s and "
        "path = any(%s) and not deleted", (player, list(paths)))
    return {str(p): (int(v), bytes(c)) for p, v, c in await cur.fetchall()}


async def put(conn: Conn, player: str, path: str, content: bytes | None, *, sha256: str,
              size: int, mtime_ns: int, expected: int, host: str, force: bool) -> int | None:
    """Write one file (``content`` None: a tombstone) if the store's version of it is still
    ``expected`` (0: the store has none), or whatever it is with ``force``; returns its new
    version, or None when another host wrote it meanwhile (nothing changed)."""
    async with conn.transaction():
        cur = await conn.execute(
            "select version from player_files where player = %s and path = %s for update",
            (player, path))
        row = await cur.fetchone()
        have = 0 if row is None else int(row[0])
        if have != expected and not force:
            return None
        cur = await conn.execute(
            "insert into player_files (player, path, content, sha256, size, mtime_ns, version, "
            "deleted, updated, host) values (%s, %s, %s, %s, %s, %s, "
            "nextval('player_file_versions'), %s, now(), %s) on conflict (player, path) do "
            "update set content = excluded.content, sha256 = excluded.sha256, "
            "size = excluded.size, mtime_ns = excluded.mtime_ns, version = excluded.version, "
            "deleted = excluded.deleted, updated = now(), host = excluded.host "
            "returning version",
            (player, path, content, sha256, size, mtime_ns, content is None, host))
        new = await cur.fetchone()
        assert new is not None
        return int(new[0])


def merge_ledgers(remote: bytes, local: bytes) -> bytes:
    """Both ledgers' games: the store's lines, then the local lines it lacks (a ledger
    appended on two hosts loses neither's games)."""
    have = {line for line in remote.split(b"\n") if line.strip()}
    extra = [line for line in local.split(b"\n") if line.strip() and line not in have]
    if not extra:
        return remote
    base = remote if not remote or remote.endswith(b"\n") else remote + b"\n"
    return base + b"".join(line + b"\n" for line in extra)


async def import_file(conn: Conn, player: str, path: str, content: bytes, *,
                      mtime_ns: int) -> str:
    """Bring one file of a data directory in, overwriting nothing: ``added`` (the store had
    none), ``same`` (it had this content), ``merged`` (a statistics ledger: the games of
    both kept) or ``kept`` (it had other content, written by a server: newer)."""
    sha = hashlib.sha256(content).hexdigest()
    async with conn.transaction():
        cur = await conn.execute(
            "select version, sha256, content, deleted from player_files where player = %s "
            "and path = %s for update", (player, path))
        row = await cur.fetchone()
        if row is not None and row[1] == sha:
            return "same"
        if row is not None and not (path == LEDGER and not row[3]):
            return "kept"
        result = "added"
        if row is not None:
            merged = merge_ledgers(bytes(row[2]), content)
            if merged == bytes(row[2]):
                return "same"
            content, sha, result = merged, hashlib.sha256(merged).hexdigest(), "merged"
        await put(conn, player, path, content, sha256=sha, size=len(content),
                  mtime_ns=mtime_ns, expected=0 if row is None else int(row[0]), host="import",
                  force=False)
        return result


async def changed_since(conn: Conn, version: int, paths: Iterable[str]
                        ) -> list[tuple[str, FileMeta]]:
    """(player, meta) of the files named ``paths`` of every player written after ``version``,
    oldest first (what a host pulls for the daily deal's ranking)."""
    cur = await conn.execute(
        f"select player, {_META} from player_files where version > %s and path = any(%s) "
        "order by version", (version, list(paths)))
    return [(str(r[0]), _meta(r[1:])) for r in await cur.fetchall()]


# ---------------------------------------------------------------------- hosts and sessions
async def heartbeat(conn: Conn, host: str) -> None:
    await conn.execute("insert into store_hosts (host) values (%s) on conflict (host) do "
                       "update set heartbeat = now()", (host,))


async def host_gone(conn: Conn, host: str) -> None:
    await conn.execute("delete from store_hosts where host = %s", (host,))


async def host_alive(conn: Conn, host: str) -> bool:
    cur = await conn.execute(
        "select heartbeat > now() - make_interval(secs => %s) from store_hosts where host = %s",
        (HOST_STALE, host))
    row = await cur.fetchone()
    return bool(row and row[0])


async def claim(conn: Conn, player: str, host: str, session: int) -> str | None:
    """Make (``host``, ``session``) the one that plays ``player``; the other host that played
    them until now (it is told to hand them over), or None."""
    async with conn.transaction():
        cur = await conn.execute(
            "select host from player_sessions where player = %s for update", (player,))
        row = await cur.fetchone()
        before = None if row is None or row[0] == host else str(row[0])
        await conn.execute(
            "insert into player_sessions (player, host, session, handover_from) "
            "values (%s, %s, %s, %s) on conflict (player) do update set host = excluded.host,"
            " session = excluded.session, started = now(), "
            "handover_from = excluded.handover_from", (player, host, session, before))
        if before is not None:
            await conn.execute("select pg_notify(%s, %s)", (CHANNEL, json.dumps(
                {"player": player, "host": before, "by": host})))
    return before


async def handover_pending(conn: Conn, player: str, host: str) -> bool:
    """True while the host that played ``player`` before has not handed them over to
    ``host``."""
    cur = await conn.execute(
        "select handover_from is not null from player_sessions where player = %s and "
        "host = %s", (player, host))
    row = await cur.fetchone()
    return bool(row and row[0])


async def handed_over(conn: Conn, player: str, host: str) -> None:
    """``host`` pushed its last files of ``player``: the new host may pull them."""
    await conn.execute("update player_sessions set handover_from = null where player = %s "
                       "and handover_from = %s", (player, host))


async def owner(conn: Conn, player: str) -> tuple[str, int, str | None] | None:
    """(host, session, the host handing the player over or None) that plays ``player``."""
    cur = await conn.execute(
        "select host, session, handover_from from player_sessions where player = %s",
        (player,))
    row = await cur.fetchone()
    return None if row is None else (str(row[0]), int(row[1]),
                                     None if row[2] is None else str(row[2]))


async def release(conn: Conn, player: str, host: str, session: int) -> None:
    """The session ended: nobody plays the player now (unless another took over)."""
    await conn.execute("delete from player_sessions where player = %s and host = %s and "
                       "session = %s", (player, host, session))
