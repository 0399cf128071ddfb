"""Build script: compiles the engine's hot path with mypyc when it can.

The engine's move generation (``casino_tui/engine/_hot.py``), its State (``state.py``) and its
round scoring (``scoring.py``) are plain Python that runs as is; compiled together (one mypyc
group), random play is several times faster (see README, Performance). Set
``CASINO_TUI_PURE=1`` to skip compiling. Any failure to compile (no C compiler, no mypyc, a type
error mypyc rejects) falls back to the pure-Python modules, which give the same results.
"""

from __future__ import annotations

import os
import platform
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

# keep in step with casino_tui/engine/_hotpath.py, COMPILED
COMPILED = [f"casino_tui/engine/{name}.py" for name in ("_hot", "scoring", "state")]


class OptionalBuildExt(build_ext):
    """Build the compiled hot path if possible; never fail the install because of it."""

    def finalize_options(self) -> None:
        # mypyc reads the engine and writes its C code (seconds of work) only for a command
        # that builds: pip runs setup.py three times (the build's requirements, the metadata,
        # the build), and the first two only list the extensions' sources
        building = not set(self.distribution.commands) <= {"egg_info", "dist_info", "sdist"}
        if building and self.distribution.ext_modules == [NATIVE]:
            self.distribution.ext_modules = extensions()
        super().finalize_options()
        if self.parallel is None:  # the extensions, and the C files of one, compile side by side
            self.parallel = os.cpu_count() or 1

    def build_extensions(self) -> None:
        if (self.parallel or 1) > 1:
            _compile_sources_in_parallel(self.compiler, int(self.parallel))
        super().build_extensions()

    def run(self) -> None:
        if self.extensions:
            _tell("casino-tui: compiling the engine to C (about 15 s on two cores; "
                  "CASINO_TUI_PURE=1 skips it)")
        try:
            super().run()
        except Exception as exc:  # any compiler problem means pure Python
            print(f"casino-tui: not compiling the engine ({exc}); using pure Python",
                  file=sys.stderr)

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(f"casino-tui: could not compile {ext.name} ({exc}); using pure Python",
                  file=sys.stderr)


def _compile_sources_in_parallel(compiler, jobs: int) -> None:  # type: ignore[no-untyped-def]
    """Make ``compiler`` compile the C files of one extension ``jobs`` at a time (distutils
    compiles them one after another): mypyc writes one file per module of the engine, and the
    largest, ``state``'s, takes half the time of all."""
    compile_each = compiler.compile

    def compile_all(sources, *args, **kwargs):  # type: ignore[no-untyped-def]
        if len(sources) < 2:
            return compile_each(sources, *args, **kwargs)
        from concurrent.futures import ThreadPoolExecutor  # gcc runs in processes of its own

        largest_first = sorted(sources, key=lambda source: -os.path.getsize(source))
        with ThreadPoolExecutor(jobs) as pool:
            objects = dict(zip(largest_first, pool.map(
                lambda source: compile_each([source], *args, **kwargs), largest_first),
                strict=True))
        return [obj for source in sources for obj in objects[source]]

    compiler.compile = compile_all


def _tell(line: str) -> None:
    """Say ``line`` where the person installing sees it: pip shows a build's output only with
    -v, so also on the controlling terminal when there is one."""
    print(line, file=sys.stderr, flush=True)
    try:
        with open("/dev/tty", "w") as tty:
            tty.write(line + "\n")
    except OSError:  # no terminal (CI, a pipe), or not a POSIX system
        pass


# move generation in C (casino_tui/engine/_hotpath.py loads it when it is built and current);
# -g0: no debug information (Python's own flags ask for it), which only slows the compile
NATIVE = Extension("casino_tui.engine._cgen", ["casino_tui/engine/_cgen.c"],
                   extra_compile_args=["-O2", "-g0"] if os.name == "posix" else [])


def compiling() -> bool:
    return (os.environ.get("CASINO_TUI_PURE") != "1"
            and platform.python_implementation() == "CPython")


def extensions() -> list:
    """mypyc's extensions of the engine (generating their C code), and the C generator."""
    try:
        from mypyc.build import mypycify
    except ImportError:
        return [NATIVE]
    try:
        # debug_level "0": no debug information (mypyc's default, -g1, made compiling 15%
        # slower); multi_file: a C file per module, compiled side by side (above), not one
        # big file on one core (20.6 CPU-s; state's file alone now takes 10.6)
        compiled = mypycify(COMPILED, opt_level="3", debug_level="0", multi_file=True,
                            group_name="casino_tui.engine._engine")
    except (Exception, SystemExit) as exc:  # a type error (mypyc exits): stay pure
        print(f"casino-tui: mypyc could not compile the engine ({exc}); using pure Python",
              file=sys.stderr)
        return [NATIVE]
    for ext in compiled:  # the group's header sits beside its shared C file, not in build/
        ext.include_dirs.extend(sorted({os.path.dirname(source) for source in ext.sources}))
    return [*compiled, NATIVE]


setup(
    packages=[*find_packages(include=["casino_tui", "casino_tui.*"]), "casino_tui.styles"],
    # styles/ (the .tcss files) ships inside the package as casino_tui/styles
    package_dir={"casino_tui.styles": "styles"},
    package_data={"casino_tui.styles": ["*.tcss"]},
    ext_modules=[NATIVE] if compiling() else [],  # with mypyc's, once building (above)
    cmdclass={"build_ext": OptionalBuildExt},
)
