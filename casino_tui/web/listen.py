"""One way to put an aiohttp application on an address: the browser front end and the
operator's metrics endpoint (``casino-tui serve --metrics-port``) both listen with it."""

from __future__ import annotations

from typing import Any


async def listen(app: Any, host: str, port: int) -> tuple[Any, int]:
    """Serve the aiohttp ``app`` on ``host``:``port`` (0: a free port): its runner
    (``cleanup()`` stops it) and the port it listens on. Raises OSError when the address
    cannot be used; nothing is left open then."""
    from aiohttp import web

    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    addresses = runner.addresses
    return runner, int(addresses[0][1]) if addresses else port
