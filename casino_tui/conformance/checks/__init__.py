"""The checks, one module per kind of scenario.

:mod:`.moves` (with :mod:`.actions`): moves in a position; :mod:`.scoring`: a round's points from
capture piles; :mod:`.game_end`: scores, winner and end of the game around a round;
:mod:`.events`: a sweep and what follows; :mod:`.claims`: claiming the game; :mod:`.grants`: the
initial pair of the first deal; :mod:`.deals`: the deck and the deals of a round;
:mod:`.draw`: draw mode. Each takes a :class:`~casino_tui.conformance.scenario.Check` and returns
its errors; :func:`casino_tui.conformance.runner._run_check` decides which one runs.
"""
