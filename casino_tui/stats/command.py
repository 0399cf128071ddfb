"""``casino-tui stats [--json] [--data-dir DIR]``: the statistics of the local player."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from casino_tui.saves import SaveStore, data_dir, games_dir

from .cache import ledger_figures
from .figures import text_report


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="casino-tui stats",
        description="Print your statistics: games played and won per preset and per opponent "
                    "level, points and sweeps per round, the highest score, winning streaks "
                    "and the results over time. They come from the ledger of finished games "
                    "in the data directory (rebuilt from the finished saved games if it is "
                    "missing or damaged).")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--data-dir", metavar="DIR",
                        help="the data directory (default: $CASINO_TUI_DATA_DIR, else the "
                             "user data folder)")
    parser.add_argument("--ascii", action="store_true", help="draw the chart in ASCII")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    data = data_dir(args.data_dir)
    found = ledger_figures(data, SaveStore(games_dir(data)))
    if found.report:
        print(f"casino-tui: {found.report}", file=sys.stderr)
    figures = found.figures
    if args.json:
        out = figures.to_json()
        out["damaged_lines"] = [{"line": n, "reason": why} for n, why in found.damaged]
        print(json.dumps(out, indent=2))
    else:
        ascii = args.ascii or not _can_encode(sys.stdout, "▁█")
        print(text_report(figures, ascii=ascii))
    return 0


def _can_encode(stream: object, text: str) -> bool:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True
