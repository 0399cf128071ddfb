"""The command line: ``python -m casino_tui.conformance PATH [PATH ...] [-v] [--only ID ...]``.

Each failing scenario prints one line (its id and what differed); ``-v`` lists the passing ones
too. The last line is ``N passed, M failed`` and the exit status is 1 if anything failed (or
nothing was checked).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence

from .runner import run_file
from .scenario import Result


def _iter_lines(results: Sequence[Result], verbose: bool) -> Iterator[str]:
    for r in results:
        if not r.passed:
            yield r.line()
        elif verbose:
            yield f"ok   {r.id}"
    passed = sum(1 for r in results if r.passed)
    yield f"{passed} passed, {len(results) - passed} failed"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m casino_tui.conformance",
                                 description="Check the rules engine against scenario files.")
    ap.add_argument("paths", nargs="+", help="scenario files (JSON, scenarios/public.json format)")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list passing scenarios")
    ap.add_argument("--only", nargs="*", default=None, help="check only these scenario ids")
    args = ap.parse_args(argv)
    results: list[Result] = []
    for path in args.paths:
        try:
            results.extend(run_file(path, args.only))
        except (OSError, ValueError) as e:
            results.append(Result(str(path), [f"cannot read the scenario file: {e}"]))
    for line in _iter_lines(results, args.verbose):
        print(line)
    return 0 if results and all(r.passed for r in results) else 1
