"""Tables: games between people on one server, without any user interface (no Textual, no rich).

- :mod:`~casino_tui.table.wire`: the local channel between the server (its table hub) and each
  player's app process: a Unix socket, a per-session secret, length-prefixed JSON frames;
- :mod:`~casino_tui.table.codes`: short join codes that are easy to read aloud (``KAMIRO``).
"""
