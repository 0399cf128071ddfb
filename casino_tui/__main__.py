"""The ``casino-tui`` command: play in the terminal, or ``casino-tui arena ...`` for the AI arena.

Argument errors print a clear message and exit with status 2 (argparse's convention). Textual is
imported only when the game actually starts, so ``--help``, ``--version`` and
``--list-presets`` answer at once.
"""

from __future__ import annotations

import argparse
import locale
import os
import sys
from collections.abc import Sequence

from casino_tui import __version__

SUBCOMMANDS = ("arena", "serve")


def _preset(name: str) -> str:
    from casino_tui.engine import RulesError, resolve_preset_name

    try:
        return resolve_preset_name(name)
    except RulesError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return n


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="casino-tui",
        description="Cassino, the classic fishing card game, in your terminal. Play any of the "
                    "rule presets against computer opponents and/or other people at the same "
                    "keyboard.",
        epilog="Subcommands: 'casino-tui arena --help' pits computer players against each "
               "other. In the game, press ? or F1 for every key.",
    )
    parser.add_argument("--version", action="version", version=f"casino-tui {__version__}")
    parser.add_argument("--preset", type=_preset, metavar="NAME",
                        help="rule preset for a new game (default classic; see --list-presets)")
    parser.add_argument("--players", type=_positive, metavar="N",
                        help="number of players (the preset decides which counts work)")
    parser.add_argument("--seed", type=_seed, metavar="N",
                        help="deal the same cards every time with this seed")
    parser.add_argument("--target", type=_positive, metavar="N",
                        help="points needed to win (default: the preset's target)")
    parser.add_argument("--ascii", action="store_true",
                        help="draw suits as letters (10D) for terminals without suit symbols")
    parser.add_argument("--list-presets", action="store_true",
                        help="list the rule presets with a line about each, and exit")
    return parser


def list_presets() -> str:
    from casino_tui.engine import PRESET_ALIASES, PRESET_DESCRIPTIONS, PRESET_NAMES, Rules

    aliases: dict[str, list[str]] = {}
    for alias, name in PRESET_ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    width = max(map(len, PRESET_NAMES))
    lines = []
    for name in PRESET_NAMES:
        counts = ",".join(map(str, Rules.preset(name).player_counts))
        extra = f" (also: {', '.join(sorted(aliases[name]))})" if name in aliases else ""
        lines.append(f"{name:<{width}}  {counts:<7}  {PRESET_DESCRIPTIONS[name]}{extra}")
    return "\n".join([f"{'preset':<{width}}  players  description", *lines])


def terminal_lacks_symbols() -> bool:
    """True when the output encoding cannot show suit symbols (use ASCII cards)."""
    enc = getattr(sys.stdout, "encoding", None) or locale.getpreferredencoding(False)
    try:
        "♠♥♦♣".encode(enc)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def _is_terminal() -> bool:
    try:
        return os.isatty(sys.stdout.fileno()) and os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "arena":
        from casino_tui.ai.arena import main as arena_main

        return int(arena_main(args_list[1:]) or 0)
    if args_list and args_list[0] == "serve":
        from casino_tui.serve import main as serve_main

        return int(serve_main(args_list[1:]) or 0)
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.list_presets:
        print(list_presets())
        return 0
    config = None
    if any(v is not None for v in (args.preset, args.players, args.seed, args.target)):
        # only then is the engine needed before the first frame
        from casino_tui.engine import Rules

        from .app.session import GameConfig, default_seats

        preset = args.preset or "classic"
        rules = Rules.preset(preset)
        players = args.players or (2 if 2 in rules.player_counts else rules.player_counts[0])
        if players not in rules.player_counts:
            allowed = ", ".join(map(str, rules.player_counts))
            parser.error(f"--players {players}: {preset} is played by {allowed} players")
        config = GameConfig(preset=preset, players=players, seats=default_seats(players),
                            target=args.target, seed=args.seed)
    ascii_cards = args.ascii or terminal_lacks_symbols()
    if not _is_terminal():
        print("casino-tui needs a terminal to play in.", file=sys.stderr)
        return 1
    from .app.app import CasinoApp

    CasinoApp(config=config, ascii=ascii_cards).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
