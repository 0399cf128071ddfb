"""Players, keys and directories of the SSH server (no asyncssh import at module level).

Layout of the server's data directory::

    DATA/ssh_host_ed25519_key       the host key (mode 0600), made on the first start
    DATA/ssh_host_ed25519_key.pub   its public half, to publish to players
    DATA/players/<id>/player.json   the key's fingerprint, first and last visit
    DATA/players/<id>/data/         the player's saves     (CASINO_TUI_DATA_DIR of their game)
    DATA/players/<id>/config/       the player's settings  (CASINO_TUI_CONFIG_DIR of their game)

``<id>`` is the key's SHA-256 fingerprint made safe for file names (``sha256-`` and the base64
digest with ``+`` and ``/`` replaced by ``-`` and ``_``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import logging
import os
import secrets
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from asyncssh import SSHKey

log = logging.getLogger("casino_tui.serve")

HOST_KEY_FILE = "ssh_host_ed25519_key"
PLAYERS_DIR = "players"
PLAYER_FILE = "player.json"
# The app flag that resumes the latest unfinished game (the saves issue adds it).
CONTINUE_FLAG = "--continue"
# The app flag that joins a table: ``ssh -t -p PORT HOST join CODE``.
JOIN_FLAG = "--join"
JOIN_COMMAND = "join"
PLAIN_COMMAND = "plain"  # ssh -t HOST plain: the game as lines of text (casino-tui --plain)
PLAIN_FLAG = "--plain"


def player_id(fingerprint: str) -> str:
    """A directory name for a key fingerprint such as ``SHA256:AbC+/x``: ``sha256-AbC-_x``."""
    algo, sep, digest = fingerprint.partition(":")
    if not sep or not digest:
        raise ValueError(f"not a key fingerprint: {fingerprint!r}")
    safe = digest.replace("+", "-").replace("/", "_")
    if not all(c.isalnum() or c in "-_=" for c in safe) or not algo.isalnum():
        raise ValueError(f"not a key fingerprint: {fingerprint!r}")
    return f"{algo.lower()}-{safe}"


def fingerprint_of(player: str) -> str:
    """The key fingerprint a :func:`player_id` was made from (``sha256-AbC-_x`` ->
    ``SHA256:AbC+/x``): base64 digests hold no ``-`` or ``_``, so nothing is lost. Raises
    ``ValueError`` for a text that no fingerprint gives."""
    algo, sep, safe = player.partition("-")
    fingerprint = f"{algo.upper()}:{safe.replace('-', '+').replace('_', '/')}"
    if not sep or not safe or player_id(fingerprint) != player:
        raise ValueError(f"not a player id: {player!r}")
    return fingerprint


@dataclass(frozen=True)
class PlayerDirs:
    """Where one player's files live."""

    root: Path
    data: Path
    config: Path

    @classmethod
    def for_fingerprint(cls, server_data: Path, fingerprint: str) -> PlayerDirs:
        root = server_data / PLAYERS_DIR / player_id(fingerprint)
        return cls(root=root, data=root / "data", config=root / "config")

    def ensure(self) -> None:
        for d in (self.root, self.data, self.config):
            d.mkdir(mode=0o700, parents=True, exist_ok=True)

    def display_name(self) -> str:
        """The name the player chose to be shown at tables ("" until they choose one): kept in
        their settings, which the game reads from and writes to :attr:`config`."""
        from casino_tui.settings import load_settings

        return load_settings(self.config).display_name

    def record_visit(self, fingerprint: str) -> None:
        """Keep ``player.json`` (which key this directory belongs to) up to date."""
        path = self.root / PLAYER_FILE
        now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        info: dict[str, object] = {}
        with contextlib.suppress(OSError, ValueError):
            loaded = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(loaded, dict):
                info = loaded
        info["fingerprint"] = fingerprint
        info.setdefault("first_seen", now)
        info["last_seen"] = now
        visits = info.get("sessions")
        info["sessions"] = (visits if isinstance(visits, int) else 0) + 1
        _write_atomic(path, json.dumps(info, indent=2) + "\n", 0o600)


def prepare_player(dirs: PlayerDirs, fingerprint: str) -> str | None:
    """Make the player's directories and record this visit (``player.json``).

    Never raises: a player whose files cannot be written (a full disk, a data directory made
    read-only or unwritable while the server runs) still plays. The problem is logged, and the
    returned sentence tells the player (the game shows it at start); None when all went well.
    Nothing already written is changed by a failure (``player.json`` is replaced atomically)."""
    try:
        dirs.ensure()
        dirs.record_visit(fingerprint)
    except OSError as err:
        why = _os_reason(err)
        log.warning("cannot write the files of player %s in %s (%s): the game starts anyway, "
                    "but may not be able to save; %s", fingerprint, dirs.root, why,
                    _os_fix(err, dirs.root.parent.parent))
        return (f"The server could not write your player files in {dirs.root} ({why}). You "
                f"can play, but your game may not be saved: please tell the server's "
                f"operator.")
    return None


def _os_reason(err: OSError) -> str:
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if err.errno == errno.EROFS:
        return "read-only file system"
    return err.strerror or str(err)


def _os_fix(err: OSError, path: Path) -> str:
    """What the operator can do about ``err`` in data directory ``path``."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"free some space on the disk of {path}"
    if err.errno == errno.EROFS:
        return f"mount the file system of {path} read-write, or choose another --data-dir DIR"
    if err.errno in (errno.EACCES, errno.EPERM):
        return (f"make {path} writable by this user (uid {os.geteuid()}), or choose another "
                "--data-dir DIR")
    if err.errno in (errno.ENOTDIR, errno.EEXIST):
        return f"move away the file that stands in {path}, or choose another --data-dir DIR"
    return f"check the disk of {path}, or choose another --data-dir DIR"


# ---------------------------------------------------------------------- the data directory
class DataDirError(Exception):
    """The server's data directory cannot be used; ``str()`` names it, says why and what to
    do. ``casino-tui serve`` stops before listening (exit status 2)."""


def check_data_dir(path: Path) -> None:
    """Make sure ``path`` is a directory the server may write in: made (mode 0700) if missing,
    then a probe file is created and removed. Raises :class:`DataDirError`.

    A full disk is not an error here: players can still log in and play (their games are not
    saved until there is room, and the game tells them); it is logged as a warning."""
    def fail(why: str, fix: str) -> DataDirError:
        return DataDirError(f"cannot use the data directory {path}: {why}. {fix}.")

    other = "or choose another directory with --data-dir DIR"
    if path.exists() and not path.is_dir():
        raise fail("it is a file, not a directory", f"Move the file away, {other}")
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise fail(f"{blocker} is a file, not a directory",
                       f"Move that file away, {other}") from None
        parent = next((p for p in path.parents if p.is_dir()), path.parent)
        raise fail(f"it cannot be made ({_os_reason(err)})",
                   _capital(_os_fix(err, parent))) from None
    probe = path / f".probe-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, b"casino-tui: may the server write here?\n")
        finally:
            os.close(fd)
    except OSError as err:
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            log.warning("the disk of the data directory %s is full: players can log in and "
                        "play, but nothing is saved until some space is freed", path)
            return
        if err.errno in (errno.EACCES, errno.EPERM):
            raise fail(f"this user (uid {os.geteuid()}) may not write in it "
                       f"({_os_reason(err)})", _capital(_os_fix(err, path))) from None
        if err.errno == errno.EROFS:
            raise fail("it is on a read-only file system",
                       _capital(_os_fix(err, path))) from None
        raise fail(f"a file cannot be written in it ({_os_reason(err)})",
                   _capital(_os_fix(err, path))) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(probe)


def host_key_problem(err: Exception, data_dir: Path) -> DataDirError:
    """The host key (in ``data_dir``) could not be read or made: ``err`` is an OSError, or
    the ValueError of a file that holds no private key."""
    key = data_dir / HOST_KEY_FILE
    prefix = f"cannot use the data directory {data_dir}: the host key {key}"
    if not isinstance(err, OSError):
        return DataDirError(f"{prefix} is not a private key this server can read ({err}). "
                            "Restore it from a backup, or move it away to make a new one "
                            "(players' ssh will then say that the host key has changed).")
    return DataDirError(f"{prefix} cannot be read or written ({_os_reason(err)}). "
                        f"{_capital(_os_fix(err, data_dir))}.")


def read_host_key_file(path: Path) -> SSHKey:
    """The host key from a file of the operator's (``--host-key``): never made or changed
    here. :class:`DataDirError` says what is wrong with it and what to do."""
    import asyncssh

    try:
        mode = path.stat().st_mode & 0o777
        key = asyncssh.read_private_key(path)
    except FileNotFoundError:
        raise DataDirError(
            f"cannot use the host key {path}: there is no such file. Copy the key every host "
            "of the store shares there, or make one with: ssh-keygen -t ed25519 -N '' -f "
            f"{path}") from None
    except OSError as err:
        raise DataDirError(f"cannot use the host key {path}: it cannot be read "
                           f"({_os_reason(err)}). {_capital(_os_fix(err, path))}.") from None
    except (ValueError, asyncssh.KeyImportError) as err:
        raise DataDirError(f"cannot use the host key {path}: it is not a private key this "
                           f"server can read ({err}). Give the file of an OpenSSH private "
                           "key without a passphrase.") from None
    if mode & 0o077:
        log.warning("host key %s is readable by others (mode %o): make it private "
                    "(chmod 600 %s)", path, mode, path)
    return key


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _write_atomic(path: Path, text: str, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------- resuming a game
def app_supports_flag(flag: str) -> bool:
    """Whether the game's own command line (``casino-tui``) accepts ``flag`` (no value)."""
    from casino_tui.cli import build_parser

    parser = build_parser()
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            _ns, rest = parser.parse_known_args([flag])
    except (SystemExit, argparse.ArgumentError):
        return False
    return flag not in rest


def has_saved_game(data_dir: Path) -> bool:
    """True when the player has an unfinished game to continue.

    With the game's saves module (``casino_tui.saves``) this asks it, exactly as the app's
    Continue does (``latest_unfinished()`` of the games directory: readable, unfinished, not
    open in another window). Without that module it falls back to "the player's data
    directory holds any file": the app's saves live there and nothing else writes to it (the
    server keeps its own files one level up)."""
    found = _unfinished_via_saves(data_dir)
    if found is not None:
        return found
    if not data_dir.is_dir():
        return False
    return any(filenames for _dirpath, _dirnames, filenames in os.walk(data_dir))


def _unfinished_via_saves(data_dir: Path) -> bool | None:
    """None when the game has no saves module."""
    try:
        from casino_tui.saves import SaveStore, games_dir
    except ImportError:
        return None
    try:
        return SaveStore(games_dir(data_dir)).latest_unfinished() is not None
    except Exception as err:  # a damaged store must not keep the player out
        log.warning("cannot list the saved games in %s: %s", data_dir, err)
        return False


def latest_save_time(data_dir: Path) -> float | None:
    """When the game that ``--continue`` would resume was last saved (seconds since the
    epoch), None when there is none."""
    try:
        from casino_tui.saves import SaveStore, games_dir
    except ImportError:
        return None
    try:
        entry = SaveStore(games_dir(data_dir)).latest_unfinished()
    except Exception as err:  # a damaged store must not keep the player out
        log.warning("cannot list the saved games in %s: %s", data_dir, err)
        return None
    return None if entry is None else entry.modified.timestamp()


def join_command(command: str) -> str | None:
    """The table code of an exec request ``join CODE`` (the one command the server accepts;
    the code as :func:`casino_tui.table.codes.normalize_code` reads it), else None."""
    from casino_tui.table.codes import normalize_code

    word, _sep, rest = command.strip().partition(" ")
    if word != JOIN_COMMAND or not rest.strip():
        return None
    return normalize_code(rest)


def plain_command(command: str) -> tuple[bool, str | None]:
    """An exec request for plain mode: ``plain`` (``ssh -t HOST plain``) gives (True, None),
    ``plain join CODE`` (True, the code); anything else (False, None)."""
    word, _sep, rest = command.strip().partition(" ")
    if word != PLAIN_COMMAND:
        return False, None
    if not rest.strip():
        return True, None
    code = join_command(rest)
    return (True, code) if code is not None else (False, None)


def app_arguments(dirs: PlayerDirs, *, continue_supported: bool, ascii: bool = False,
                  join: str | None = None, plain: bool = False) -> list[str]:
    """The arguments of ``python -m casino_tui`` for this player's session: ``--join CODE``
    for ``ssh HOST join CODE``, ``--plain`` for ``ssh HOST plain`` (whose menu offers the game
    to continue), else ``--continue`` when they have a game to continue."""
    if plain:
        return [PLAIN_FLAG] + ([JOIN_FLAG, join] if join is not None else [])
    args: list[str] = []
    if join is not None:
        args += [JOIN_FLAG, join]
    elif continue_supported and has_saved_game(dirs.data):
        args.append(CONTINUE_FLAG)
    if ascii:
        args.append("--ascii")
    return args


# ---------------------------------------------------------------------- the host key
def load_or_create_host_key(data_dir: Path) -> SSHKey:
    """The server's host key: read from the data directory, or made there (mode 0600) on the
    first start. A key readable by others is made private again, with a warning."""
    import asyncssh

    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = data_dir / HOST_KEY_FILE
    if not path.exists():
        key = asyncssh.generate_private_key("ssh-ed25519", comment="casino-tui host key")
        fd, tmp = tempfile.mkstemp(dir=data_dir, prefix=f".{HOST_KEY_FILE}.")
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(key.export_private_key())
            try:
                os.link(tmp, path)  # never replaces a key another server made meanwhile
                log.info("made a new host key %s", path)
            except FileExistsError:
                pass
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        log.warning("host key %s was readable by others (mode %o); made it 0600", path, mode)
        os.chmod(path, 0o600)
    key = asyncssh.read_private_key(path)
    pub = data_dir / f"{HOST_KEY_FILE}.pub"
    public_text = key.export_public_key().decode("ascii")
    if not pub.exists() or pub.read_text(encoding="ascii", errors="replace") != public_text:
        try:
            _write_atomic(pub, public_text, 0o644)
        except OSError as err:  # only a copy for the operator: the server can run without it
            log.warning("cannot write %s (%s); the host key's fingerprint is in this log",
                        pub, _os_reason(err))
    return key


# ---------------------------------------------------------------------- authorized keys
def parse_authorized_keys(text: str) -> tuple[list[SSHKey], list[int]]:
    """The public keys of an OpenSSH ``authorized_keys`` text and the numbers of the lines that
    hold no key. Options before a key (``from=...``, ``command=...``) are ignored: every listed
    key is admitted to the game and nothing else. Certificate authorities are not supported."""
    import asyncssh

    keys: list[SSHKey] = []
    bad: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tokens = line.split()
        for start in range(len(tokens)):
            try:
                key = asyncssh.import_public_key(" ".join(tokens[start:]))
            except (asyncssh.KeyImportError, ValueError):
                continue
            if not any(t.startswith("cert-authority") for t in tokens[:start]):
                keys.append(key)
            else:
                bad.append(number)
            break
        else:
            bad.append(number)
    return keys, bad


class AuthorizedKeys:
    """The keys of an ``authorized_keys`` file, re-read when the file changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._allowed: set[bytes] = set()
        self.reload(strict=True)

    def reload(self, strict: bool = False) -> None:
        """Read the file again if it changed. ``strict``: raise ``ValueError`` when it cannot be
        read or admits nobody (at start-up); later a bad edit keeps the keys read before."""
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
            if stamp == self._stamp:
                return
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError as err:
            if strict:
                raise ValueError(f"cannot read {self.path}: {err.strerror}") from None
            log.error("cannot read %s (%s); keeping the keys read before", self.path,
                      err.strerror)
            return
        keys, bad = parse_authorized_keys(text)
        for number in bad:
            log.warning("%s line %d: not a public key this server can use; ignored",
                        self.path, number)
        if not keys and strict:
            raise ValueError(f"{self.path} lists no usable public key: nobody could play")
        self._stamp = stamp
        self._allowed = {k.public_data for k in keys}
        log.info("admitting %d key(s) from %s", len(self._allowed), self.path)

    def admits(self, key: SSHKey) -> bool:
        return key.public_data in self._allowed

    def __len__(self) -> int:
        return len(self._allowed)
