"""``casino-tui web``: the game in a browser tab.

A small web server (textual-serve's ``Server``, subclassed in :mod:`casino_tui.web.server`)
runs the normal app (``python -m casino_tui``) as one child process per browser session, with
Textual's web driver. Nobody reaches a game without a one-time link (:mod:`.tokens`), which
gives the browser a signed session cookie; the websocket refuses a foreign Origin or a missing
or forged cookie before anything is started. ``casino-tui serve --web-port`` reuses the same
server with its own launcher (the player's directories and hub secret).

This package imports neither the app nor Textual nor the SSH server: the game runs as a child
process. aiohttp and textual-serve are imported only when a server starts.
"""
