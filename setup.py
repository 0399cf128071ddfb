"""Build script: compiles the engine's hot path with mypyc when it can.

``casino_tui/engine/_hot.py`` is plain Python that runs as is; compiled, move generation is
several times faster (see README, Performance). Set ``CASINO_TUI_PURE=1`` to skip compiling.
Any failure to compile (no C compiler, no mypyc) falls back to the pure-Python module.
"""

from __future__ import annotations

import os
import platform
import sys

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext

HOT = "casino_tui/engine/_hot.py"


class OptionalBuildExt(build_ext):
    """Build the compiled hot path if possible; never fail the install because of it."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any compiler problem means pure Python
            print(f"casino-tui: not compiling the engine hot path ({exc}); using pure Python",
                  file=sys.stderr)

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(f"casino-tui: could not compile {ext.name} ({exc}); using pure Python",
                  file=sys.stderr)


def extensions() -> list:
    if os.environ.get("CASINO_TUI_PURE") == "1" or platform.python_implementation() != "CPython":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    try:
        return mypycify([HOT], opt_level="3")
    except (Exception, SystemExit) as exc:  # a type error (mypyc exits): stay pure
        print(f"casino-tui: mypyc could not compile {HOT} ({exc}); using pure Python",
              file=sys.stderr)
        return []


setup(
    packages=[*find_packages(include=["casino_tui", "casino_tui.*"]), "casino_tui.styles"],
    # styles/ (the .tcss files) ships inside the package as casino_tui/styles
    package_dir={"casino_tui.styles": "styles"},
    package_data={"casino_tui.styles": ["*.tcss"]},
    ext_modules=extensions(),
    cmdclass={"build_ext": OptionalBuildExt},
)
