"""``casino-tui serve``: the game over SSH. Players type ``ssh -p 2222 HOST`` and are at the table.

Every session runs the normal app (``python -m casino_tui``) in its own process on its own
pseudo-terminal; the player's SSH public key names them and keeps their saves and settings
apart from everyone else's. asyncssh is imported only when the server starts, so neither the
game nor ``casino-tui serve --help`` pays for it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from casino_tui.cli import number_of_minutes, port_number, whole_number

from .config import (
    DEFAULT_HOST,
    DEFAULT_IDLE_MINUTES,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_PORT,
    DEFAULT_RATE_LIMIT,
    DEFAULT_SESSION_NICE,
    NO_GAME_SECONDS,
    STORE_ENV,
    ServeConfig,
    StoreStartError,
)

log = logging.getLogger("casino_tui.serve")


def default_data_dir() -> Path:
    """``server/`` in the game's data directory (``CASINO_TUI_DATA_DIR`` or platformdirs)."""
    env = os.environ.get("CASINO_TUI_DATA_DIR")
    if env:
        return Path(env) / "server"
    from platformdirs import user_data_dir

    return Path(user_data_dir("casino-tui", appauthor=False)) / "server"


def _nice_steps(text: str) -> int:
    """An argument type: steps of nice value, 0-19 (--session-nice)."""
    n = whole_number(text)
    if n > 19:
        raise argparse.ArgumentTypeError(f"{text} is more than 19 (the lowest priority)")
    return n


def _public_url(text: str) -> str:
    """``scheme://host[:port][/path]`` of an http(s) URL (a trailing ``/`` is dropped), for
    --web-public-url: a path is where a reverse proxy serves the game under a prefix."""
    from urllib.parse import urlsplit

    try:
        url = urlsplit(text.strip())
        port = url.port
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r} is not a URL: {err}") from None
    if url.scheme not in ("http", "https") or not url.hostname:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an http:// or https:// URL with a host "
            "(such as https://games.example.org)")
    if url.username is not None or url.password is not None or url.query or url.fragment:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give only the scheme, host, port and path (such as "
            "https://games.example.org or https://example.org/casino)")
    if not all(c.isalnum() or c in "-.:[]" for c in url.netloc) or port == 0:
        raise argparse.ArgumentTypeError(f"{text!r} has a host or port that cannot be used")
    path = url.path.rstrip("/")
    segments = path.split("/")[1:]
    if path and not all(seg and seg not in (".", "..") and all(
            c.isalnum() or c in "-._~" for c in seg) for seg in segments):
        raise argparse.ArgumentTypeError(
            f"{text!r}: the path may hold only letters, digits and - . _ ~ between its "
            "slashes (such as /casino)")
    return f"{url.scheme}://{url.netloc.lower()}{path}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="casino-tui serve",
        description="Serve the game over SSH: players connect with 'ssh -p PORT HOST' and get "
                    "their own full-screen game, nothing to install. Each player is known by "
                    "their SSH public key (its fingerprint), with their own saves and "
                    "settings; 'Continue' works across reconnects. Only public-key logins "
                    "are accepted (no passwords).",
        epilog="Without --authorized-keys the server is OPEN: any SSH key is admitted and "
               "becomes a new player (the log says so at start). Stop the server with Ctrl+C "
               "or SIGTERM: games in progress are hung up and stay saved.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, metavar="ADDR",
                        help=f"address to listen on (default {DEFAULT_HOST}, this machine "
                             "only; 0.0.0.0 or :: accept other machines)")
    parser.add_argument("--port", type=port_number, default=DEFAULT_PORT, metavar="N",
                        help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free "
                             "port and logs it)")
    parser.add_argument("--data-dir", type=Path, metavar="DIR",
                        help="the server's data: host key, and each player's saves and "
                             "settings (default: server/ in the game's data directory)")
    parser.add_argument("--authorized-keys", type=Path, metavar="FILE",
                        help="admit only the keys in this OpenSSH authorized_keys file "
                             "(re-read when it changes). Without it ANY key is admitted "
                             "(open mode)")
    parser.add_argument("--max-sessions", type=whole_number, default=DEFAULT_MAX_SESSIONS,
                        metavar="N", help="most players connected at once, with a game or "
                                          "not; more are told the server is full (default "
                                          f"{DEFAULT_MAX_SESSIONS})")
    parser.add_argument("--idle-timeout", type=number_of_minutes, default=DEFAULT_IDLE_MINUTES,
                        metavar="MINUTES",
                        help="hang up a game after this many minutes without a key press; "
                             f"it stays saved (default {DEFAULT_IDLE_MINUTES:g}; 0: never). A "
                             f"connection without a game is closed after {NO_GAME_SECONDS:g} "
                             "seconds, or this if shorter")
    parser.add_argument("--rate-limit", type=whole_number, default=DEFAULT_RATE_LIMIT,
                        metavar="N",
                        help="new connections allowed per client address per minute "
                             f"(default {DEFAULT_RATE_LIMIT}; 0: no limit)")
    parser.add_argument("--computers", type=whole_number, metavar="N",
                        help="processes in the one pool where every game's computer players "
                             "think (default: one per core of this machine, plus one for the "
                             "quick levels); 0: no pool, each game starts its own computer "
                             "player (two more processes a game)")
    parser.add_argument("--session-nice", type=_nice_steps, default=DEFAULT_SESSION_NICE,
                        metavar="N",
                        help="run each player's game N steps of CPU priority (nice) below the "
                             "server and its computer players, so that logins, every key's "
                             "relay and the computers' moves never wait behind the games' "
                             f"drawing (default {DEFAULT_SESSION_NICE}; 0 to 19; 0: the "
                             "same priority)")
    parser.add_argument("--no-fork-server", dest="fork_server", action="store_false",
                        help="start every session as a fresh Python process instead of "
                             "forking it from a warm fork server (slower logins, more memory; "
                             "for comparison)")
    web = parser.add_argument_group(
        "browser players",
        "A web front end beside SSH: a player opens the Browser entry of the title screen "
        "over SSH and gets a one-time link that signs a browser in as them (the same name, "
        "saves and tables). It uses the limits above too. TLS belongs to a reverse proxy.")
    web.add_argument("--web-port", type=port_number, metavar="PORT",
                     help="serve the game to browsers on this port too (0 picks a free port "
                          "and logs it); without it there is no web front end")
    web.add_argument("--web-host", metavar="ADDR",
                     help=f"address of the web front end (default {DEFAULT_HOST}, this "
                          "machine only: put a reverse proxy in front of it)")
    web.add_argument("--web-public-url", type=_public_url, metavar="URL",
                     help="the address browsers use, when a reverse proxy serves the web "
                          "front end (https://games.example.org, or under a path: "
                          "https://example.org/casino): the links name it, and its cookies "
                          "are sent over HTTPS only")
    shared = parser.add_argument_group(
        "many hosts, one PostgreSQL",
        "Several servers on several hosts share their players through one PostgreSQL "
        "database: a player finds their games, name, settings and statistics on any host "
        "(docs/STORE.md). Needs the postgres extra: pip install 'casino-tui[postgres]'.")
    shared.add_argument("--store", metavar="URL",
                        help="the shared store, a PostgreSQL URL such as "
                             "postgresql://casino@db.example.org/casino (default: "
                             f"${STORE_ENV}; without either, everything stays in the data "
                             "directory)")
    shared.add_argument("--host-key", type=Path, metavar="FILE",
                        help="the SSH host key, from a file every host of the store reads "
                             "(an OpenSSH private key; default: ssh_host_ed25519_key in the "
                             "data directory, made on the first start)")
    shared.add_argument("--host-name", type=_host_name, metavar="NAME",
                        help="this server's name in the store (default: the machine's name "
                             "and a random part, new at every start)")
    ops = parser.add_argument_group(
        "operators",
        "What the server is doing: send it SIGUSR1 (kill -USR1 PID) and it logs one line "
        "(players, games, tables, computer moves waiting, key-to-screen latency, memory, "
        "refused logins); with --metrics-port it also serves the same figures to Prometheus.")
    ops.add_argument("--metrics-port", type=port_number, metavar="PORT",
                     help="serve GET /metrics (Prometheus text format 0.0.4) on this port (0 "
                          "picks a free port and logs it); without it there is no endpoint")
    ops.add_argument("--metrics-host", metavar="ADDR",
                     help=f"address of the metrics endpoint (default {DEFAULT_HOST}, this "
                          "machine only: the figures are for the operator)")
    parser.add_argument("--log-level", default="info",
                        choices=("debug", "info", "warning", "error"),
                        help="how much to log to standard error (default info)")
    return parser


def _host_name(text: str) -> str:
    if not text or len(text) > 64 or not all(c.isalnum() or c in "-._" for c in text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a host name is 1 to 64 letters, digits, '-', '.' or '_'")
    return text


def store_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the store's URL (--store, else $CASINO_TUI_STORE), or None. The
    URL ends in ``args.store`` (None: no store). psycopg is imported only when one is given."""
    source = "--store"
    if args.store is None:
        args.store = os.environ.get(STORE_ENV, "").strip() or None
        source = f"${STORE_ENV}"
    if args.store is None:
        return "--host-name needs a store (--store URL)" if args.host_name else None
    try:
        from casino_tui.store import db
    except ImportError as err:
        return (f"the store needs PostgreSQL's driver psycopg, which is not installed "
                f"({err}): pip install 'casino-tui[postgres]'")
    try:
        db.check_url(args.store)
    except db.StoreError as err:
        return f"{source}: {err}"
    return None


def web_flags_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the web front end's flags together, or None."""
    if args.web_port is None:
        given = [f for f, v in (("--web-host", args.web_host),
                                ("--web-public-url", args.web_public_url)) if v is not None]
        if given:
            verb = "need" if len(given) > 1 else "needs"
            return f"{' and '.join(given)} {verb} --web-port PORT (the web front end's port)"
        return None
    if args.web_port != 0 and args.web_port == args.port \
            and (args.web_host or DEFAULT_HOST) == args.host:
        return (f"--web-port {args.web_port} is the SSH port (--port): give the web front end "
                "a port of its own")
    return None


def metrics_flags_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the metrics endpoint's flags, or None."""
    if args.metrics_port is None:
        return ("--metrics-host needs --metrics-port PORT" if args.metrics_host is not None
                else None)
    if args.metrics_port == 0:
        return None
    host = args.metrics_host or DEFAULT_HOST
    if args.metrics_port == args.port and host == args.host:
        return f"--metrics-port {args.metrics_port} is the SSH port (--port): give it its own"
    if args.metrics_port == args.web_port and host == (args.web_host or DEFAULT_HOST):
        return (f"--metrics-port {args.metrics_port} is the web front end's port "
                "(--web-port): give it its own")
    return None


def config_from_args(args: argparse.Namespace) -> ServeConfig:
    return ServeConfig(
        data_dir=(args.data_dir or default_data_dir()).expanduser().resolve(),
        host=args.host, port=args.port,
        authorized_keys=args.authorized_keys.expanduser().resolve()
        if args.authorized_keys else None,
        max_sessions=args.max_sessions,
        idle_timeout=args.idle_timeout * 60 if args.idle_timeout > 0 else None,
        rate_limit=args.rate_limit, computers=args.computers,
        web_port=args.web_port, web_host=args.web_host or DEFAULT_HOST,
        web_public_url=args.web_public_url,
        metrics_port=args.metrics_port, metrics_host=args.metrics_host or DEFAULT_HOST,
        fork_server=args.fork_server, session_nice=args.session_nice,
        store=getattr(args, "store", None), host_name=getattr(args, "host_name", None),
        host_key=args.host_key.expanduser().resolve() if args.host_key else None,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.max_sessions < 1:
        parser.error("--max-sessions must be at least 1")
    problem = web_flags_problem(args) or metrics_flags_problem(args) or store_problem(args)
    if problem is not None:
        parser.error(problem)
    logging.basicConfig(level=getattr(logging, args.log_level.upper()), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.log_level != "debug":
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
    try:
        config = config_from_args(args)
    except ValueError as err:
        parser.error(str(err))
    try:
        return asyncio.run(_run(config))
    except KeyboardInterrupt:  # pragma: no cover - handled by the signal handlers
        return 0


def freeze_what_started() -> None:
    """Once the server listens: collect what starting it left as garbage, then move all it
    holds out of the cyclic garbage collector's sight (``gc.freeze()``). What the server made
    to start (the modules it imported, its listener, its pool's and its fork server's
    handles) lives as long as it does, and every full collection walked it again: in a run of
    200 players each of the server's full collections took 47-56 ms, a pause of every
    session's keys and screens (the server's one event loop relays them all), and 21-27 ms
    with this (``python -m benchmarks.load --sessions 200 --pace 2``, docs/SERVE.md). What the
    sessions make is collected as before."""
    gc.collect()
    gc.freeze()


async def _run(config: ServeConfig) -> int:
    from .players import DataDirError
    from .server import GameServer
    from .webfront import WebFrontError

    try:
        server = GameServer(config)
    except ValueError as err:  # an unusable --authorized-keys file
        log.error("%s", err)
        return 2
    try:
        await server.start()
    except DataDirError as err:  # before listening: never blamed on the port
        log.error("%s", err)
        return 2
    except StoreStartError as err:  # before listening too
        log.error("%s", err)
        return 1
    except WebFrontError as err:  # the SSH side was closed again
        log.error("%s", err)
        return 1
    except OSError as err:
        log.error("cannot listen on %s port %d: %s", config.host, config.port,
                  err.strerror or err)
        return 1
    freeze_what_started()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    status: set[asyncio.Task[None]] = set()

    def log_status() -> None:  # SIGUSR1: one line of figures in the log
        task = loop.create_task(server.log_status())
        status.add(task)
        task.add_done_callback(status.discard)

    loop.add_signal_handler(signal.SIGUSR1, log_status)
    await stop.wait()
    log.info("shutting down: hanging up %d session(s)", len(server.sessions))
    await server.close()
    log.info("stopped")
    return 0
