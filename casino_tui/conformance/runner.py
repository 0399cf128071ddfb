"""Running scenarios: a scenario's checks, each sent to the check that knows its kind.

:func:`check_scenario` gives the errors of one scenario (empty: it passes); :func:`run_data` and
:func:`run_file` check a whole scenario file and give one :class:`Result` per scenario. A field
the runner cannot interpret makes the scenario fail with a message saying so; a crash in the
engine does too. Nothing passes silently.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from casino_tui.engine import CasinoError, Rules, resolve_preset_name

from .checks.claims import _claim_check
from .checks.deals import DEAL_KEYS, _deal_check, _deal_pattern_check
from .checks.draw import _draw_check
from .checks.events import _event_check
from .checks.game_end import _game_end_check
from .checks.grants import _grant_check
from .checks.moves import _move_check
from .checks.scoring import _scoring_check
from .expand import _expand
from .scenario import INFO_KEYS, Check, Json, Result, ScenarioError


def check_scenario(scn: Json, presets: Mapping[str, Any] | None = None,
                   defaults: Mapping[str, Any] | None = None) -> list[str]:
    """Errors of one scenario against the engine (empty list: it passes).

    ``presets`` / ``defaults``: the file's ``presets`` and ``option_defaults`` tables; when given,
    the engine's preset must have exactly those option values.
    """
    errors: list[str] = []
    try:
        checks = _expand(scn)
    except ScenarioError as e:
        return [str(e)]
    if presets is not None:
        for name in sorted({c.preset for c in checks}):
            errors.extend(_preset_errors(name, presets, defaults))
    for c in checks:
        prefix = f"{c.label}: " if c.label else ""
        try:
            errs = _run_check(c)
        except ScenarioError as e:
            errs = [str(e)]
        except CasinoError as e:
            errs = [f"engine error: {type(e).__name__}: {e}"]
        except Exception as e:  # a crash in the engine or a malformed field: never a pass
            errs = [f"crash: {type(e).__name__}: {e}"]
        errors.extend(prefix + x for x in errs)
    return errors


def _preset_errors(name: str, presets: Mapping[str, Any],
                   defaults: Mapping[str, Any] | None) -> list[str]:
    try:
        key = resolve_preset_name(name)
        eng = Rules.preset(key).options()
    except CasinoError as e:
        return [f"preset {name!r}: {e}"]
    spec = presets.get(name, presets.get(key))
    if spec is None:
        return []
    overrides = spec.get("overrides_of_defaults", spec) if isinstance(spec, dict) else None
    if not isinstance(overrides, dict):
        return [f"cannot interpret the file's preset {name!r}"]
    want = {**(defaults or {}), **overrides}
    diffs = [f"{k}: file {v!r}, engine {eng.get(k, '<missing>')!r}"
             for k, v in want.items() if eng.get(k, "<missing>") != v]
    return [f"preset {name} differs from the file: " + "; ".join(diffs)] if diffs else []


def run_data(data: Json, only: Sequence[str] | None = None) -> list[Result]:
    """Check every scenario of a loaded scenario file."""
    scns = data.get("scenarios")
    if not isinstance(scns, list):
        raise ValueError("the file has no 'scenarios' list")
    presets = data.get("presets") if isinstance(data.get("presets"), dict) else None
    defaults = data.get("option_defaults") if isinstance(data.get("option_defaults"),
                                                         dict) else None
    results = []
    for i, scn in enumerate(scns):
        sid = str(scn.get("id", f"#{i}")) if isinstance(scn, dict) else f"#{i}"
        if only and sid not in only:
            continue
        if not isinstance(scn, dict):
            results.append(Result(sid, ["a scenario must be an object"]))
            continue
        results.append(Result(sid, check_scenario(scn, presets, defaults)))
    return results


def run_file(path: str | Path, only: Sequence[str] | None = None) -> list[Result]:
    """Check every scenario of the file at ``path``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return run_data(data, only)


def _run_check(c: Check) -> list[str]:
    pos = c.position
    e = c.expect
    if not set(e) - INFO_KEYS:
        raise ScenarioError("nothing to check: no expectation fields")
    if "initial_table" in pos:
        return _grant_check(c)
    if "event" in pos:
        return _event_check(c)
    if "claimant" in pos:
        return _claim_check(c)
    if "table" in pos or "hand" in pos or "hands" in pos:
        return _move_check(c)
    if "captured" in pos:
        return _scoring_check(c)
    if any(k.startswith("scores_") for k in pos):
        return _game_end_check(c)
    if "stock_top_first" in pos:
        return _deal_pattern_check(c)
    if "hand_size_before" in pos or "stock_size_before" in pos or "after_play_and_draw" in e:
        return _draw_check(c)
    if set(e) & DEAL_KEYS:
        return _deal_check(c)
    raise ScenarioError("cannot tell what this scenario checks (no table, hand, captured piles, "
                        "scores, deal or event in its position)")
