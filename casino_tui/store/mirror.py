"""One player's directory mirrored with the store (:class:`PlayerMirror`).

The game never knows of the store: it reads and writes its files in the player's directory on
this host (``data/`` and ``config/``) as it always has. The server mirrors them: :meth:`pull`
brings what other hosts wrote (before the game starts), :meth:`push` sends what changed here
(every second or two while the game runs, and once more when it ends).

* Only whole files travel. The game writes every file atomically (a temporary file renamed
  over the old one), so a file under its own name is always complete; the statistics ledger is
  appended under its lock (``.ledger.lock``), which :func:`read_complete` takes too. Locks,
  temporary files and caches (every name starting with ``.``, and ``*.tmp``) stay local.
* A pulled file is written atomically (a temporary file named with this process's id, then
  renamed), with the mtime it had where it was written: the game never reads half a file.
* What was last in step with the store is kept in a manifest (``path -> version, SHA-256,
  size, mtime``; a JSON file of the server's, outside the player's directory), so a file
  changed here and a file changed in the store are told apart: the newer version wins; a
  ledger changed on both sides is merged (every game of both); a file deleted on one side is
  deleted on the other (a tombstone in the store).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import secrets
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from casino_tui.stats.ledger import LOCK_FILE

from . import players as P
from .db import Conn
from .players import LEDGER, SETTINGS, merge_ledgers

log = logging.getLogger("casino_tui.store")

MIRRORED_DIRS = ("data", "config")
__all__ = ["LEDGER", "SETTINGS", "PlayerMirror", "merge_ledgers", "read_complete", "scan",
           "write_atomic"]
MAX_FILE = 16 * 1024 * 1024  # a larger file is not the game's: it stays local (logged)


@dataclass(frozen=True)
class Synced:
    """A file as it was when last in step with the store."""

    version: int
    sha256: str
    size: int
    mtime_ns: int
    deleted: bool = False


@dataclass(frozen=True)
class Stat:
    size: int
    mtime_ns: int


# a file to send: its path, its whole content (None: deleted here) and its stat as read
Change = tuple[str, bytes | None, Stat]


def mirrored(name: str) -> bool:
    """Whether a file of this name travels (locks, temporary files and caches do not)."""
    return not name.startswith(".") and not name.endswith((".tmp", ".lock"))


def scan(root: Path) -> dict[str, Stat]:
    """The mirrored files under ``root``'s ``data/`` and ``config/``: {relative path: stat}."""
    found: dict[str, Stat] = {}
    for top in MIRRORED_DIRS:
        base = root / top
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if not mirrored(name):
                    continue
                path = Path(dirpath) / name
                try:
                    st = path.lstat()
                except OSError:
                    continue
                if not _is_regular(st.st_mode):
                    continue
                found[path.relative_to(root).as_posix()] = Stat(st.st_size, st.st_mtime_ns)
    return found


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


def read_complete(root: Path, rel: str) -> tuple[bytes, Stat] | None:
    """The file's whole content and its stat as read, or None when it is not complete now
    (the ledger while the game appends to it), gone, or too large."""
    path = root / rel
    lock_fd = -1
    try:
        if rel == LEDGER:
            lock_fd = os.open(path.parent / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                              0o600)
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return None  # the game is appending: the next scan takes it
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            st = os.fstat(fd)
            if not _is_regular(st.st_mode):
                return None
            if st.st_size > MAX_FILE:
                log.warning("%s is larger than %d bytes: not sent to the store", path, MAX_FILE)
                return None
            with os.fdopen(os.dup(fd), "rb") as f:
                content = f.read(MAX_FILE + 1)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        if len(content) != st.st_size:
            return None  # changed while read: the next scan takes it
        return content, Stat(st.st_size, st.st_mtime_ns)
    except OSError:
        return None
    finally:
        if lock_fd >= 0:
            os.close(lock_fd)


def write_atomic(root: Path, rel: str, content: bytes, mtime_ns: int) -> Stat:
    """Write a pulled file: a temporary file in the same directory, fsynced, its mtime set,
    renamed over the old one. Never leaves half a file under the file's name."""
    path = root / rel
    _make_dirs(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(3)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, content) if content else None
            os.fsync(fd)
        finally:
            os.close(fd)
        if mtime_ns > 0:
            os.utime(tmp, ns=(mtime_ns, mtime_ns))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    st = path.stat()
    return Stat(st.st_size, st.st_mtime_ns)


def _safe(rel: str) -> bool:
    """Whether a path from the store names a file this mirror may write: under ``data/`` or
    ``config/``, nothing that climbs out (``..``) or is absolute, a name that travels."""
    parts = rel.split("/")
    ok = (len(parts) >= 2 and parts[0] in MIRRORED_DIRS and "\\" not in rel
          and all(p and p not in (".", "..") and not p.startswith(".") for p in parts)
          and mirrored(parts[-1]))
    if not ok:
        log.warning("the store names a file %r that is not a player's file: left alone", rel)
    return ok


def _make_dirs(path: Path) -> None:
    """``path`` and its missing parents, each of mode 0700 (a player's files are theirs)."""
    if path.is_dir():
        return
    _make_dirs(path.parent)
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)


def _sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def display_name_of(settings: bytes) -> str | None:
    with contextlib.suppress(ValueError, AttributeError):
        name = json.loads(settings).get("display_name")
        if isinstance(name, str):
            return name
    return None


class PlayerMirror:
    """The files of player ``player`` in directory ``root``, in step with the store.

    ``manifest``: the server's JSON file of what was last in step (outside ``root``).
    ``host``: this server's host id, recorded with each file it writes. The methods take a
    connection (run them under the link's lock and timeout); the file work runs in a thread.
    """

    def __init__(self, player: str, root: Path, manifest: Path, host: str) -> None:
        self.player = player
        self.root = root
        self.manifest_path = manifest
        self.host = host
        self.synced: dict[str, Synced] = self._load()

    # ------------------------------------------------------------------ the manifest
    def _load(self) -> dict[str, Synced]:
        try:
            raw = json.loads(self.manifest_path.read_text(encoding="utf-8"))
            return {str(k): Synced(**v) for k, v in raw.items()}
        except (OSError, ValueError, TypeError, AttributeError):
            return {}

    def _save(self) -> None:
        text = json.dumps({k: asdict(v) for k, v in sorted(self.synced.items())})
        try:
            write_atomic(self.manifest_path.parent, self.manifest_path.name, text.encode(), 0)
        except OSError as err:  # the next push or pull compares contents instead
            log.warning("cannot write %s: %s", self.manifest_path, err.strerror or err)

    def _unchanged(self, rel: str, st: Stat, known: Synced | None) -> bool:
        """The local file is as it was when last in step (by its stat, else its content)."""
        if known is None or known.deleted:
            return False
        if st.size == known.size and st.mtime_ns == known.mtime_ns:
            return True
        got = read_complete(self.root, rel)
        return got is not None and _sha(got[0]) == known.sha256

    # ------------------------------------------------------------------ pull
    async def pull(self, conn: Conn, only: Iterable[str] | None = None) -> int:
        """Bring this host's copy up to what the store has (``only``: just those paths);
        returns how many files were written or deleted here."""
        remote = {p: m for p, m in (await P.files(conn, self.player)).items() if _safe(p)}
        if only is not None:
            keep = set(only)
            remote = {p: m for p, m in remote.items() if p in keep}
        plan = await asyncio.to_thread(self._plan_pull, remote)
        fetch, delete, merge = plan
        got = await P.contents(conn, self.player, fetch) if fetch else {}
        changed = await asyncio.to_thread(self._apply_pull, remote, got, delete, merge)
        return changed

    def _plan_pull(self, remote: dict[str, P.FileMeta]
                   ) -> tuple[list[str], list[str], set[str]]:
        local = scan(self.root)
        fetch: list[str] = []
        delete: list[str] = []
        merge: set[str] = set()
        for rel, meta in remote.items():
            known = self.synced.get(rel)
            if known is not None and known.version >= meta.version:
                continue  # nothing new in the store
            st = local.get(rel)
            if st is None:
                if meta.deleted:
                    self.synced[rel] = Synced(meta.version, "", 0, 0, True)
                else:
                    fetch.append(rel)
                continue
            same = (not meta.deleted and st.size == meta.size
                    and (got := read_complete(self.root, rel)) is not None
                    and _sha(got[0]) == meta.sha256)
            if same:
                self.synced[rel] = Synced(meta.version, meta.sha256, st.size, st.mtime_ns)
                continue
            if self._unchanged(rel, st, known):
                (delete if meta.deleted else fetch).append(rel)
                continue
            # changed here since the last step and in the store: merge the ledger, else the
            # newer wins (a file kept here is sent by the next push)
            if rel == LEDGER and not meta.deleted:
                fetch.append(rel)
                merge.add(rel)
            elif meta.mtime_ns >= st.mtime_ns:
                (delete if meta.deleted else fetch).append(rel)
            else:
                log.info("player %s: %s is newer here than in the store: kept", self.player,
                         rel)
                old = known or Synced(0, "", -1, -1)
                self.synced[rel] = Synced(meta.version, old.sha256, -1, -1)
        return fetch, delete, merge

    def _apply_pull(self, remote: dict[str, P.FileMeta], got: dict[str, tuple[int, bytes]],
                    delete: list[str], merge: set[str]) -> int:
        changed = 0
        for rel, (version, content) in got.items():
            meta = remote[rel]
            if rel in merge:
                local = read_complete(self.root, rel)
                merged = merge_ledgers(content, local[0] if local else b"")
                st = write_atomic(self.root, rel, merged, 0)
                # the store's version, its content: the merged file goes out with the next push
                self.synced[rel] = Synced(version, _sha(content), -1, -1)
            else:
                st = write_atomic(self.root, rel, content, meta.mtime_ns)
                self.synced[rel] = Synced(version, _sha(content), st.size, st.mtime_ns)
            changed += 1
        for rel in delete:
            with contextlib.suppress(FileNotFoundError):
                (self.root / rel).unlink()
            meta = remote[rel]
            self.synced[rel] = Synced(meta.version, "", 0, 0, True)
            changed += 1
        self._save()
        return changed

    # ------------------------------------------------------------------ push
    def changes(self) -> list[Change]:
        """What changed here since the last step, read whole (a thread's work: it reads the
        player's files); nothing of the store is asked."""
        return self._plan_push()

    async def push(self, conn: Conn, *, force: bool = False,
                   outgoing: list[Change] | None = None) -> int:
        """Send what changed here since the last step (``force``: this host plays the player,
        so its files win over the store's; ``outgoing``: the :meth:`changes` read already);
        returns how many files were sent."""
        if outgoing is None:
            outgoing = await asyncio.to_thread(self._plan_push)
        sent = 0
        conflicts: list[str] = []
        for rel, content, st in outgoing:
            known = self.synced.get(rel)
            expected = known.version if known is not None else 0
            if content is None:
                version = await P.put(conn, self.player, rel, None, sha256="", size=0,
                                      mtime_ns=st.mtime_ns, expected=expected, host=self.host,
                                      force=force)
                if version is not None:
                    self.synced[rel] = Synced(version, "", 0, 0, True)
            else:
                sha = _sha(content)
                version = await P.put(conn, self.player, rel, content, sha256=sha,
                                      size=st.size, mtime_ns=st.mtime_ns, expected=expected,
                                      host=self.host, force=force)
                if version is not None:
                    self.synced[rel] = Synced(version, sha, st.size, st.mtime_ns)
                    if rel == SETTINGS and (name := display_name_of(content)) is not None:
                        await P.set_display_name(conn, self.player, name)
            if version is None:
                conflicts.append(rel)
            else:
                sent += 1
        if conflicts:
            log.warning("player %s: %s changed in the store meanwhile (another host): kept "
                        "here, and taken from the store at the next login", self.player,
                        ", ".join(sorted(conflicts)))
        if outgoing:
            await asyncio.to_thread(self._save)
        return sent

    def _plan_push(self) -> list[Change]:
        local = scan(self.root)
        out: list[Change] = []
        for rel, st in sorted(local.items()):
            known = self.synced.get(rel)
            if known is not None and not known.deleted and st.size == known.size \
                    and st.mtime_ns == known.mtime_ns:
                continue
            got = read_complete(self.root, rel)
            if got is None:
                continue
            content, st = got
            if known is not None and not known.deleted and _sha(content) == known.sha256:
                self.synced[rel] = Synced(known.version, known.sha256, st.size, st.mtime_ns)
                continue
            out.append((rel, content, st))
        now = Stat(0, _now_ns())
        for rel, known in sorted(self.synced.items()):
            if not known.deleted and rel not in local and rel.split("/", 1)[0] in MIRRORED_DIRS:
                out.append((rel, None, now))
        return out


def _now_ns() -> int:
    import time

    return time.time_ns()
