"""The cyclic garbage collector's CPU, per process, for ``python -m benchmarks.servedcpu``.

Copied by the benchmark into a directory of its own with ``gchook.json`` beside it (the
directory for the figures, ``dir``; the fork server keeps ``PYTHONPATH`` but not the rest of the
server's environment), and imported at start by every Python whose ``PYTHONPATH`` holds that
directory (the benchmark's server, its fork server, and so every game forked from it): after
each collection the process writes its totals so far (the collector's CPU
nanoseconds in its own thread, then the collections of each generation) to ``DIR/PID``, one line
written over in place. A forked game writes its own file (the pid is checked at each
collection: the fork server's descriptor is closed in the child). Measuring tooling: never
imported by the product.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

try:
    _CONFIG: dict[str, Any] = json.loads(Path(__file__).with_name("gchook.json").read_text())
except OSError:
    _CONFIG = {}


class _Totals:
    """The collector's totals in this process (those of the process it was forked from are
    dropped at the first collection after a fork)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.pid = 0
        self.fd = -1
        self.start = 0
        self.ns = 0
        self.counts = [0, 0, 0]

    def callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.start = time.thread_time_ns()
            return
        pid = os.getpid()
        if self.pid != pid:  # a fork: totals of its own, in a file of its own
            self.pid, self.ns, self.counts = pid, 0, [0, 0, 0]
            self.fd = self._open()
        self.ns += time.thread_time_ns() - self.start
        self.counts[info["generation"]] += 1
        line = ("{} {} {} {}".format(self.ns, *self.counts).ljust(63) + "\n").encode()
        try:
            os.pwrite(self.fd, line, 0)
        except OSError:  # the descriptor was closed (the fork server's child closes them)
            self.fd = self._open()
            os.pwrite(self.fd, line, 0)

    def _open(self) -> int:
        return os.open(f"{self.directory}/{self.pid}", os.O_WRONLY | os.O_CREAT, 0o600)


def _install(directory: str) -> None:
    gc.callbacks.append(_Totals(directory).callback)


class _Patch:
    """Once ``casino_tui.serve.forkserver`` is imported, its games' collector as the config
    says: ``thresholds`` [A, B, C] and ``freeze`` (after the first frame: collect, then freeze
    what is left, so that later collections walk only what the game makes from then on)."""

    NAME = "casino_tui.serve.forkserver"

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != self.NAME:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        loader: Any = spec.loader if spec is not None else None
        if loader is None:
            return spec
        original = loader.exec_module

        def exec_module(module: Any) -> None:
            original(module)
            thresholds = tuple(_CONFIG.get("thresholds") or module.SESSION_GC_THRESHOLDS)
            freeze = bool(_CONFIG.get("freeze"))

            def collect_sooner() -> None:
                gc.set_threshold(*thresholds)
                if freeze:
                    gc.collect()
                    gc.freeze()

            module.collect_sooner = collect_sooner

        loader.exec_module = exec_module
        return spec


def _profile_server(path: str) -> None:
    """Run the server (``casino-tui serve``, not its fork server) under cProfile, its main
    thread, and write the statistics to ``path`` when it exits."""
    import atexit
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()

    def dump() -> None:
        profiler.disable()
        profiler.dump_stats(path)

    atexit.register(dump)


def _no_ignore_packets() -> None:
    """In the server: drop the empty ``SSH_MSG_IGNORE`` that asyncssh sends before every packet
    once encrypting (a defence for CBC ciphers, which the server does not offer), to measure
    what they cost. An experiment: the product does not do this."""
    from asyncssh import connection

    original = connection.SSHServerConnection.send_packet

    def send_packet(self: Any, pkttype: int, *args: bytes, handler: Any = None) -> None:
        if pkttype == connection.MSG_IGNORE and args == (b"\0\0\0\0",):
            return
        original(self, pkttype, *args, handler=handler)

    connection.SSHServerConnection.send_packet = send_packet  # type: ignore[method-assign]


if _CONFIG.get("no_ignore") and "serve" in sys.argv[1:2]:
    _no_ignore_packets()
if _CONFIG.get("profile_server") and "serve" in sys.argv[1:2]:
    _profile_server(_CONFIG["profile_server"])
if _CONFIG.get("dir"):
    _install(_CONFIG["dir"])
if _CONFIG.get("thresholds") or _CONFIG.get("freeze"):
    sys.meta_path.insert(0, _Patch())
