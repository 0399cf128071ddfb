"""Conformance runner: check the rules engine against a scenario file (``scenarios/public.json``
format).

Usage::

    python -m casino_tui.conformance PATH [PATH ...] [-v] [--only ID ...]

Every scenario is checked against the engine and each failing scenario prints one line (its id and
what differed); the last line is ``N passed, M failed`` and the exit status is 1 if anything
failed. Tests use :func:`run_file`, :func:`run_data` or :func:`check_scenario`.

Every expectation is compared with what the engine itself produces: positions are built with
:meth:`State.from_position` (hidden cards are placed in the other hands, the stock or the capture
piles so that the position is consistent: whose turn it is, whether it is the last deal or the
final play), moves go through :meth:`State.check_move` / :meth:`State.apply`, scoring through
:func:`scoring.score_round`, and game-end questions through a real :class:`State` that plays the
last card of a round (or a sweep, or a claim). A field the runner cannot interpret makes the
scenario fail with a message saying so; it never passes silently.

This is test tooling, not part of the rules engine: it imports only :mod:`casino_tui.engine`.
Its modules, each depending only on those listed before it:

- :mod:`.scenario`: the file format's vocabulary, :class:`ScenarioError`, the :class:`Check` and
  :class:`Result` records, field readers and :class:`SideNames`;
- :mod:`.expand`: a scenario as its checks (contrasts, variants, other presets);
- :mod:`.positions`: engine states built from scenario positions;
- :mod:`.scores`: round points, scores and game ends compared with the engine's;
- :mod:`.rounds`: constructing a finished round worth given points (:func:`build_round`);
- :mod:`.realize`: rounds worth a scenario's points (:func:`realize_round`);
- :mod:`.play`: scenario moves as engine moves, played and their result compared;
- :mod:`.checks`: one module per kind of scenario;
- :mod:`.runner`: :func:`check_scenario`, :func:`run_data`, :func:`run_file`;
- :mod:`.cli` (and ``__main__``): the command line.
"""

from .checks.actions import parse_action
from .cli import main
from .play import fmt_move, to_move
from .positions import Built, DealRecord, build_position, parse_table, simulate_round
from .realize import realize_round, realize_round_last
from .rounds import Unrealizable, build_round
from .runner import check_scenario, run_data, run_file
from .scenario import Check, Result, ScenarioError, SideNames

__all__ = [
    "Built", "Check", "DealRecord", "Result", "ScenarioError", "SideNames", "Unrealizable",
    "build_position", "build_round", "check_scenario", "fmt_move", "main", "parse_action",
    "parse_table", "realize_round", "realize_round_last", "run_data", "run_file",
    "simulate_round", "to_move",
]
