"""The wheel ships everything the installed game needs (the editable install hides gaps)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_contains_the_stylesheets(tmp_path: Path) -> None:
    env = {**os.environ, "CASINO_TUI_PURE": "1"}  # packaging only: skip compiling
    # Built with this environment's setuptools (the test extras ask for one that makes wheels
    # itself): an isolated build would install setuptools and mypy into a fresh environment
    # first, a minute of the suite's CPU for the same wheel.
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    (wheel,) = tmp_path.glob("casino_tui-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for tcss in sorted((ROOT / "styles").glob("*.tcss")):
        assert f"casino_tui/styles/{tcss.name}" in names, tcss.name
    assert "casino_tui/engine/_hot.py" in names
    assert "casino_tui/app/app.py" in names
    # the benchmarks and load tools are tooling of the repository, not of the game
    moved = ("casino_tui/engine/bench.py", "casino_tui/serve/load.py",
             "casino_tui/serve/loadkit.py", "casino_tui/serve/loadtables.py",
             "casino_tui/app/bench.py",
             "casino_tui/app/statsbench.py", "casino_tui/web/bench.py")
    assert not [n for n in names if n.startswith("benchmarks/") or n in moved]


def test_the_install_compiled_the_hot_path() -> None:
    """With a C compiler, ``pip install`` compiles the hot path; a type error that mypyc rejects
    would otherwise leave the engine silently slower (setup.py falls back to pure Python)."""
    if os.environ.get("CASINO_TUI_PURE") == "1" or not (shutil.which("cc") or
                                                         shutil.which("gcc")):
        pytest.skip("no C compiler (or CASINO_TUI_PURE=1): the pure-Python engine is expected")
    from casino_tui.engine._hotpath import is_compiled, is_native

    assert is_compiled(), ("the engine's hot path is not compiled: run `pip install -e .` and "
                           "read its output (mypyc reports type errors in casino_tui/engine)")
    assert is_native(), ("the C move generator (casino_tui/engine/_cgen.c) is not built or is "
                         "older than its source: run `pip install -e .` and read its output")


def test_a_stale_build_loads_every_compiled_module_from_source() -> None:
    """In a source checkout, an edited engine module must never be shadowed by its older
    compiled build: the finder the engine installs then serves all of them from source."""
    from casino_tui.engine import _hotpath

    finder = _hotpath._SourceFinder(_hotpath.COMPILED)
    for name in _hotpath.COMPILED:
        spec = finder.find_spec(f"casino_tui.engine.{name}")
        assert spec is not None and spec.origin is not None
        assert spec.origin.endswith(f"casino_tui/engine/{name}.py")
    assert finder.find_spec("casino_tui.engine.rules") is None
    setup_py = (ROOT / "setup.py").read_text()
    for name in _hotpath.COMPILED:  # setup.py compiles exactly these
        assert f'"{name}"' in setup_py, name
    assert _hotpath.stale_modules() == [], "rebuild the engine: pip install -e ."


SETUP_SAYS = """
import os, runpy, sys
from setuptools import Distribution
from setuptools.command.build_ext import build_ext
os.chdir(sys.argv[1])
sys.argv = ["setup.py", "--name"]
setup = runpy.run_path("setup.py")  # CASINO_TUI_PURE=1: nothing is compiled here
build_ext.run = lambda self: print("compiler started", flush=True)
cmd = setup["OptionalBuildExt"](Distribution())
cmd.extensions = [setup["NATIVE"]]
sys.stderr = open(os.devnull, "w")  # as under pip, which keeps a build's output to itself
cmd.run()
"""


def test_the_install_says_on_the_terminal_that_it_compiles_the_engine(tmp_path: Path) -> None:
    """The first install compiles for about 15 s behind pip's spinner: setup.py writes a line
    on the terminal itself (pip shows a build's output only with -v), before compiling."""
    from pty_support import PtyApp, app_env

    env = app_env(tmp_path, CASINO_TUI_PURE="1")
    proc = PtyApp([], env, argv=[sys.executable, "-c", SETUP_SAYS, str(ROOT)])
    try:
        proc.wait_for("compiler started")
        assert proc.wait_exit() == 0
        text = proc.text()
        said = "casino-tui: compiling the engine to C (about 15 s on two cores; " \
               "CASINO_TUI_PURE=1 skips it)"
        assert said in text and text.index(said) < text.index("compiler started")
    finally:
        proc.close()
