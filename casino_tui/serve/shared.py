"""The server's players in the shared store (``casino-tui serve --store URL``).

The game never knows of the store: each session's game reads and writes the player's files in
this host's data directory, as without a store. Around it the server

* at a login, before the game starts: records the visit, claims the player for this host and
  session (a session of the same player on another host is told to hang up, and this login
  waits, bounded, until that host has sent its last files), and pulls the player's files;
* while the game runs: sends what changed every :data:`PUSH_EVERY` seconds, and looks whether
  another host took the player over (then the game here is hung up as on one host: "You
  connected again from somewhere else ...");
* when the game ends: sends the last changes and gives the player up;
* all the time: pulls every player's ledger and settings that another host changed, so the
  daily deal's ranking (which reads ``players/*/data/ledger.jsonl``) sees every host's players.

When the store is away a login is refused with a clear message (within the link's timeout),
games go on and their files are kept here; they are sent when the store is back. Meanwhile a
game's player is told so: the session's status file (``.store-away`` in the player's data
directory, named to the game by ``CASINO_TUI_STORE_STATUS``, never sent to the store) is there
while the session's sends fail, and goes when one works again.
psycopg is imported only through this module, and this module only with ``--store``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from casino_tui.saves.storestatus import STATUS_FILE, clear_away, write_away
from casino_tui.store import players as P
from casino_tui.store.db import Conn, StoreError
from casino_tui.store.link import StoreLink
from casino_tui.store.mirror import LEDGER, SETTINGS, Change, PlayerMirror, write_atomic
from casino_tui.store.schemas import all_schemas

from .config import StoreAway
from .players import PLAYER_FILE, PlayerDirs, fingerprint_of, player_id
from .pty_session import REPLACED, SessionEnd

if TYPE_CHECKING:  # pragma: no cover
    from .server import GameServer

log = logging.getLogger("casino_tui.serve")

PUSH_EVERY = 1.5  # seconds between two looks at a playing player's files
OWNER_EVERY = 3  # every third look asks the store whether the player is still this host's
SHARED_EVERY = 5.0  # seconds between two pulls of the other players' ledgers and settings
HANDOVER_WAIT = 10.0  # seconds a login waits for another host to hand its player over
PULL_TIMEOUT = 30.0  # seconds a login's pull of the player's files may take
STORE_AWAY = ("casino-tui: this server cannot reach its store of players just now, so your "
              "game cannot be opened here. Nothing is lost: try again in a minute.")
STORE_DIR = "store"  # in the data directory: what each player's files were when last in step


@dataclass
class StoreSession:
    """One session's player in the store."""

    player: str
    number: int
    mirror: PlayerMirror
    status: Path  # the status file: there while the store is away (the game looks at it)
    task: asyncio.Task[None] | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)  # the game ended
    away: bool = False  # the last send failed (the status file was written)

    async def store_away(self, away: bool) -> None:
        """Write or remove the status file when the store's state changes (a disk problem
        only goes to the log: the game has its own way of saying so)."""
        if away == self.away:
            return
        self.away = away
        try:
            await asyncio.to_thread(write_away if away else clear_away, self.status)
        except OSError as err:
            log.warning("session %d: the status file %s: %s", self.number, self.status, err)


class SharedPlayers:
    """The players of ``server`` in the store at ``url``, as host ``host``."""

    def __init__(self, server: GameServer, url: str, host: str) -> None:
        self.server = server
        self.link = StoreLink(url, host)
        self.host = host
        self._mirrors: dict[str, PlayerMirror] = {}
        self._playing: dict[str, StoreSession] = {}  # player id -> this host's session
        self._pending: set[str] = set()  # players whose last files are not sent yet
        self._shared_version = 0
        self._loop_task: asyncio.Task[None] | None = None
        self._handovers: set[asyncio.Task[None]] = set()
        self._wakeup = asyncio.Event()

    @property
    def unsent(self) -> int:
        """Players whose last files wait here for the store."""
        return len(self._pending)

    @property
    def manifests(self) -> Path:
        return self.server.config.data_dir / STORE_DIR

    async def start(self) -> None:
        """Connect, bring the schema up to date, listen; raises StoreError."""
        done = await self.link.open(all_schemas())
        log.info("store %s as host %s; %s", self.link.url_shown, self.host, done)
        self.link.on_notify(self._notified)
        self.link.on_back(self._wake)
        # files changed here that may never have reached the store (it was away when this
        # server stopped): sent if nobody changed them there meanwhile
        with contextlib.suppress(OSError):
            self._pending.update(p.stem for p in self.manifests.glob("*.json")
                                 if _is_player(p.stem))
        self._loop_task = asyncio.get_running_loop().create_task(self._shared_loop())

    async def close(self) -> None:
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(BaseException):
                await self._loop_task
        for task in list(self._handovers):
            task.cancel()
        if self._pending:
            await self._send_pending()
        if self._pending:
            log.warning("the files of %d player(s) could not be sent to the store before "
                        "stopping: they are kept in %s and sent at the next start of this "
                        "server or the player's next login here", len(self._pending),
                        self.server.config.data_dir)
        await self.link.close()

    def mirror(self, player: str) -> PlayerMirror:
        mirror = self._mirrors.get(player)
        if mirror is None:
            dirs = PlayerDirs.for_fingerprint(self.server.config.data_dir,
                                              fingerprint_of(player))
            mirror = PlayerMirror(player, dirs.root, self.manifests / f"{player}.json",
                                  self.host)
            self._mirrors[player] = mirror
        return mirror

    # ------------------------------------------------------------------ one session
    async def begin(self, fingerprint: str, number: int, dirs: PlayerDirs) -> StoreSession:
        """The player of ``fingerprint`` logs in for session ``number``: claim them, wait for
        another host to hand them over, pull their files. Raises StoreAway (refuse the
        login)."""
        try:
            return await self._begin(fingerprint, number, dirs)
        except StoreError as err:
            raise StoreAway(f"the store is away ({err})", STORE_AWAY) from None

    async def _begin(self, fingerprint: str, number: int, dirs: PlayerDirs) -> StoreSession:
        player = player_id(fingerprint)
        mirror = self.mirror(player)
        row = await self.link.run(lambda c: P.visit(c, player, fingerprint))
        before = await self.link.run(lambda c: P.claim(c, player, self.host, number))
        try:
            if before is not None:
                log.info("session %d: player %s was playing on host %s: waiting for it to hand "
                         "them over", number, fingerprint, before)
                await self._wait_handover(player, before, number)
            pulled = await self.link.run(mirror.pull, timeout=PULL_TIMEOUT)
        except BaseException:
            with contextlib.suppress(StoreError):
                await self.link.run(lambda c: P.release(c, player, self.host, number))
            raise
        self._pending.discard(player)
        with contextlib.suppress(OSError):
            await asyncio.to_thread(write_atomic, dirs.root, PLAYER_FILE,
                                    row.player_json().encode(), 0)
        if pulled:
            log.info("session %d: %d file(s) of player %s from the store", number, pulled,
                     fingerprint)
        session = StoreSession(player, number, mirror, dirs.data / STATUS_FILE)
        with contextlib.suppress(OSError):  # left by a server that was killed
            await asyncio.to_thread(clear_away, session.status)
        self._playing[player] = session
        session.task = asyncio.get_running_loop().create_task(self._push_loop(session))
        return session

    async def _wait_handover(self, player: str, before: str, number: int) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HANDOVER_WAIT
        while True:
            pending = await self.link.run(lambda c: P.handover_pending(c, player, self.host))
            if not pending:
                return
            if not await self.link.run(lambda c: P.host_alive(c, before)):
                log.info("session %d: host %s is gone (no heartbeat for %gs): taking its "
                         "player over with what the store has", number, before, P.HOST_STALE)
                break
            if loop.time() >= deadline:
                log.warning("session %d: host %s did not hand the player over within %gs: "
                            "going on with what the store has", number, before,
                            HANDOVER_WAIT)
                break
            await asyncio.sleep(0.25)
        # its files, should they come later, no longer overwrite what changes here
        await self.link.run(lambda c: P.handed_over(c, player, before))

    async def end(self, session: StoreSession) -> None:
        """The session's game ended: send its last files, give the player up."""
        session.stop.set()
        if session.task is not None:  # a push under way ends first (bounded)
            _done, pending = await asyncio.wait({session.task},
                                                timeout=self.link.timeout + 1)
            for task in pending:
                task.cancel()
        if self._playing.get(session.player) is session:
            del self._playing[session.player]
        await session.store_away(False)  # the game is over: nobody looks at it any more
        try:
            await self._final(session.player, session.number)
        except StoreError as err:
            self._pending.add(session.player)
            log.warning("player %s: the last files could not be sent to the store (%s): kept "
                        "here, sent when it is back", session.player, err)

    async def _final(self, player: str, number: int | None) -> int:
        """Send the player's last files and give them up (session ``number``; None: whatever
        session of this host had them); returns how many files were sent."""
        mirror = self.mirror(player)

        async def last(conn: Conn) -> int:
            now = await P.owner(conn, player)
            # ours, or being handed over by us: our files are the newest; else only what
            # nobody changed meanwhile is sent
            force = now is not None and self.host in (now[0], now[2])
            sent = await mirror.push(conn, force=force)
            if number is not None:
                await P.release(conn, player, self.host, number)
            elif now is not None and now[0] == self.host:
                await P.release(conn, player, self.host, now[1])
            await P.handed_over(conn, player, self.host)
            return sent

        return await self.link.run(last, timeout=PULL_TIMEOUT)

    async def _push_loop(self, session: StoreSession) -> None:
        """Every PUSH_EVERY seconds: read what changed (without the store) and send it; every
        OWNER_EVERY-th time, also when nothing changed, look whether another host took the
        player over (its notification says so at once; this is for one that was missed).
        While sends fail the session's status file tells the game that the store is away."""
        for tick in itertools.count(1):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(session.stop.wait(), PUSH_EVERY)
                return  # the game ended: end() sends the last files
            outgoing = await asyncio.to_thread(session.mirror.changes)
            if not outgoing and tick % OWNER_EVERY:
                continue
            try:
                other = await self.link.run(functools.partial(self._tick, session=session,
                                                              outgoing=outgoing))
            except StoreError:
                # kept here (read again next time); the log said the store is away
                await session.store_away(True)
                continue
            await session.store_away(False)
            if other is not None:
                self._taken_over(session.player, other)
                return

    async def _tick(self, conn: Conn, *, session: StoreSession,
                    outgoing: list[Change]) -> str | None:
        """Send ``outgoing``; the other host that took the player over, if one did."""
        now = await P.owner(conn, session.player)
        if now is not None and now[0] != self.host:
            return now[0]
        if outgoing:
            await session.mirror.push(conn, force=True, outgoing=outgoing)
        return None

    # ------------------------------------------------------------------ takeovers
    def _notified(self, data: dict[str, object]) -> None:
        player, host = data.get("player"), data.get("host")
        if host != self.host or not isinstance(player, str):
            return
        self._taken_over(player, str(data.get("by", "another host")))

    def _taken_over(self, player: str, by: str = "another host") -> None:
        task = asyncio.get_running_loop().create_task(self._hand_over(player, by))
        self._handovers.add(task)
        task.add_done_callback(self._handovers.discard)

    async def _hand_over(self, player: str, by: str) -> None:
        """Another host took ``player`` over: hang up their game here (it saves), send the
        last files, and say so in the store."""
        try:
            fingerprint = fingerprint_of(player)
        except ValueError:
            return
        server = self.server
        session = self._playing.get(player)
        games = {n: g for n, g in server.sessions.items() if g.player == fingerprint}
        if games:
            for n, game in games.items():
                if not game.hanging_up:
                    log.info("session %d: player %s connected on host %s: hanging up", n,
                             fingerprint, by)
                game.stop(SessionEnd("replaced", 1))
            waiters = [asyncio.ensure_future(g.ended.wait()) for g in games.values()]
            _done, pending = await asyncio.wait(
                waiters, timeout=server.config.hangup_grace + 6)
            for w in pending:
                w.cancel()
        if server.web_front is not None and await server.web_front.hang_up(player, REPLACED):
            log.info("player %s connected on host %s: ended their game in a browser",
                     fingerprint, by)
        if session is not None and session.task is not None:
            # the session's own end sends the last files; wait for it (bounded)
            for _ in range(int(HANDOVER_WAIT / 0.1)):
                if self._playing.get(player) is not session:
                    return
                await asyncio.sleep(0.1)
        try:
            await self._final(player, None)
            self._pending.discard(player)
        except StoreError as err:
            log.warning("player %s: cannot hand over to host %s: %s", player, by, err)

    # ------------------------------------------------------------------ everyone's ledgers
    def _wake(self) -> None:
        self._wakeup.set()

    async def _shared_loop(self) -> None:
        while True:
            with contextlib.suppress(StoreError):
                if self._pending:
                    await self._send_pending()
                await self._pull_shared()
            self._wakeup.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), SHARED_EVERY)

    async def _send_pending(self) -> None:
        for player in sorted(self._pending):
            if player in self._playing:
                self._pending.discard(player)
                continue
            try:
                sent = await self._final(player, None)
            except StoreError:
                return
            self._pending.discard(player)
            if sent:
                log.info("player %s: %d file(s) kept while the store was away are sent",
                         player, sent)

    async def _pull_shared(self) -> None:
        """Every other player's ledger and settings that changed in the store, into their
        directory here (for the daily deal's ranking)."""
        paths = (LEDGER, SETTINGS)
        changed = await self.link.run(
            lambda c: P.changed_since(c, self._shared_version, paths))
        if not changed:
            return
        players = sorted({p for p, _m in changed if p not in self._playing and _is_player(p)})
        top = max(m.version for _p, m in changed)
        for player in players:
            mirror = self.mirror(player)
            await self.link.run(lambda c, m=mirror: m.pull(c, only=paths))  # type: ignore[misc]
        self._shared_version = top


def _is_player(name: str) -> bool:
    """Whether ``name`` is a player id (``sha256-...``) that a key gives."""
    try:
        fingerprint_of(name)
    except ValueError:
        return False
    return True
