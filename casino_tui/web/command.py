"""``casino-tui web``: play in a browser on this machine.

Serves the game on the loopback address (127.0.0.1) and prints a one-time link: opening it
signs that browser in (a cookie signed with a key kept in the data directory) and shows the
title screen. Every browser session runs the normal app (``python -m casino_tui --continue``)
with the same data directory as the terminal game, so a game started in the browser continues
in the terminal and the other way round. Press Enter for a new link; Ctrl+C stops the server
(games in progress are saved).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from casino_tui.cli import number_of_minutes, port_number
from casino_tui.saves import SaveStore, games_dir
from casino_tui.saves.store import data_dir as resolve_data_dir

from .tokens import CookieSigner, LinkIssuer, load_or_create_key

if TYPE_CHECKING:  # pragma: no cover
    from .server import Launch, Launcher

LOCAL_IDENTITY = "local"
LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8000
LINK_MINUTES = 5.0
KEY_FILE = Path("web") / "cookie.key"
# what the game keeps of this command's environment (where its settings and files are, the
# locale); everything else is left out
ENV_KEEP = ("HOME", "USER", "LOGNAME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
            "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "CASINO_TUI_CONFIG_DIR")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="casino-tui web",
        description="Play in a browser on this machine: serves the game on 127.0.0.1 and "
                    "prints a one-time link to open. Games are saved in the same data "
                    "directory as in the terminal, so a game goes on in either.",
        epilog="Only this machine can reach the server, and only through the link: other "
               "users of the machine cannot open your games. Press Enter for a new link; "
               "Ctrl+C stops the server (games in progress are saved).")
    parser.add_argument("--port", type=port_number, default=DEFAULT_PORT,
                        help=f"the port to listen on (default {DEFAULT_PORT}; 0 picks a free "
                             "one)")
    parser.add_argument("--data-dir", metavar="DIR",
                        help="the data directory (default: $CASINO_TUI_DATA_DIR, else the "
                             "platform's user data directory)")
    parser.add_argument("--link-minutes", type=number_of_minutes, default=LINK_MINUTES, metavar="N",
                        help=f"how long a new link works (default {LINK_MINUTES:g}); each "
                             "works once")
    parser.add_argument("--idle-minutes", type=number_of_minutes, default=60.0, metavar="N",
                        help="stop a game nobody typed in for N minutes (it is saved; reload "
                             "the page to go on); 0: never (default 60)")
    return parser


def game_environment(environ: dict[str, str] | os._Environ[str] | None = None) -> dict[str, str]:
    """The game's environment in a browser session: where its settings and files are, a UTF-8
    locale; nothing else of this command's environment."""
    source = os.environ if environ is None else environ
    env = {k: source[k] for k in ENV_KEEP if k in source}
    env.update({"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"})
    return env


def has_unfinished_game(data: Path) -> bool:
    """True when data directory ``data`` has a game that Continue would open."""
    try:
        return SaveStore(games_dir(data)).latest_unfinished() is not None
    except Exception:  # a damaged store: the title screen tells what it can
        return False


def local_launcher(data: Path, cwd: Path) -> Launcher:
    """The launcher of ``casino-tui web``: the normal game in data directory ``data``, with
    ``--continue`` when there is an unfinished game (a reload goes back to it)."""
    from .server import Launch

    async def launch(identity: str, width: int, height: int) -> Launch:
        resume = ["--continue"] if await asyncio.to_thread(has_unfinished_game, data) else []
        return Launch(argv=[sys.executable, "-m", "casino_tui", *resume,
                            "--data-dir", str(data)],
                      env=game_environment(), cwd=cwd)

    return launch


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    data = resolve_data_dir(args.data_dir).absolute()
    try:
        key = load_or_create_key(data / KEY_FILE)
    except OSError as err:
        print(f"casino-tui web: cannot keep the sign-in key in {data / KEY_FILE}: {err}",
              file=sys.stderr)
        return 2
    try:
        return asyncio.run(_serve(args, data, key))
    except KeyboardInterrupt:
        return 0


async def _serve(args: argparse.Namespace, data: Path, key: bytes) -> int:
    from .server import WebLimits, WebServer

    idle = args.idle_minutes * 60 if args.idle_minutes > 0 else None
    server = WebServer(local_launcher(data, Path.cwd()),
                       links=LinkIssuer(ttl_seconds=max(args.link_minutes * 60, 1.0)),
                       signer=CookieSigner(key), host=LOOPBACK, port=args.port,
                       limits=WebLimits(max_sessions=4, rate_limit_per_minute=30,
                                        idle_timeout_seconds=idle))
    try:
        await server.start()
    except OSError as err:
        print(f"casino-tui web: cannot listen on {LOOPBACK}:{args.port}: {err.strerror or err}"
              + (" (another program uses that port: try --port 0)"
                 if err.errno == errno.EADDRINUSE else ""), file=sys.stderr)
        return 2
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, stop.set)
    minutes = f"{args.link_minutes:g} minute{'' if args.link_minutes == 1 else 's'}"
    print(f"casino-tui web: serving the game on {server.public_url} (this machine only), "
          f"games in {data}", flush=True)
    print(f"Open this link in your browser (it works once, within {minutes}):\n\n"
          f"    {server.new_link(LOCAL_IDENTITY)}\n\n"
          "Press Enter for a new link; Ctrl+C to stop (games in progress are saved).",
          flush=True)
    reading = _watch_enter(loop, lambda: print(
        f"\n    {server.new_link(LOCAL_IDENTITY)}\n", flush=True))
    try:
        await stop.wait()
    finally:
        if reading:
            loop.remove_reader(sys.stdin.fileno())
        print("casino-tui web: stopping (games in progress are saved)", flush=True)
        await server.close()
    return 0


def _watch_enter(loop: asyncio.AbstractEventLoop, on_enter: Callable[[], None]) -> bool:
    """Call ``on_enter`` for every line typed on stdin (when it is a terminal or a pipe);
    False when there is no stdin to read."""
    try:
        fd = sys.stdin.fileno()
        if os.isatty(fd) and os.tcgetpgrp(fd) != os.getpgrp():
            return False  # started in the background: reading the terminal would stop it
    except (AttributeError, OSError, ValueError):
        return False

    def ready() -> None:
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not data:  # end of input: no more links asked for this way
            loop.remove_reader(fd)
            return
        for _ in range(data.count(b"\n")):
            on_enter()

    with contextlib.suppress(OSError, ValueError, PermissionError):
        loop.add_reader(fd, ready)
        return True
    return False
