"""``casino-tui store migrate [URL]`` and ``casino-tui store import DATA-DIR [URL]``.

``migrate`` creates or upgrades the store's schema (what every server also does when it
starts with ``--store``) and says what it did. ``import`` brings an existing server's data
directory in: every player (``players/<id>/player.json``: the key, first and last visit,
sessions) and every file of their ``data/`` and ``config/`` directories (saves, statistics
ledger, settings). Nothing in the store is overwritten: a file the store already has with the
same content is left alone (so a second import changes nothing), one it has with other content
is kept as the store has it (it is newer: a server wrote it), except the statistics ledger,
whose games of both are kept. psycopg is needed (``pip install 'casino-tui[postgres]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .db import Conn

STORE_ENV = "CASINO_TUI_STORE"
PLAYERS_DIR = "players"
PLAYER_FILE = "player.json"
TABLE_SAVES = Path("tables") / "games"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="casino-tui store",
        description="The shared store of 'casino-tui serve --store URL' (PostgreSQL): "
                    "create or upgrade its schema, or bring an existing server's data "
                    "directory into it. URL defaults to $CASINO_TUI_STORE.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    migrate = sub.add_parser("migrate", help="create or upgrade the store's schema",
                             description="Create or upgrade the store's schema (a server "
                                         "started with --store does it too).")
    migrate.add_argument("url", nargs="?", metavar="URL", help="the store's PostgreSQL URL")
    imp = sub.add_parser("import", help="bring a server's data directory into the store",
                         description="Bring every player of a server's data directory "
                                     "(--data-dir of 'casino-tui serve') into the store: "
                                     "their keys, visits, saves, statistics and settings. "
                                     "Nothing in the store is overwritten; a second import "
                                     "changes nothing.")
    imp.add_argument("data_dir", type=Path, metavar="DATA-DIR",
                     help="the server's data directory (it holds players/)")
    imp.add_argument("url", nargs="?", metavar="URL", help="the store's PostgreSQL URL")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    url = args.url or os.environ.get(STORE_ENV, "").strip()
    if not url:
        parser.error(f"give the store's URL (or set ${STORE_ENV})")
    try:
        from . import db
    except ImportError as err:
        print(f"casino-tui store: PostgreSQL's driver psycopg is not installed ({err}): "
              "pip install 'casino-tui[postgres]'", file=sys.stderr)
        return 2
    try:
        db.check_url(url)
    except db.StoreError as err:
        parser.error(str(err))
    if args.command == "import":
        players = args.data_dir.expanduser() / PLAYERS_DIR
        if not players.is_dir():
            parser.error(f"{args.data_dir} is not a server's data directory: it has no "
                         f"{PLAYERS_DIR}/ directory")
    try:
        return asyncio.run(_migrate(url) if args.command == "migrate"
                           else _import(args.data_dir.expanduser(), url))
    except db.StoreError as err:
        print(f"casino-tui store: {err}", file=sys.stderr)
        return 1


async def _migrate(url: str) -> int:
    from . import db
    from .schemas import all_schemas

    conn = await db.connect(url)
    try:
        print(db.describe(await db.migrate(conn, all_schemas())))
    finally:
        await conn.close()
    return 0


async def _import(data: Path, url: str) -> int:
    from . import db
    from .schemas import all_schemas

    conn = await db.connect(url)
    try:
        print(db.describe(await db.migrate(conn, all_schemas())))
        counts: Counter[str] = Counter()
        players = 0
        for root in sorted((data / PLAYERS_DIR).iterdir()):
            if not root.is_dir() or root.name.startswith("."):
                continue
            found = await _import_player(conn, root)
            if found is None:
                counts["skipped"] += 1
                continue
            players += 1
            counts.update(found)
    finally:
        await conn.close()
    print(f"imported {players} player(s) from {data}: {counts['added']} file(s) added, "
          f"{counts['same']} already in the store, {counts['merged']} ledger(s) merged, "
          f"{counts['kept']} kept as the store has them (newer there)"
          + (f"; {counts['skipped']} directory(ies) without a player.json skipped"
             if counts["skipped"] else ""))
    tables = data / TABLE_SAVES
    if tables.is_dir():
        from .tables import import_table_saves

        conn = await db.connect(url)
        try:
            imported = await import_table_saves(conn, tables)
        finally:
            await conn.close()
        print(f"imported the tables from {tables}: {imported['tables']} table(s) and "
              f"{imported['games']} game(s) added"
              + (f"; {imported['skipped']} file(s) skipped" if imported["skipped"] else ""))
    return 0


async def _import_player(conn: Conn, root: Path) -> Counter[str] | None:
    from . import players as P
    from .mirror import read_complete, scan

    try:
        info = json.loads((root / PLAYER_FILE).read_text(encoding="utf-8"))
        fingerprint = str(info["fingerprint"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"casino-tui store: {root} skipped: no readable {PLAYER_FILE} ({err})",
              file=sys.stderr)
        return None
    sessions = info.get("sessions")
    await P.import_player(conn, root.name, fingerprint,
                          _when(info.get("first_seen")), _when(info.get("last_seen")),
                          sessions if isinstance(sessions, int) else 0)
    counts: Counter[str] = Counter()
    for rel in sorted(scan(root)):
        got = await asyncio.to_thread(read_complete, root, rel)
        if got is None:
            print(f"casino-tui store: {root / rel} could not be read whole: skipped",
                  file=sys.stderr)
            continue
        content, st = got
        counts[await P.import_file(conn, root.name, rel, content,
                                   mtime_ns=st.mtime_ns)] += 1
    return counts


def _when(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
