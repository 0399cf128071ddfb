"""Keyboard input that is not UTF-8 is read, not fatal.

Textual 8's drivers decode what the terminal sends with a strict UTF-8 decoder, so one byte
that is not UTF-8 (a Latin-1 terminal, a broken paste, a stray byte over SSH) kills their input
thread and ends the game with a traceback (Textualize/textual#6456, still open). The decoder
comes from the driver module's ``getincrementaldecoder``; :func:`lenient_input` gives the
driver in use one whose decoders replace such bytes with U+FFFD, which no key is bound to.
"""

from __future__ import annotations

import codecs
import functools
import sys
from collections.abc import Callable


def _lenient(encoding: str) -> Callable[..., codecs.IncrementalDecoder]:
    return functools.partial(codecs.getincrementaldecoder(encoding), errors="replace")


def lenient_input(driver_class: type) -> None:
    """Make ``driver_class``'s input decoding replace bytes that are not UTF-8 (where its module
    takes its decoder from :func:`codecs.getincrementaldecoder`, as Textual's drivers do)."""
    module = sys.modules.get(driver_class.__module__)
    if getattr(module, "getincrementaldecoder", None) is codecs.getincrementaldecoder:
        module.getincrementaldecoder = _lenient  # type: ignore[union-attr]
