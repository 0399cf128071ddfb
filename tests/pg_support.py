"""A throwaway PostgreSQL server for the tests: a cluster of its own, on a Unix socket only.

`PgCluster.start()` runs `initdb` in a temporary directory and starts the server with no TCP
listener (the socket lives in the cluster's directory); `database()` makes a fresh database and
returns its URL. As root, the server runs as the `postgres` user (PostgreSQL refuses root).
`stop()` ends it with `pg_ctl -m immediate` and removes the directory. `pause()` / `resume()`
(SIGSTOP/SIGCONT on the postmaster and its children) make a database that does not answer.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

REQUIRE_ENV = "CASINO_TUI_REQUIRE_POSTGRES"


def _bindir() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    try:
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                             check=True, timeout=10).stdout.strip()
        if (Path(out) / "initdb").exists():
            return Path(out)
    except (OSError, subprocess.SubprocessError):
        pass
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(d) / "initdb").exists():
            return Path(d)
    return None


class PgUnavailable(RuntimeError):
    """PostgreSQL cannot be started here (the reason is the message)."""


class PgCluster:
    def __init__(self) -> None:
        self.bindir = _bindir()
        self.dir: Path | None = None
        self._names = itertools.count(1)
        self._as_root = os.geteuid() == 0

    @property
    def socket_dir(self) -> Path:
        assert self.dir is not None
        return self.dir / "sock"

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        assert self.bindir is not None
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self._as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)

    def start(self) -> PgCluster:
        if self.bindir is None:
            raise PgUnavailable("PostgreSQL is not installed (no initdb on PATH, in "
                                "`pg_config --bindir` or /usr/lib/postgresql/*/bin)")
        if self._as_root and shutil.which("runuser") is None:
            raise PgUnavailable("running as root without runuser: cannot start PostgreSQL")
        self.dir = Path(tempfile.mkdtemp(prefix="casino-pg-"))
        (self.dir / "sock").mkdir()
        if self._as_root:
            shutil.chown(self.dir, "postgres")
            shutil.chown(self.dir / "sock", "postgres")
        data = self.dir / "data"
        r = self._run("initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                      "--no-sync")
        if r.returncode:
            raise PgUnavailable(f"initdb failed: {r.stderr.strip() or r.stdout.strip()}")
        opts = (f"-k {self.socket_dir} -c listen_addresses='' -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        r = self._run("pg_ctl", "-D", str(data), "-o", opts, "-l", str(self.dir / "server.log"),
                      "-w", "start")
        if r.returncode:
            log = (self.dir / "server.log").read_text(errors="replace")[-2000:]
            raise PgUnavailable(f"pg_ctl start failed: {r.stderr.strip()} {log}")
        return self

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@/{dbname}?host={self.socket_dir}"

    def database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"casino_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'create database "{name}"')  # type: ignore[arg-type]
        return self.url(name)

    def _pids(self) -> list[int]:
        assert self.dir is not None
        pidfile = self.dir / "data" / "postmaster.pid"
        main = int(pidfile.read_text().split()[0])
        out = subprocess.run(["pgrep", "-P", str(main)], capture_output=True, text=True)
        return [main, *(int(p) for p in out.stdout.split())]

    def pause(self) -> None:
        for pid in self._pids():
            os.kill(pid, signal.SIGSTOP)

    def resume(self) -> None:
        for pid in self._pids():
            os.kill(pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.dir is None:
            return
        with contextlib.suppress(OSError, ValueError):
            self.resume()
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None
