"""Benchmarks and load tools of casino-tui: tooling beside the package, never shipped with it.

Run from the repository's root, each as a module (``--help`` for its options):

- ``python -m benchmarks.load``: scripted SSH players against a ``casino-tui serve`` of its own
  on loopback, alone or at tables, at a human pace (:mod:`benchmarks.load`; its parts are
  :mod:`benchmarks.loadkit`, :mod:`benchmarks.loadtables` and :mod:`benchmarks.loadclients`,
  a process of players for ``--client-processes``);
- ``python -m benchmarks.app``: the Textual app's start-up and key-to-screen latency;
- ``python -m benchmarks.keycpu``: the CPU each key a person presses costs the game's process
  (``--cprofile FILE``: the game under cProfile, :mod:`benchmarks.cprofiled`);
- ``python -m benchmarks.stats_screen``: the Statistics screen over a large ledger;
- ``python -m benchmarks.web``: the game in a browser (Chromium through Playwright);
- ``python -m benchmarks.engine``: random rounds of the rules engine per second (CPU time);
- ``python -m benchmarks.forks``: games forked from the fork server against fresh processes
  (the time and CPU to the title, memory), without SSH;
- ``python -m benchmarks.pool``: the server's pool of computer players (memory per session,
  the wait of computer moves with busy sessions).
- ``python -m benchmarks.suitecpu``: the test suite's CPU per test, its child processes'
  included (a pytest plugin, ``-p benchmarks.suitecpu``, and its report), and the recorded
  durations that order the suite (``tests/durations.json``).
"""
