"""The wheel ships everything the installed game needs (the editable install hides gaps)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_contains_the_stylesheets(tmp_path: Path) -> None:
    env = {**os.environ, "CASINO_TUI_PURE": "1"}  # packaging only: skip compiling
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    (wheel,) = tmp_path.glob("casino_tui-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for tcss in sorted((ROOT / "styles").glob("*.tcss")):
        assert f"casino_tui/styles/{tcss.name}" in names, tcss.name
    assert "casino_tui/engine/_hot.py" in names
    assert "casino_tui/app/app.py" in names
