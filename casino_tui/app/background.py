"""Work in the background: a coroutine run in a Textual worker, made only when it starts."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

from textual.dom import DOMNode
from textual.worker import Worker


def in_background(node: DOMNode, group: str, call: Callable[..., Coroutine[Any, Any, None]],
                  *args: Any, exclusive: bool = False,
                  exit_on_error: bool = False) -> Worker[None]:
    """Run ``call(*args)`` in a worker of ``node``'s (Textual's ``run_worker``, as its
    ``@work`` decorator does). The coroutine is made when the worker starts, not now: a worker
    cancelled before it starts (an exclusive one replaced by the next, its screen gone) leaves
    no coroutine that was never awaited. Python warns of each one in its finalizer, and to say
    where it reads the whole source file there into ``linecache``, which a game would keep:
    about 0.7 MB in a game at a table."""
    return node.run_worker(partial(call, *args), group=group, exclusive=exclusive,
                           exit_on_error=exit_on_error)
