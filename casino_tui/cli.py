"""The game's command line: the ``casino-tui`` argument parser and the checks of its values.

Used by :mod:`casino_tui.__main__`, which runs the game, and by :mod:`casino_tui.serve`, which
asks whether the game accepts a flag before passing it on. Only the standard library is imported
here at first: the engine and the app's seed parser are imported when a value is checked, so
``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse

from casino_tui import __version__


def preset_short_names() -> dict[str, str]:
    """Each preset's name for players: its first alias (``french`` for
    ``french_casino_seed000``), else its own name. Every alias and full name is accepted."""
    from casino_tui.engine import PRESET_ALIASES, PRESET_NAMES

    short: dict[str, str] = {}
    for alias, name in PRESET_ALIASES.items():
        short.setdefault(name, alias)
    return {name: short.get(name, name) for name in PRESET_NAMES}


def _preset(name: str) -> str:
    from casino_tui.engine import RulesError, resolve_preset_name

    try:
        return resolve_preset_name(name)
    except RulesError:
        names = ", ".join(preset_short_names().values())
        raise argparse.ArgumentTypeError(
            f"unknown preset {name!r}; try one of: {names} (--list-presets describes "
            "them)") from None


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _positive(text: str) -> int:
    n = _integer(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return n


def whole_number(text: str) -> int:
    """An argument type: a whole number, zero or more (``serve``'s and ``web``'s limits)."""
    n = _integer(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text} must not be negative")
    return n


def port_number(text: str) -> int:
    """An argument type: a TCP port, 0-65535 (0: the system picks a free one)."""
    n = whole_number(text)
    if n > 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0-65535)")
    return n


def number_of_minutes(text: str) -> float:
    """An argument type: a number of minutes, zero or more (finite)."""
    try:
        n = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes") from None
    if not n >= 0 or n == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be zero or more minutes")
    return n


def _target(text: str) -> int:
    from .table.config import MAX_TARGET

    n = _positive(text)
    if n > MAX_TARGET:
        raise argparse.ArgumentTypeError(
            f"{text} is too high: a target is from 1 to {MAX_TARGET} points")
    return n


def _seed(text: str) -> int:
    from .table.config import parse_seed

    try:
        return parse_seed(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _join_code(text: str) -> str:
    from casino_tui.table.codes import parse_code

    try:
        return parse_code(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r} is not a table's code: {err}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="casino-tui",
        description="Cassino, the classic fishing card game, in your terminal. Play any of the "
                    "rule presets against computer opponents and/or other people at the same "
                    "keyboard.",
        epilog="Subcommands: 'casino-tui arena --help' pits computer players against each "
               "other; 'casino-tui serve --help' serves the game over SSH; 'casino-tui web' "
               "serves it to a browser on this machine; 'casino-tui stats' "
               "prints your statistics; 'casino-tui replay FILE' replays a saved game; "
               "'casino-tui store --help' prepares the PostgreSQL store several servers "
               "share (serve --store). In the "
               "game, press ? or F1 for every key.",
    )
    parser.add_argument("--version", action="version", version=f"casino-tui {__version__}")
    parser.add_argument("--preset", type=_preset, metavar="NAME",
                        help="rule preset for a new game (default classic; see --list-presets)")
    parser.add_argument("--players", type=_positive, metavar="N",
                        help="number of players (the preset decides which counts work)")
    parser.add_argument("--seed", type=_seed, metavar="N",
                        help="deal the same cards every time with this seed")
    parser.add_argument("--target", type=_target, metavar="N",
                        help="points needed to win, 1 to 9999 (default: the preset's target)")
    parser.add_argument("--ascii", action="store_true",
                        help="draw in plain ASCII: suits as letters (10D), borders as +-| "
                             "(automatic where the terminal's encoding has no such symbols)")
    parser.add_argument("--plain", action="store_true",
                        help="plain mode, for screen readers and braille displays: the game "
                             "as lines of text, one sentence per event, commands typed at a "
                             "prompt (type help there); no redrawing, boxes or colour")
    parser.add_argument("--list-presets", action="store_true",
                        help="list the rule presets with a line about each, and exit")
    parser.add_argument("--data-dir", metavar="DIR",
                        help="where saved games are kept (default: $CASINO_TUI_DATA_DIR, else "
                             "the user data folder; see docs/SAVE_FORMAT.md)")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument("--continue", dest="continue_", action="store_true",
                        help="continue the most recently played unfinished game")
    resume.add_argument("--load", metavar="FILE",
                        help="open a saved game file (a file from elsewhere is copied into "
                             "your saved games; the file itself is never changed)")
    resume.add_argument("--daily", action="store_true",
                        help="play the daily deal: the same cards for everyone on a UTC date "
                             "(classic, against the Hard computer)")
    resume.add_argument("--join", type=_join_code, metavar="CODE",
                        help="join the table with this code on a casino-tui server (what "
                             "'ssh -t -p PORT HOST join CODE' runs)")
    return parser


def build_replay_parser() -> argparse.ArgumentParser:
    """``casino-tui replay FILE``: a saved game replayed, read only."""
    parser = argparse.ArgumentParser(
        prog="casino-tui replay",
        description="Replay a saved game, read only: step through its moves (left/right) and "
                    "rounds (up/down). Finished rounds show every hand; in a game still in "
                    "progress, hands hidden at the table stay hidden. The file is never "
                    "changed.")
    parser.add_argument("file", metavar="FILE", help="a saved game (a .json file)")
    parser.add_argument("--ascii", action="store_true",
                        help="draw in plain ASCII: suits as letters (10D), borders as +-|")
    parser.add_argument("--data-dir", metavar="DIR",
                        help="the data directory (default: $CASINO_TUI_DATA_DIR, else the "
                             "user data folder)")
    return parser


def list_presets() -> str:
    """The presets by the names players use (the full names are accepted too)."""
    from casino_tui.engine import PRESET_ALIASES, PRESET_DESCRIPTIONS, Rules

    short = preset_short_names()
    others: dict[str, list[str]] = {}
    for alias, name in PRESET_ALIASES.items():
        if alias != short[name]:
            others.setdefault(name, []).append(alias)
    width = max(map(len, short.values()))
    lines = []
    for name, label in short.items():
        counts = ",".join(map(str, Rules.preset(name).player_counts))
        extra = f" (also: {', '.join(others[name])})" if name in others else ""
        lines.append(f"{label:<{width}}  {counts:<7}  {PRESET_DESCRIPTIONS[name]}{extra}")
    return "\n".join([f"{'preset':<{width}}  players  description", *lines])
