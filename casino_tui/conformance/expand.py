"""A scenario as the checks it makes: the main one, its contrasts, variants and other presets.

``contrast``, ``also`` and ``variants`` (inside ``expect`` or at the scenario's top level) are
sub-checks: each inherits its parent's preset, options and position, overrides what it names and
checks its own expectations; ``also_applies_to`` repeats the checks under other presets.
"""

from __future__ import annotations

import copy
from typing import Any

from .scenario import INFO_KEYS, META_KEYS, SUB_KEYS, Check, Json, ScenarioError


def _expand(scn: Json) -> list[Check]:
    """The scenario's checks: the main one, its contrasts/also/variants, and also_applies_to."""
    unknown = set(scn) - META_KEYS - set(SUB_KEYS)
    if unknown:
        raise ScenarioError(f"unknown scenario field(s) {sorted(unknown)}")
    preset = scn.get("preset")
    if not isinstance(preset, str):
        raise ScenarioError("the scenario names no preset")
    options = scn.get("options") or {}
    if not isinstance(options, dict):
        raise ScenarioError(f"options must be an object, not {options!r}")
    position = scn.get("position") or {}
    expect = scn.get("expect")
    if not isinstance(position, dict) or not isinstance(expect, dict):
        raise ScenarioError("position and expect must be objects")
    expect = dict(expect)
    subs: list[tuple[str, Any]] = []
    for key in SUB_KEYS:
        for src in (expect, scn):
            if key in src:
                subs.append((key, src[key]))
        expect.pop(key, None)
    main = Check("", preset, dict(options), copy.deepcopy(position), expect)
    main.context = _context_of(main)
    checks = [main]
    derived: list[Check] = []
    for key, value in subs:
        entries: list[tuple[str, Any]] = []
        if key == "variants" and isinstance(value, dict):
            entries = [(f"variants[{k}]", {"preset": k, **(v if isinstance(v, dict) else
                                                           {"_statement": v})})
                       for k, v in value.items()]
        elif isinstance(value, list):
            entries = [(f"{key}[{i}]", v) for i, v in enumerate(value)]
        else:
            entries = [(key, value)]
        for label, entry in entries:
            if not isinstance(entry, dict):
                raise ScenarioError(f"cannot interpret {label}: {entry!r}")
            derived.append(_derive(main, entry, label))
    checks.extend(derived)
    if not set(main.expect) - INFO_KEYS and derived:
        checks.remove(main)  # everything is in the contrasts
    extra = scn.get("also_applies_to") or []
    if not isinstance(extra, list):
        raise ScenarioError("also_applies_to must be a list of presets")
    for p in extra:
        for c in [main, *derived]:
            if c.preset != preset:
                continue  # a contrast that names its own preset
            cc = copy.deepcopy(c)
            cc.preset = p
            cc.label = f"[{p}]" + (f" {c.label}" if c.label else "")
            checks.append(cc)
    return checks


def _context_of(check: Check) -> Json:
    """What a contrast inherits from its parent: the move played and how captures are listed."""
    e = check.expect
    ctx: Json = {}
    for k in ("played_card", "legal_captures_complete"):
        if k in e:
            ctx[k] = e[k]
    if "move" in e:
        ctx["move"] = e["move"]  # the move whose result the top-level fields describe
    if isinstance(e.get("legal_moves"), list) and e["legal_moves"]:
        ctx["first_legal"] = e["legal_moves"][0]  # the move after_move describes
    if "played_card" in e and isinstance(e.get("legal_captures"), list) and e["legal_captures"]:
        ctx["capture"] = {"type": "capture", "card": e["played_card"],
                          "piles": e["legal_captures"][0]}
    return ctx


def _derive(parent: Check, entry: Json, label: str) -> Check:
    entry = dict(entry)
    preset = parent.preset
    options = dict(parent.options)
    if "preset" in entry:
        preset = entry.pop("preset")
        options = {}  # a contrast under another preset shows that preset as it is
    if "options" in entry:
        opts = entry.pop("options")
        if not isinstance(opts, dict):
            raise ScenarioError(f"{label}: options must be an object")
        options.update(opts)
    position = copy.deepcopy(parent.position)
    override_keys = set(position) | {"table", "hand", "hands", "player", "dealer",
                                     "num_players"}
    # last_capturer after a move is a result; in a scoring position it is part of the position
    move_result = (bool({"table", "hand", "hands"} & set(parent.position))
                   and ("move" in entry or "move" in parent.context))
    expect: Json = {}
    for k, v in entry.items():
        if k in INFO_KEYS:
            continue
        if k in override_keys and not (k == "last_capturer" and move_result):
            position[k] = v
            continue
        m = _flat_override(k, position)
        if m is not None:
            position[m[0]][m[1]] = v
            continue
        expect[k] = v
    ctx = dict(parent.context)
    child = Check(label, preset, options, position, expect, ctx)
    own = _context_of(child)
    child.context.update(own)
    return child


def _flat_override(key: str, position: Json) -> tuple[str, str] | None:
    """``claimant_captured_so_far_cards`` -> (``claimant_captured_so_far``, ``cards``)."""
    for pk, pv in position.items():
        if isinstance(pv, dict) and key.startswith(pk + "_"):
            sub = key[len(pk) + 1:]
            if sub in pv:
                return pk, sub
    return None
