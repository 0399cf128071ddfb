"""The ``casino-tui`` command: play in the terminal, or ``casino-tui arena ...`` for the AI arena.

Argument errors print a clear message and exit with status 2 (argparse's convention); a crash
of the app (an unhandled exception, whose traceback Textual prints) exits with status 1. Textual is
imported only when the game actually starts, so ``--help``, ``--version`` and
``--list-presets`` answer at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .cli import build_parser, list_presets, preset_short_names

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.saves import LoadedGame, SaveEntry, SaveStore
    from casino_tui.table import GameConfig

SUBCOMMANDS = ("arena", "serve", "stats", "replay", "web", "store")
# ``casino-tui serve`` starts its fork server as ``python -m casino_tui _fork-server FD``
# (casino_tui.serve.forkserver.FORK_SERVER_COMMAND): each session is a child running main().
FORK_SERVER_COMMAND = "_fork-server"
# A message for the player at start-up, from ``casino-tui serve`` (its player files could not
# be written): shown like the notes of --continue. The server's casino_tui.serve.pty_session
# sets it under the same name.
NOTICE_ENV = "CASINO_TUI_NOTICE"


def terminal_lacks_symbols() -> bool:
    """True when the real output's encoding cannot show the app's symbols, suits and box
    drawing (``LC_ALL=C``, ``PYTHONIOENCODING=ascii``): then everything is drawn in ASCII."""
    from .app.glyphs import output_needs_ascii

    return output_needs_ascii()


# Textual's driver for a browser: textual-serve (and ``casino-tui web``) runs the app with it,
# its stdin and stdout pipes that carry the page's keys and the screen
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def _is_terminal() -> bool:
    """True when the app has somewhere to draw and read keys from: a terminal on stdin and
    stdout, or Textual's web driver (named by ``TEXTUAL_DRIVER``), whose pipes are the page's."""
    if os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER:
        return True
    try:
        return os.isatty(sys.stdout.fileno()) and os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


_parser: argparse.ArgumentParser | None = None


def game_parser() -> argparse.ArgumentParser:
    """The game's command-line parser, built once per process (argparse only reads it to
    parse): the fork server builds it before it forks, so a session's game does not build
    it again."""
    global _parser
    if _parser is None:
        _parser = build_parser()
    return _parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "arena":
        from casino_tui.arena import main as arena_main

        return int(arena_main(args_list[1:]) or 0)
    if args_list and args_list[0] == "serve":
        from casino_tui.serve import main as serve_main

        return int(serve_main(args_list[1:]) or 0)
    if args_list and args_list[0] == FORK_SERVER_COMMAND:
        from casino_tui.serve.forkserver import serve_forks

        game_parser()
        return serve_forks(args_list[1:], main)
    if args_list and args_list[0] == "stats":
        from casino_tui.stats.command import main as stats_main

        return stats_main(args_list[1:])
    if args_list and args_list[0] == "store":
        from casino_tui.store.command import main as store_main

        return store_main(args_list[1:])
    if args_list and args_list[0] == "replay":
        return replay_main(args_list[1:])
    if args_list and args_list[0] == "web":
        from casino_tui.web.command import main as web_main

        return web_main(args_list[1:])
    parser = game_parser()
    args = parser.parse_args(args_list)
    if args.daily and any(v is not None for v in (args.preset, args.players, args.seed,
                                                  args.target)):
        parser.error("--daily plays the day's deal (classic, against Hard): it takes no "
                     "--preset, --players, --seed or --target")
    if args.list_presets:
        print(list_presets())
        return 0
    config = None
    if any(v is not None for v in (args.preset, args.players, args.seed, args.target)):
        # only then is the engine needed before the first frame
        from casino_tui.engine import Rules

        from .table import GameConfig, default_seats

        preset = args.preset or "classic"
        rules = Rules.preset(preset)
        players = args.players or (2 if 2 in rules.player_counts else rules.player_counts[0])
        if players not in rules.player_counts:
            allowed = ", ".join(map(str, rules.player_counts))
            parser.error(f"--players {players}: the {preset_short_names()[preset]} preset is "
                         f"for {allowed} players")
        config = GameConfig(preset=preset, players=players, seats=default_seats(players),
                            target=args.target, seed=args.seed)
    from .saves import SaveError, open_store

    store = open_store(args.data_dir)
    try:
        resumed, notice = _resume(store, args)
    except SaveError as err:
        print(f"casino-tui: {err}", file=sys.stderr)
        return 2
    served = os.environ.get(NOTICE_ENV)  # what the SSH server has to tell the player
    if served:
        notice = served if notice is None else f"{served} {notice}"
    if args.plain:
        return _plain(store, args, config, resumed, notice)
    if not _is_terminal():
        if resumed is not None:
            store.close(resumed.slot)
        print("casino-tui needs a terminal to play in.", file=sys.stderr)
        return 1
    from .app.app import CasinoApp
    from .table.wire import link_from_environment

    ascii_only = args.ascii or terminal_lacks_symbols()
    app = CasinoApp(config=config, ascii_only=ascii_only, store=store, resume=resumed,
                    notice=notice, handle_signals=True,
                    tables_link=os.environ if link_from_environment(os.environ) else None,
                    join=args.join,
                    daily=args.daily)
    try:
        app.run()
    finally:
        if resumed is not None:
            store.close(resumed.slot)
    # 1 when the app ended by an unhandled exception (Textual printed the traceback), 128 + N
    # when signal N (SIGTERM, SIGHUP) ended it
    return app.return_code or 0


def _plain(store: SaveStore, args: argparse.Namespace, config: GameConfig | None,
           resumed: LoadedGame | None, notice: str | None) -> int:
    """``casino-tui --plain``: the game as lines of text (no Textual)."""
    from .plain import run

    try:
        return run(store, config=config, resume=resumed, notice=notice, daily=args.daily,
                   join=args.join, history=store.root.parent / "plain_history")
    finally:
        if resumed is not None:
            store.close(resumed.slot)


def replay_main(argv: Sequence[str]) -> int:
    """``casino-tui replay FILE``: the saved game as a read-only replay (the file is never
    written); a file that cannot be opened is told as ``--load`` tells it (status 2)."""
    from .cli import build_replay_parser

    args = build_replay_parser().parse_args(list(argv))
    from .saves import SaveError, open_store
    from .table.replay import open_replay

    store = open_store(args.data_dir)
    try:
        replay = open_replay(store, Path(args.file))
    except SaveError as err:
        print(f"casino-tui: {err}", file=sys.stderr)
        return 2
    if not _is_terminal():
        print("casino-tui needs a terminal to show a replay.", file=sys.stderr)
        return 1
    from .app.app import CasinoApp

    app = CasinoApp(ascii_only=args.ascii or terminal_lacks_symbols(), store=store,
                    replay=replay, handle_signals=True)
    app.run()
    return app.return_code or 0


def _resume(store: SaveStore, args: argparse.Namespace) -> tuple[LoadedGame | None, str | None]:
    """The game that ``--continue`` or ``--load`` opens, and a note for the player.

    ``--continue`` with nothing to continue is not an error (the SSH server passes it whenever
    the player has saved games): the title screen opens with a quiet note. A file that cannot
    be opened with ``--load`` raises :class:`SaveError`. A game open in another window opens
    read-only, and the note says why.
    """
    from .saves import GameInUseError, SaveError

    if args.load:
        target: SaveEntry | Path = Path(args.load)
    elif args.continue_:
        try:
            entry = store.latest_unfinished()
        except SaveError as err:
            return None, str(err)
        if entry is None:
            return None, store.continue_blocked() or "There is no unfinished game to continue."
        target = entry
    else:
        return None, None
    try:
        return store.load(target), None
    except GameInUseError as err:
        where = f" ({err.path})" if err.path is not None else ""
        return store.load(target, read_only=True), (
            f"This game{where} is open in another window, so it is opened here read-only. "
            "To play it here, quit it there and open it again.")
    except SaveError as err:
        if args.load:
            raise
        return None, str(err)


if __name__ == "__main__":
    sys.exit(main())
